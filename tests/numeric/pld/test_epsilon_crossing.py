"""PLD.epsilon finds the float crossing of the accurate δ sum (F2): δ(ε) ≤ target at the answer and > target two
floats below it, also after the closed-form narrowing of the bisection (PLD._narrowed), on random PLDs and targets
over many decades (reference: the O(n) hockey-stick sum itself, evaluated at the answer's neighbours)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc.numeric.pld.pld import PLD


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 400), st.integers(0, 2**32 - 1), st.floats(-12, -0.5), st.floats(0.01, 3))
def test_epsilon_is_the_float_crossing(n, seed, log_target, spread):
    rng = np.random.default_rng(seed)
    losses = np.sort(rng.normal(0, spread, n)) + rng.uniform(-1, 3)
    losses = np.unique(losses)
    masses = rng.random(losses.size) ** 3
    masses /= masses.sum()
    pld = PLD(losses, masses, bound="exact")
    target = 10.0**log_target
    eps = pld.epsilon(target)
    if not math.isfinite(eps):
        return
    assert pld.delta(eps) <= target
    below = math.nextafter(math.nextafter(eps, -math.inf), -math.inf)
    assert pld.delta(below) > target


def test_losses_below_the_exp_range_fall_back_to_the_plain_bisection():
    """e^{−l} overflows below l ≈ −709: the closed-form crossing is skipped (it raised ValueError: math domain error
    from ln(0) for a sub-probability with such losses) and the bisection alone finds the crossing."""
    losses = np.linspace(-800, -790, 200)
    pld = PLD(losses, np.full(200, 0.9 / 200), bound="exact")
    for target in (0.1, 0.5, 0.85):
        eps = pld.epsilon(target)
        assert pld.delta(eps) <= target < pld.delta(math.nextafter(math.nextafter(eps, -math.inf), -math.inf))
