"""Method "analytic": [0, min over bounds] for δ, verified bisection for ε; checked against exact and PLD lower bounds."""
import math

import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.errors import UnsupportedRequest
from verialloc.numeric.analytic import analytic_accountant as analytic
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options

FAST = Options(pld=Settings(loss_step=2e-3, tail=1e-12), eta_points=5, eta_span=8.0)
PLD = Settings(loss_step=1e-3, tail=1e-12)


def test_delta_bracket_is_min_of_bounds_with_details():
    config = Config(Gaussian(1), steps=2)
    b = analytic.delta(config, 1, "add", options=FAST)
    values = analytic.bounds(config, 1, "add", FAST)
    numeric = {n: v for n, v in values.items() if not isinstance(v, str)}
    assert b.lower == 0 and float(b.upper) == min(numeric.values())
    assert b.details["best"] == min(numeric, key=numeric.get) and b.error_kind == "bound"
    assert values["direct_add"] == pytest.approx(0.0732488, rel=1e-5)  # §12.2, F42
    assert isinstance(analytic.bounds(config, 1, "remove", FAST)["direct_add"], str)  # reason, not a value


def test_both_is_max_over_directions_and_above_exact():
    config = Config(Gaussian(1), steps=2)
    both = analytic.delta(config, 0.5, "both", options=FAST)
    sides = [analytic.delta(config, 0.5, d, options=FAST) for d in ("remove", "add")]
    assert both.upper == max(s.upper for s in sides)
    assert float(both.upper) >= float(api.delta(config, 0.5, method="exact", digits=15).upper)


@pytest.mark.parametrize("sigma,t", [(1, 100), (2, 1000), pytest.param(0.8, 1000, marks=pytest.mark.slow)])
def test_every_bound_above_pld_lower(sigma, t):
    config = Config(Gaussian(sigma), steps=t)
    for direction in ("remove", "add"):
        for eps in (0.2, 1.0):
            lower = float(api.delta(config, eps, direction=direction, method="pld", settings=PLD).lower)
            for name, value in analytic.bounds(config, eps, direction, FAST).items():
                if not isinstance(value, str):
                    assert value >= lower, (name, direction, eps, value, lower)


@pytest.mark.parametrize("sigma,t", [(1, 100), (2, 1000)])
def test_epsilon_above_pld_lower_and_verified(sigma, t):
    config = Config(Gaussian(sigma), steps=t)
    target = 1e-5
    b = analytic.epsilon(config, target, "both", options=FAST)
    pld = api.epsilon(config, target, method="pld", settings=PLD)
    assert float(b.upper) >= float(pld.lower)
    assert float(b.lower) == pytest.approx(math.log1p(-target))
    for direction in ("remove", "add"):
        side = b.details[direction]
        assert side.details["delta_at_epsilon"] <= target
        assert float(analytic.delta(config, float(side.upper), direction, options=FAST).upper) <= target


@pytest.mark.parametrize("t,k", [(5, 1), (6, 2)])
def test_epsilon_above_exact_randomized_response(t, k):
    config = Config(RandomizedResponse(1), steps=t, k=k)
    for direction in ("remove", "add"):
        b = analytic.epsilon(config, 0.05, direction, options=FAST)
        truth = api.epsilon(config, 0.05, direction=direction, method="exact", digits=15)
        assert float(b.upper) >= float(truth.lower)


def test_unsupported_requests():
    with pytest.raises(UnsupportedRequest):
        analytic.delta(Config(Gaussian(1), scheme="poisson", steps=10), 1.0, "remove", options=FAST)
    with pytest.raises(UnsupportedRequest):
        analytic.rdp(Config(Gaussian(1), steps=10), 2)
    with pytest.raises(UnsupportedRequest):  # ε < 0 and remove: no analytic bound applies
        analytic.delta(Config(Gaussian(1), steps=10), -0.5, "remove", options=FAST)
