"""best runs a sub-method only when that method's own estimate fits the running query's budget (hostile-user pass:
σ = 0.3, t = 10⁵, E = 10, δ = 1e-10 with --budget 10 ran analytic, estimated at ~10³ s and 16 GiB, for 74 s after
pld refused its geometric grid), and auto reports the float methods' refusal, not only the exact layer's."""

import pytest

from verialloc import Config, Gaussian, Laplace, api
from verialloc.errors import UnsupportedRequest


def test_best_skips_a_sub_method_over_the_budget_and_says_so():
    config = Config(Gaussian("0.3"), steps=100_000, epochs=10)
    with pytest.raises(UnsupportedRequest) as info:
        api.epsilon(config, "1e-10", method="best", budget=10)
    assert "analytic: not run: estimated" in str(info.value) and "over the budget of 10 s" in str(info.value)


def test_auto_names_the_float_range_when_neither_route_serves():
    with pytest.raises(UnsupportedRequest) as info:
        api.delta(Config(Laplace("1e-151"), steps=10), 1)
    assert info.value.name == "scale" and "[1e-150, 1e+308]" in str(info.value) and "exact:" in str(info.value)


def test_auto_names_the_budget_with_its_remedy():
    with pytest.raises(UnsupportedRequest) as info:
        api.delta(Config(Gaussian(1), steps=100_000), 1, budget=10)
    assert "exceeds the budget of 10 s" in str(info.value) and "budget=" in str(info.value)
