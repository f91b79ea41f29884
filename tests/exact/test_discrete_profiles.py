"""Count-vector profiles of allocation / Poisson over finite pairs vs full sequence enumeration and identities.

Brute force works straight from the definitions (F11, F23, F46): every ω ∈ [m]^t, the average over all
k-subsets S of ∏_{i∈S} P(ω_i) ∏_{i∉S} Q(ω_i), products of mixtures for Poisson, products of sequences for
epochs, then H_{e^ε} (F2) at 60 digits (exact Fractions for rational pairs at ε = 0).
"""

from fractions import Fraction
from itertools import combinations, product
from math import comb

import mpmath as mp
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.discrete_profiles import (
    _binomial_capped,
    allocation_pair,
    composition_sizes,
    discrete_delta,
    discrete_epsilon,
    poisson_pair,
    scheme_pair,
)
from verialloc.exact.finite_pair import MAX_ATOMS, FiniteLossPair
from verialloc.mechanisms import DiscretePair, Gaussian, RandomizedResponse
from verialloc.mechanisms.base import mpq

REL = mp.mpf(10) ** -30
TIE = mp.mpf(10) ** -37  # 40-digit rounding of exactly tied atoms (A_i = κB_i at ε = 0)
TIE_REL = mp.mpf(10) ** -50  # brute_delta: 60-digit rounding of an atom exactly on a = κb


@st.composite
def discrete_pairs(draw, max_outputs=3):
    m = draw(st.integers(2, max_outputs))
    p = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m).filter(any))
    q = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m).filter(any))
    return DiscretePair([Fraction(x, sum(p)) for x in p], [Fraction(y, sum(q)) for y in q])


mechanisms = st.one_of(
    discrete_pairs(),
    st.sampled_from(["1/2", "1", "2.5"]).map(RandomizedResponse),
)
epsilons = st.integers(-200, 300).map(lambda i: Fraction(i, 100))
rates = st.integers(1, 8).map(lambda i: Fraction(i, 8))


def probabilities(mech):
    """Exact Fractions for rational pairs, else 60-digit mpf (brute force then runs at 60 digits)."""
    exact = mech.exact_probabilities()
    return exact if exact is not None else mech.probabilities()


def at_60_digits(function):
    def wrapped(*args):
        with mp.workdps(60):
            return function(*args)

    return wrapped


@at_60_digits
def brute_allocation(mech, t, k):
    p, q = probabilities(mech)
    atoms = []
    for omega in product(range(len(p)), repeat=t):
        a = sum(_prod(p[omega[i]] if i in s else q[omega[i]] for i in range(t)) for s in combinations(range(t), k))
        atoms.append((a / comb(t, k), _prod(q[o] for o in omega)))
    return atoms


@at_60_digits
def brute_poisson(mech, t, lam):
    p, q = probabilities(mech)
    lam = lam if mech.exact_probabilities() is not None else mpq(lam)
    mix = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    return [(_prod(mix[o] for o in omega), _prod(q[o] for o in omega)) for omega in product(range(len(p)), repeat=t)]


@at_60_digits
def brute_epochs(atoms, epochs):
    return [(_prod(a for a, _ in block), _prod(b for _, b in block)) for block in product(atoms, repeat=epochs)]


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


@at_60_digits
def brute_delta(atoms, epsilon, direction):
    """H_{e^ε} (F2) over unmerged sequence atoms; exact for rational masses at ε = 0."""
    pairs = atoms if direction == "remove" else [(b, a) for a, b in atoms]
    if epsilon == 0 and all(isinstance(a, Fraction) for a, _ in pairs):
        return mpq(sum(max(a - b, Fraction(0)) for a, b in pairs))
    kappa = mp.exp(mpq(epsilon))
    as_mp = [(mpq(a) if isinstance(a, Fraction) else a, mpq(b) if isinstance(b, Fraction) else b) for a, b in pairs]
    # an atom within 1e-50 relative of the line a = κb is an exact tie rounded at 60 digits (randomized response at
    # ε = ε0: a/b = e^ε0 = κ; a random seed drew it: reference 3.8e-65 against the exact 0)
    return mp.fsum(a - kappa * b for a, b in as_mp if a - kappa * b > TIE_REL * (a + kappa * b))


@at_60_digits
def matches(value, reference):
    return abs(value - reference) <= REL * abs(reference) + TIE


@given(mechanisms, st.integers(1, 5), st.integers(1, 5), epsilons)
@example(DiscretePair(["1/2", "1/2", "0"], ["0", "1/3", "2/3"]), 5, 3, Fraction(1, 10))
@example(DiscretePair(["1/2", "1/2", "0"], ["0", "1/3", "2/3"]), 5, 2, Fraction(0))
@example(RandomizedResponse("2.5"), 5, 2, Fraction(-1, 2))
def test_allocation_matches_sequence_enumeration(mech, t, k, epsilon):
    k = min(k, t)
    atoms = brute_allocation(mech, t, k)
    with mp.workdps(40):
        pair = allocation_pair(mech, t, k)
        for d in ("remove", "add"):
            assert matches(pair.delta(epsilon, d), brute_delta(atoms, epsilon, d))
    assert len(pair) <= comb(t + mech.size - 1, mech.size - 1)


@given(mechanisms, st.integers(1, 5), rates, epsilons)
def test_poisson_matches_sequence_enumeration(mech, t, lam, epsilon):
    t = min(t, 4) if mech.size == 3 else t
    atoms = brute_poisson(mech, t, lam)
    with mp.workdps(40):
        pair = poisson_pair(mech, t, lam)
        for d in ("remove", "add"):
            assert matches(pair.delta(epsilon, d), brute_delta(atoms, epsilon, d))


@given(mechanisms, st.integers(1, 3), st.integers(1, 3), st.booleans(), epsilons)
def test_epochs_match_products_of_sequences(mech, t, epochs, poisson, epsilon):
    t = 1 if mech.size == 3 and epochs == 3 else t
    lam = Fraction(1, 3)
    atoms = brute_epochs(brute_poisson(mech, t, lam) if poisson else brute_allocation(mech, t, 1), epochs)
    for d in ("remove", "add"):
        with mp.workdps(40):
            pair = scheme_pair(
                mech, "poisson" if poisson else "allocation", t, epochs=epochs, rate=lam if poisson else None
            )
            assert matches(pair.delta(epsilon, d), brute_delta(atoms, epsilon, d))


@given(mechanisms, st.integers(1, 4), epsilons, st.sampled_from(["remove", "add", "both"]))
def test_certified_front_end_matches_enumeration_to_30_digits(mech, t, epsilon, direction):
    t = min(t, 3) if mech.size == 3 else t
    atoms = brute_allocation(mech, t, 1)
    ref = max(brute_delta(atoms, epsilon, d) for d in (("remove", "add") if direction == "both" else (direction,)))
    value = discrete_delta(mech, "allocation", t, epsilon, direction, digits=30)
    with mp.workdps(60):
        assert abs(value - ref) <= REL * abs(ref)  # exact ties settle to 0 exactly


@given(mechanisms, epsilons, rates)
def test_single_step_equals_mechanism_and_f12(mech, epsilon, lam):
    """t = 1: allocation is (P, Q) itself; Poisson is (λP + (1−λ)Q, Q) = λ H_{1+(κ−1)/λ}(P‖Q) for κ ≥ 1 − λ (F12 b)."""
    with mp.workdps(40):
        alloc = allocation_pair(mech, 1)
        for d in ("remove", "add"):
            assert matches(alloc.delta(epsilon, d), mech.delta(epsilon, d))
        kappa = mp.exp(mpq(epsilon))
        if kappa >= 1 - mpq(lam):
            closed = mpq(lam) * mech.delta(mp.log(1 + (kappa - 1) / mpq(lam)), "remove")
            assert matches(poisson_pair(mech, 1, lam).delta(epsilon, "remove"), closed)


@given(mechanisms, st.integers(1, 6), epsilons)
def test_reversal_identity_and_tv(mech, t, epsilon):
    """I3: H_κ(A‖B) = 1 − κ + κ H_{1/κ}(B‖A); at ε = 0 both directions give TV."""
    t = min(t, 3) if mech.size == 3 else t
    with mp.workdps(40):
        for pair in (allocation_pair(mech, t, max(1, t // 2)), poisson_pair(mech, t, Fraction(1, 2))):
            kappa = mp.exp(mpq(epsilon))
            assert (
                abs(pair.delta(epsilon, "remove") - (1 - kappa + kappa * pair.delta(-epsilon, "add")))
                <= 100 * TIE * kappa
            )
            assert abs(pair.delta(0, "remove") - pair.delta(0, "add")) <= 100 * TIE


@given(mechanisms, st.integers(2, 6), epsilons, epsilons)
def test_bounds_and_monotone_in_epsilon_i1(mech, t, e1, e2):
    t = min(t, 3) if mech.size == 3 else t
    lo_e, hi_e = min(e1, e2), max(e1, e2)
    with mp.workdps(40):
        for pair in (allocation_pair(mech, t, 2), poisson_pair(mech, t, Fraction(1, 3))):
            for d in ("remove", "add"):
                lo, hi = pair.delta(lo_e, d), pair.delta(hi_e, d)
                assert max(0, -mp.expm1(mpq(lo_e))) - TIE <= lo <= 1 + TIE
                assert max(0, -mp.expm1(mpq(hi_e))) - TIE <= hi <= lo + TIE


@given(mechanisms, st.integers(2, 6), epsilons)
def test_allocation_monotone_in_k_i7(mech, t, epsilon):
    t = min(t, 3) if mech.size == 3 else t
    with mp.workdps(40):
        pairs = [allocation_pair(mech, t, k) for k in range(1, t + 1)]
        for d in ("remove", "add"):
            values = [pair.delta(epsilon, d) for pair in pairs]
            assert all(a <= b + TIE for a, b in zip(values, values[1:]))


@given(mechanisms, st.integers(1, 6), rates, rates, epsilons)
def test_poisson_monotone_in_rate_i6_and_full_rate_is_composition(mech, t, l1, l2, epsilon):
    t = min(t, 3) if mech.size == 3 else t
    with mp.workdps(40):
        lo, hi = poisson_pair(mech, t, min(l1, l2)), poisson_pair(mech, t, max(l1, l2))
        composed = FiniteLossPair.from_mechanism(mech)
        for _ in range(t - 1):
            composed = composed.compose(FiniteLossPair.from_mechanism(mech))
        full = poisson_pair(mech, t, 1)
        for d in ("remove", "add"):
            assert lo.delta(epsilon, d) <= hi.delta(epsilon, d) + TIE
            assert matches(full.delta(epsilon, d), composed.delta(epsilon, d))


@given(mechanisms, st.integers(1, 6), rates, epsilons)
def test_poisson_is_binomial_mixture_of_allocations_f31(mech, t, lam, epsilon):
    """P_{t,λ}(*) = Σ_k B_{t,λ}(k) A_{t,k}(*) with A_{t,0} = Q^t (F31, I30), aligned on count-vector labels."""
    t = min(t, 4) if mech.size == 3 else t
    with mp.workdps(40):
        lam_mp = mpq(lam)
        weights = [comb(t, k) * lam_mp**k * (1 - lam_mp) ** (t - k) for k in range(t + 1)]
        assert abs(mp.fsum(weights) - 1) <= TIE
        poisson = poisson_pair(mech, t, lam)
        mix_a, q_t = {}, {}
        for k in range(1, t + 1):
            alloc = allocation_pair(mech, t, k)
            for label, a, b in zip(alloc.labels, alloc.a, alloc.b):
                mix_a[label] = mix_a.get(label, 0) + weights[k] * a
                q_t[label] = b
        for label, b in q_t.items():
            mix_a[label] += weights[0] * b
        expected = dict(zip(poisson.labels, zip(poisson.a, poisson.b)))
        assert set(expected) == {label for label in mix_a if mix_a[label] or q_t[label]}
        for label, (a, b) in expected.items():
            assert matches(mix_a[label], a) and matches(q_t[label], b)
        mixed = FiniteLossPair(list(mix_a.values()), [q_t[label] for label in mix_a])
        for d in ("remove", "add"):
            assert matches(mixed.delta(epsilon, d), poisson.delta(epsilon, d))


@given(mechanisms, st.integers(1, 5), st.integers(1, 999).map(lambda i: Fraction(i, 1000)), epsilons)
def test_epsilon_round_trips(mech, t, target, epsilon):
    t = min(t, 3) if mech.size == 3 else t
    with mp.workdps(40):
        pair = allocation_pair(mech, t, 1)
        for d in ("remove", "add"):
            eps = pair.epsilon(target, d)
            if mp.isfinite(eps):
                assert pair.delta(eps, d) <= mpq(target) * (1 + REL) + TIE
            else:
                assert eps == mp.inf and pair.delta(60, d) > mpq(target)
            value = pair.delta(epsilon, d)
            if value < 1:
                back = pair.epsilon(value, d)
                assert back <= mpq(epsilon) + REL
                assert matches(pair.delta(back, d), value)
                if value > pair.delta(60, d) + TIE:  # strictly decreasing part: unique inverse
                    assert abs(back - mpq(epsilon)) <= mp.mpf(10) ** -25


def test_certified_epsilon_front_end_inverts_delta():
    mech = DiscretePair(["1/2", "1/3", "1/6"], ["1/6", "1/3", "1/2"])
    for d in ("remove", "add"):
        eps = discrete_epsilon(mech, "allocation", 5, "1e-3", d, k=2, epochs=2)
        assert abs(discrete_delta(mech, "allocation", 5, eps, d, k=2, epochs=2) - mp.mpf("1e-3")) <= mp.mpf(10) ** -32
    both = discrete_epsilon(mech, "poisson", 5, "1e-3", "both", rate="0.3")
    assert both == max(discrete_epsilon(mech, "poisson", 5, "1e-3", d, rate="0.3") for d in ("remove", "add"))
    assert discrete_epsilon(DiscretePair(["1/2", "1/2"], ["0", "1"]), "allocation", 3, "0.1", "remove") == mp.inf
    assert discrete_delta(DiscretePair(["1/2", "1/2"], ["1/2", "1/2"]), "allocation", 3, 0, "both") == 0


def test_large_t_randomized_response():
    """t = 10^4 with binary outputs: count vectors keep it to 10^4 + 1 atoms (I1, I3, I7 spot checks)."""
    rr, t = RandomizedResponse(1), 10**4
    grid = ("-0.01", "0", "0.02", "0.05")
    with mp.workdps(40):
        one, two = allocation_pair(rr, t, 1), allocation_pair(rr, t, 2)
        for d in ("remove", "add"):
            values = [one.delta(e, d) for e in grid]
            for e, v in zip(grid, values):
                assert max(0, -mp.expm1(mp.mpf(e))) - TIE <= v <= 1 + TIE
                assert v <= two.delta(e, d) + TIE
            assert all(b <= a for a, b in zip(values, values[1:]))
        kappa = mp.exp(mp.mpf("0.05"))
        assert abs(one.delta("0.05") - (1 - kappa + kappa * one.delta("-0.05", "add"))) <= 100 * TIE
    d = discrete_delta(rr, "allocation", t, "0.05", "both", k=1, digits=30)
    assert 0 < d < 1


def test_validation_and_caps():
    rr, pair3 = RandomizedResponse(1), DiscretePair(["1/3"] * 3, ["1/3"] * 3)
    with pytest.raises(InvalidParameter, match=r"^k=5 is invalid: must be an integer in \[1, 3\]$"):
        discrete_delta(rr, "allocation", 3, 0, "remove", k=5)
    with pytest.raises(InvalidParameter, match=r"^rate=0 is invalid: must lie in \(0, 1\]$"):
        poisson_pair(rr, 3, 0)
    with pytest.raises(InvalidParameter, match=r"^rate=None is invalid"):
        discrete_delta(rr, "poisson", 3, 0, "remove")
    with pytest.raises(InvalidParameter, match=r"^rate=0.5 is invalid: applies only to scheme=poisson"):
        discrete_delta(rr, "allocation", 3, 0, "remove", rate="0.5")
    with pytest.raises(InvalidParameter, match=r"^epochs=0 is invalid: must be an integer >= 1$"):
        discrete_epsilon(rr, "allocation", 3, "0.1", "remove", epochs=0)
    with pytest.raises(InvalidParameter, match=r"^scheme=shuffle is invalid"):
        discrete_delta(rr, "shuffle", 3, 0, "remove")
    with pytest.raises(InvalidParameter, match=r"^mechanism=Gaussian"):
        allocation_pair(Gaussian(1), 3)
    with pytest.raises(InvalidParameter, match=r"^digits=2 is invalid"):
        discrete_delta(rr, "allocation", 3, 0, "remove", digits=2)
    with pytest.raises(InvalidParameter, match=r"^delta=1.5 is invalid"):
        discrete_epsilon(rr, "allocation", 3, "1.5", "remove")
    with pytest.raises(UnsupportedRequest, match=r"^steps=10000 is not supported here: 3 outputs give 50015001"):
        allocation_pair(pair3, 10**4)
    with pytest.raises(UnsupportedRequest, match=r"^steps=10000 is not supported here"):
        poisson_pair(pair3, 10**4, "0.5")
    with pytest.raises(UnsupportedRequest, match=r"^epochs=2 is not supported here"):
        discrete_delta(rr, "allocation", 10**4, 0, "remove", epochs=2)
    with pytest.raises(UnsupportedRequest, match=r"^k=5000 is not supported here"):
        allocation_pair(rr, 10**4, 5000)


def test_zero_mass_outputs_prune_count_vectors():
    """An output with Q_j = 0 can only come from the k P-steps, so n_j ≤ k; P_j = Q_j = 0 outputs never appear."""
    mech = DiscretePair(["1/2", "1/4", "1/4", "0"], ["0", "1/2", "1/2", "0"])
    with mp.workdps(30):
        pair = allocation_pair(mech, 50, 2)
    assert all(dict(label).get(0, 0) <= 2 and 3 not in dict(label) for label in pair.labels)
    assert len(pair) == 51 + 50 + 49


def test_poisson_ignores_k():
    """The scheme pair of Poisson is the rate's alone: a k passed alongside is not used (Config refuses k != 1)."""
    rr = RandomizedResponse(1)
    with mp.workdps(30):
        a = scheme_pair(rr, "poisson", 4, k=3, rate="3/4").delta("0.1")
        b = poisson_pair(rr, 4, "3/4").delta("0.1")
    assert a == b


def test_f31_and_i7_at_moderate_t():
    """F31 mixture over all k = 0..t at t = 120 (binary RR), and I7 along k, at 40 digits."""
    rr, t, lam = RandomizedResponse("0.7"), 120, Fraction(1, 40)
    with mp.workdps(40):
        lam_mp = mpq(lam)
        poisson = poisson_pair(rr, t, lam)
        mix, q_t, previous = {}, {}, None
        for k in range(1, t + 1):
            alloc = allocation_pair(rr, t, k)
            w = comb(t, k) * lam_mp**k * (1 - lam_mp) ** (t - k)
            for label, a, b in zip(alloc.labels, alloc.a, alloc.b):
                mix[label] = mix.get(label, 0) + w * a
                q_t[label] = b
            value = alloc.delta("0.3")
            assert previous is None or previous <= value + TIE
            previous = value
        for label, b in q_t.items():
            mix[label] += (1 - lam_mp) ** t * b
        for label, a, b in zip(poisson.labels, poisson.a, poisson.b):
            assert matches(mix[label], a) and matches(q_t[label], b)


def test_too_many_subset_terms_name_the_parameter_that_helps():
    """C(2002, 2) = 2 003 001 count vectors × 3 single-output splits > MAX_TERMS = 4e6: at k = 1 only fewer steps
    help (the refusal named k=1); at k = 2, C(1202, 2) = 721 801 vectors × C(4, 2) = 6 splits do not fit either."""
    from verialloc.errors import UnsupportedRequest
    from verialloc.exact.discrete_profiles import allocation_pair

    three = DiscretePair(["1/2", "3/10", "1/5"], ["1/5", "3/10", "1/2"])
    with pytest.raises(UnsupportedRequest) as info:
        allocation_pair(three, 2000, 1)
    assert info.value.name == "steps" and "--method pld" in str(info.value)
    with pytest.raises(UnsupportedRequest) as info:
        allocation_pair(three, 1200, 2)
    assert info.value.name == "k"


@given(n=st.integers(0, 60), r=st.integers(0, 60), cap=st.integers(1, 10**7))
def test_composition_count_is_the_binomial_capped(n, r, cap):
    """`composition_sizes`' C(n, r) capped at `cap` equals min(math.comb, cap) — computed without a float of n."""
    r = min(r, n)
    assert _binomial_capped(n, r, cap) == min(comb(n, r), cap)


@pytest.mark.parametrize("epochs", [10**308, 10**5000], ids=["1e308", "1e5000"])
def test_composition_sizes_of_astronomical_epochs(epochs):
    """seed-runs 234: 10³⁰⁸ epochs overflowed lgamma in the size estimate; the count is capped, never a float."""
    atoms, _, composed = composition_sizes(RandomizedResponse(1), "poisson", 1, epochs=epochs)
    assert composed == MAX_ATOMS + 1 and atoms >= 2
