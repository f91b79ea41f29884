"""Method "analytic": [0, min over bounds] for δ, verified bisection for ε; checked against exact and PLD lower bounds.

Issue #16: `test_delta_bracket_is_min_of_bounds_with_details` compared delta() with bounds() (the same evaluation);
it is now `test_delta_bracket_against_section_12_tables`, against formulas.md §12.1/§12.2.
"""

import math

import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.errors import UnsupportedRequest
from verialloc.numeric.analytic import analytic_accountant as analytic
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options

FAST = Options(pld=Settings(loss_step=2e-3, tail=1e-12), eta_points=5, eta_span=8.0)
PLD = Settings(loss_step=1e-3, tail=1e-12)


# formulas.md §12.1 (exact profile, 8 digits) and §12.2 (F42 direct add bound; F37 decomposition bound with λ = 1/2),
# Gaussian σ = 1, t = 2: ε → value
EXACT_12_1 = {
    "remove": {0.5: 0.14917752, 1: 0.059206501, 2: 0.0047457776},
    "add": {0.5: 0.14268697, 1: 0.050197662, 2: 0.0020559245},
}
BOUNDS_12_2 = {
    "remove": {"decomposition": {0.5: 0.225964, 1: 0.124254, 2: 0.026314}},
    "add": {
        "decomposition": {0.5: 0.207355, 1: 0.093131, 2: 0.00735063},
        "direct_add": {0.5: 0.192155, 1: 0.0732488, 2: 0.00348817},
    },
}


def table_close(value: float, reference: float) -> bool:
    """Agreement with a §12.2 entry: 6 printed digits, computed by quadrature to ~1e-6 (§12.1 method note)."""
    return abs(value - reference) <= 1e-6 + 1e-5 * reference


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("eps", [0.5, 1, 2])
def test_delta_bracket_against_section_12_tables(eps, direction):
    """Gaussian σ = 1, t = 2, against formulas.md's reference values: every analytic bound that applies is ≥ the
    exact profile of §12.1 (I11); the ones §12.2 evaluates (F37 λ = 1/2, F42) match its values; the bracket is
    [0, u] with §12.1 ≤ u ≤ the smallest §12.2 value (the minimum over the bounds, which includes them). The
    direct bound is add-only (F41/F42): for remove it gives a reason, not a value.

    #16: this test asserted `delta().upper == min(bounds().values())` and that details["best"] names the argmin —
    two outputs of the same evaluation (code against itself); only its F42 value was checked against §12.2.
    Mutations checked to be killed (scratch copy): the E1 error of [000] v1 — F37's add bound with γ→ instead of
    γ← (`factor = g_remove`; the old test passed it: 0.178 ≠ §12.2's 0.207355 at ε = 0.5); the E6 sign flip in
    F42 (ε + 1/(4σ²)); `_best` choosing the largest bound instead of the smallest (the old test killed these
    two as well)."""
    config = Config(Gaussian(1), steps=2)
    b = analytic.delta(config, eps, direction, options=FAST)
    values = analytic.bounds(config, eps, direction, FAST)
    exact = EXACT_12_1[direction][eps] * (1 - 5e-8)  # 8 printed digits, rounded down
    published = BOUNDS_12_2[direction]
    for name, value in values.items():
        if not isinstance(value, str):
            assert value >= exact, (name, value, exact)
    for name, table in published.items():
        assert table_close(values[name], table[eps]), (name, values[name], table[eps])
    assert b.lower == 0 and b.error_kind == "bound"
    assert exact <= float(b.upper) <= min(t[eps] for t in published.values()) * (1 + 1e-5) + 1e-6
    if direction == "remove":
        assert isinstance(values["direct_add"], str)  # reason, not a value


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
        analytic.delta(Config(Gaussian(1), scheme="poisson", steps=10, rate="1/10"), 1.0, "remove", options=FAST)
    with pytest.raises(UnsupportedRequest):
        analytic.rdp(Config(Gaussian(1), steps=10), 2)
    with pytest.raises(UnsupportedRequest):  # ε < 0 and remove: no analytic bound applies
        analytic.delta(Config(Gaussian(1), steps=10), -0.5, "remove", options=FAST)
