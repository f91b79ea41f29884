"""Findings of a hostile-user pass on the cost model: extreme scales refused up front (not hung), the pld estimate
reads its grid options, analytic/rdp refuse what they cannot serve before estimating, every budget refusal names
--budget and the smallest budget that admits the request, the nearest-fit search and the estimates of cheap and
huge requests, and the discrete Gaussian beyond σ = 1000 served by pld (no circular advice). Assertions are on
estimates, refusals and answers against closed-form references, never on timings."""

import math
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api, cost
from verialloc.cli import main
from verialloc.errors import UnsupportedRequest
from verialloc.mechanisms.discrete_gaussian import C_LAW_OUTPUT, DiscreteGaussian
from verialloc.mechanisms.laplace import Laplace, LaplaceLoss
from verialloc.numeric.pld import cost as pld_cost, pipeline
from verialloc.numeric.pld.settings import Settings

FLOAT_METHODS = ("pld", "rdp", "analytic", "best")


# --- 1. subnormal and extreme scales --------------------------------------------------------------------------


@pytest.mark.parametrize("method", FLOAT_METHODS)
@pytest.mark.parametrize("scale", ["1e-320", "1e-309", "1e400"])
def test_extreme_laplace_scales_are_refused_before_any_work(method, scale):
    """scale=1e-320 (1/b overflows to inf) hung pld/best in the loss law's tail search; 1e400 raised an
    OverflowError. The float methods now refuse them naming the range and --method exact."""
    config = Config(Laplace(Fraction(scale)), steps=2)
    with pytest.raises(UnsupportedRequest) as info:
        cost.check("delta", config, method, 1, direction="remove")
    text = str(info.value)
    assert info.value.name == "scale" and "[1e-150, 1e+308]" in text
    assert ("--scale 1e-150 bounds delta" in text) if scale != "1e400" else ("use --method exact" in text)


def test_refusal_shows_a_subnormal_value_exactly(capsys):
    argv = ["delta", "--mechanism", "laplace", "--scale", "1e-320", "--steps", "2", "--epsilon", "1", "--method", "pld"]
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and "scale=1e-320 is not supported" in err  # not the subnormal float's 9.99989e-321


def test_extreme_randomized_response_is_refused_not_an_internal_error():
    with pytest.raises(UnsupportedRequest) as info:
        cost.check("delta", Config(RandomizedResponse(Fraction(10**400)), steps=2), "pld", 1, direction="remove")
    assert info.value.name == "eps0"
    stats = RandomizedResponse(Fraction(10**300)).loss_statistics()  # e0**2 raised OverflowError
    assert math.isinf(stats.variance)


def test_tail_search_of_a_non_finite_law_ends():
    """The guard behind the range: a law whose tail never falls below the mass raises instead of looping."""
    with pytest.raises(ValueError), np.errstate(over="ignore"):
        LaplaceLoss(1e-320).quantile_range(1e-15)


def test_laplace_at_the_edge_of_the_range_is_answered():
    """scale = 1e-150: loss range ±1e150, δ(1) of 2 steps is 1 − e^{(1 − 1e150)/2}·… = 1 up to the float grid."""
    b = api.delta(Config(Laplace(Fraction(1, 10**150)), steps=2), 1, method="pld", direction="add")
    assert float(b.lower) > 0.99 and float(b.upper) == 1.0


# --- 2. the pld estimate reads its options ------------------------------------------------------------------


def test_pld_estimate_reads_the_grid_step_and_counts_its_chain():
    """An explicit --grid-step builds its dyadic chain of coarser steps (pipeline.chain_levels): the estimate is
    the sum over the levels, each planned at its step; a coarser grid step is estimated cheaper."""
    config = Config(Gaussian(1), steps=10**4)
    fine, coarse = Settings(grid_step=0.01), Settings(grid_step=0.2)
    levels = pipeline.chain_levels(config, coarse, "epsilon", 1e-6)
    assert [s.grid_step for s in levels] == [0.2, 0.4]
    each = [pld_cost._estimate_level(config, s, True, "epsilon", "1e-6").seconds for s in levels]
    both = cost.estimate("epsilon", config, "pld", "1e-6", {"settings": coarse}).seconds
    assert both == pytest.approx(sum(each) - cost.BASE_SECONDS)
    finer = cost.estimate("epsilon", config, "pld", "1e-6", {"settings": fine}).seconds
    assert finer > 3 * both
    budget = math.sqrt(finer * both)  # a user coarsening the grid to fit is admitted
    cost.check("epsilon", config, "pld", "1e-6", {"settings": coarse}, budget=budget)
    with pytest.raises(cost.BudgetExceeded):
        cost.check("epsilon", config, "pld", "1e-6", {"settings": fine}, budget=budget)


def test_pld_estimate_reads_the_tail():
    config = Config(Gaussian(1), steps=10**6)
    default = cost.estimate("epsilon", config, "pld", "1e-6", {"settings": Settings()}).seconds
    loose = cost.estimate("epsilon", config, "pld", "1e-6", {"settings": Settings(tail=1e-8)}).seconds
    assert loose < default


# --- 3. applicability before the estimate --------------------------------------------------------------------


def test_analytic_refuses_poisson_before_any_budget_or_work():
    config = Config(Gaussian(1), "poisson", steps=10**6, rate=Fraction(1, 100))
    with pytest.raises(UnsupportedRequest) as info:
        api.delta(config, 1, method="analytic", budget=1e-3)
    assert not isinstance(info.value, cost.BudgetExceeded) and info.value.name == "scheme"


def test_analytic_refuses_a_negative_epsilon_at_once():
    with pytest.raises(UnsupportedRequest) as info:
        cost.check("delta", Config(Laplace(1), steps=100, k=2), "analytic", -1, budget=1e-3)
    assert info.value.name == "epsilon" and "no analytic bound applies" in str(info.value)


def test_rdp_refuses_the_add_direction_of_allocation_before_the_budget():
    with pytest.raises(UnsupportedRequest) as info:
        cost.check("delta", Config(Gaussian(1), steps=1000), "rdp", 1, budget=1e-3, direction="both")
    assert info.value.name == "direction" and not isinstance(info.value, cost.BudgetExceeded)


def test_analytic_estimate_counts_its_poisson_plds():
    """It was a flat 0.05 s for allocation: a run of minutes was never checked against the budget."""
    small = cost.estimate("delta", Config(Gaussian(1), steps=10), "analytic", 1, direction="remove").seconds
    large = cost.estimate("delta", Config(Gaussian(Fraction(1, 20)), steps=100), "analytic", 1).seconds
    assert small < large and large > cost.DEFAULT_SECONDS
    with pytest.raises(cost.BudgetExceeded):
        api.delta(Config(Gaussian(Fraction(1, 20)), steps=100), 1, method="analytic")


# --- 4. every budget refusal names --budget and the smallest budget that admits it --------------------------


@pytest.mark.parametrize(
    "method,config,query,value,options",
    [
        ("exact", Config(RandomizedResponse(1), steps=300000), "epsilon", "1e-6", {}),
        ("pld", Config(Gaussian(1), steps=10**6), "epsilon", "1e-6", {}),
        ("rdp", Config(Gaussian(1), steps=1000), "delta", 1, {}),
        ("rdp", Config(Gaussian(1), steps=1000), "rdp", 5000, {}),
        ("analytic", Config(Gaussian(1), steps=10**6), "delta", 1, {}),
        ("mc", Config(Gaussian(1), steps=10**5), "delta", 1, {}),
        ("best", Config(Gaussian(1), steps=10**6), "delta", 1, {}),
    ],
)
def test_budget_refusals_name_the_smallest_budget(method, config, query, value, options):
    direction = "remove" if method in ("rdp", "mc") else "both"
    with pytest.raises(cost.BudgetExceeded) as info:
        cost.check(query, config, method, value, options, budget=0.1, direction=direction)
    text = str(info.value)
    found = re.search(r"or --budget ([0-9.e+]+) \(the smallest budget", text)
    assert found, text
    cost.check(query, config, method, value, options, budget=float(found.group(1)), direction=direction)
    assert "nearest feasible setting" in text or "does not fit" in text or "no smaller setting" in text, text


def test_rdp_delta_refusal_names_alpha_max_not_the_epsilon():
    """It said `alpha=10000 … even alpha=1 does not fit` for a δ query (α is not the query's value there)."""
    with pytest.raises(cost.BudgetExceeded) as info:
        cost.check("delta", Config(Gaussian(1), steps=10**6), "rdp", 1, budget=0.5, direction="remove")
    text = str(info.value)
    assert info.value.name == "alpha_max" and "--alpha-max <=" in text, text
    n = int(re.search(r"--alpha-max <= (\d+)", text).group(1))
    cost.check("delta", Config(Gaussian(1), steps=10**6), "rdp", 1, {"alpha_max": n}, budget=0.5, direction="remove")


def test_memory_refusal_says_budget_does_not_raise_memory():
    config = Config(Gaussian(1), steps=1000, epochs=1000)
    with pytest.raises(cost.BudgetExceeded) as info:
        cost.check("epsilon", config, "pld", "1e-5", budget=cost.Budget(seconds=1e6, memory=200 * 2**20))
    assert "which --budget (seconds) does not raise" in str(info.value)


# --- 5. cheap steps=1, the nearest fit, and the geometric rebuild ---------------------------------------------


def test_one_gaussian_step_is_estimated_cheap():
    """k = t of the Gaussian is F13's closed form: no allocation is built (it was estimated at 1.07 s, so at
    budgets below that `even steps=1 does not fit` was printed for a 0.1 s query)."""
    assert cost.estimate("epsilon", Config(Gaussian(1), steps=1), "pld", "1e-6").seconds < 0.2
    with pytest.raises(cost.BudgetExceeded) as info:
        cost.check("epsilon", Config(Gaussian(1), steps=10**9), "pld", "1e-6", budget=0.5)
    text = str(info.value)
    assert "even steps=1 does not fit" not in text and "nearest feasible setting is steps <=" in text, text
    n = int(re.search(r"steps <= (\d+)", text).group(1))
    cost.check("epsilon", Config(Gaussian(1), steps=n), "pld", "1e-6", budget=0.5)


def test_geometric_epsilon_estimate_counts_the_tail_accurate_rebuild():
    """σ = 1, t = 1e9, δ = 1e-6 runs the geometric grid twice (the float budget decides the first upper end):
    estimated 264 s for one set, 527 s with the rebuild; its memory is the grid's, not 8 bytes per step. A δ query
    may rebuild too (pipeline: delta_budget_floor), so its estimate counts the same two sets."""
    config = Config(Gaussian(1), steps=10**9)
    eps = cost.estimate("epsilon", config, "pld", "1e-6")
    delta = cost.estimate("delta", config, "pld", 1)
    assert eps.seconds > 400 and abs(delta.seconds - eps.seconds) < 0.1 * eps.seconds
    assert eps.memory < 2**30


# --- 6. discrete Gaussian beyond σ = 1000 ---------------------------------------------------------------------


def test_discrete_gaussian_above_1000_is_served_by_pld_not_sent_back_to_exact():
    """σ in (1000, 10⁴] was refused by pld ("use --method exact") and by exact (count vectors): circular."""
    mech = DiscreteGaussian(5000)
    config = Config(mech, steps=10)
    cost.parameter_range("epsilon", config, "pld", "1e-6")
    est = cost.estimate("epsilon", config, "pld", "1e-6")
    assert est.seconds >= C_LAW_OUTPUT * mech.finite_pairs()[1].size  # the brackets' mpmath build is counted
    assert mech.law_seconds() > 0  # estimating did not build them
    with pytest.raises(UnsupportedRequest) as info:
        api.epsilon(config, "1e-6", method="exact")
    assert 'method="pld"' in str(info.value)  # in Python's words (the CLI says --method pld)


def test_discrete_gaussian_above_1000_against_its_exact_profile():
    """One step at σ = 1100: the pld bracket holds the exact δ (sums over the integers in mpmath)."""
    mech = DiscreteGaussian(1100)
    eps = Fraction(1, 10**4)
    b = api.delta(Config(mech, steps=1), eps, method="pld", direction="remove")
    with mp.workdps(30):
        ref = mech.delta(eps, "remove")
    assert float(b.lower) <= float(ref) <= float(b.upper)
    assert float(b.upper) - float(b.lower) < 1e-2 * float(ref)


def test_discrete_gaussian_beyond_10000_is_refused_by_its_constructor():
    with pytest.raises(UnsupportedRequest):
        DiscreteGaussian(10**4 + 1)
    assert np.isfinite(cost.estimate("delta", Config(DiscreteGaussian(10**4), steps=2), "pld", 1).seconds)
