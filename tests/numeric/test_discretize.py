"""discretize / regrid / truncate: stochastic domination (F10, I21), grid size, δ brackets against F13 and exact profiles."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from verialloc.errors import InvalidParameter
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.discretize import atomic_pld, discretize, grid_index, regrid, truncate
from verialloc.numeric.loss_law import FiniteLoss, GaussianLoss, loss_law
from verialloc.numeric.pld import PLD

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
    return [Gaussian(1), Gaussian("0.7"), Laplace(1), Laplace("0.7"), RandomizedResponse(1), RandomizedResponse("0.3"),
            DiscretePair(["0.1", "0.2", "0.7", "0"], ["0.3", "0", "0.3", "0.4"])]


@pytest.mark.parametrize("mech", mechanisms(), ids=lambda m: f"{m.name}{m.params()}")
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_delta_bracket_upper_exact_lower(mech, direction):
    law = loss_law(mech)
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
    law = loss_law(mech)
    step = 0.05
    up, low = discretize(law, direction, step, 0.0, "upper"), discretize(law, direction, step, 0.0, "lower")
    x = probe_points(up, up.losses[0] - 1, up.losses[-1] + 1, step)
    truth = law_sf(law, direction, x)
    assert np.all(sf(up, x) >= truth - TOL) and np.all(sf(low, x) <= truth + TOL)
    assert up.truncated == 0 and low.truncated == 0 and abs(low.total_mass - 1) <= 1e-12


def test_atoms_on_grid_points_stay_put():
    """Randomized response with ε0 = 1 and step 1/8: both losses are grid points, so both directions are exact."""
    law = loss_law(RandomizedResponse(1))
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


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30).filter(lambda m: sum(m) > 0),
       st.floats(0, 0.3), st.sampled_from(["upper", "lower"]))
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
