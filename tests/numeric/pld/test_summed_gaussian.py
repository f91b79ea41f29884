"""The summed-output lower bound for Gaussian allocation (post-processing, F8, F13), against the exact layer."""
import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.numeric.pld import summed_gaussian
from verialloc.numeric.pld.summed_gaussian import REL_MARGIN


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0, 10.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 2.0, 8.0, 20.0])
def test_log_space_f13_within_the_margin(sigma, epsilon):
    """The float64 F13 is within REL_MARGIN/100 of mpmath wherever δ is a normal float."""
    exact = Gaussian(repr(sigma)).delta(repr(epsilon))
    if exact < mp.mpf("1e-300"):
        pytest.skip("below the float64 range")
    assert abs(mp.mpf(summed_gaussian._delta(sigma, epsilon)) - exact) <= REL_MARGIN / 100 * exact


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["0.7", "1", "2"]), st.sampled_from(["0", "0.5", "1", "2"]), st.sampled_from(["remove", "add"]))
def test_lower_than_exact_at_two_steps(sigma, epsilon, direction):
    """t = 2, k = 1: the summed pair N(1, 2σ²) is a garbling, so its δ is below the exact (quadrature) δ."""
    config = Config(Gaussian(sigma), steps=2)
    exact = api.delta(config, epsilon, direction=direction, digits=10)
    assert summed_gaussian.delta_lower(config, float(epsilon)) <= exact.lower


def test_tight_when_every_step_is_used():
    """k = t: the sum is sufficient, so the pld lower end equals the exact composition (F13 at σ/√t)."""
    config = Config(Gaussian(1), steps=2, k=2)
    exact = api.epsilon(config, "1e-6", digits=15)
    b = api.epsilon(config, "1e-6", method="pld")
    assert b.lower <= exact.lower <= exact.upper <= b.upper
    assert exact.lower - b.lower < 1e-5 * exact.lower


def test_improves_the_k_gt_1_lower_bound():
    """σ = 1, t = 1000, k = 10: the summed lower bound (noise multiplier √1000/10) replaces the k = 1 one (the
    separable statistic of allocation.separable now raises the lower end further, to ≈ 1.946)."""
    k1 = api.epsilon(Config(Gaussian(1), steps=1000), "1e-6", method="pld")
    k10 = api.epsilon(Config(Gaussian(1), steps=1000, k=10), "1e-6", method="pld")
    summed = api.epsilon(Config(Gaussian(mp.sqrt(1000) / 10), steps=1), "1e-6", digits=15)
    assert k10.lower > 5 * k1.lower
    assert summed.lower * (1 - 1e-5) <= summed_gaussian.epsilon_lower(Config(Gaussian(1), steps=1000, k=10), 1e-6)
    assert summed_gaussian.epsilon_lower(Config(Gaussian(1), steps=1000, k=10), 1e-6) <= summed.lower
    assert k10.lower >= summed.lower * (1 - 1e-5)
    assert k10.lower <= k10.upper


def test_not_applicable_elsewhere():
    assert summed_gaussian.delta_lower(Config(RandomizedResponse(1), steps=10), 1.0) is None
    assert summed_gaussian.epsilon_lower(Config(Gaussian(1), scheme="poisson", steps=10), 1e-5) is None
