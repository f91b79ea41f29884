"""compose / self_compose (F6, F48, I16, E14): brute force, exact Poisson profiles, F13, FFT error bound, refinement.

Issue #16 (code compared with itself): `test_direct_and_fft_paths_agree_within_their_bounds` compared the direct
and FFT paths with each other, `test_self_compose_equals_repeated_compose` compared self_compose with repeated
compose. They are now `test_each_convolution_path_brackets_the_exact_composition` and
`test_self_compose_brackets_the_exact_n_fold_composition`: each output against the long-double convolution of
the inputs (computed without `compose`) and against F13. `test_refining_the_grid_tightens_both_bounds` still
compares two grid steps (not in #16's list).
"""

from fractions import Fraction
from math import ceil, log2

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verialloc.errors import InvalidParameter
from verialloc.exact.discrete_profiles import discrete_delta, poisson_pair
from verialloc.mechanisms import RandomizedResponse
from verialloc.mechanisms.gaussian import gaussian_delta
from verialloc.numeric.pld import compose as C
from verialloc.numeric.pld.compose import compose, convolve, fft_error_bound, self_compose
from verialloc.numeric.pld.discretize import atomic_pld, discretize
from verialloc.numeric.pld.grid import regrid
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.numeric.pld.pld import PLD
from verialloc.numeric.pld.subsample import SubsampledLoss

TOL = 1e-13
DIRECTIONS = ("remove", "add")


def sf(pld: PLD, x) -> np.ndarray:
    tail = np.concatenate([np.cumsum(pld.masses[::-1])[::-1], [0.0]])
    return tail[np.searchsorted(pld.losses, np.asarray(x), side="right")] + pld.inf_mass


def exact_gaussian(sigma: float, eps: float) -> float:
    with mp.workdps(40):
        return float(gaussian_delta(mp.mpf(sigma), mp.mpf(eps)))


@st.composite
def grid_plds(draw, bound="exact"):
    """A PLD on {k/8} with random masses and +inf atom, total mass 1 (sub-probability for lower)."""
    n = draw(st.integers(1, 8))
    ks = sorted(draw(st.sets(st.integers(-12, 12), min_size=n, max_size=n)))
    raw = draw(st.lists(st.integers(1, 9), min_size=n + 1, max_size=n + 1))
    inf = draw(st.sampled_from([0, raw[-1]]))
    total = sum(raw[:-1]) + inf + (draw(st.integers(0, 5)) if bound == "lower" else 0)
    return PLD(np.array(ks) / 8, np.array(raw[:-1]) / total, inf_mass=inf / total, bound=bound)


def brute_compose(a: PLD, b: PLD):
    """Law of A + B for independent A, B by enumeration (F6): {value: mass} over finite sums, and the +inf mass."""
    table = {}
    for la, ma in zip(a.losses, a.masses):
        for lb, mb in zip(b.losses, b.masses):
            key = round((la + lb) * 8)
            table[key] = table.get(key, 0.0) + ma * mb
    inf = a.inf_mass * (b.masses.sum() + b.inf_mass) + a.masses.sum() * b.inf_mass
    return table, inf


@given(grid_plds(), grid_plds(), st.sampled_from(["exact", "upper", "lower"]))
def test_compose_is_the_law_of_the_sum_I16(a, b, bound):
    a, b = a.with_bound(bound), b.with_bound(bound)
    out = compose(a, b, 0.125)
    table, inf = brute_compose(a, b)
    got = dict(zip(np.rint(out.losses * 8).astype(int), out.masses))
    for key in set(table) | set(got):
        assert abs(got.get(key, 0.0) - table.get(key, 0.0)) <= TOL
    assert out.inf_mass == pytest.approx(inf, abs=TOL) and out.bound == bound
    if bound != "lower":
        assert abs(out.total_mass - 1) <= 1e-12
        assert out.exp_neg_mean() == pytest.approx(a.exp_neg_mean() * b.exp_neg_mean(), rel=1e-12)


@given(grid_plds(bound="lower"), grid_plds(bound="lower"))
def test_lower_sub_probabilities_compose_as_independent_variables(a, b):
    out = compose(a, b, 0.125)
    assert out.total_mass == pytest.approx(a.total_mass * b.total_mass, abs=TOL)


def test_step_is_inferred_from_the_grid():
    a = PLD(np.array([0.0, 0.1, 0.2]), np.array([0.2, 0.3, 0.5]), bound="upper")
    b = PLD(np.array([0.3]), np.array([1.0]), bound="upper")
    np.testing.assert_allclose(compose(a, b).losses, [0.3, 0.4, 0.5])
    single = compose(b, PLD(np.array([0.25]), np.array([1.0])))
    np.testing.assert_allclose(single.losses, [0.55])
    holes = PLD(np.array([-0.7, 0.7]), np.array([0.5, 0.5]))  # the gap 1.4 is not the grid step
    with pytest.raises(InvalidParameter, match="step"):
        compose(holes, holes)
    dense = compose(holes, holes, 0.05)  # the output grid is dense: interior zeros stay
    np.testing.assert_allclose(dense.losses[dense.masses > 0], [-1.4, 0.0, 1.4])
    np.testing.assert_allclose(np.diff(dense.losses), 0.05)


def poisson_rr(eps0, rate, direction, bound, step):
    law = SubsampledLoss(RandomizedResponse(eps0).loss_law(), rate)
    return discretize(law, direction, step, 0.0, bound)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_poisson_randomized_response_bracket_small_t(direction):
    mech, rate, step = RandomizedResponse(1), Fraction(1, 10), 1e-3
    up, low = (poisson_rr(1, rate, direction, b, step) for b in ("upper", "lower"))
    for t in (1, 3, 8, 37):
        u, lo = self_compose(up, t, tail=1e-16), self_compose(low, t, tail=1e-16)
        with mp.workdps(40):
            pair = poisson_pair(mech, t, rate)
            for eps in (-0.5, 0.0, 0.3, 1.0, 2.0):
                exact = float(pair.delta(Fraction(eps), direction))
                assert lo.delta(eps) <= exact + TOL and exact <= u.delta(eps) + TOL
                assert u.delta(eps) - lo.delta(eps) <= 2 * t * step


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_poisson_randomized_response_bracket_t_10000(direction):
    mech, rate, step, t = RandomizedResponse(1), Fraction(1, 500), 1e-4, 10_000
    u = self_compose(poisson_rr(1, rate, direction, "upper", step), t)
    lo = self_compose(poisson_rr(1, rate, direction, "lower", step), t)
    u.validate_realization()
    exact = float(discrete_delta(mech, "poisson", t, "0.5", direction, rate=rate, digits=15))
    assert lo.delta(0.5) <= exact <= u.delta(0.5)
    assert 1e-6 < exact < 1e-2  # a tail value, not a trivial one


@pytest.mark.parametrize("sigma,n", [(2.0, 4), (3.0, 9), (1.0, 100)])
def test_composed_gaussians_bracket_F13(sigma, n):
    law, step = GaussianLoss(sigma), 0.005
    u = self_compose(discretize(law, "remove", step, 1e-14, "upper"), n)
    lo = self_compose(discretize(law, "remove", step, 1e-14, "lower"), n)
    u.validate_realization()
    shift = n * step  # each of the n discretizations moves values by less than one step (F48: shifts add)
    for eps in (0.0, 0.5, 1.0, 2.0, 4.0):
        exact = exact_gaussian(sigma / np.sqrt(n), eps)
        assert lo.delta(eps) <= exact + TOL and exact <= u.delta(eps) + TOL
        # (α, β)-tightness (F10, F49): U ⪯_(nα, nβ) X ⪯_(nα, nβ) L
        assert u.delta(eps) <= exact_gaussian(sigma / np.sqrt(n), eps - shift) + 1e-12
        assert lo.delta(eps) >= exact_gaussian(sigma / np.sqrt(n), eps + shift) - 1e-12


def test_tiny_delta_keeps_relative_accuracy_with_tilting():
    """δ ≈ 1e-31 of 16 composed Gaussians (σ = 2 → σ/√16 = 0.5) matches F13 within 25% (the grid's own shift)."""
    sigma, n, step, tail = 2.0, 16, 0.002, 1e-50
    law = GaussianLoss(sigma)
    u = self_compose(discretize(law, "remove", step, tail, "upper"), n, tail=tail)
    lo = self_compose(discretize(law, "remove", step, tail, "lower"), n, tail=tail)
    for eps in (20.0, 25.0):
        exact = exact_gaussian(0.5, eps)
        assert lo.delta(eps) <= exact <= u.delta(eps)
        assert u.delta(eps) <= 1.25 * exact and lo.delta(eps) >= 0.75 * exact
    assert exact_gaussian(0.5, 25.0) < 1e-30


def spread_vector(rng, size, decay):
    """Non-negative masses with a wide dynamic range (Gaussian-like tails down to ~1e-300) and some zeros."""
    i = np.arange(size)
    v = np.exp(-decay * (i - size / 3) ** 2) * rng.uniform(0.5, 1.5, size)
    v[rng.random(size) < 0.05] = 0.0
    return v / v.sum()


@pytest.mark.parametrize("seed", range(4))
def test_fft_convolution_error_stays_below_its_bound(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(C, "DIRECT_LIMIT", 0)
    monkeypatch.setattr(C, "DIRECT_SHORT", 0)
    n, m = rng.integers(500, 3000, size=2)
    cases = [(rng.random(n), rng.random(m)), (spread_vector(rng, n, 2e-4), spread_vector(rng, m, 3e-4))]
    for x, y in cases:
        exact = np.convolve(x.astype(np.longdouble), y.astype(np.longdouble))
        for floor in (np.inf, 1e-12, 1e-200):  # inf: the plain transform; small floors: tilted runs
            c, err = convolve(x, y, floor)
            assert np.all(np.abs(c - exact) <= err)
        plain, _ = convolve(x, y, np.inf)
        size = 1 << ceil(log2(x.size + y.size - 1))
        assert float(np.linalg.norm((plain - exact).astype(float))) <= fft_error_bound(x, y, size)


@pytest.mark.parametrize("seed", range(3))
def test_absorbed_fft_error_keeps_the_direction(seed, monkeypatch):
    """Upper: every tail sum of the stored masses ≥ the exact one; lower: every mass ≤ the exact one (no slack)."""
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(C, "DIRECT_LIMIT", 0)
    monkeypatch.setattr(C, "DIRECT_SHORT", 0)
    x, y = spread_vector(rng, 1200, 1e-3), spread_vector(rng, 900, 5e-4)
    exact = np.convolve(x.astype(np.longdouble), y.astype(np.longdouble))
    grid = 0.01 * np.arange(exact.size)

    def tails(v):
        return np.cumsum(np.asarray(v, dtype=np.longdouble)[::-1])[::-1]

    for floor in (1e-12, 1e-200):
        a, b = PLD(grid[: x.size], x, bound="upper"), PLD(grid[: y.size], y, bound="upper")
        up = compose(a, b, 0.01, floor=floor)
        start = int(np.rint(up.losses[0] / 0.01))
        assert np.all(tails(up.masses) >= tails(exact)[start:])
        low = compose(a.with_bound("lower"), b.with_bound("lower"), 0.01, floor=floor)
        start = int(np.rint(low.losses[0] / 0.01))
        assert np.all(low.masses <= exact[start : start + low.masses.size])


def test_tilting_recovers_tail_entries(monkeypatch):
    rng = np.random.default_rng(7)
    monkeypatch.setattr(C, "DIRECT_LIMIT", 0)
    monkeypatch.setattr(C, "DIRECT_SHORT", 0)
    x, y = spread_vector(rng, 2000, 2e-4), spread_vector(rng, 1500, 2e-4)
    exact = np.convolve(x.astype(np.longdouble), y.astype(np.longdouble)).astype(float)
    c, err = convolve(x, y, 1e-200)
    deep = (exact > 1e-150) & (exact < 1e-20) & (np.arange(exact.size) > np.argmax(exact))  # upper tail
    assert deep.sum() > 100
    assert np.all(err[deep] <= 1e-6 * exact[deep])  # relative accuracy far below the plain FFT's 1e-16 floor


def dense_on(pld: PLD, step: float, first: int, size: int) -> np.ndarray:
    """pld's masses (long double) placed on the grid {(first + i)·step : i < size}."""
    out = np.zeros(size, dtype=np.longdouble)
    k = np.rint(pld.losses / step).astype(int) - first
    assert np.all((k >= 0) & (k < size)) and np.allclose(pld.losses, (k + first) * step, rtol=0, atol=1e-9 * step)
    out[k] = pld.masses
    return out


def tails(masses) -> np.ndarray:
    """Σ_{j ≥ i} masses_j in long double (64-bit mantissa: far below the float64 bounds checked against it)."""
    return np.cumsum(np.asarray(masses, dtype=np.longdouble)[::-1])[::-1]


def exact_power(pld: PLD, n: int, step: float) -> tuple[int, np.ndarray, np.longdouble]:
    """The n-fold composition of pld computed independently of `compose`: (first grid index, masses, +inf mass)
    by repeated long-double np.convolve; +inf mass 1 − (1 − a∞)^n (F6, F48)."""
    first = int(np.rint(pld.losses[0] / step))
    x = dense_on(pld, step, first, int(np.rint(pld.losses[-1] / step)) - first + 1)
    out = x
    for _ in range(n - 1):
        out = np.convolve(out, x)
    return n * first, out, -np.expm1(n * np.log1p(-np.longdouble(pld.inf_mass)))


@pytest.mark.parametrize("path", ["direct", "fft"])
def test_each_convolution_path_brackets_the_exact_composition(path, monkeypatch):
    """Both convolution paths of `compose` (direct np.convolve; FFT with tilting, forced by monkeypatching the size
    limits), each against references computed without `compose`:

    * the exact convolution of the input masses in long double: upper — every tail sum (with the +inf atom)
      ≥ the exact one and above it by at most twice the path's stated error bound (absorbed, then the surplus
      trimmed); lower — every mass ≤ the exact one; exact inputs — the ℓ1 distance to the exact masses is within
      the reported float_error (≤ 1e-9);
    * F13 in mpmath: two Gaussian steps σ = 1.5 compose to σ/√2 (F6), so δ(upper∘upper) ≥ F13 ≥ δ(lower∘lower),
      and the upper is within one grid step per discretization of F13 (F48: shifts add).

    #16: this test compared the two paths with each other (code against itself); a bug shared by both, or one
    path wrong within the other's slack, passed.
    Mutations checked to be killed (scratch copy; the old test passed both, since they hit both paths alike):
    `compose._absorb` adding the error bound to the lower masses (`c + err` instead of `c − err`); the +inf mass
    of an upper composition taken as max(a∞, b∞) instead of a∞ + b∞ − a∞b∞."""
    step, sigma = 0.01, 1.5
    law = GaussianLoss(sigma)
    up, low = (discretize(law, "remove", step, 1e-12, b) for b in ("upper", "lower"))
    if path == "fft":
        monkeypatch.setattr(C, "DIRECT_LIMIT", 0)
        monkeypatch.setattr(C, "DIRECT_SHORT", 0)
    stated = float(np.sum(convolve(up.masses, up.masses)[1]))  # the path's own per-entry bound, summed
    first, exact, exact_inf = exact_power(up, 2, step)
    size = exact.size
    composed = compose(up, up)
    assert composed.inf_mass >= exact_inf * (1 - 1e-15)
    gap = tails(dense_on(composed, step, first, size)) + composed.inf_mass - (tails(exact) + exact_inf)
    assert np.all(gap >= -1e-18) and np.all(gap <= 2 * stated), (float(gap.min()), float(gap.max()), stated)
    first_l, exact_l, _ = exact_power(low, 2, step)
    composed_l = compose(low, low)
    assert np.all(dense_on(composed_l, step, first_l, exact_l.size) <= exact_l)
    as_exact = compose(up.with_bound("exact"), up.with_bound("exact"))
    distance = float(np.sum(np.abs(dense_on(as_exact, step, first, size) - exact)))
    assert 0 < as_exact.float_error <= 1e-9 and distance <= as_exact.float_error  # reported, not absorbed
    for eps in (0.0, 0.5, 1.0, 2.0):
        reference = exact_gaussian(sigma / np.sqrt(2), eps)
        assert composed_l.delta_bound(eps) <= reference <= composed.delta_bound(eps)
        assert composed.delta(eps) <= exact_gaussian(sigma / np.sqrt(2), eps - 2 * step) + 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 5, 13])
def test_self_compose_brackets_the_exact_n_fold_composition(n):
    """self_compose (exponentiation by squaring, tail = 0) against references computed without `compose`: the
    n-fold long-double convolution of the input masses (every upper tail sum ≥ the exact one, and above it by at
    most 1e-11 relative — ⌈log2 n⌉ squarings of direct convolutions, each absorbing ≲ 1e-13 relative; lower:
    every mass ≤ the exact one) and F13 at σ/√n (δ(upper) ≥ F13 ≥ δ(lower), upper within n grid steps of F13).
    `truncated` is n times the input's (tail = 0 truncates nothing new).

    #16: this test compared self_compose with repeated `compose` (code against itself: both run the same
    convolution and absorption).
    Mutations checked to be killed (scratch copy; the old test passed both, repeated `compose` inherits them):
    the +inf mass of an upper composition taken as max(a∞, b∞); `compose._absorb` adding the error bound to the
    lower masses."""
    step, sigma = 0.05, 3.0
    law = GaussianLoss(sigma)
    base, low = (discretize(law, "remove", step, 1e-13, b) for b in ("upper", "lower"))
    squared, squared_l = self_compose(base, n, tail=0.0), self_compose(low, n, tail=0.0)
    first, exact, exact_inf = exact_power(base, n, step)
    got = tails(dense_on(squared, step, first, exact.size)) + squared.inf_mass
    want = tails(exact) + exact_inf
    assert np.all(got >= want * (1 - 1e-15)) and np.all(got <= want * (1 + 1e-11) + 1e-300)
    first_l, exact_l, _ = exact_power(low, n, step)
    assert np.all(dense_on(squared_l, step, first_l, exact_l.size) <= exact_l * (1 + 1e-15))
    for eps in (0.0, 0.5, 1.0, 2.0):
        reference = exact_gaussian(sigma / np.sqrt(n), eps)
        assert squared_l.delta_bound(eps) <= reference <= squared.delta_bound(eps)
        assert squared.delta(eps) <= exact_gaussian(sigma / np.sqrt(n), eps - n * step) + 1e-12
    assert squared.truncated == pytest.approx(n * base.truncated)


def test_exponentiation_by_squaring_E14(monkeypatch):
    calls = []
    real = C.compose
    monkeypatch.setattr(C, "compose", lambda *a, **k: calls.append(1) or real(*a, **k))
    point = PLD(np.array([0.375]), np.array([1.0]), bound="upper")
    for t in (1, 2, 3, 13, 64, 100):
        calls.clear()
        out = self_compose(point, t, step=0.125)
        np.testing.assert_allclose(out.losses, [0.375 * t])
        np.testing.assert_allclose(out.masses, [1.0])
        assert len(calls) <= 2 * ceil(log2(t)) if t > 1 else not calls
    calls.clear()
    self_compose(point, 13, step=0.125)
    assert len(calls) == 5


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_realization_invariants_survive_composition_I14(direction):
    law = SubsampledLoss(GaussianLoss(1.0), 0.2)
    up = discretize(law, direction, 0.01, 1e-14, "upper")
    low = discretize(law, direction, 0.01, 1e-14, "lower")
    for t in (2, 7, 50):
        u, lo = self_compose(up, t), self_compose(low, t)
        u.validate_realization()
        assert abs(u.total_mass - 1) <= 1e-12 and u.neg_inf_mass == 0
        assert lo.total_mass <= 1 + 1e-12 and lo.neg_inf_mass == 0


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_delta_grows_with_the_number_of_compositions(direction):
    up = poisson_rr(1, Fraction(1, 5), direction, "upper", 0.01)
    eps = np.linspace(-1, 3, 41)
    previous = up.delta(eps)
    current = up
    for _ in range(6):
        current = compose(current, up)
        now = current.delta(eps)
        assert np.all(now >= previous - TOL)
        previous = now


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_refining_the_grid_tightens_both_bounds(direction):
    law, n, tail = SubsampledLoss(GaussianLoss(1.0), 0.5), 8, 1e-15
    eps = np.linspace(-1, 4, 51)
    coarse_u = self_compose(discretize(law, direction, 0.02, tail, "upper"), n, tail=tail).delta(eps)
    fine_u = self_compose(discretize(law, direction, 0.01, tail, "upper"), n, tail=tail).delta(eps)
    coarse_l = self_compose(discretize(law, direction, 0.02, tail, "lower"), n, tail=tail).delta(eps)
    fine_l = self_compose(discretize(law, direction, 0.01, tail, "lower"), n, tail=tail).delta(eps)
    slack = 2 * n * tail + 1e-13  # tail truncation may cut at different points on the two grids
    assert np.all(fine_u <= coarse_u + slack) and np.all(fine_l >= coarse_l - slack)
    assert np.all(fine_l <= fine_u)


def test_regridded_exact_pld_composes_like_the_exact_pair():
    """Regrid an exact RR PLD up and down, compose 5 times, compare with the exact 5-fold pair (F8, F48)."""
    mech = RandomizedResponse("0.7")
    law = mech.loss_law()
    with mp.workdps(40):
        pair = poisson_pair(mech, 5, 1)
    for direction in DIRECTIONS:
        for bound in ("upper", "lower"):
            out = self_compose(regrid(atomic_pld(law, direction), 0.05, bound), 5, tail=0.0, step=0.05)
            for eps in (0.0, 0.5, 1.5):
                exact = float(pair.delta(Fraction(eps), direction))
                assert (out.delta(eps) >= exact - TOL) if bound == "upper" else (out.delta(eps) <= exact + TOL)


def test_invalid_compositions_name_the_parameter():
    up = PLD(np.array([0.0, 0.1]), np.array([0.5, 0.5]), bound="upper")
    low = up.with_bound("lower")
    with pytest.raises(InvalidParameter, match="bound"):
        compose(up, low)
    with pytest.raises(InvalidParameter, match="step"):
        compose(up, PLD(np.array([0.05, 0.1]), np.array([0.5, 0.5])), 0.1)
    with pytest.raises(InvalidParameter, match="neg_inf_mass"):
        compose(up, PLD(np.array([0.0]), np.array([0.5]), neg_inf_mass=0.5))
    with pytest.raises(InvalidParameter, match="n"):
        self_compose(up, 0)
    with pytest.raises(InvalidParameter, match="tail"):
        self_compose(up.with_bound("exact"), 3, tail=1e-10)


@pytest.mark.slow
def test_poisson_dp_sgd_bracket_contains_the_reference():
    """q = 1e-3, σ = 0.8, T = 1e4, δ = 1e-5: dp_accounting reports ε = 0.7824 (remove dominates)."""
    law = SubsampledLoss(GaussianLoss(0.8), 1e-3)
    eps = {}
    for bound in ("upper", "lower"):
        eps[bound] = self_compose(discretize(law, "remove", 1e-5, 1e-15, bound), 10_000).epsilon(1e-5)
    assert eps["lower"] <= 0.7824 <= eps["upper"]
    assert eps["upper"] - eps["lower"] <= 0.11  # ≈ T·step


@pytest.mark.parametrize("size", [4, 64, 2**12, 2**20])
def test_fft_error_budget_is_at_least_the_documented_bound(size):
    """The FFT term of the float budget is at least 2·(3ρ_N + 3u)·max(‖x‖₂‖y‖₁, ‖x‖₁‖y‖₂), ρ_N = (p + 2)η/(1 −
    (p + 2)η), η = u + γ₄(√2 + u), γ₄ = 4u/(1 − 4u) (Higham, Thm 24.2, per transform; the factor 2 for
    second-order terms and the mixed-radix real transform), evaluated here in exact rationals and mpmath: a budget
    below it is an unjustified bound even when no realized error reaches it (curated mutation C2)."""
    from verialloc.numeric.pld.compose import fft_error_bound

    rng = np.random.default_rng(size)
    x, y = rng.random(37), rng.random(23) ** 3
    u = Fraction(1, 2**53)
    with mp.workdps(40):
        gamma4 = 4 * u / (1 - 4 * u)
        eta = mp.mpf(u.numerator) / u.denominator + mp.mpf(gamma4.numerator) / gamma4.denominator * (
            mp.sqrt(2) + mp.mpf(u.numerator) / u.denominator
        )
        passes = int(log2(size)) + 2
        rho = passes * eta / (1 - passes * eta)
        fx, fy = [mp.mpf(float(v)) for v in x], [mp.mpf(float(v)) for v in y]
        l1x, l1y = mp.fsum(fx), mp.fsum(fy)
        l2x, l2y = mp.sqrt(mp.fsum(v * v for v in fx)), mp.sqrt(mp.fsum(v * v for v in fy))
        documented = 2 * (3 * rho + 3 * mp.mpf(u.numerator) / u.denominator) * max(l2x * l1y, l1x * l2y)
        assert mp.mpf(float(fft_error_bound(x, y, size))) >= documented * (1 - mp.mpf(10) ** -12)
