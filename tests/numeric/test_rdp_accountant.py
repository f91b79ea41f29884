"""Method "rdp": brackets against the exact layer and brute force (I11, I16, I35), directions, validation."""
import itertools
import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc import Config, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.rdp import allocation_rdp, poisson_rdp
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric import rdp_accountant as ra
from verialloc.testing.strategies import probability_pairs

mechanisms = st.one_of(
    st.integers(5, 60).map(lambda i: Gaussian(Fraction(i, 10))),
    st.integers(5, 60).map(lambda i: Laplace(Fraction(i, 10))),
    st.integers(1, 40).map(lambda i: RandomizedResponse(Fraction(i, 20))),
    probability_pairs(max_atoms=4).map(lambda pq: DiscretePair(*pq)),
)


def contains(bracket, exact) -> bool:
    if mp.isinf(exact):
        return mp.isinf(bracket.upper)
    return bracket.lower <= exact <= bracket.upper


@given(mechanisms, st.integers(1, 5000), st.integers(1, 3), st.integers(2, 80))
@settings(max_examples=20)
def test_allocation_rdp_bracket_contains_exact(mech, steps, epochs, alpha):
    """k = 1: the float bracket contains the exact F38 value × epochs (F21)."""
    bracket = ra.rdp(Config(mech, steps=steps, epochs=epochs), alpha)
    assert bracket.direction == "remove" and bracket.error_kind == "bound"
    assert contains(bracket, allocation_rdp(mech, steps, alpha, digits=25, epochs=epochs))


@given(mechanisms, st.integers(1, 1000), st.integers(1, 100).map(lambda i: Fraction(i, 100)), st.integers(2, 40))
@settings(max_examples=15)
def test_poisson_rdp_bracket_contains_exact(mech, steps, rate, alpha):
    bracket = ra.rdp(Config(mech, scheme="poisson", steps=steps, rate=rate), alpha)
    assert contains(bracket, poisson_rdp(mech, steps, rate, alpha, digits=25))


def brute_force_k_allocation_rdp(p, q, steps: int, k: int, alpha: int) -> mp.mpf:
    """R_α(A_{t,k}(*)‖Q^t): uniform k-subset S, P on S and Q elsewhere; enumeration at 40 digits (F5, F11)."""
    with mp.workdps(40):
        pv = [mp.mpf(x.numerator) / x.denominator for x in p]
        qv = [mp.mpf(x.numerator) / x.denominator for x in q]
        subsets = list(itertools.combinations(range(steps), k))
        total = mp.mpf(0)
        for idx in itertools.product(range(len(pv)), repeat=steps):
            q_prob = mp.fprod(qv[i] for i in idx)
            p_prob = mp.fsum(mp.fprod(pv[i] if m in s else qv[i] for m, i in enumerate(idx)) for s in subsets) / len(subsets)
            if q_prob > 0:
                total += q_prob * (p_prob / q_prob) ** alpha
            elif p_prob > 0:
                return mp.inf
        return mp.log(total) / (alpha - 1)


@given(probability_pairs(max_atoms=3, max_weight=4), st.sampled_from([(4, 2), (5, 2), (6, 3), (3, 3)]), st.integers(2, 12))
@settings(max_examples=12)
def test_k_allocation_bracket_contains_brute_force(pq, tk, alpha):
    """I35 in RDP form: E·R(A_{t,1}) <= R(A_{t,k}) <= k·R(A_{⌊t/k⌋}) (F27 + F21; [004] Lemma D.1)."""
    steps, k = tk
    bracket = ra.rdp(Config(DiscretePair(*pq), steps=steps, k=k), alpha)
    exact = brute_force_k_allocation_rdp(*pq, steps, k, alpha)
    if mp.isinf(exact):
        assert mp.isinf(bracket.upper)
        return
    assert bracket.lower <= exact * (1 + mp.mpf(1e-13)) and exact <= bracket.upper * (1 + mp.mpf(1e-13))


@given(st.integers(1, 40).map(lambda i: RandomizedResponse(Fraction(i, 20))) | probability_pairs(max_atoms=3).map(
    lambda pq: DiscretePair(*pq)), st.integers(1, 6), st.integers(1, 100).map(lambda i: Fraction(i, 100)),
    st.integers(-5, 30).map(lambda i: Fraction(i, 10)))
@settings(max_examples=15)
def test_poisson_delta_both_directions_bound_exact(mech, steps, rate, eps):
    """F46 + F18 per direction, and "both" as the max (F3), against exact enumeration."""
    config = Config(mech, scheme="poisson", steps=steps, rate=rate)
    for d in ("remove", "add", "both"):
        exact = api.delta(config, eps, direction=d, method="exact", digits=15)
        bound = ra.delta(config, eps, d, alpha_max=64)
        assert bound.upper >= exact.upper * (1 - 1e-12) and bound.lower <= exact.lower


def test_default_search_reports_its_orders():
    bracket = ra.epsilon(Config(RandomizedResponse(1), steps=300), "1e-6", "remove")
    exact = api.epsilon(Config(RandomizedResponse(1), steps=300), "1e-6", direction="remove", method="exact", digits=15)
    assert bracket.upper >= exact.upper
    assert bracket.details["improvement_left"] <= ra.SEARCH_TOL
    assert 2 <= bracket.details["alpha"] <= bracket.details["alpha_max"]
    assert bracket.lower == mp.mpf(math.log1p(-1e-6))


def test_api_style_call_with_gaussian_remove():
    """σ = 1, t = 1: F18 on α/(2σ²) vs the exact F13 profile (I13)."""
    config = Config(Gaussian(1), steps=1)
    bound = ra.epsilon(config, "1e-5", "remove")
    exact = api.epsilon(config, "1e-5", direction="remove", method="exact")
    assert exact.upper <= bound.upper <= 2 * exact.upper


@pytest.mark.parametrize("direction", ["add", "both"])
def test_allocation_add_direction_unsupported(direction):
    config = Config(Gaussian(1), steps=10)
    for call, arg in ((ra.delta, 1), (ra.epsilon, "1e-5")):
        with pytest.raises(UnsupportedRequest, match="pld"):
            call(config, arg, direction)


def test_poisson_add_unsupported_for_continuous_pairs():
    with pytest.raises(UnsupportedRequest, match="finite pairs"):
        ra.delta(Config(Gaussian(1), scheme="poisson", steps=10, rate="0.1"), 1, "add")


@pytest.mark.parametrize("alpha", [1, "0.5", 10_001, "abc", float("nan")])
def test_rdp_order_validation(alpha):
    with pytest.raises(InvalidParameter):
        ra.rdp(Config(Gaussian(1), steps=10), alpha)


@pytest.mark.parametrize("options", [{"alpha_max": 1}, {"alpha_max": 10_001}, {"alpha_max": 2.5}, {"search_tol": -1}])
def test_search_option_validation(options):
    with pytest.raises(InvalidParameter):
        ra.epsilon(Config(Gaussian(1), steps=10), "1e-5", "remove", **options)


@pytest.mark.parametrize("delta", [0, 1, "x"])
def test_delta_target_validation(delta):
    with pytest.raises(InvalidParameter):
        ra.epsilon(Config(Gaussian(1), steps=10), delta, "remove")


def test_infinite_rdp_gives_trivial_bounds():
    """P-mass where Q = 0 (loss +inf): every R_α = +inf, δ bound 1, ε bound +inf — never NaN."""
    config = Config(DiscretePair(["1/2", "1/2"], [1, 0]), steps=3)
    assert mp.isinf(ra.rdp(config, 5).upper)
    assert ra.delta(config, 1, "remove").upper == 1
    assert mp.isinf(ra.epsilon(config, "1e-5", "remove").upper)


def test_low_orders_used_in_the_low_privacy_regime():
    """σ = 0.3, t = 1, ε = 1: ρ_2 = 11.1 ≫ ε, so an order in (1, 2) (R_α <= R_2) gives the best F18 bound,
    which still dominates the exact F13 profile."""
    config = Config(Gaussian("0.3"), steps=1)
    bound = ra.delta(config, 1, "remove")
    assert 1 < bound.details["alpha"] < 2
    assert bound.upper >= api.delta(config, 1, direction="remove", method="exact").upper


def test_tiny_delta_bound_is_not_rounded_to_zero():
    """δ bounds below the float64 range stay positive (returned from their logarithm) and above F13."""
    config = Config(Gaussian(1), steps=1)
    bound = ra.delta(config, 2000, "remove")
    exact = api.delta(config, 2000, direction="remove", method="exact")
    assert 0 < exact.upper <= bound.upper < mp.mpf("1e-400")
