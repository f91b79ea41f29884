"""The grid's δ values (numeric.pld.grid_delta) enclose the accurate sum at every grid loss, and PLD.epsilon, which
reads them in its search for the crossing segment, returns bit for bit what the search by the sums alone returns
(reference: the same PLD with its grid values switched off), also at targets equal to the sums at grid losses."""

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc.numeric.pld.pld import PLD


def _plain(pld: PLD) -> PLD:
    """The same PLD searching by the accurate sums only."""
    twin = PLD(pld.losses, pld.masses, pld.inf_mass, pld.neg_inf_mass, pld.truncated, pld.float_error, pld.bound)
    twin.__dict__["_grid"] = None
    return twin


def _random_pld(seed: int, n: int, log_step: float, bound: str) -> PLD:
    rng = np.random.default_rng(seed)
    step = 10.0**log_step
    losses = (int(rng.integers(-3000, 3000)) + np.arange(n)).astype(float) * step
    losses -= float(np.median(losses)) if rng.random() < 0.5 else 0.0
    masses = rng.random(n) ** rng.uniform(1, 40)
    if rng.random() < 0.3:
        masses[rng.random(n) < 0.5] = 0.0
    if rng.random() < 0.3:  # masses down to the subnormal range
        masses *= 10.0 ** rng.uniform(-310, -280, n)
    masses /= masses.sum() * (rng.uniform(1.0, 1.3) if bound == "lower" else 1.0)
    inf = float(rng.uniform(0, 1e-6)) if rng.random() < 0.5 else 0.0
    return PLD(losses, masses * (1 - inf), inf, float_error=float(10 ** rng.uniform(-18, -9)), bound=bound)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(64, 3000), st.floats(-5, 0), st.sampled_from(["upper", "lower"]))
def test_grid_values_enclose_the_accurate_sum(seed, n, log_step, bound):
    pld = _random_pld(seed, n, log_step, bound)
    grid = pld._grid
    assert grid is not None
    for i in np.linspace(0, n - 1, 60).astype(int):
        exact = pld.delta(pld.losses[i])
        assert grid.lower[i] <= exact <= grid.upper[i]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(64, 3000),
    st.floats(-5, 0),
    st.sampled_from(["upper", "lower", "exact"]),
    st.lists(st.floats(-16, -0.01), min_size=5, max_size=5),
)
def test_epsilon_reads_the_grid_and_returns_what_the_sums_return(seed, n, log_step, bound, log_targets):
    pld = _random_pld(seed, n, log_step, bound)
    plain = _plain(pld)
    rng = np.random.default_rng(seed)
    ties = [pld.delta(pld.losses[i]) for i in rng.integers(0, n, 5)]  # the sums themselves: the bounds cannot decide
    targets = [10.0**t for t in log_targets] + ties + [math.nextafter(t, 1.0) for t in ties if t > 0]
    for t in targets:
        if not 0 <= t <= 1:
            continue
        assert _same(pld.epsilon(t), plain.epsilon(t))
        assert _same(pld.epsilon_bound(Fraction(t)), plain.epsilon_bound(Fraction(t))) if 0 < t < 1 else True
    assert pld._grid is not None


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))


def test_a_grid_with_holes_or_few_points_has_no_values():
    losses = np.concatenate([np.arange(100), np.arange(150, 250)]) * 1e-2
    assert PLD(losses, np.full(200, 1 / 200), bound="upper")._grid is None
    assert PLD(np.arange(10) * 0.1, np.full(10, 0.1), bound="upper")._grid is None


def test_a_grid_of_many_blocks_reads_as_the_sums():
    """A loss span of 400 (13 blocks of BLOCK_SPAN): the scaled sums restart in every block."""
    losses = np.arange(-20_000, 20_001) * 1e-2
    masses = np.exp(-0.5 * (losses / 40) ** 2)
    pld = PLD(losses, masses / masses.sum(), bound="upper")
    plain = _plain(pld)
    for t in 10.0 ** np.linspace(-250, -0.1, 40):
        assert pld.epsilon(t) == plain.epsilon(t)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.floats(-5, 0), st.floats(-0.1, 1.1))
def test_delta_is_the_numpy_sum_of_its_terms(seed, n, log_step, where):
    """PLD.delta writes its terms into a scratch array of the thread: the float it returns is the one numpy's sum of
    the terms as an expression gives (the reference written here)."""
    pld = _random_pld(seed, max(n, 64), log_step, "upper")
    l, m = pld.losses, pld.masses
    e = float(l[0] + where * (l[-1] - l[0]))
    start = np.searchsorted(l, e, side="right")
    assert pld.delta(e) == float(np.sum(m[start:] * -np.expm1(e - l[start:]))) + pld.inf_mass
    assert list(pld.delta([e, e])) == [pld.delta(e)] * 2
