"""Method "rdp": brackets against the exact layer and brute force (I11, I16, I35), directions, validation."""

import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verialloc import Config, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.rdp import allocation_rdp, poisson_rdp
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.rdp import rdp_accountant as ra
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import probability_pairs

#: relative accuracy of the 50-digit brute-force references (far below one float64 ulp)
REF_RTOL = mp.mpf(10) ** -40

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
    """R_α(A_{t,k}(*)‖Q^t): uniform k-subset S, P on S and Q elsewhere; enumeration in rationals (F5, F11),
    exactly 0 for P = Q, else 50 digits (brute_force.renyi)."""
    return bf.renyi(*bf.allocation(p, q, steps, k), alpha)


@given(
    probability_pairs(max_atoms=3, max_weight=4),
    st.sampled_from([(4, 2), (5, 2), (6, 3), (3, 3), (7, 3), (5, 3)]),
    st.integers(2, 12),
)
@settings(max_examples=12)
def test_k_allocation_bracket_contains_brute_force(pq, tk, alpha):
    """I35 in RDP form: E·R(A_{t,1}) <= R(A_{t,k}) <= (k − r)·R(A_{⌊t/k⌋}) + r·R(A_{⌈t/k⌉}), r = t mod k (F27 with
    unequal blocks, F27u + F21; [004] Lemma D.1)."""
    steps, k = tk
    bracket = ra.rdp(Config(DiscretePair(*pq), steps=steps, k=k), alpha)
    exact = brute_force_k_allocation_rdp(*pq, steps, k, alpha)
    if mp.isinf(exact):
        assert mp.isinf(bracket.upper)
        return
    assert bracket.lower <= exact * (1 + REF_RTOL) and exact <= bracket.upper * (1 + REF_RTOL)


@given(mechanisms, st.integers(2, 3000), st.integers(2, 9), st.integers(1, 3), st.integers(2, 40))
@example(DiscretePair([0, 1], [1, 0]), 2, 2, 1, 2)  # disjoint supports, r = 0: seed-245 run of #10
@example(Gaussian(Fraction(47, 10)), 43, 2, 1, 33)  # float budget 1.0e-12 relative: seed 246
@settings(max_examples=20)
def test_k_allocation_upper_is_the_unequal_block_composition(mech, steps, k, epochs, alpha):
    """k > 1: the upper end is the exact RDP of k − r blocks of ⌊t/k⌋ and r of ⌈t/k⌉ steps, E epochs (F27u, F21),
    within its float budget — not k·R(A_{⌊t/k⌋}), which is larger when r > 0 (R is decreasing in t)."""
    k = min(k, steps)
    block, r = divmod(steps, k)
    with mp.workdps(40):
        blocks = (
            sum(n * allocation_rdp(mech, size, alpha, digits=25) for n, size in ((k - r, block), (r, block + 1)) if n)
            * epochs
        )  # a count of 0 adds nothing (0·inf would be nan)
    upper = ra.rdp(Config(mech, steps=steps, k=k, epochs=epochs), alpha).upper
    if mp.isinf(blocks):
        assert mp.isinf(upper)
        return
    # within the curve's float budget (~1e-12 relative for Gaussian log moments); k·R(⌊t/k⌋) lies far above at r > 0
    assert blocks <= upper <= blocks * (1 + mp.mpf(10) ** -9) + mp.mpf(10) ** -300


@given(
    st.integers(1, 40).map(lambda i: RandomizedResponse(Fraction(i, 20)))
    | probability_pairs(max_atoms=3).map(lambda pq: DiscretePair(*pq)),
    st.integers(1, 6),
    st.integers(1, 100).map(lambda i: Fraction(i, 100)),
    st.integers(-5, 30).map(lambda i: Fraction(i, 10)),
)
@settings(max_examples=15)
def test_poisson_delta_both_directions_bound_exact(mech, steps, rate, eps):
    """F46 + F18 per direction, and "both" as the max (F3), against exact enumeration."""
    config = Config(mech, scheme="poisson", steps=steps, rate=rate)
    for d in ("remove", "add", "both"):
        exact = api.delta(config, eps, direction=d, method="exact", digits=15)
        bound = ra.delta(config, eps, d, alpha_max=64)
        assert bound.upper >= exact.lower and bound.lower <= exact.upper  # sound brackets overlap


def test_default_search_reports_its_orders():
    bracket = ra.epsilon(Config(RandomizedResponse(1), steps=300), "1e-6", "remove")
    exact = api.epsilon(Config(RandomizedResponse(1), steps=300), "1e-6", direction="remove", method="exact", digits=15)
    assert bracket.upper >= exact.upper
    assert bracket.details["improvement_left"] <= ra.SEARCH_TOL
    assert 2 <= bracket.details["alpha"] <= bracket.details["alpha_max"]
    with mp.workdps(50):  # the trivial lower end ln(1 − δ), rounded down (within an ulp)
        exact_lower = mp.log1p(-mp.mpf(1) / 10**6)
        assert mp.mpf(math.nextafter(math.log1p(-1e-6), -1)) <= bracket.lower <= exact_lower


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


# --- directed rounding of the endpoints (issue #10 item 3) ----------------------------------------------
def _rounds_up_to_nearest():
    """ε < 0 (floats, whose exact binary value equals their repr's decimal value only up to rounding: both are
    checked by the caller through the repr) where −expm1(ε) rounded to nearest lies above the exact 1 − e^ε:
    the cases the old code returned as a lower end above δ."""
    out = []
    with mp.workdps(50):
        for i in range(1, 400):
            eps = -i / 8.0  # dyadic: the float is its decimal repr exactly
            if mp.mpf(-math.expm1(eps)) > -mp.expm1(mp.mpf(eps)):
                out.append(eps)
    return out


TRIVIAL_EPSILONS = [
    -36.0,
    -1e-12,
    -(2.0**-40),
    -0.1,
    -1.0,
    -700.0,
    -745.5,
    Fraction(-1, 10),
    Fraction(-7, 3),
] + _rounds_up_to_nearest()


def test_trivial_delta_lower_end_never_exceeds_one_minus_e_eps():
    """I1 lower end max(0, 1 − e^ε) rounded down: <= the 50-digit value for every ε, including the ε where
    round-to-nearest goes up (which the old `-math.expm1(eps)` returned)."""
    assert len(TRIVIAL_EPSILONS) > 20  # enough ε where nearest rounding overshoots
    config = Config(Gaussian(1), steps=1)
    for eps in TRIVIAL_EPSILONS:
        bracket = ra.delta(config, eps, "remove", alpha_max=4)
        value = Fraction(repr(eps)) if isinstance(eps, float) else eps  # a float means its decimal repr (validation)
        with mp.workdps(50):
            e = mp.mpf(value.numerator) / value.denominator
            exact = -mp.expm1(e)
            assert bracket.lower <= exact, f"eps={eps}: lower {bracket.lower} > 1 - e^eps = {exact}"
            assert bracket.lower >= exact * (1 - mp.mpf(2) ** -50)  # still tight: within a few ulps
    assert ra.delta(config, Fraction(1, 10), "remove").lower == 0


def test_trivial_epsilon_lower_end_never_exceeds_log_one_minus_delta():
    """I1 lower end ln(1 − δ) rounded down, for decimal δ (not floats) and δ where log1p rounds up."""
    config = Config(Gaussian(1), steps=1)
    deltas = [Fraction(i, 1000) for i in range(1, 1000, 7)] + ["1e-6", "1e-12", "0.5", Fraction(1, 3)]
    overshoots = 0
    for delta in deltas:
        d = Fraction(delta)
        bracket = ra.epsilon(config, delta, "remove", alpha_max=4)
        with mp.workdps(50):
            exact = mp.log1p(-mp.mpf(d.numerator) / d.denominator)
            overshoots += mp.mpf(math.log1p(-float(d))) > exact
            assert bracket.lower <= exact, f"delta={delta}: lower {bracket.lower} > ln(1 - delta) = {exact}"
            assert bracket.lower >= exact * (1 + mp.mpf(2) ** -50)
    assert overshoots > 0  # the set contains δ where round-to-nearest overshoots


@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(7, 3), 3.0])
def test_delta_upper_end_is_rounded_up(eps):
    """σ = 1/2, t = 1 (ρ_α = 2α exactly): the upper end is >= the F18 minimum over the same orders evaluated at
    50 digits, and the query ε is not rounded up before use (δ(ε) decreases in ε)."""
    config = Config(Gaussian(Fraction(1, 2)), steps=1)
    bracket = ra.delta(config, eps, "remove", alpha_max=16)
    with mp.workdps(50):
        e = mp.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
        orders = [1 + mp.mpf(i) / 16 for i in range(1, 16)] + [mp.mpf(a) for a in range(2, 17)]
        logs = [(a - 1) * (2 * (a if a >= 2 else 2) - e) + a * mp.log1p(-1 / a) - mp.log(a - 1) for a in orders]
        best = mp.exp(min(min(logs), 0))
        assert bracket.upper >= best


def test_identical_pair_has_exactly_zero_rdp():
    """P = Q: R_α = 0 exactly (brute force in rationals), and the bracket is [0, 0] — not ±1e-39 noise."""
    pq = ([Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 3), Fraction(2, 3)])
    assert bf.renyi(*bf.allocation(*pq, 4, 2), 5) == 0
    assert bf.renyi(*bf.allocation(*pq, 2), Fraction(5, 2)) == 0
    for alpha in (2, 5, Fraction(5, 2), Fraction(3, 2)):
        bracket = ra.rdp(Config(DiscretePair(*pq), steps=4, k=2), alpha)
        assert bracket.lower == 0 == bracket.upper
