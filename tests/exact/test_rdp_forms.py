"""Exact allocation RDP (remove direction): three independent forms against each other and closed forms.

F38 (partitions, E3 coefficients) vs F40 (compositions) vs the generating function, exactly in the
Fraction/sympy backends and to 30+ digits in mpmath; I26–I28, §12.3 of formulas.md, E4, [001] App. B.1.
"""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
from hypothesis import given, strategies as st
from sympy.utilities.iterables import partitions as sympy_partitions

from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.arith import FractionArith, MPArith
from verialloc.exact.rdp import (
    FORMS,
    allocation_moment,
    allocation_moment_symbolic,
    allocation_rdp,
    allocation_rdp_curve,
    poisson_rdp,
)
from verialloc.exact.rdp_genfunc import _miller_power
from verialloc.exact.rdp_partition import count_partitions, partition_terms
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse

small_alpha = st.integers(2, 8)
small_steps = st.integers(1, 6)
sigmas = st.decimals(min_value="0.3", max_value="20", places=3).map(str)


@st.composite
def rational_pairs(draw):
    """Absolutely continuous rational pairs on 2–4 outputs (Q > 0 everywhere, P may vanish)."""
    size = draw(st.integers(2, 4))
    p = draw(st.lists(st.integers(0, 9), min_size=size, max_size=size).filter(any))
    q = draw(st.lists(st.integers(1, 9), min_size=size, max_size=size))
    return DiscretePair([Fraction(x, sum(p)) for x in p], [Fraction(x, sum(q)) for x in q])


def mpf_of(x: Fraction) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator


def rel_diff(a, b) -> mp.mpf:
    return abs(a - b) / abs(b)


def brute_force_moment(pair: DiscretePair, steps: int, alpha: int) -> Fraction:
    """E_{Q^t}[((1/t) Σ_i P(ω_i)/Q(ω_i))^α] by enumerating Ω^t (definition of F38, no expansion)."""
    p, q = pair.exact_probabilities()
    total = Fraction(0)
    for omega in itertools.product(range(len(q)), repeat=steps):
        weight = math.prod(q[i] for i in omega)
        total += weight * (sum(p[i] / q[i] for i in omega) / steps) ** alpha
    return total


# --- exact agreement of the three forms --------------------------------------------------------------


@given(
    alpha=small_alpha,
    steps=small_steps,
    mech=st.sampled_from([Gaussian("0.7"), Laplace("1.5"), RandomizedResponse("0.8")]),
)
def test_forms_agree_symbolically(alpha, steps, mech):
    values = [allocation_moment_symbolic(mech, steps, alpha, form) for form in FORMS]
    assert sp.cancel(values[0] - values[2]) == 0
    assert sp.cancel(values[1] - values[2]) == 0


@given(pair=rational_pairs(), alpha=small_alpha, steps=small_steps)
def test_forms_agree_exactly_on_rational_pairs(pair, alpha, steps):
    values = [allocation_moment_symbolic(pair, steps, alpha, form) for form in FORMS]
    assert values[0] == values[1] == values[2]
    if len(pair.q) ** steps <= 256:
        assert values[2] == brute_force_moment(pair, steps, alpha)


def test_gaussian_symbolic_matches_hand_expansion():
    """t = 2: E[((r1 + r2)/2)^α] = 2^-α Σ_j C(α, j) D_j D_{α−j}, D_p = u^{p(p−1)} (F14)."""
    u = sp.Symbol("u", positive=True)
    for alpha in range(2, 9):
        hand = sp.Rational(1, 2**alpha) * sum(
            math.comb(alpha, j) * u ** (j * (j - 1) + (alpha - j) * (alpha - j - 1)) for j in range(alpha + 1)
        )
        for form in FORMS:
            assert sp.expand(allocation_moment_symbolic(Gaussian(1), 2, alpha, form) - hand) == 0


# --- numeric agreement -------------------------------------------------------------------------------


@given(sigma=sigmas, alpha=st.integers(2, 25), steps=st.one_of(st.integers(1, 30), st.integers(31, 10**6)))
def test_partition_and_genfunc_agree_at_50_digits(sigma, alpha, steps):
    mech = Gaussian(sigma)
    with mp.workdps(50):
        moments = mech.moments(alpha)
        forms = ["partition", "genfunc"] + (
            ["multinomial"] if math.comb(alpha + steps - 1, steps - 1) <= 20_000 else []
        )
        d = {form: allocation_moment(moments, steps, alpha, form, MPArith()) for form in forms}
        for form in forms:
            assert rel_diff(d[form], d["genfunc"]) < mp.mpf(10) ** -45
    r_part = allocation_rdp(mech, steps, alpha, digits=30, form="partition")
    r_gen = allocation_rdp(mech, steps, alpha, digits=30)
    with mp.workdps(60):
        assert rel_diff(r_part, r_gen) < mp.mpf(10) ** -30


@given(pair=rational_pairs(), alpha=st.integers(2, 30), steps=st.sampled_from([1, 2, 3, 7, 29, 31, 1000]))
def test_mpmath_backend_against_exact_fractions(pair, alpha, steps):
    """Fast dot product and both series-power branches (t < α, t >= α) against exact rationals."""
    exact_moments = [Fraction(int(v.p), int(v.q)) for v in pair.moments_symbolic(alpha).values]
    exact = allocation_moment(exact_moments, steps, alpha, "genfunc", FractionArith())
    with mp.workdps(50):
        approx = allocation_moment([mpf_of(x) for x in exact_moments], steps, alpha, "genfunc", MPArith())
        assert rel_diff(approx, mpf_of(exact)) < mp.mpf(10) ** -45


# --- combinatorics: I26, E4, [001] App. B.1 ----------------------------------------------------------


@pytest.mark.parametrize("alpha", range(2, 13))
@pytest.mark.parametrize("steps", [1, 2, 3, 5, 8, 12, 15])
def test_partition_weights_sum_to_t_power_alpha(alpha, steps):
    """I26: Σ binom(t; C(Π)) binom(α; Π) = t^α over Π_t(α), also for α > t; the partitions are all of Π_t(α)."""
    terms = list(partition_terms(alpha, steps))
    assert sum(c for _, c in terms) == steps**alpha
    mine = sorted(tuple(sorted(groups)) for groups, _ in terms)
    reference = sorted(tuple(sorted(part.items())) for part in sympy_partitions(alpha) if sum(part.values()) <= steps)
    assert mine == reference
    assert count_partitions(alpha, steps) == len(reference)


def test_e4_example_partition():
    """E4: [1, 2, 3, 3] sums to 9 (not 8) and has C(Π) = [1, 1, 2]; its E3 coefficient."""
    steps = 10
    terms = dict(partition_terms(9, steps))
    groups = ((3, 2), (2, 1), (1, 1))
    assert groups in terms
    assert sum(p * c for p, c in groups) == 9 and sorted(c for _, c in groups) == [1, 1, 2]
    hand = (10 * 9 * 8 * 7 // math.factorial(2)) * (math.factorial(9) // (6 * 6 * 2 * 1))
    assert terms[groups] == hand
    assert groups not in dict(partition_terms(8, steps))


def test_liew_takahashi_worked_example():
    """[001] App. B.1, n = λ = 3: [2,1] → 18, [1,1,1] → 6, [3] → 3, total 27 = 3^3."""
    terms = dict(partition_terms(3, 3))
    assert terms == {((2, 1), (1, 1)): 18, ((1, 3),): 6, ((3, 1),): 3}
    assert sum(terms.values()) == 27


# --- closed forms and invariants ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "mech, d2",
    [
        (Gaussian("0.8"), lambda: mp.exp(1 / mp.mpf("0.64"))),
        (Gaussian(20), lambda: mp.exp(mp.mpf(1) / 400)),
        (RandomizedResponse(1), lambda: (mp.e**2 - mp.e + 1) / mp.e),  # (x³ + 1)/(x(1 + x)), x = e^ε0
        (DiscretePair(["1/3", "1/2", "1/6"], ["1/2", "1/4", "1/4"]), lambda: mp.mpf(2) / 9 + 1 + mp.mpf(1) / 9),
    ],
)
@pytest.mark.parametrize("steps", [1, 2, 37, 10**6])
def test_alpha_two_closed_form(mech, d2, steps):
    """I27: R_2 = ln(1 + (D_2 − 1)/t), D_2 from F14 / hand sums."""
    with mp.workdps(80):
        expected = mp.log1p((d2() - 1) / steps)
    with mp.workdps(60):
        for form in FORMS if steps < 1000 else ["partition", "genfunc"]:
            assert rel_diff(allocation_rdp(mech, steps, 2, form=form), expected) < mp.mpf(10) ** -30


@pytest.mark.parametrize("sigma", ["0.5", "1", "3.7"])
def test_single_step_is_gaussian_rdp(sigma):
    """I27: t = 1 gives α/(2σ²) (F14); epochs multiply it (F21)."""
    with mp.workdps(60):
        s = mpf_of(Fraction(sigma))
        for alpha in (2, 3, 7, 40):
            assert rel_diff(allocation_rdp(Gaussian(sigma), 1, alpha), alpha / (2 * s**2)) < mp.mpf(10) ** -30
            assert (
                rel_diff(allocation_rdp(Gaussian(sigma), 1, alpha, epochs=3), 3 * alpha / (2 * s**2))
                < mp.mpf(10) ** -30
            )


TABLE_12_3 = {  # formulas.md §12.3: (σ, t) -> R_α for α = 2, 3, 5, 10
    (1, 2): ["0.620114507", "0.9772292964", "1.834372448", "4.30699043"],
    (1, 10): ["0.1585650787", "0.2518374983", "0.5328320321", "2.698662641"],
    (1, 1000): ["0.001716807271", "0.002577731953", "0.004304801125", "0.008654920281"],
    (2, 2): ["0.1327922393", "0.2001489126", "0.3377224794", "0.7181867798"],
    (2, 10): ["0.02800666789", "0.04210478987", "0.07052005818", "0.1432619485"],
    (2, 1000): ["0.0002839850891", "0.0004259890687", "0.0007100199367", "0.001420231106"],
}


@pytest.mark.parametrize("key", sorted(TABLE_12_3))
def test_reference_table(key):
    sigma, steps = key
    for alpha, printed in zip((2, 3, 5, 10), TABLE_12_3[key]):
        assert rel_diff(allocation_rdp(Gaussian(sigma), steps, alpha), mp.mpf(printed)) < mp.mpf("1e-9")


def test_two_dimensional_integration_values():
    """§12.3: D_2, D_3 at t = 2, σ = 0.8 equal 2-D numerical integration (2.8853666, 30.723397)."""
    mech = Gaussian("0.8")
    for alpha, integral in ((2, "2.8853666"), (3, "30.723397")):
        d = mp.exp((alpha - 1) * allocation_rdp(mech, 2, alpha))
        assert abs(d - mp.mpf(integral)) < mp.mpf("1e-6")


@pytest.mark.parametrize("mech", [Gaussian("0.4"), Gaussian(3), Laplace("0.5"), RandomizedResponse(2)])
@pytest.mark.parametrize("steps", [1, 2, 9, 500, 10**6])
def test_monotone_and_convex_in_alpha(mech, steps):
    """I28: R_α non-decreasing, (α − 1) R_α convex; curve = pointwise partition form."""
    curve = allocation_rdp_curve(mech, steps, 40)
    with mp.workdps(50):
        r = [curve[a] for a in range(2, 41)]
        assert all(x <= y for x, y in zip(r, r[1:]))
        lnd = [(a - 1) * curve[a] for a in range(2, 41)]
        assert all(
            lnd[i - 1] + lnd[i + 1] - 2 * lnd[i] >= -(mp.mpf(10) ** -25) * abs(lnd[i]) for i in range(1, len(lnd) - 1)
        )
        for alpha in (2, 11, 23):
            assert rel_diff(curve[alpha], allocation_rdp(mech, steps, alpha, form="partition")) < mp.mpf(10) ** -30


@given(sigma=sigmas, alpha=st.integers(2, 60), steps=st.integers(1, 10**6))
def test_below_unamplified_gaussian(sigma, alpha, steps):
    """I28 / F57: R_α <= α/(2σ²), strict for t >= 2."""
    r = allocation_rdp(Gaussian(sigma), steps, alpha)
    with mp.workdps(60):
        bound = alpha / (2 * mpf_of(Fraction(sigma)) ** 2)
        assert r < bound if steps >= 2 else rel_diff(r, bound) < mp.mpf(10) ** -30


# --- precision -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mech",
    [
        Gaussian(1),
        Gaussian(20),
        Gaussian(10**4),
        Laplace(4),
        RandomizedResponse("0.001"),
        DiscretePair(["1/2", "1/2"], ["500000001/1000000000", "499999999/1000000000"]),
    ],
)
@pytest.mark.parametrize("alpha", [2, 5, 30])
def test_large_t_has_requested_digits(mech, alpha):
    """At t = 10^6, D_α − 1 is tiny; R_α (30 digits) vs the partition form at 130 working digits."""
    steps = 10**6
    with mp.workdps(130):
        moments = mech.moments(alpha)
        reference = mp.log(allocation_moment(moments, steps, alpha, "partition", MPArith())) / (alpha - 1)
        assert rel_diff(allocation_rdp(mech, steps, alpha, digits=30), reference) < mp.mpf(10) ** -30
        assert rel_diff(allocation_rdp_curve(mech, steps, alpha, digits=30)[alpha], reference) < mp.mpf(10) ** -30


def test_equal_pair_has_zero_rdp():
    pair = DiscretePair(["1/4", "3/4"], ["1/4", "3/4"])
    assert allocation_rdp(pair, 5, 3) == 0 and poisson_rdp(pair, 5, "0.5", 3) == 0


# --- Poisson -------------------------------------------------------------------------------------------


@given(
    pair=rational_pairs(),
    alpha=st.integers(2, 12),
    lam=st.fractions(Fraction(1, 50), 1, max_denominator=50),
    steps=st.integers(1, 5),
)
def test_poisson_against_mixture_sum(pair, alpha, lam, steps):
    """D_α(λP + (1−λ)Q ‖ Q) = Σ_i Q_i (m_i/Q_i)^α summed exactly over the outputs (F5), times steps."""
    p, q = pair.exact_probabilities()
    d = sum(qi * ((lam * pi + (1 - lam) * qi) / qi) ** alpha for pi, qi in zip(p, q))
    with mp.workdps(80):
        expected = steps * mp.log(mpf_of(d)) / (alpha - 1)
        got = poisson_rdp(pair, steps, lam, alpha)
        assert got == 0 if d == 1 else rel_diff(got, expected) < mp.mpf(10) ** -30


@pytest.mark.parametrize("sigma", ["0.5", "2", "50"])
def test_poisson_closed_forms(sigma):
    """Rate 1: steps·epochs·α/(2σ²) (F14, F21); α = 2: ln(1 + λ²(e^{1/σ²} − 1)) (F5)."""
    with mp.workdps(60):
        s = mpf_of(Fraction(sigma))
        assert rel_diff(poisson_rdp(Gaussian(sigma), 4, 1, 6, epochs=2), 8 * 6 / (2 * s**2)) < mp.mpf(10) ** -30
        expected = 3 * mp.log1p(mp.mpf("0.001") ** 2 * mp.expm1(1 / s**2))
        assert rel_diff(poisson_rdp(Gaussian(sigma), 3, "0.001", 2), expected) < mp.mpf(10) ** -30


# --- infinite and invalid --------------------------------------------------------------------------------


def test_not_absolutely_continuous_is_infinite():
    pair = DiscretePair([0.5, 0.5], [1, 0])
    assert allocation_rdp(pair, 3, 2) == mp.inf
    assert allocation_rdp(pair, 3, 4, form="partition") == mp.inf
    assert all(v == mp.inf for v in allocation_rdp_curve(pair, 3, 5).values())
    assert poisson_rdp(pair, 3, "0.1", 2) == mp.inf
    assert allocation_moment_symbolic(pair, 3, 2, "genfunc") == sp.oo


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: allocation_rdp(Gaussian(1), 3, 1), "alpha"),
        (lambda: allocation_rdp(Gaussian(1), 3, 2.5), "alpha"),
        (lambda: allocation_rdp(Gaussian(1), 0, 2), "steps"),
        (lambda: allocation_rdp(Gaussian(1), 3, 2, epochs=0), "epochs"),
        (lambda: allocation_rdp(Gaussian(1), 3, 2, form="fourier"), "form"),
        (lambda: allocation_rdp(Gaussian(1), 3, 2, digits=2), "digits"),
        (lambda: allocation_rdp_curve(Gaussian(1), 3, 1), "alpha_max"),
        (lambda: poisson_rdp(Gaussian(1), 3, 0, 2), "rate"),
        (lambda: poisson_rdp(Gaussian(1), 3, "1.5", 2), "rate"),
        (lambda: poisson_rdp(Gaussian(1), 3, "0.5", 1), "alpha"),
        (lambda: allocation_moment_symbolic(Gaussian(1), 3, 1, "genfunc"), "alpha"),
    ],
)
def test_invalid_parameters_are_named(call, name):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name and name in str(info.value)


def test_unsupported_sizes_are_named():
    with pytest.raises(UnsupportedRequest) as info:
        allocation_rdp(Gaussian(1), 10**6, 3, form="multinomial")
    assert info.value.name == "steps"
    with pytest.raises(UnsupportedRequest) as info:
        allocation_rdp(Gaussian(1), 1000, 100, form="partition")
    assert info.value.name == "alpha"


# --- large orders ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mech", [Gaussian(2), Laplace(1)])
def test_binary_powering_against_miller_recurrence(mech):
    """t < α uses binary powering; Miller's recurrence (valid for any t, with cancellation for t < α) at 300 digits."""
    alpha, steps = 200, 37
    with mp.workdps(300):
        moments = mech.moments(alpha)
        a = [mp.mpf(1)] + [moments[p] / math.factorial(p) for p in range(1, alpha + 1)]
        miller = _miller_power(a, steps, MPArith())[alpha] * math.factorial(alpha) / mp.mpf(steps) ** alpha
    with mp.workdps(50):
        d = allocation_moment(mech.moments(alpha), steps, alpha, "genfunc", MPArith())
        assert rel_diff(d, miller) < mp.mpf(10) ** -45


def test_large_alpha_single_step():
    assert rel_diff(allocation_rdp(Gaussian(2), 1, 300), mp.mpf(300) / 8) < mp.mpf(10) ** -30


def test_large_alpha_large_t_matches_higher_precision():
    """α = 2000, t = 10^6: 30-digit result against a 60-digit run."""
    mech = Gaussian(5)
    r30 = allocation_rdp(mech, 10**6, 2000, digits=30)
    r60 = allocation_rdp(mech, 10**6, 2000, digits=60)
    with mp.workdps(70):
        assert rel_diff(r30, r60) < mp.mpf(10) ** -30
