"""Issue #16 item 4: the lower contraction of `discretize_pair(..., "lower")` is dominated, checked in mpmath.

For one step of the Gaussian (F13, Balle–Wang) and of the Laplace mechanism (closed form derived from F2 below),
Σ_{l>ε} m·(1 − e^{ε−l}) + inf_mass of the LOWER PLD — summed in mpmath at 40 digits from the exact values of its
float64 masses and losses, minus its float_error — must be ≤ the exact δ(ε), for many ε of both signs (F2, F8,
F10, F49). Mirrors `test_pair_upper_tail_sums_dominate_the_exact_spread_in_float64` of test_discretize.py for the
upper spread. The reference is implemented here from formulas.md, not taken from verialloc.

Laplace, P = Lap(1, b), Q = Lap(0, b), ε0 = 1/b (both directions, the pair is symmetric):
δ(ε) = 1 − e^{ε} for ε ≤ −ε0, 1 − e^{(ε−ε0)/2} for |ε| < ε0, 0 for ε ≥ ε0 (ℓ(x) > ε ⇔ x > (1 + bε)/2).
"""

import mpmath as mp
import numpy as np
import pytest

from verialloc.numeric.pld.discretize import discretize_pair
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.mechanisms.laplace import LaplaceLoss

DIRECTIONS = ("remove", "add")
DPS = 40


def f13(sigma, eps):
    """F13: δ_{N_σ}(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ), in mpmath."""
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def laplace_delta(scale, eps):
    e0, e = 1 / mp.mpf(scale), mp.mpf(eps)
    if e <= -e0:
        return -mp.expm1(e)
    if e >= e0:
        return mp.mpf(0)
    return -mp.expm1((e - e0) / 2)


def mp_tail_sum(pld, eps):
    """Σ_{l>ε} m (1 − e^{ε−l}) + inf_mass from the float values, at DPS digits (F2)."""
    e = mp.mpf(float(eps))
    start = int(np.searchsorted(pld.losses, float(eps), side="right"))
    total = mp.mpf(float(pld.inf_mass))
    for l, m in zip(pld.losses[start:].tolist(), pld.masses[start:].tolist()):
        if m:
            total += mp.mpf(m) * -mp.expm1(e - mp.mpf(l))
    return total


EPS_GRID = np.concatenate([np.linspace(-3, 4, 57), [0.0, 1e-3, 0.0137, 0.5, 1.0 - 1e-9, 1.0, 1.0 + 1e-9]])


@pytest.mark.parametrize(
    "sigma,step,tail", [(0.5, 0.05, 1e-12), (1.0, 0.02, 1e-12), (2.0, 0.01, 1e-8), (1.0, 0.3, 1e-6)]
)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gaussian_lower_tail_sums_below_f13(sigma, step, tail, direction):
    """I11/F10: lower δ(ε) − float_error ≤ F13 at every ε; and the contraction is second order where the law is
    smooth (gap ≤ 2·step² + tail at ε ∈ [−1, 2]; would catch a contraction that rounds whole cells down)."""
    low = discretize_pair(GaussianLoss(sigma), direction, step, tail, "lower")
    assert low.bound == "lower"
    with mp.workdps(DPS):
        for eps in EPS_GRID:
            value = mp_tail_sum(low, eps) - mp.mpf(float(low.float_error))
            exact = f13(sigma, eps)
            assert value <= exact, (float(eps), float(value), float(exact))
            if -1 <= eps <= 2:
                assert exact - value <= 2 * step**2 + tail, (float(eps), float(exact - value))


@pytest.mark.parametrize(
    "scale,step,tail", [(1.0, 0.02, 1e-12), (0.5, 0.05, 1e-10), (2.0, 0.013, 1e-12), (1.0, 0.3, 1e-6)]
)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_laplace_lower_tail_sums_below_closed_form(scale, step, tail, direction):
    """Laplace has atoms in its loss law at ±ε0 (mass ½e^{...} each); the lower contraction must stay below the
    closed form at every ε, including just below/above ε0 (would catch an atom moved up to the next grid point)."""
    low = discretize_pair(LaplaceLoss(scale), direction, step, tail, "lower")
    e0 = 1 / scale
    grid = np.concatenate([EPS_GRID, [e0 - 1e-12, e0 - step / 2, -e0 + 1e-12, -e0 - 1e-12]])
    with mp.workdps(DPS):
        for eps in grid:
            value = mp_tail_sum(low, eps) - mp.mpf(float(low.float_error))
            exact = laplace_delta(scale, eps)
            assert value <= exact, (float(eps), float(value), float(exact))
