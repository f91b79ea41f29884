"""Large ε in the allocation route (issue #10 item 2): Gaussian σ = 1, t = 100, ε ≥ 48 gave a lower end ≈ 1.

Class of the defect: a δ query at ε sized the exp-space window to t·e^ε and, past max_points, enlarged the grid
step to ~1e16; the contraction then computed a remnant's class mean as target − deficit/mass, which cancels to 0
when the atoms are small against the grid step, so Q-mass landed on X = 0 (ratio 0, add loss +inf) — no longer a
contraction. References: the single Gaussian step (Balle–Wang, F13, in mpmath), which dominates 1-out-of-t
allocation in both directions (allocation is a post-processing of one Gaussian query: draw the position, put
the sample there, fill the other coordinates with fresh noise; F8), and conservation of the first moment.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc import api
from verialloc.certify import certify, make_claim
from verialloc.config import Config
from verialloc.mechanisms import Gaussian
from verialloc.numeric.pld.allocation.exp_grid import contract
from verialloc.mechanisms.gaussian import GaussianLoss


def balle_wang(sigma: float, eps: float) -> mp.mpf:
    """δ(ε) of one Gaussian step (F13), at 60 digits."""
    with mp.workdps(60):
        s, e = mp.mpf(sigma), mp.mpf(eps)
        return mp.ncdf(-e * s + 1 / (2 * s)) - mp.exp(e) * mp.ncdf(-e * s - 1 / (2 * s))


def test_reported_certify_claim_is_certified():
    """certify: σ = 1, t = 100, ε = 50, claimed δ = 1e-10 is true (δ ≤ F13 < 1e-500); it was REFUTED."""
    cert = certify(Config(Gaussian(1), steps=100), make_claim(epsilon="50", claimed_delta="1e-10"))
    assert balle_wang(1.0, 50.0) < mp.mpf("1e-10")
    assert cert.lower <= balle_wang(1.0, 50.0)
    assert cert.verdict == "certified", cert.verdict


@settings(max_examples=8)
@given(
    sigma=st.floats(0.6, 4.0),
    t=st.integers(1, 200),
    eps=st.floats(20.0, 200.0),
    direction=st.sampled_from(["remove", "add"]),
)
def test_lower_end_never_exceeds_the_single_gaussian_step(sigma, t, eps, direction):
    got = api.delta(Config(Gaussian(sigma), steps=t), eps, direction=direction, method="pld")
    assert got.lower <= balle_wang(sigma, eps), (sigma, t, eps, direction, got.lower)
    assert got.upper >= 0


@given(h=st.floats(1e-3, 1e17), top=st.integers(1, 50), sigma=st.floats(0.5, 3.0))
def test_contraction_keeps_the_first_moment_at_any_grid_step(h, top, sigma):
    """A contraction keeps E_Q[X] = 1 (Gaussian): grid moment + top excess + dropped moment = 1 (I14)."""
    law = contract(GaussianLoss(sigma), h, top, 0.0)
    moment = float(np.dot(law.masses, h * np.arange(law.masses.size))) + law.top_excess + law.dropped_moment
    assert math.isclose(moment, 1.0, rel_tol=1e-6), (h, top, moment)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_summed_output_lower_end_is_a_number_at_extreme_epsilon():
    """ε = 1e308 gave ε + (−inf) − (−inf) = NaN as the summed-output lower end (and a NaN bracket end); the NaN
    must not even be formed (a RuntimeWarning here fails)."""
    from verialloc.numeric.pld import summed_gaussian

    config = Config(Gaussian(1), steps=10)
    for eps in (1e308, 1e5, -1e5):
        assert summed_gaussian.delta_lower(config, eps) <= float(balle_wang(1.0, min(eps, 1e4)))
    assert summed_gaussian.delta_lower(config, 1e308) == 0.0
