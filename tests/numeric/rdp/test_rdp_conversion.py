"""F18 conversion, F19 search, F20 and α ∈ (1, 2) bounds against exact references (I11, I13, I36).

Issue #16: `test_f19_stop_does_not_change_the_minimum` compared the adaptive search with an exhaustive scan of the
same float64 curve through the same conversion (code against itself); its reference is now F18's printed form in
mpmath minimized over exact R_α (exact layer, F14 closed form).
"""

from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc import Config, api
from verialloc.errors import InvalidParameter
from verialloc.mechanisms import DiscretePair, Gaussian, RandomizedResponse
from verialloc.numeric.rdp import rdp_accountant as ra
from verialloc.numeric.rdp.rdp_conversion import fractional_rdp
from verialloc.numeric.rdp.rdp_logspace import allocation_rdp_curve
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import probability_pairs

finite_mechs = st.one_of(
    st.integers(1, 40).map(lambda i: RandomizedResponse(Fraction(i, 20))),
    probability_pairs(max_atoms=3, max_weight=4).map(lambda pq: DiscretePair(*pq)),
)
epsilons = st.integers(-10, 40).map(lambda i: Fraction(i, 10))
#: relative accuracy of the 50-digit brute-force references (far below one float64 ulp)
REF_RTOL = mp.mpf(10) ** -40


@given(finite_mechs, st.integers(1, 12), st.integers(1, 2), st.integers(1, 2), epsilons)
@settings(max_examples=20)
def test_delta_upper_bounds_exact_allocation(mech, steps, k, epochs, eps):
    """I11/I13: F18 δ from the RDP curve (F27 for k > 1, F21 epochs) >= exact enumerated δ, remove direction."""
    config = Config(mech, steps=max(steps, k), k=k, epochs=epochs)
    exact = api.delta(config, eps, direction="remove", method="exact", digits=15)
    bound = ra.delta(config, eps, "remove", alpha_max=64)
    # both brackets are sound, so they must overlap: no tolerance (an ulp-level violation fails)
    assert bound.upper >= exact.lower
    assert bound.lower <= exact.upper


@given(finite_mechs, st.integers(1, 12), st.integers(1, 2), st.sampled_from(["1e-2", "1e-4", "1e-6"]))
@settings(max_examples=15)
def test_epsilon_upper_bounds_exact_allocation(mech, steps, k, delta):
    config = Config(mech, steps=max(steps, k), k=k)
    exact = api.epsilon(config, delta, direction="remove", method="exact", digits=15)
    bound = ra.epsilon(config, delta, "remove", alpha_max=128)
    assert bound.upper >= exact.lower
    assert bound.lower <= exact.upper


SECTION_12_1_REMOVE = {  # formulas.md §12.1: exact remove profile of Gaussian allocation, t = 2
    (0.5, 0.5): 0.50209809,
    (0.5, 1): 0.40457750,
    (0.5, 2): 0.23232134,
    (1, 0): 0.29776223,
    (1, 0.5): 0.14917752,
    (1, 1): 0.059206501,
    (1, 2): 0.0047457776,
    (2, 0.5): 0.018326595,
    (2, 1): 0.00064612837,
    (2, 2): 2.8811863e-08,
}


@pytest.mark.parametrize("key", sorted(SECTION_12_1_REMOVE))
def test_gaussian_two_steps_against_section_12_1(key):
    sigma, eps = key
    bound = ra.delta(Config(Gaussian(Fraction(sigma)), steps=2), eps, "remove")
    assert bound.upper >= SECTION_12_1_REMOVE[key] * (1 + 1e-7)


@pytest.mark.parametrize("sigma,eps", [(1, 1), (Fraction(1, 2), 2)])
def test_gaussian_single_step_against_f13(sigma, eps):
    config = Config(Gaussian(sigma), steps=1)
    assert ra.delta(config, eps, "remove").upper >= api.delta(config, eps, direction="remove", method="exact").upper


def test_reproduces_shuffle_gaussian_table_1():
    """I36 / §12.4: [001] Table 1 "Ours" row (σ = 9.48, n = 60000, λ <= 30, δ = 1/n), compositions 1..7."""
    row = [0.22820, 0.22820, 0.22821, 0.22821, 0.22821, 0.22822, 0.22822]
    for c, ref in enumerate(row, start=1):
        bound = ra.epsilon(Config(Gaussian("9.48"), steps=60000, epochs=c), Fraction(1, 60000), "remove", alpha_max=30)
        assert round(float(bound.upper), 5) == ref


def f18_epsilon(rho, alpha, delta) -> mp.mpf:
    """F18 in its printed ε form ([001] eq. (4)): ρ + (ln(1/δ) + (α−1) ln(1 − 1/α) − ln α)/(α − 1), in mpmath."""
    alpha, delta = mp.mpf(alpha), mp.mpf(delta)
    return rho + (mp.log(1 / delta) + (alpha - 1) * mp.log(1 - 1 / alpha) - mp.log(alpha)) / (alpha - 1)


def f18_minimum(rdp, delta, top: int = 2000) -> tuple[mp.mpf, int]:
    """(min of F18 over the orders 1 + i/16 (ρ = R_2, R_α ≤ R_2 there) and every integer 2..top, the first
    integer order whose R_α exceeds that minimum). rdp(α) is an exact R_α. The scan stops at that order A: for
    every integer α' in [A, top], F18(α') = R_α' + φ(α') ≥ R_A > min, since R_α is non-decreasing (I28) and
    φ(α') ≥ 0 for α' ≤ top (asserted: it needs top < 1/(eδ) roughly, F19)."""
    assert f18_epsilon(0, top, delta) >= 0
    r2 = rdp(2)
    best = min(f18_epsilon(r2, 1 + mp.mpf(i) / 16, delta) for i in range(1, 16))
    for alpha in range(2, top + 1):
        rho = rdp(alpha)
        if rho > best:
            return best, alpha
        best = min(best, f18_epsilon(rho, alpha, delta))
    return best, top + 1


@pytest.mark.parametrize(
    "sigma,steps,delta", [(1, 10_000, 1e-8), (2, 5000, 1e-10), (Fraction(3, 10), 4000, 1e-4), (50, 1, 1e-10)]
)
def test_f19_stop_does_not_change_the_minimum(sigma, steps, delta):
    """I13: the adaptive search stopped by the plain F19 rule (search_tol=0) returns the minimum of F18 over all
    integer orders ≤ 2000 (and the (1, 2) grid), computed independently: F18's printed ε form in mpmath on exact
    R_α — the exact layer's F38/F39 (api.rdp, method "exact", 25 digits) for allocation, α/(2σ²) (F14) for one
    Gaussian step (σ = 50: the optimum order ≈ 340 lies past the first curve of 256 orders, so the search must
    extend it). The product's claim that no larger order helps (improvement_left = 0) is checked too: the exact
    R at its largest order already exceeds the minimum.

    #16: the reference was `epsilon_bound(allocation_rdp_curve(..., 2000))`, the same conversion on the same
    float64 curve (code against itself).
    Mutation checked to be killed (scratch copy): φ(α) of F18 divided by α instead of α − 1 (`epsilon_f18`),
    a survivor of the I13 grid (docs/verification.md)."""
    config = Config(Gaussian(sigma), steps=steps)
    adaptive = ra.epsilon(config, delta, "remove", search_tol=0)
    with mp.workdps(30):
        if steps == 1:

            def rdp(alpha):
                return mp.mpf(alpha) / (2 * mp.mpf(sigma) ** 2)
        else:

            def rdp(alpha):
                return api.rdp(config, alpha, method="exact", digits=25).upper

        reference, stop = f18_minimum(rdp, delta)
        assert stop <= adaptive.details["alpha_max"] and rdp(adaptive.details["alpha_max"]) > reference
    assert reference <= adaptive.upper <= reference * (1 + 1e-12), (adaptive.upper, reference)
    assert adaptive.details["improvement_left"] == 0 and adaptive.details["alpha_max"] <= 2000


def brute_force_rdp(p, q, steps: int, alpha) -> mp.mpf:
    """R_α(P̄_t‖Q^t) by enumerating the t-fold outputs in rationals (F5, F23): exactly 0 for P = Q, else 50
    digits (brute_force.renyi)."""
    return bf.renyi(*bf.allocation(p, q, steps), alpha)


fractional_orders = st.one_of(
    st.integers(1, 99).map(lambda i: Fraction(100 + i, 100)),
    st.integers(201, 799).filter(lambda i: i % 100).map(lambda i: Fraction(i, 100)),
)


@given(probability_pairs(max_atoms=4), st.integers(1, 2), fractional_orders)
@settings(max_examples=25)
def test_fractional_orders_bracket_brute_force(pq, steps, alpha):
    """α ∈ (1, 2): 0 <= R_α <= R_2; α > 2 non-integer: R_⌊α⌋ <= R_α <= F20 chord — against enumeration."""
    exact = brute_force_rdp(*pq, steps, alpha)
    bracket = ra.rdp(Config(DiscretePair(*pq), steps=steps), alpha)
    if mp.isinf(exact):
        assert mp.isinf(bracket.upper)
        return
    assert bracket.lower <= exact * (1 + REF_RTOL)  # exact is 0 exactly for P = Q
    assert exact <= bracket.upper * (1 + REF_RTOL)


def test_fractional_order_range():
    curve = allocation_rdp_curve(Gaussian(1), 10, 8)
    for bad in (1.0, 0.5, 8.0, 9.5):
        with pytest.raises(InvalidParameter):
            fractional_rdp(curve, bad)
