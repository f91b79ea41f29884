"""discretize / regrid / truncate: stochastic domination (F10, I21), grid size, δ brackets against F13 and exact profiles.

discretize_pair (second order): lower ≤ exact ≤ upper in both directions, single step and composed, against exact
count enumeration (discrete pairs), mpmath quadrature (Gaussian, t ≤ 2) and F13 (compositions of Gaussians).
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from verialloc.errors import InvalidParameter
from verialloc.exact.discrete_profiles import discrete_delta
from verialloc.exact.quadrature import poisson_delta_quadrature
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.pld.compose import self_compose
from verialloc.numeric.pld.discretize import atomic_pld, discretize, discretize_pair
from verialloc.numeric.pld.grid import grid_index, regrid, truncate
from verialloc.mechanisms.loss_law import FiniteLoss
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.numeric.pld.pld import PLD
from verialloc.numeric.pld.subsample import SubsampledLoss

TOL = 1e-14
DIRECTIONS = ("remove", "add")


def sf(pld: PLD, x) -> np.ndarray:
    """Pr[L > x] including the +inf atom, for every x."""
    tail = np.concatenate([np.cumsum(pld.masses[::-1])[::-1], [0.0]])
    return tail[np.searchsorted(pld.losses, np.asarray(x), side="right")] + pld.inf_mass


def gaussian_sf(sigma, x):
    """Pr[X > x] for the Gaussian PLD N(μ, 2μ), μ = 1/(2σ²) (F15; both directions)."""
    mu = 1 / (2 * sigma**2)
    return stats.norm.sf(np.asarray(x), loc=mu, scale=np.sqrt(2 * mu))


def law_sf(law, direction, x):
    """Pr[X > x] of X = ℓ under P (remove) or −ℓ under Q (add), from the law's own one-sided functions."""
    x = np.asarray(x, dtype=float)
    if direction == "remove":
        return law.sf_p(x) + law.p_inf
    values, _, q = law.atoms()
    at = np.array([q[values == -v].sum() for v in x])  # Q(ℓ = −x): Pr[X > x] = Q(ℓ < −x) + Q(P = 0)
    return law.cdf_q(-x) - at + law.q_neg_inf


def probe_points(pld: PLD, lo, hi, step):
    return np.concatenate([np.linspace(lo, hi, 2001), pld.losses, pld.losses - step / 3, pld.losses + step / 3])


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gaussian_upper_dominates_lower_is_dominated_and_tight_I21(sigma, direction):
    step, tail = 0.01, 1e-10
    law = GaussianLoss(sigma)
    up, low = discretize(law, direction, step, tail, "upper"), discretize(law, direction, step, tail, "lower")
    x = probe_points(up, up.losses[0] - 1, up.losses[-1] + 1, step)
    truth = gaussian_sf(sigma, x)
    assert np.all(sf(up, x) >= truth - TOL)  # X ⪯ U
    assert np.all(sf(low, x) <= truth + TOL)  # L ⪯ X
    assert np.all(sf(up, x) <= gaussian_sf(sigma, x - step) + tail + TOL)  # U ⪯_(step, tail) X
    assert np.all(truth <= sf(low, x - step) + tail + TOL)  # X ⪯_(step, tail) L
    assert abs(up.total_mass - 1) <= 1e-12 and up.truncated <= tail
    assert low.total_mass <= 1 + 1e-12 and low.truncated <= tail
    up.validate_realization()


@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_grid_size_follows_the_tail_quantiles_I21(sigma):
    step, tail = 0.005, 1e-8
    mu = 1 / (2 * sigma**2)
    z = stats.norm.isf(tail)
    width = 2 * mu + 2 * np.sqrt(2 * mu) * z  # from q_β under Q (−μ − ...) to q_{1−β} under P (μ + ...)
    for bound in ("upper", "lower"):
        pld = discretize(GaussianLoss(sigma), "remove", step, tail, bound)
        assert np.ceil(width / step) - 1 <= pld.losses.size <= np.ceil(width / step) + 2
        np.testing.assert_allclose(np.diff(pld.losses), step, rtol=1e-9)
        assert np.all(grid_index(pld.losses, step, "snap") * step == pld.losses)


def mechanisms():
    return [
        Gaussian(1),
        Gaussian("0.7"),
        Laplace(1),
        Laplace("0.7"),
        RandomizedResponse(1),
        RandomizedResponse("0.3"),
        DiscretePair(["0.1", "0.2", "0.7", "0"], ["0.3", "0", "0.3", "0.4"]),
    ]


@pytest.mark.parametrize("mech", mechanisms(), ids=lambda m: f"{m.name}{m.params()}")
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_delta_bracket_upper_exact_lower(mech, direction):
    law = mech.loss_law()
    up = discretize(law, direction, 0.02, 1e-12, "upper")
    low = discretize(law, direction, 0.02, 1e-12, "lower")
    for eps in (-1.0, -0.3, 0.0, 0.25, 0.5, 1.0, 2.0):
        exact = float(mech.delta(Fraction(eps).limit_denominator(100), direction))
        assert up.delta(eps) >= exact - TOL
        assert low.delta(eps) <= exact + TOL
        assert up.delta(eps) - low.delta(eps) <= 0.05  # the step keeps the bracket narrow


@pytest.mark.parametrize("mech", mechanisms()[2:], ids=lambda m: f"{m.name}{m.params()}")
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_domination_against_the_law_with_atoms(mech, direction):
    law = mech.loss_law()
    step = 0.05
    up, low = discretize(law, direction, step, 0.0, "upper"), discretize(law, direction, step, 0.0, "lower")
    x = probe_points(up, up.losses[0] - 1, up.losses[-1] + 1, step)
    truth = law_sf(law, direction, x)
    assert np.all(sf(up, x) >= truth - TOL) and np.all(sf(low, x) <= truth + TOL)
    assert up.truncated == 0 and low.truncated == 0 and abs(low.total_mass - 1) <= 1e-12


def test_atoms_on_grid_points_stay_put():
    """Randomized response with ε0 = 1 and step 1/8: both losses are grid points, so both directions are exact."""
    law = RandomizedResponse(1).loss_law()
    for direction in DIRECTIONS:
        exact = atomic_pld(law, direction)
        for bound in ("upper", "lower"):
            pld = discretize(law, direction, 0.125, 0.0, bound)
            keep = pld.masses > 0
            np.testing.assert_array_equal(pld.losses[keep], exact.losses)
            np.testing.assert_allclose(pld.masses[keep], exact.masses, rtol=1e-15)


@st.composite
def finite_laws(draw):
    n = draw(st.integers(1, 6))
    p = np.array(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(any)), float)
    q = np.array(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(any)), float)
    return p / p.sum(), q / q.sum()


@given(finite_laws(), st.sampled_from(DIRECTIONS), st.sampled_from([0.01, 0.1, 0.37]))
def test_regrid_of_an_exact_pld_brackets_it(pq, direction, step):
    exact = atomic_pld(FiniteLoss(*pq), direction)
    if exact.losses.size == 0:
        return
    up, low = regrid(exact, step, "upper"), regrid(exact, step, "lower")
    x = probe_points(exact, exact.losses[0] - 1, exact.losses[-1] + 1, step)
    assert np.all(sf(up, x) >= sf(exact, x) - TOL) and np.all(sf(low, x) <= sf(exact, x) + TOL)
    assert np.all(np.abs(grid_index(up.losses, step, "snap") * step - up.losses) == 0)
    assert np.all(up.losses - step < exact.losses.max() + 1e-12)
    assert up.inf_mass == exact.inf_mass and abs(up.total_mass - exact.total_mass) <= TOL


def test_regrid_on_nested_grids_matches_direct_discretization():
    law = GaussianLoss(1.0)
    for bound in ("upper", "lower"):
        fine = discretize(law, "remove", 0.005, 1e-10, bound)
        coarse = discretize(law, "remove", 0.01, 1e-10, bound)
        via = regrid(fine, 0.01, bound)
        x = np.linspace(-10, 10, 4001)
        np.testing.assert_allclose(sf(via, x), sf(coarse, x), atol=1e-10)  # tail cut points may differ by one step
        assert via.truncated == fine.truncated


def test_regrid_refuses_the_wrong_direction():
    up = discretize(GaussianLoss(1.0), "remove", 0.01, 1e-10, "upper")
    with pytest.raises(InvalidParameter, match="bound"):
        regrid(up, 0.02, "lower")


@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=30).filter(lambda m: sum(m) > 0),
    st.floats(0, 0.3),
    st.sampled_from(["upper", "lower"]),
)
def test_truncate_moves_at_most_tail_each_side_in_the_safe_direction(raw, tail, bound):
    masses = np.array(raw) / sum(raw)
    pld = PLD(np.arange(len(raw)) * 0.1, masses, bound=bound)
    cut = truncate(pld, tail)
    kept_lo = int(np.searchsorted(pld.losses, cut.losses[0]))
    kept_hi = int(np.searchsorted(pld.losses, cut.losses[-1])) + 1
    bottom, top = masses[:kept_lo].sum(), masses[kept_hi:].sum()
    assert bottom <= tail + TOL and top <= tail + TOL
    x = np.linspace(-0.5, 3.5, 401)
    if bound == "upper":
        assert cut.truncated == pytest.approx(top, abs=1e-15) and cut.inf_mass == pytest.approx(top, abs=1e-15)
        assert np.all(sf(cut, x) >= sf(pld, x) - TOL) and abs(cut.total_mass - 1) <= TOL
    else:
        assert cut.truncated == pytest.approx(bottom, abs=1e-15)
        assert np.all(sf(cut, x) <= sf(pld, x) + TOL)
        assert cut.total_mass == pytest.approx(1 - bottom, abs=TOL)


def test_truncate_refuses_exact_with_a_tail():
    exact = PLD(np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    assert truncate(exact, 0.0) is exact
    with pytest.raises(InvalidParameter, match="tail"):
        truncate(exact, 0.1)


def test_invalid_arguments_name_the_parameter():
    law = GaussianLoss(1.0)
    with pytest.raises(InvalidParameter, match="step"):
        discretize(law, "remove", 0.0, 1e-10, "upper")
    with pytest.raises(InvalidParameter, match="tail"):
        discretize(law, "remove", 0.01, 0.7, "upper")
    with pytest.raises(InvalidParameter, match="tail"):
        discretize(law, "remove", 0.01, 0.0, "upper")  # unbounded support needs a tail
    with pytest.raises(InvalidParameter, match="bound"):
        discretize(law, "remove", 0.01, 1e-10, "exact")
    with pytest.raises(InvalidParameter, match="direction"):
        discretize(law, "both", 0.01, 1e-10, "upper")
    with pytest.raises(InvalidParameter, match="law"):
        atomic_pld(law, "remove")


# --- discretize_pair: connect-the-dots upper, contraction lower (F2, F8, F47–F49) ---------------------------


def pair_bounds(law, direction, step, tail, steps=1):
    """(lower, upper) PLDs of `law` discretized with discretize_pair and composed `steps` times."""
    out = []
    for bound in ("lower", "upper"):
        pld = discretize_pair(law, direction, step, tail, bound)
        out.append(pld if steps == 1 else self_compose(pld, steps, 1e-15, step))
    return out


def assert_bracket(low, exact, up, what, atol=0.0):
    """lower ≤ exact ≤ upper up to the float64 rounding of the exact value (relative 1e-12) and `atol`."""
    slack = 1e-12 * exact + atol
    assert low <= exact + slack, f"{what}: lower {low!r} > exact {exact!r}"
    assert exact <= up + slack, f"{what}: upper {up!r} < exact {exact!r}"


def poisson_exact(mech, steps, rate, eps, direction):
    with mp.workdps(30):
        return float(discrete_delta(mech, "poisson", steps, eps, direction, rate=rate, digits=15))


@pytest.mark.parametrize("mech", mechanisms(), ids=lambda m: f"{m.name}{m.params()}")
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_single_step_brackets_every_epsilon(mech, direction):
    """Both signs of ε (F2): the upper pair dominates, the lower is dominated, and the bracket is narrow."""
    low, up = pair_bounds(mech.loss_law(), direction, 0.02, 1e-12)
    for eps in (-1.0, -0.3, 0.0, 0.25, 0.5, 1.0, 2.0):
        exact = float(mech.delta(Fraction(eps).limit_denominator(100), direction))
        assert_bracket(low.delta_bound(eps), exact, up.delta_bound(eps), f"eps={eps}", atol=TOL)
        assert up.delta(eps) - low.delta(eps) <= 0.05
    assert low.float_error == 0 and up.float_error == 0


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_upper_tail_sums_dominate_the_exact_spread_in_float64(direction):
    """The float64 upper's tail sums Pr[X' ≥ g_c] are ≥ those of the connect-the-dots pair computed exactly
    (mpmath, 40 digits, on the same float grid; Gaussian F15, the same law in both directions), and close to them."""
    up = discretize_pair(GaussianLoss(0.7), direction, 0.02, 1e-12, "upper")
    with mp.workdps(40):
        mu = 1 / (2 * mp.mpf(0.7) ** 2)
        g = [mp.mpf(x) for x in up.losses]
        sf_p, sf_q = ([mp.ncdf((sign * mu - x) / mp.sqrt(2 * mu)) for x in g] for sign in (1, -1))
        tail = mp.mpf(up.inf_mass)
        for c in range(len(g) - 1, 0, -1):
            tail += mp.mpf(up.masses[c])
            cell_p, cell_q = sf_p[c - 1] - sf_p[c], sf_q[c - 1] - sf_q[c]
            exact = sf_p[c] + (cell_p - mp.exp(g[c - 1]) * cell_q) / -mp.expm1(g[c - 1] - g[c])
            assert exact <= tail <= exact * (1 + 1e-9) + 1e-14, f"g={float(g[c])}"


@st.composite
def finite_laws_with_atoms_at_infinity(draw):
    """Finite pairs, often with P = 0 or Q = 0 on some outputs."""
    n = draw(st.integers(2, 5))
    p = np.array(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(lambda v: sum(v) > 0)), float)
    q = np.array(draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(lambda v: sum(v) > 0)), float)
    return p / p.sum(), q / q.sum()


@given(finite_laws_with_atoms_at_infinity(), st.sampled_from(DIRECTIONS), st.sampled_from([0.003, 0.05, 0.3]))
def test_pair_upper_keeps_both_masses_and_is_a_realization_I14(pq, direction, step):
    """The spread keeps the first distribution's total (1) and, through E[e^{−L}], the second's finite mass;
    E[e^{−L}] ≤ 1 (I14). The lower loses mass only (its rounding down may raise E[e^{−L}] by e^{step})."""
    law = FiniteLoss(*pq)
    if not np.any((pq[0] > 0) & (pq[1] > 0)):
        return
    second_at_minus_inf = law.q_neg_inf if direction == "remove" else law.p_inf
    low, up = pair_bounds(law, direction, step, 0.0)
    up.validate_realization()
    assert abs(up.total_mass - 1) <= 1e-12
    assert 1 - second_at_minus_inf - 1e-9 <= up.exp_neg_mean() <= 1 - second_at_minus_inf + 1e-12
    assert low.total_mass <= 1 + 1e-12 and low.exp_neg_mean() <= np.exp(step) * (1 - second_at_minus_inf) + 1e-12
    assert up.inf_mass >= (law.p_inf if direction == "remove" else law.q_neg_inf) - 1e-15


@pytest.mark.parametrize(
    "eps0,rate,steps,step",
    [("1", "0.01", 10, 1e-3), ("1", "0.01", 10_000, 1e-3), ("0.5", "0.1", 1000, 1e-3), ("2", "0.3", 50, 5e-3)],
)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_poisson_randomized_response_against_exact_counts(eps0, rate, steps, step, direction):
    """Poisson subsampling of randomized response over up to 10^4 steps (F46, F47) against exact enumeration,
    and a narrower bracket than the first-order `discretize` at the same step."""
    mech = RandomizedResponse(eps0)
    law = SubsampledLoss(mech.loss_law(), float(rate))
    low, up = pair_bounds(law, direction, step, 0.0, steps)
    old_low, old_up = (
        self_compose(discretize(law, direction, step, 0.0, b), steps, 1e-15, step) for b in ("lower", "upper")
    )
    for eps in (0.0, 0.2, 1.0):
        exact = poisson_exact(mech, steps, rate, eps, direction)
        assert_bracket(low.delta_bound(eps), exact, up.delta_bound(eps), f"eps={eps}")
        assert up.delta(eps) - low.delta(eps) <= old_up.delta(eps) - old_low.delta(eps) + 1e-12


@given(
    pair=st.sampled_from(
        [
            (["0.5", "0.3", "0.2"], ["0.2", "0.3", "0.5"]),
            (["0.6", "0.4", "0"], ["0.3", "0.3", "0.4"]),
            (["0.2", "0.3", "0.5"], ["0", "0.5", "0.5"]),
            (["0", "0.5", "0.5"], ["0.5", "0", "0.5"]),
        ]
    ),
    rate=st.sampled_from(["0.3", "1"]),
    steps=st.sampled_from([1, 3, 6]),
    direction=st.sampled_from(DIRECTIONS),
)
def test_pair_poisson_discrete_pairs_with_zero_masses(pair, rate, steps, direction):
    mech = DiscretePair(*pair)
    law = mech.loss_law()
    law = SubsampledLoss(law, float(rate)) if rate != "1" else law
    low, up = pair_bounds(law, direction, 0.01, 0.0, steps)
    for eps in (-0.5, 0.0, 0.4, 1.5):
        exact = poisson_exact(mech, steps, rate, eps, direction)
        assert_bracket(low.delta_bound(eps), exact, up.delta_bound(eps), f"{pair} t={steps} eps={eps}")


@pytest.mark.parametrize(
    "sigma,rate,eps,steps", [("1", "0.2", 0.1, 1), ("1", "0.2", 0.1, 2), ("0.7", "0.5", 0.5, 1), ("0.7", "0.5", 0.5, 2)]
)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_poisson_gaussian_against_quadrature(sigma, rate, eps, steps, direction):
    """Subsampled Gaussian, t ≤ 2: the mpmath quadrature (value ± its error estimate) lies in the bracket."""
    with mp.workdps(20):
        value, err = poisson_delta_quadrature(Gaussian(sigma), steps, rate, eps, direction, digits=12)
    low, up = pair_bounds(SubsampledLoss(Gaussian(sigma).loss_law(), float(rate)), direction, 1e-3, 1e-12, steps)
    assert low.delta_bound(eps) <= float(value + err) and float(value - err) <= up.delta_bound(eps)
    assert up.delta(eps) - low.delta(eps) <= 1e-4 * float(value)


@pytest.mark.parametrize("n", [4, 16])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_gaussian_compositions_against_closed_form_F13(n, direction):
    """n compositions of the Gaussian with σ = 2 (λ = 1) are the Gaussian with σ/√n (F13)."""
    low, up = pair_bounds(GaussianLoss(2.0), direction, 1e-3, 1e-12, n)
    for eps in (0.0, 0.5, 2.0):
        with mp.workdps(30):
            exact = float(Gaussian(Fraction(2, int(np.sqrt(n)))).delta(eps))
        assert_bracket(low.delta_bound(eps), exact, up.delta_bound(eps), f"n={n} eps={eps}")
        assert up.delta(eps) - low.delta(eps) <= 1e-5 * exact


def test_pair_gap_is_second_order_in_the_step():
    """Halving the step divides the ε bracket by about 4 (measured: 4.05, 3.95), where discretize only halves it.

    Subsampled Gaussian σ = 1, λ = 0.05, 200 steps, δ = 1e-5: ε ∈ [4.76577, 4.76619] at step 2e-3, [4.76588, 4.76599]
    at 1e-3, [4.765911, 4.765937] at 5e-4."""
    law = SubsampledLoss(GaussianLoss(1.0), 0.05)
    gaps = []
    for step in (2e-3, 1e-3, 5e-4):
        low, up = pair_bounds(law, "remove", step, 1e-12, 200)
        gaps.append(up.epsilon(1e-5) - low.epsilon(1e-5))
    assert gaps[0] > 3.5 * gaps[1] > 3.5 * 3.5 * gaps[2] > 0


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_pair_losses_near_the_float_exp_range(direction):
    """σ = 0.03 (losses around ±555): the grid stops at ±MAX_PAIR_LOSS, the bounds still bracket F13."""
    low, up = pair_bounds(GaussianLoss(0.03), direction, 0.05, 1e-12)
    assert np.all(np.abs(up.losses) <= 700) and np.all(np.isfinite(low.masses))
    for eps in (100.0, 500.0, 650.0, 699.0):
        with mp.workdps(30):
            exact = float(Gaussian("0.03").delta(eps))
        assert_bracket(low.delta_bound(eps), exact, up.delta_bound(eps), f"eps={eps}")


def test_pair_invalid_arguments_name_the_parameter():
    law = GaussianLoss(1.0)
    with pytest.raises(InvalidParameter, match="bound"):
        discretize_pair(law, "remove", 0.01, 1e-10, "exact")
    with pytest.raises(InvalidParameter, match="direction"):
        discretize_pair(law, "both", 0.01, 1e-10, "upper")
    with pytest.raises(InvalidParameter, match="tail"):
        discretize_pair(law, "add", 0.01, 0.0, "lower")
