"""Float64 random allocation (k = 1): sound lower/upper bounds against exact references (F2, F13, F23–F26, I11, I14).

References: count-vector enumeration of finite pairs at 40 digits (verialloc.exact.discrete_profiles), Balle–Wang
for one Gaussian step (F13), arbitrary-precision quadrature for t = 2 (verialloc.exact.quadrature) and the
§12.1 table of formulas.md; where none exists (Gaussian, t = 30), the opposite bound of the geometric-grid
algorithm (numeric.pld.allocation.geometric, F52/F53 — a separate code path). Nothing asserted here is a number
produced by the code under test.

Issue #16 (tests that could not fail): `test_bounds_are_monotone_in_epsilon` (δ of one PLD non-increasing in ε,
true for every PLD) became `test_bounds_contain_references_on_a_dense_epsilon_grid_I1`; the equality of
allocation_delta and allocation_plds(...).delta_bound (two entry points into one `allocation` call) in the
realization test was replaced by containment of the exact profile. The refinement tests below compare the code
at two grid steps; they are left as they are (outside #16's list).
"""

import math
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from verialloc.errors import InvalidParameter
from verialloc.exact.discrete_profiles import allocation_pair, discrete_delta, discrete_epsilon
from verialloc.exact.quadrature import allocation_delta_quadrature
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.pld.allocation import allocation, allocation_delta, allocation_plds, convolution, tail_accurate
from verialloc.numeric.pld.allocation.exp_grid import _merge, contract, spread
from verialloc.numeric.pld.allocation.geometric import allocation_pld_geometric
from verialloc.mechanisms.loss_law import FiniteLoss
from verialloc.mechanisms.gaussian import GaussianLoss

DIRECTIONS = ("remove", "add")
EPS = np.array([-0.5, 0.0, 0.1, 0.3, 0.5, 1.0, 2.0])
#: a pair with zero masses on both sides (+inf remove loss and Q-only outputs)
ZEROS = DiscretePair(["1/2", "1/2", "0"], ["0", "1/3", "2/3"])


def exact_profile(mech, t, eps, direction, dps=40):
    """δ(ε) of the exact allocation pair at `dps` digits (count vectors, F23)."""
    with mp.workdps(dps):
        pair = allocation_pair(mech, t)
        return np.array([float(pair.delta(mp.mpf(float(e)), direction)) for e in eps])


def assert_brackets(lower, exact, upper, slack=0.0):
    assert np.all(lower <= exact + slack), (lower, exact)
    assert np.all(exact <= upper + slack), (exact, upper)


# ------------------------------------------------------------------------------ finite pairs


@pytest.mark.parametrize("eps0", ["0.5", "1", "2"])
@pytest.mark.parametrize("t", [1, 2, 7, 100, 1000])
def test_randomized_response_brackets_exact(eps0, t):
    """I11: lower ≤ exact ≤ upper, both directions, ε from −0.5 to 2 (k = 1)."""
    rr = RandomizedResponse(eps0)
    result = allocation(rr.loss_law(), t, epsilon_max=2.0)
    for d in DIRECTIONS:
        lower, upper = result.delta(EPS, d)
        assert_brackets(lower, exact_profile(rr, t, EPS, d), upper)


def test_randomized_response_large_t_certified():
    """t = 10^4 against the certified 30-digit front end, including a δ ≈ 1e-9 point.

    The default step divides e^{ε0} − e^{−ε0}, so both atoms are grid points and the discretized pair is exact:
    the raw δ of both PLDs matches to float accuracy, the bracket width is the float budget alone."""
    rr, t = RandomizedResponse(1), 10**4
    eps = np.array([0.0, 0.05])
    result = allocation(rr.loss_law(), t, epsilon_max=0.05)
    for d in DIRECTIONS:
        lower, upper = result.delta(eps, d)
        exact = np.array([float(discrete_delta(rr, "allocation", t, float(e), d)) for e in eps])
        assert_brackets(lower, exact, upper)
        assert np.all(upper - lower <= 0.01 * exact)
        for b in ("lower", "upper"):
            assert np.allclose(result.plds[d, b].delta(eps), exact, rtol=1e-6, atol=0)


@st.composite
def discrete_pairs(draw):
    """Random pairs with zero masses on either side (P-only outputs: +inf loss; Q-only: −inf loss)."""
    m = draw(st.integers(2, 4))
    p = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
    q = draw(st.lists(st.integers(0, 5), min_size=m, max_size=m))
    shared = draw(st.integers(0, m - 1))
    p[shared], q[shared] = max(p[shared], 1), max(q[shared], 1)
    return DiscretePair([Fraction(x, sum(p)) for x in p], [Fraction(y, sum(q)) for y in q])


@given(discrete_pairs(), st.integers(1, 5), st.sampled_from([None, 0.05, 0.3]))
def test_random_discrete_pairs_bracket_exact(mech, t, grid_step):
    law = mech.loss_law()
    result = allocation(law, t, epsilon_max=2.0, grid_step=grid_step)
    for d in DIRECTIONS:
        lower, upper = result.delta(EPS, d)
        assert_brackets(lower, exact_profile(mech, t, EPS, d), upper)


def test_pairs_with_infinite_losses_keep_their_atoms():
    """P-only mass is P_s in every upper/lower remove PLD; Q-only mass gives δ_add ≥ Q(P=0)^t at every ε."""
    mech = DiscretePair(["1/2", "1/4", "1/4", "0"], ["0", "1/2", "1/4", "1/4"])
    t = 3
    plds = allocation_plds(mech.loss_law(), t, epsilon_max=1.0)
    for b in ("upper", "lower"):
        assert plds["remove", b].inf_mass >= 0.5 - 1e-15
    with mp.workdps(40):
        pair = allocation_pair(mech, t)
        far = float(pair.delta(30, "add"))
    assert plds["add", "lower"].delta_bound(30.0) <= far <= plds["add", "upper"].delta_bound(30.0)


# ---------------------------------------------------------------------------------- continuous


@pytest.mark.parametrize("sigma", ["0.5", "1", "2"])
def test_gaussian_single_step_brackets_balle_wang(sigma):
    """t = 1: both directions equal F13 (the Gaussian pair is symmetric)."""
    mech = Gaussian(sigma)
    eps = np.array([-0.5, 0.0, 0.5, 1.0, 2.0])
    with mp.workdps(30):
        exact = np.array([float(mech.delta(float(e))) for e in eps])
    result = allocation(GaussianLoss(float(sigma)), 1, epsilon_max=2.0)
    for d in DIRECTIONS:
        lower, upper = result.delta(eps, d)
        assert_brackets(lower, exact, upper)


@pytest.mark.parametrize(
    "mech",
    [Gaussian("1"), Gaussian("2"), Gaussian("0.7"), Laplace("1"), Laplace("0.5")],
    ids=["gauss1", "gauss2", "gauss0.7", "laplace1", "laplace0.5"],
)
def test_two_steps_bracket_quadrature(mech):
    """t = 2: quadrature (F25) with its error estimate; both directions, several ε."""
    eps = [0.0, 0.5, 1.0, 2.0]
    result = allocation(mech.loss_law(), 2, epsilon_max=2.0)
    for d in DIRECTIONS:
        lower, upper = result.delta(eps, d)
        for e, lo, up in zip(eps, lower, upper):
            value, err = allocation_delta_quadrature(mech, 2, e, d, digits=15)
            assert lo <= max(float(value - err), 0.0) and float(value + err) <= up, (d, e, lo, value, up)


# §12.1 of formulas.md (8 significant digits): (σ, ε) → (remove, add)
TABLE_12_1 = {
    (0.5, 0.5): (0.50209809, 0.49124799),
    (0.5, 2): (0.23232134, 0.18644915),
    (1, 0): (0.29776223, 0.29776223),
    (1, 1): (0.059206501, 0.050197662),
    (1, 2): (0.0047457776, 0.0020559245),
    (2, 0.5): (0.018326595, 0.017397486),
    (2, 2): (2.8811863e-08, 1.9429956e-09),
}


@pytest.mark.parametrize("sigma", [0.5, 1, 2])
def test_two_steps_bracket_reference_table(sigma):
    """§12.1 values (rounded to 8 digits, so a relative slack of 5e-8)."""
    cases = {e: v for (s, e), v in TABLE_12_1.items() if s == sigma}
    result = allocation(GaussianLoss(sigma), 2, epsilon_max=2.0)
    for i, d in enumerate(DIRECTIONS):
        lower, upper = result.delta(list(cases), d)
        exact = np.array([v[i] for v in cases.values()])
        assert np.all(lower <= exact * (1 + 5e-8)) and np.all(exact * (1 - 5e-8) <= upper)


# ------------------------------------------------------------------------------ convex order


def call(xs, ws, k):
    """E[(Y − k)_+] of the atoms (xs, ws)."""
    return float(np.sum(ws * np.maximum(xs - k, 0.0)))


def grid_call(law, k):
    """E[(Y − k)_+] of a GridLaw for k ≤ top·h (the top bin contributes mass·(T·h − k) + excess)."""
    g = law.h * np.arange(law.masses.size)
    return call(g, law.masses, k) + law.top_excess


def gaussian_call(sigma, k):
    """E_Q[(X − k)_+] = P(ℓ > ln k) − k Q(ℓ > ln k) at 40 digits (X = e^ℓ log-normal, F15)."""
    with mp.workdps(40):
        mu = 1 / (2 * mp.mpf(sigma) ** 2)
        sd = mp.sqrt(2 * mu)
        y = mp.log(k)
        return float(mp.ncdf((mu - y) / sd) - k * mp.ncdf((-mu - y) / sd))


@pytest.mark.parametrize("sigma,h,top", [(1.0, 0.3, 40), (1.0, 0.05, 400), (0.8, 0.2, 100), (2.0, 0.02, 150)])
def test_spread_and_contraction_are_ordered_around_the_gaussian(sigma, h, top):
    """Spread keeps Q-mass and mean and dominates in convex order; the contraction keeps them and is dominated."""
    law = GaussianLoss(sigma)
    up, low = spread(law, h, top), contract(law, h, top)
    assert (up.bound, low.bound) == ("upper", "lower")
    for grid_law in (up, low):
        assert abs(grid_law.masses.sum() + grid_law.dropped - 1) <= 1e-13
        assert abs(grid_law.mean() + grid_law.dropped_moment - 1) <= 1e-12
    for k in np.linspace(0.01, top * h, 97):
        exact = gaussian_call(sigma, k)
        assert grid_call(low, k) <= exact + 1e-13 <= grid_call(up, k) + 2e-13


@given(discrete_pairs(), st.sampled_from([0.02, 0.1, 0.37]))
def test_spread_and_contraction_are_ordered_for_discrete_pairs(mech, h):
    p, q = (np.array([float(x) for x in v]) for v in mech.probabilities())
    law = FiniteLoss(p, q)
    both = (p > 0) & (q > 0)
    xs, ws = np.concatenate([p[both] / q[both], [0.0]]), np.concatenate([q[both], [law.q_neg_inf]])
    top = int(np.ceil(xs.max() / h)) + 2
    up, low = spread(law, h, top), contract(law, h, top)
    mean = float(np.dot(xs, ws))
    for grid_law in (up, low):
        assert abs(grid_law.masses.sum() + grid_law.dropped - 1) <= 1e-13
        assert abs(grid_law.mean() + grid_law.dropped_moment - mean) <= 1e-12
        assert grid_law.singular == law.p_inf
    for k in np.concatenate([np.linspace(0, top * h, 61), xs]):
        exact = call(xs, ws, k)
        assert grid_call(low, k) <= exact + 1e-14 <= grid_call(up, k) + 2e-14


@given(
    st.lists(st.tuples(st.floats(0, 5), st.floats(1e-6, 1)), min_size=1, max_size=12), st.sampled_from([0.07, 0.5, 1.0])
)
def test_merge_is_a_contraction_onto_the_grid(atoms, h):
    """_merge: all kept mass on grid points (or the top class), mass and mean kept, E[(·−k)_+] not increased."""
    xs = np.array(sorted(x for x, _ in atoms))
    ws = np.array([w for _, w in sorted(atoms)])
    top = int(np.ceil(xs.max() / h)) + 1
    masses, top_mass, top_excess, dropped, dropped_moment = _merge(xs, ws, h, top)
    g = h * np.arange(top)
    assert top_mass == 0.0 and top_excess == 0.0
    assert abs(masses.sum() + dropped - ws.sum()) <= 1e-12
    assert abs(np.dot(masses, g) + dropped_moment - np.dot(xs, ws)) <= 1e-11
    for k in np.concatenate([g, xs]):
        assert call(g, masses, k) <= call(xs, ws, k) + 1e-12


_TINY_X = st.sampled_from([math.ulp(0.0), 3e-323, 1e-310, sys.float_info.min, 1e-300])


@given(
    st.lists(
        st.tuples(
            st.one_of(_TINY_X, st.floats(1e-12, 5)),
            st.one_of(st.sampled_from([1e-320, 1e-300, 1 / 3]), st.floats(1e-6, 1)),
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([0.07, 0.5, 1.0]),
)
@example([(math.ulp(0.0), 1 / 3), (1.0, 2 / 3)], 0.07)  # seed 220: (1/3)·5e-324 underflowed to a zero moment
@example([(1e-10, 1e-320), (2.0, 0.5)], 0.5)
def test_merge_puts_no_positive_atom_on_grid_point_zero(atoms, h):
    """_merge: grid point 0 is X = 0 (P = 0, add loss +inf); a class there must hold only X = 0, even when the
    moment mass·x underflows float64 (issue #10, seed 220)."""
    xs = np.array(sorted(x for x, _ in atoms))
    ws = np.array([w for _, w in sorted(atoms)])
    top = int(np.ceil(xs.max() / h)) + 1
    masses = _merge(xs, ws, h, top)[0]
    assert masses[0] == 0.0


def test_contraction_loses_little_on_a_smooth_law():
    """The centred cells keep the lower single step close: call-price gap ≤ h²·max density-ish (σ = 1, h = 0.1)."""
    law, h, top = GaussianLoss(1.0), 0.1, 300
    low, up = contract(law, h, top), spread(law, h, top)
    gaps = [grid_call(up, k) - grid_call(low, k) for k in np.linspace(0.05, 25, 50)]
    assert max(gaps) <= 0.01 * h


# --------------------------------------------------------------------------------------- PLDs


@pytest.mark.parametrize(
    "law,mech,t",
    [
        (GaussianLoss(1.0), None, 50),
        (RandomizedResponse(1).loss_law(), RandomizedResponse(1), 300),
        (ZEROS.loss_law(), ZEROS, 4),
    ],
    ids=["gauss", "rr", "zeros"],
)
def test_plds_are_realizations_and_allocation_delta_brackets_exact(law, mech, t):
    """I14: no −inf mass, E[e^{−L}] ≤ 1, total mass 1 (upper) / ≤ 1 (lower). allocation_delta (its own window:
    ε up to 3, beyond the PLDs' epsilon_max = 2) brackets the exact count-enumeration profile (F23) for the
    finite pairs.

    #16: this test used to assert allocation_delta(...) == allocation_plds(...).delta_bound(...) — two entry
    points into the same `allocation` call, which cannot disagree; the exact profile replaces it."""
    plds = allocation_plds(law, t, epsilon_max=2.0)
    for (d, b), pld in plds.items():
        pld.validate_realization()
        assert pld.bound == b and pld.float_error >= 0
        if b == "upper":
            assert abs(pld.total_mass - 1) <= 1e-12
    if mech is None:
        return
    eps = np.append(EPS, 3.0)
    for d in DIRECTIONS:
        lower, upper = allocation_delta(law, t, eps, d)
        assert_brackets(lower, exact_profile(mech, t, eps, d), upper)


@pytest.mark.parametrize("target", ["1e-2", "1e-4", "1e-7"])
def test_epsilon_of_plds_brackets_exact_epsilon(target):
    rr, t = RandomizedResponse("0.5"), 200
    result = allocation(rr.loss_law(), t)
    for d in DIRECTIONS:
        exact = float(discrete_epsilon(rr, "allocation", t, target, d, digits=15))
        lower, upper = result.epsilon(float(target), d)
        assert lower <= exact <= upper
        assert upper - lower <= 0.02 * exact


def test_bounds_contain_references_on_a_dense_epsilon_grid_I1():
    """I1 and I11 on 81 ε in [−1, 3], both directions.

    Randomized response (ε0 = 2, t = 40): lower ≤ exact ≤ upper against count enumeration at 40 digits (F23).
    Gaussian (σ = 0.9, t = 30), where no exact value exists: the bracket overlaps the one of the geometric-grid
    algorithm (Algs 1/2 of [003], F52/F53: multiplicative grid, its own discretization and convolutions, a
    separate code path) — exp-grid lower ≤ geometric upper and geometric lower ≤ exp-grid upper (the geometric
    bracket is ≈ 0.3 % of δ wide at α = 0.02) — and upper ≥ max(0, 1 − e^ε), the floor of every profile (I1).

    #16: this test asserted that the δ of one fixed PLD is non-increasing in ε and at most 1, which holds for
    every PLD (and `delta_bound` clips to [0, 1]), so it could not fail.
    Mutations checked to be killed (scratch copy): `readout.read_pld` reading S one grid point too high
    (`idx = arange(lo + 1, hi + 2)`: the Gaussian remove lower end exceeds the geometric upper end by 1.6e-4);
    its relative float error absorbed inward in the upper PLDs (`scale = 1 − 2·rel`: the randomized-response
    upper end drops below the exact profile)."""
    eps = np.linspace(-1.0, 3.0, 81)
    law, t = GaussianLoss(0.9), 30
    result = allocation(law, t, epsilon_max=3.0)
    for d in DIRECTIONS:
        lower, upper = result.delta(eps, d)
        geo = {
            b: allocation_pld_geometric(law, t, d, b, alpha=0.02, beta=1e-12)[0].delta_bound(eps)
            for b in ("lower", "upper")
        }
        assert np.all(lower <= geo["upper"]), (d, np.max(lower - geo["upper"]))
        assert np.all(geo["lower"] <= upper), (d, np.max(geo["lower"] - upper))
        assert np.all(upper >= -np.expm1(eps))
    rr, t = RandomizedResponse(2), 40
    result = allocation(rr.loss_law(), t, epsilon_max=3.0)
    for d in DIRECTIONS:
        lower, upper = result.delta(eps, d)
        assert_brackets(lower, exact_profile(rr, t, eps, d), upper)


@pytest.mark.parametrize(
    "law,t,h",
    [
        (GaussianLoss(1.0), 10, 0.2),
        (GaussianLoss(1.0), 1, 0.1),
        (RandomizedResponse(1).loss_law(), 20, 0.3),
        (Laplace(1).loss_law(), 5, 0.2),
    ],
    ids=["gauss10", "gauss1", "rr", "laplace"],
)
def test_refining_the_grid_never_raises_the_upper_bound(law, t, h):
    """Nested grids: the h/2 spread is a spread of the h/2 law's own h-spread (interpolation of a convex call
    function), so the upper δ cannot grow, up to cut/float differences; ε kept inside the window."""
    eps = np.array([-0.5, 0.0, 0.3, 1.0])
    coarse = allocation(law, t, epsilon_max=1.0, grid_step=h).plds
    fine = allocation(law, t, epsilon_max=1.0, grid_step=h / 2).plds
    for d in DIRECTIONS:
        slack = coarse[d, "upper"].float_error + fine[d, "upper"].float_error
        assert np.all(fine[d, "upper"].delta(eps) <= coarse[d, "upper"].delta(eps) + slack)


def test_refining_the_grid_can_lower_the_lower_bound():
    """Not guaranteed for the lower bound: the contraction on h/2 is not a refinement of the one on h
    (documented counterexample: one Gaussian step, σ = 1)."""
    eps = np.array([0.0, 0.5, 1.0])
    coarse = allocation(GaussianLoss(1.0), 1, epsilon_max=1.0, grid_step=0.1).plds["remove", "lower"]
    fine = allocation(GaussianLoss(1.0), 1, epsilon_max=1.0, grid_step=0.05).plds["remove", "lower"]
    assert np.any(fine.delta(eps) < coarse.delta(eps) - 1e-7)


# ----------------------------------------------------------------------------------- numerics


@pytest.mark.parametrize("sizes", [(12000, 12000), (15000, None), (3000, 30000)])
def test_convolution_error_bounds_hold(sizes, monkeypatch):
    """|ĉ − c| ≤ rel·c + e with Σ|e| ≤ err, against an extended-precision direct convolution (split and plain FFT)."""
    rng = np.random.default_rng(sum(s or 0 for s in sizes))
    na, nb = sizes
    a = rng.lognormal(-3, 2, na) * np.exp(-np.linspace(0, 40, na))
    b = None if nb is None else rng.lognormal(-2, 1.5, nb) * np.exp(-(np.linspace(0, 25, nb) ** 1.2))
    exact = np.convolve(a.astype(np.longdouble), (a if b is None else b).astype(np.longdouble))
    for split_work in (convolution.SPLIT_WORK, 0):
        monkeypatch.setattr(convolution, "SPLIT_WORK", split_work)
        c, rel, err = convolution.convolve(a, b)
        excess = np.maximum(np.abs(c - exact) - rel * exact, 0)
        assert float(excess.sum()) <= err
        assert err <= 1e-9 * float(exact.sum())


def test_budget_reports_windows_and_caps():
    result = allocation(GaussianLoss(1.0), 200, epsilon_max=0.5)
    b = result.budget
    assert b.window >= 200 * np.exp(0.5) and b.single_top > 0
    assert all(0 <= x <= 1e-10 for x in b.dropped + b.overflow)
    assert b.warnings == ()
    assert result.limits([0.5], "both") == ()
    narrow = allocation(GaussianLoss(1.0), 200, epsilon_max=0.5, max_points=4096)
    assert narrow.budget.warnings and narrow.budget.window < b.window
    assert narrow.budget.grid_step == b.grid_step and narrow.budget.window >= 200 * np.exp(0.5)
    coarse = allocation(GaussianLoss(1.0), 200, epsilon_max=0.5, max_points=256)
    assert len(coarse.budget.warnings) == 2 and coarse.budget.grid_step > b.grid_step
    assert coarse.limits([3.0], "remove")
    for capped in (narrow, coarse):
        lower, upper = capped.delta([0.0, 0.5], "both")
        exact_lower, exact_upper = result.delta([0.0, 0.5], "both")
        assert np.all(lower <= exact_upper) and np.all(exact_lower <= upper)


def test_parameter_validation():
    law = GaussianLoss(1.0)
    with pytest.raises(InvalidParameter):
        allocation(law, 0)
    with pytest.raises(InvalidParameter):
        allocation(law, 10, grid_step=-1.0)
    with pytest.raises(InvalidParameter):
        allocation(law, 10, tail=0.5)
    with pytest.raises(InvalidParameter):
        allocation_delta(law, 10, [], "remove")
    with pytest.raises(InvalidParameter):
        allocation(law, 10).delta([0.0], "sideways")


@pytest.mark.parametrize(
    "sigma,t,delta,gap",
    [
        (0.8, 1000, 1e-5, 0.005),
        (1.0, 10**4, 1e-6, 0.005),
        pytest.param(1.0, 10**6, 1e-6, 0.01, marks=pytest.mark.slow),
    ],
)
def test_gaussian_epsilon_bracket_is_tight(sigma, t, delta, gap):
    """Default grid: the ε bracket (max over directions) is within the stated relative gap, and the float
    budget is negligible at that δ."""
    result = allocation(GaussianLoss(sigma), t)
    lower, upper = result.epsilon(delta, "both")
    assert 0 < lower <= upper <= lower * (1 + gap)
    assert result.limits([lower, upper], "both", rtol=1e-3) == ()


# ---------------------------------------------------------------------------------- tail-accurate mode


def heavy_tail(n, centre):
    """Lognormal-like masses on 0..n−1: a bulk near e^centre, a steep lower tail and a log-convex upper one."""
    i = np.arange(1, n + 1, dtype=float)
    return np.exp(-8 * (np.log(i) - centre) ** 2) / i


@pytest.mark.parametrize("case", ["heavy", "square", "top bin", "lattice"])
@pytest.mark.parametrize("block,direct_pairs", [(512, 0), (512, 48), (4096, 48)])
def test_tail_convolution_is_directed_and_keeps_tail_sums(case, block, direct_pairs, monkeypatch):
    """convolve_tail against an extended-precision direct convolution: the upper array dominates and the lower
    one is dominated entry by entry (up to the returned rounding factor), also with tilted transforms alone
    (DIRECT_PAIRS = 0); with the direct fallback both keep every tail sum (upper and lower tails) to within
    10ρ plus the floor. A small BLOCK puts the heavy tail across many blocks (pruning, tilts, direct fallback)."""
    monkeypatch.setattr(tail_accurate, "BLOCK", block)
    monkeypatch.setattr(tail_accurate, "DIRECT_PAIRS", direct_pairs)
    n, rho, floor = 9000, 1e-7, 1e-60
    x, y = heavy_tail(n, 6.5), heavy_tail(n - 1000, 6.8)
    if case == "square":
        y = None
    elif case == "top bin":
        x[-1], y[-1] = 1e-6, 1e-9
    elif case == "lattice":
        x, y = np.where(np.arange(n) % 7 == 3, x, 0.0), np.where(np.arange(n - 1000) % 7 == 5, y, 0.0)
    other = x if y is None else y
    exact = np.convolve(x.astype(np.longdouble), other.astype(np.longdouble))
    upper, rel_u = tail_accurate.convolve_tail(x, y, tail_accurate.Tail(True, rho, floor), exact.size)
    lower, rel_l = tail_accurate.convolve_tail(x, y, tail_accurate.Tail(False, rho, floor), exact.size)
    assert np.all(exact <= upper * (1 + rel_u)) and np.all(lower <= exact * (1 + rel_l))
    if direct_pairs:
        for tails in (lambda a: np.cumsum(a[::-1])[::-1], np.cumsum):
            ref, up, low = tails(exact), tails(upper.astype(np.longdouble)), tails(lower.astype(np.longdouble))
            assert np.all(up - low <= 10 * rho * ref + 4 * floor)


@given(discrete_pairs(), st.integers(1, 6), st.sampled_from([None, 0.05, 0.3]))
def test_tail_mode_random_discrete_pairs_bracket_exact(mech, t, grid_step):
    """Tail-accurate mode on random finite pairs (zeros on either side) against count vectors; realizations."""
    result = allocation(mech.loss_law(), t, epsilon_max=2.0, grid_step=grid_step, delta_floor=1e-12)
    for d in DIRECTIONS:
        lower, upper = result.delta(EPS, d)
        assert_brackets(lower, exact_profile(mech, t, EPS, d), upper)
        for b in ("lower", "upper"):
            result.plds[d, b].validate_realization()


def test_tail_mode_randomized_response_small_delta():
    """RR ε0 = 1, t = 1000 (the default step puts both atoms on the grid: the discretized pair is exact): the
    brackets at δ = 1e-20 and 1e-30 contain the exact ε (count vectors) and are finite, relative gap ≤ 1e-8."""
    rr = RandomizedResponse("1")
    result = allocation(rr.loss_law(), 1000, epsilon_max=0.6, tail=1e-33, delta_floor=1e-30)
    for target in ("1e-20", "1e-30"):
        for d in DIRECTIONS + ("both",):
            exact = float(discrete_epsilon(rr, "allocation", 1000, target, d, digits=15))
            lower, upper = result.epsilon(float(target), d)
            assert lower <= exact <= upper < lower * (1 + 1e-8), (target, d, lower, exact, upper)
    assert result.limits([0.4], "both") == ()


def test_tail_mode_gaussian_single_step():
    """t = 1 is the Gaussian itself: F13 at ε = 11.7 (δ ≈ 1e-30) lies in the remove bracket, relative gap ≤ 1%
    (the symmetric add direction at this ε needs S < e^{−11.7}, beyond any affordable grid). The gap is mostly
    the single-step evaluation estimate, which grows like (X/h)² in the far tail: hence a coarse step."""
    eps = 11.7
    with mp.workdps(40):
        exact = float(Gaussian(1).delta(eps))
    assert 1e-31 < exact < 1e-29
    result = allocation(GaussianLoss(1.0), 1, epsilon_max=eps, grid_step=1.0, tail=1e-33, delta_floor=1e-31)
    lower, upper = result.delta([eps], "remove")
    assert lower[0] <= exact <= upper[0] <= lower[0] * 1.01
    assert result.budget.warnings == () and result.limits([eps], "remove") == ()


@pytest.mark.parametrize(
    "direction,eps,epsilon_max,grid_step,gap", [("remove", 8.8, 8.8, 0.3, 0.01), ("add", 6.8, 0.0, 1e-4, 0.15)]
)
def test_tail_mode_gaussian_two_steps_quadrature(direction, eps, epsilon_max, grid_step, gap):
    """t = 2 against quadrature (F25, 20 digits) where δ ≈ 1e-20, with the stated relative gaps. remove needs S up
    to 2e^ε; add needs S < 2e^{−ε} resolved, hence a window at ε = 0 and a fine step, and its gap is the
    discretization of S ≤ 0.0022 by 22 grid points."""
    value, err = allocation_delta_quadrature(Gaussian("1"), 2, eps, direction, digits=20)
    assert 1e-22 < value < 1e-18
    result = allocation(
        GaussianLoss(1.0), 2, epsilon_max=epsilon_max, grid_step=grid_step, tail=1e-23, delta_floor=1e-21
    )
    lower, upper = result.delta([eps], direction)
    assert lower[0] <= float(value - err) and float(value + err) <= upper[0] <= lower[0] * (1 + gap)


@pytest.mark.parametrize("target,epsilon_max", [(1e-20, 3.6), pytest.param(1e-30, 5.5, marks=pytest.mark.slow)])
def test_tail_mode_gaussian_large_t(target, epsilon_max):
    """σ = 1, t = 1000: finite brackets at δ = 1e-20 (~5 s) and 1e-30 (~25 s), relative gap ≤ 1% (remove, both)
    and ≤ 2% (add); the largest ε lies inside the window and no absolute float term is left at that δ."""
    result = allocation(GaussianLoss(1.0), 1000, epsilon_max=epsilon_max, tail=1e-3 * target, delta_floor=target)
    for d, gap in (("remove", 0.01), ("add", 0.02), ("both", 0.01)):
        lower, upper = result.epsilon(target, d)
        assert 0 < lower <= upper <= lower * (1 + gap), (d, lower, upper)
    assert result.limits([upper], "both", rtol=1e-3) == ()


def test_tail_mode_reports_deltas_below_its_floor():
    """limits() names δ below delta_floor; delta_floor must lie in (0, 1)."""
    result = allocation(RandomizedResponse("1").loss_law(), 100, epsilon_max=2.0, tail=1e-12, delta_floor=1e-9)
    assert result.budget.delta_floor == 1e-9
    assert result.limits([0.1], "both") == ()
    assert any("delta_floor" in note for note in result.limits([2.0], "both"))
    with pytest.raises(InvalidParameter):
        allocation(GaussianLoss(1.0), 10, delta_floor=0.0)
