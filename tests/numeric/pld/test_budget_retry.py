"""An ε query whose upper PLD's float64 budget moves its ε (tighten.budget_decides) is rebuilt in the tail-accurate
mode (#13): σ = 0.7,
t = 10³, k = 4, E = 100, δ = 1e-5 answered the composed-Gaussian fallback 529 (the add direction's budget 1.4e-5
> δ); rebuilt, [14.115, 18.695]. Here the budget is poisoned (set to 1) in the first build of a small allocation,
and the answer must still bracket the exact layer's quadrature tightly — without the rebuild the upper end is the
composed-Gaussian fallback, far above."""

import math

import pytest

from verialloc import Config, Gaussian, api
from dataclasses import replace

from verialloc.numeric.pld import pipeline, pld_accountant as acc
from verialloc.numeric.pld.table import Bound, Direction


def poison(monkeypatch, budget: float) -> None:
    """The first (default-mode) build of every table gets upper PLDs with the float budget `budget`."""
    real = pipeline.build

    def poisoned(config, settings, **kw):
        table = real(config, settings, **kw)
        if kw.get("delta_floor") is None:
            for d in table.built:
                table.plds[Direction(d), Bound.UPPER] = replace(table[d, "upper"], float_error=budget)
        return table

    monkeypatch.setattr(pipeline, "build", poisoned)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_a_budget_above_delta_is_rebuilt_tail_accurate(monkeypatch, direction):
    poison(monkeypatch, 1.0)
    config, delta = Config(Gaussian("0.8"), steps=2), 1e-5
    exact = api.epsilon(config, "1e-5", direction=direction, method="exact", digits=15)
    got = acc.epsilon(config, delta, direction=direction)
    assert float(got.lower) <= float(exact.upper) and float(exact.lower) <= float(got.upper)
    assert math.isfinite(float(got.upper)) and float(got.upper) <= float(exact.upper) * 1.01
    assert any("tail-accurate" in n for n in got.details["notes"])


def test_a_budget_that_hardly_moves_epsilon_is_kept(monkeypatch):
    """A budget of 1e-4·δ moves ε by far less than BUDGET_MOVE: no rebuild (it would double the time)."""
    poison(monkeypatch, 1e-9)
    got = acc.epsilon(Config(Gaussian("0.8"), steps=2), 1e-5, direction="remove")
    assert not any("tail-accurate" in n for n in got.details["notes"])
