"""Privacy curves of a compiled ledger (api.Accountant.epsilon_curve / delta_curve, the dp_accounting bridge's
get_epsilon_curve / get_delta_curve): the same queries as one at a time, asked from the smallest δ up.

References, independent of the code under test:
* the per-point queries themselves (a fresh compiled ledger asked one δ at a time, and `api.epsilon` per δ where
  every δ reads the default table): equal bit for bit;
* a Gaussian-only ledger whose every step holds the element, one Gaussian of μ = √T/σ (F13), ε(δ) by bisection on
  the closed form in mpmath: every bracket contains it, δ from 1e-30 to 0.5, each direction.
"""

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, Ledger, api
from verialloc.errors import InvalidParameter

#: μ = √100/5 = 2 (F13): every step holds the element
GAUSSIAN = Config(Gaussian(5), scheme="poisson", rate=1, steps=100)
POISSON = Ledger.of(
    Config(Gaussian(1), scheme="poisson", steps=200, rate="0.02"),
    Config(Gaussian("1.3"), scheme="poisson", steps=300, rate="0.01"),
)
CURVE = ["0.3", "1e-3", "2e-7", "1e-9", "5e-12", "1e-5", "0.01", "3e-10", "1e-14", "0.05"]


def test_a_curve_is_the_per_point_queries_asked_from_the_smallest_delta_up():
    curve = api.compile(POISSON, method="pld").epsilon_curve(CURVE)
    one_by_one = api.compile(POISSON, method="pld")
    single = {d: one_by_one.epsilon(d) for d in sorted(CURVE, key=float)}
    assert curve == [single[d] for d in CURVE]  # ends, per-direction brackets, notes, float budgets


def test_a_curve_above_the_default_tail_equals_fresh_single_queries():
    """Every δ here keeps the default tail (tail_for), so each fresh query builds the table the curve reads."""
    deltas = ["0.2", "1e-3", "1e-6", "4e-8", "1e-4"]
    curve = api.compile(POISSON, method="pld").epsilon_curve(deltas, direction="add")
    fresh = [api.epsilon(POISSON, d, method="pld", direction="add") for d in deltas]
    assert curve == fresh


def test_a_curve_builds_one_table_per_event_below_the_default_tail():
    acc = api.compile(POISSON, method="pld")
    acc.epsilon("1e-5")
    acc.epsilon_curve(CURVE)
    assert len({settings.tail for _, settings, *_ in acc.compiled.builds._tables}) == 2


def _f13_delta(mu, eps):
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def _f13_epsilon(mu, delta):
    """[lo, hi] around ε(δ) of N(μ, 1) vs N(0, 1) by bisection on F13 (δ decreasing in ε)."""
    with mp.workdps(50):
        lo, hi = mp.mpf(-30), mp.mpf(100)
        for _ in range(220):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _f13_delta(mp.mpf(mu), mid) > mp.mpf(delta) else (lo, mid)
    return lo, hi


@pytest.mark.parametrize("direction", ["remove", "add", "both"])
def test_gaussian_curve_brackets_the_closed_form_from_1e_30_to_one_half(direction):
    deltas = ["1e-30", "1e-20", "1e-12", "1e-8", "1e-5", "1e-3", "0.05", "0.2", "0.5"]
    curve = api.compile(GAUSSIAN, method="pld").epsilon_curve(deltas, direction=direction)
    for delta, got in zip(deltas, curve):
        lo, hi = _f13_epsilon(2, delta)
        assert got.lower <= hi and lo <= got.upper, (delta, got.lower, got.upper, lo)
        assert float(got.upper - got.lower) <= 1e-6 * max(1.0, float(hi))


def test_a_delta_curve_is_the_per_point_queries_in_order():
    acc = api.compile(GAUSSIAN, method="pld")
    epsilons = ["2", "-1", "0.5", "10"]
    assert acc.delta_curve(epsilons) == [api.delta(GAUSSIAN, e, method="pld") for e in epsilons]


@pytest.mark.parametrize("bad, name", [("1e-5", "deltas"), (5, "deltas"), (["1e-5", "x"], "delta")])
def test_a_curve_that_is_no_list_of_numbers_is_refused_before_any_query(bad, name):
    acc = api.compile(GAUSSIAN, method="pld")
    with pytest.raises(InvalidParameter) as err:
        acc.epsilon_curve(bad)
    assert err.value.name == name
    assert not acc.compiled.builds._tables
    assert acc.epsilon_curve([]) == []
