"""Composed allocation epochs on a finer loss step where the answer is small (#13; `_epoch_step`, F48).

regrid rounds each one-epoch PLD outward by up to a loss step, so E composed epochs drift apart by about E·Δ:
at Δ = 1e-4 and ε ≈ 0.17 over 30 epochs the pld bracket was 1.7 % wide. The references are the exact layer's
composed randomized-response profiles (both directions); the width check fails without the finer step.
"""
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, RandomizedResponse, api
from verialloc.numeric.pld import pld_accountant

CASES = [(0.02, 4, 30, "1e-5"), (0.013, 3, 20, "1e-9"), (1 / 64, 4, 25, "1e-5")]  # continuous, dyadic ε0


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("eps0,steps,epochs,delta", CASES)
def test_epsilon_bracket_holds_the_exact_value_and_is_narrow(eps0, steps, epochs, delta, direction):
    config = Config(RandomizedResponse(eps0), steps=steps, epochs=epochs)
    exact = api.epsilon(config, delta, method="exact", direction=direction)
    got = api.epsilon(config, delta, method="pld", direction=direction)
    assert got.lower <= exact.lower and exact.upper <= got.upper
    assert got.upper - got.lower <= 0.006 * got.upper  # Δ = 1e-4 throughout: 1.2–2.0 % wide


@pytest.mark.parametrize("eps0,steps,epochs,delta", CASES[:2])
def test_delta_bracket_holds_the_exact_value(eps0, steps, epochs, delta):
    config = Config(RandomizedResponse(eps0), steps=steps, epochs=epochs)
    eps = api.epsilon(config, delta, method="exact", direction="remove").lower
    exact = api.delta(config, eps, method="exact", direction="remove")
    got = api.delta(config, eps, method="pld", direction="remove")
    assert got.lower <= exact.lower and exact.upper <= got.upper
    assert got.upper <= 1.5 * got.lower


def test_the_step_is_bounded_below_and_left_alone_for_one_epoch():
    s = pld_accountant.Settings()
    assert pld_accountant._epoch_step(s, 1, 1e-9) == s.loss_step
    assert pld_accountant._epoch_step(s, 100, 1e-12) == s.loss_step / pld_accountant.EPOCH_REFINE_MAX
    assert pld_accountant._epoch_step(s, 100, 50.0) == s.loss_step
    assert pld_accountant._epoch_step(s, 100, 0.5) == pytest.approx(pld_accountant.EPOCH_SHARE * 0.5 / 100)


@settings(max_examples=4, deadline=None)
@given(eps0=st.floats(0.01, 0.05), epochs=st.integers(8, 24), delta=st.sampled_from(["1e-5", "1e-8", "3e-12"]),
       direction=st.sampled_from(["remove", "add"]))
def test_drawn_configurations_bracket_the_exact_value(eps0, epochs, delta, direction):
    config = Config(RandomizedResponse(eps0), steps=3, epochs=epochs)
    exact = api.epsilon(config, delta, method="exact", direction=direction)
    got = api.epsilon(config, delta, method="pld", direction=direction)
    assert got.lower <= exact.lower and exact.upper <= got.upper
