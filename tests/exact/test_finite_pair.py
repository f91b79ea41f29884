"""FiniteLossPair against the set form of F2 (I2), closed forms, I1/I3 and composition identities (F6, F8, I16)."""

from fractions import Fraction
from itertools import product
from math import comb

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.finite_pair import MAX_ATOMS, FiniteLossPair
from verialloc.mechanisms import DiscretePair, RandomizedResponse
from verialloc.mechanisms.base import mpq

TOL = mp.mpf(10) ** -35  # rounding slack of 40-digit arithmetic (masses <= 1)


@st.composite
def rational_pairs(draw, max_atoms=6, allow_sub=False):
    """Exact masses (Fractions) with zeros on either side; total 1 unless allow_sub."""
    n = draw(st.integers(1, max_atoms))
    a = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n).filter(any))
    b = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n).filter(any))
    sa = sum(a) + (draw(st.integers(0, 3)) if allow_sub else 0)
    sb = sum(b) + (draw(st.integers(0, 3)) if allow_sub else 0)
    return [Fraction(x, sa) for x in a], [Fraction(y, sb) for y in b]


epsilons = st.integers(-300, 300).map(lambda i: Fraction(i, 100))


def set_form(a, b, epsilon):
    """H_{e^ε}(A‖B) = max_S A(S) − e^ε B(S) over all subsets S (F2 set form, I2), at the current precision."""
    kappa = mp.exp(mpq(epsilon))
    best = mp.mpf(0)
    for chosen in product((False, True), repeat=len(a)):
        best = max(best, mp.fsum(mpq(x) - kappa * mpq(y) for x, y, c in zip(a, b, chosen) if c))
    return best


def close(x, y, tol=TOL):
    return abs(x - y) <= tol * max(1, abs(y))


@given(rational_pairs(), epsilons)
def test_delta_equals_set_form_both_directions(masses, epsilon):
    a, b = masses
    with mp.workdps(40):
        pair = FiniteLossPair(a, b)
        assert close(pair.delta(epsilon, "remove"), set_form(a, b, epsilon))
        assert close(pair.delta(epsilon, "add"), set_form(b, a, epsilon))
        assert pair.swap().delta(epsilon, "remove") == pair.delta(epsilon, "add")


@given(rational_pairs())
def test_tv_at_zero_is_exact_and_symmetric(masses):
    """I3 at ε = 0: both directions equal TV = ½Σ|A_i − B_i| (exact rational)."""
    a, b = masses
    tv = sum(abs(x - y) for x, y in zip(a, b)) / 2
    with mp.workdps(40):
        pair = FiniteLossPair(a, b)
        for d in ("remove", "add"):
            assert close(pair.delta(0, d), mpq(tv))


@given(rational_pairs(), epsilons)
def test_reversal_identity_i3(masses, epsilon):
    """H_κ(A‖B) = 1 − κ + κ H_{1/κ}(B‖A) for probability vectors (F2, I3)."""
    a, b = masses
    with mp.workdps(40):
        pair = FiniteLossPair(a, b)
        kappa = mp.exp(mpq(epsilon))
        assert close(pair.delta(epsilon, "remove"), 1 - kappa + kappa * pair.delta(-epsilon, "add"), TOL * kappa)


@given(rational_pairs(), epsilons, epsilons)
def test_bounds_monotonicity_and_convexity_i1(masses, e1, e2):
    a, b = masses
    lo_e, hi_e = min(e1, e2), max(e1, e2)
    with mp.workdps(40):
        pair = FiniteLossPair(a, b)
        for d in ("remove", "add"):
            lo, hi = pair.delta(lo_e, d), pair.delta(hi_e, d)
            for e, v in ((lo_e, lo), (hi_e, hi)):
                assert max(0, 1 - mp.exp(mpq(e))) - TOL <= v <= 1 + TOL
            assert hi <= lo + TOL
            k1, k2 = mp.exp(mpq(lo_e)), mp.exp(mpq(hi_e))
            assert pair.delta(mp.log((k1 + k2) / 2), d) <= (lo + hi) / 2 + TOL


def test_randomized_response_closed_form_and_inverse():
    """Single RR step: δ(ε) = (e^{ε0} − e^ε)/(1 + e^{ε0}) on [0, ε0], so ε(δ) = ln(e^{ε0} − δ(1 + e^{ε0}))."""
    with mp.workdps(40):
        mech = RandomizedResponse("1.5")
        pair = FiniteLossPair.from_mechanism(mech)
        x = mp.exp(mp.mpf("1.5"))
        for eps in ("0", "0.4", "1.2"):
            for d in ("remove", "add"):
                assert close(pair.delta(eps, d), (x - mp.exp(mp.mpf(eps))) / (1 + x))
                assert close(pair.delta(eps, d), mech.delta(eps, d))
        for target in ("1e-3", "0.2", "0.4"):
            assert close(pair.epsilon(target), mp.log(x - mp.mpf(target) * (1 + x)))
        assert close(pair.epsilon(0), mp.mpf("1.5"))


@given(rational_pairs(), st.integers(1, 999).map(lambda i: Fraction(i, 1000)))
def test_epsilon_is_the_smallest_admissible(masses, target):
    a, b = masses
    with mp.workdps(40):
        pair = FiniteLossPair(a, b)
        for d in ("remove", "add"):
            x, y = (a, b) if d == "remove" else (b, a)
            at_infinity = sum(u for u, v in zip(x, y) if v == 0)
            eps = pair.epsilon(target, d)
            if target < at_infinity:
                assert eps == mp.inf
                assert set_form(x, y, 50) > mpq(target)  # δ(50) ≥ mass at +inf > target
                continue
            assert mp.isfinite(eps)
            assert set_form(x, y, to_q(eps)) <= mpq(target) * (1 + TOL) + TOL
            below = to_q(eps - mp.mpf(10) ** -15)
            if set_form(x, y, below) > set_form(x, y, to_q(eps)):  # δ not flat just below ε*
                assert set_form(x, y, below) > mpq(target)


def to_q(value: mp.mpf) -> Fraction:
    man, exp = value.man_exp
    return Fraction(man) * Fraction(2) ** exp


def test_epsilon_special_values():
    with mp.workdps(30):
        pair = FiniteLossPair([Fraction(1, 4), Fraction(3, 4)], [0, 1])  # mass 1/4 at loss +inf
        assert pair.epsilon("0.2") == mp.inf
        assert close(pair.epsilon("0.25"), mp.log(mp.mpf(3) / 4))
        assert pair.epsilon(1) == -mp.inf
        assert close(pair.swap().epsilon(0), mp.log(mp.mpf(4) / 3))  # pure-DP ε of (B, A)
        sub = FiniteLossPair([Fraction(1, 2), 0], [Fraction(1, 4), Fraction(1, 4)])  # total A = 1/2
        assert sub.epsilon("0.6") == -mp.inf
        assert abs(sub.epsilon("0.25")) <= TOL  # 1/2 − κ/4 = 1/4 at κ = 1


@given(rational_pairs(max_atoms=3), rational_pairs(max_atoms=3), epsilons)
def test_compose_is_the_product_pair(m1, m2, epsilon):
    (a1, b1), (a2, b2) = m1, m2
    a = [x * u for x in a1 for u in a2]
    b = [y * v for y in b1 for v in b2]
    with mp.workdps(40):
        pair = FiniteLossPair(a1, b1).compose(FiniteLossPair(a2, b2))
        for d in ("remove", "add"):
            x, y = (a, b) if d == "remove" else (b, a)
            assert close(pair.delta(epsilon, d), set_form(x, y, epsilon))
        # Rényi moments multiply under products (I16): Σ A²/B over B > 0 (A ≪ B not needed for the check)
        ma = sum(x * x / y for x, y in zip(a1, b1) if y) * sum(x * x / y for x, y in zip(a2, b2) if y)
        assert close(mp.fsum(x * x / y for x, y in zip(pair.a, pair.b) if y), mpq(ma))


@given(rational_pairs(max_atoms=4), st.integers(1, 4), epsilons)
def test_power_equals_repeated_compose(masses, epochs, epsilon):
    a, b = masses
    with mp.workdps(40):
        base = FiniteLossPair(a, b)
        slow = base
        for _ in range(epochs - 1):
            slow = slow.compose(base)
        fast = base.power(epochs)
        nonnull = sum(1 for x, y in zip(a, b) if x or y)
        if epochs > 1:
            assert len(fast) <= comb(nonnull + epochs - 1, epochs)
            assert len(set(fast.labels)) == len(fast)
        for d in ("remove", "add"):
            assert close(fast.delta(epsilon, d), slow.delta(epsilon, d))
        ta, tb = fast.total_masses()
        assert close(ta, mp.mpf(1)) and close(tb, mp.mpf(1))


def test_power_support_is_multisets():
    with mp.workdps(20):
        pair = FiniteLossPair([Fraction(1, 3)] * 3, [Fraction(1, 3)] * 3).power(4)
        assert len(pair) == comb(3 + 4 - 1, 4)
        assert sorted(pair.labels) == sorted(
            tuple((i, c) for i, c in enumerate(v) if c) for v in product(range(5), repeat=3) if sum(v) == 4
        )


def test_caps_and_validation():
    big = FiniteLossPair([1] + [0] * 2999, [0] * 2999 + [1])
    with pytest.raises(UnsupportedRequest, match=r"^epochs=3 is not supported here: .*at most 3000000"):
        FiniteLossPair([Fraction(1, 300)] * 300, [Fraction(1, 300)] * 300).power(3)
    with pytest.raises(UnsupportedRequest, match=r"^atoms=9000000"):
        big.compose(big)
    assert MAX_ATOMS == 3_000_000
    with pytest.raises(InvalidParameter, match=r"^a\[1\]=-1 is invalid: must be a finite mass >= 0"):
        FiniteLossPair([1, -1], [0, 1])
    with pytest.raises(InvalidParameter, match=r"^b=length 1 is invalid"):
        FiniteLossPair([1, 0], [1])
    with pytest.raises(InvalidParameter, match=r"^epochs=0 is invalid: must be an integer >= 1"):
        big.power(0)
    with pytest.raises(InvalidParameter, match=r"^direction=both is invalid: must be one of remove\|add$"):
        big.delta(0, "both")
    with pytest.raises(InvalidParameter, match=r"^delta=1.5 is invalid: must lie in \[0, 1\]"):
        big.epsilon("1.5")
    with pytest.raises(InvalidParameter, match=r"^epsilon=nan is invalid"):
        big.delta(float("nan"))
    with pytest.raises(InvalidParameter, match=r"^mechanism="):
        FiniteLossPair.from_mechanism("rr")


def test_from_mechanism_matches_single_step_profile():
    mech = DiscretePair(["1/2", "1/2", "0"], ["0", "1/3", "2/3"])
    with mp.workdps(40):
        pair = FiniteLossPair.from_mechanism(mech)
        for eps in ("-1", "0", "0.7"):
            for d in ("remove", "add"):
                assert close(pair.delta(eps, d), mech.delta(eps, d))
