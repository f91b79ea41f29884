"""Composed allocation epochs on a finer loss step where the answer is small (#13; `_epoch_step`, F48).

regrid rounds each one-epoch PLD outward by up to a loss step, so E composed epochs drift apart by about E·Δ:
at Δ = 1e-4 and ε ≈ 0.17 over 30 epochs the pld bracket was 1.7 % wide. The references are the exact layer's
composed randomized-response profiles (both directions); the width check fails without the finer step.
"""

import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, RandomizedResponse, api
from verialloc.numeric.pld import pld_accountant, table

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
    assert table._epoch_step(s, 1, 1e-9, 0.01) == s.loss_step
    assert table._epoch_step(s, 100, 1e-12, 0.01) == s.loss_step / table.EPOCH_REFINE_MAX
    assert table._epoch_step(s, 100, 50.0, 0.01) == s.loss_step
    assert table._epoch_step(s, 100, 0.5, 0.01) == pytest.approx(table.EPOCH_SHARE * 0.5 / 100)


def test_the_finer_grid_is_bounded_by_the_composed_span():
    """A δ query at ε = 0.1 for σ = 0.7, t = 10, 100 epochs asked for a step of 4e-6 over a composed span of ~250
    (6 GB, > 300 s): the step is at least span/EPOCH_MAX_POINTS (below loss_step/2 for a span of 25)."""
    s = pld_accountant.Settings()
    assert table._epoch_step(s, 100, 0.1, 250.0) == s.loss_step
    span = 25.0
    assert table._epoch_step(s, 100, 0.1, span) == span / table.EPOCH_MAX_POINTS


def test_recomposition_respects_the_span_bound(monkeypatch):
    """finer_epochs measures the span of the PLDs it recomposes: with a small point budget the step it uses (in the
    notes) is at least span/EPOCH_MAX_POINTS, and the bracket still holds the exact value."""
    monkeypatch.setattr(table, "EPOCH_MAX_POINTS", 20_000)  # span 0.81: cap 4.1e-5 > 2.4e-5 uncapped
    config = Config(RandomizedResponse(0.02), steps=4, epochs=30)
    exact = api.epsilon(config, "1e-5", method="exact", direction="remove")
    got = api.epsilon(config, "1e-5", method="pld", direction="remove")
    assert got.lower <= exact.lower and exact.upper <= got.upper
    built = table.build(config, direction="remove")
    span = max(p.losses[-1] - p.losses[0] for p in built.plds.values())
    steps = [float(n.rsplit(" ", 1)[1]) for n in got.details["notes"] if n.startswith("epochs composed")]
    assert steps and all(step >= 0.999 * span / 20_000 for step in steps)


@settings(max_examples=4, deadline=None)
@given(
    eps0=st.floats(0.01, 0.05),
    epochs=st.integers(8, 24),
    delta=st.sampled_from(["1e-5", "1e-8", "3e-12"]),
    direction=st.sampled_from(["remove", "add"]),
)
def test_drawn_configurations_bracket_the_exact_value(eps0, epochs, delta, direction):
    config = Config(RandomizedResponse(eps0), steps=3, epochs=epochs)
    exact = api.epsilon(config, delta, method="exact", direction=direction)
    got = api.epsilon(config, delta, method="pld", direction=direction)
    assert got.lower <= exact.lower and exact.upper <= got.upper
