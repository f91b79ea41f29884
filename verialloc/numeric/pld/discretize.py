"""Loss laws discretized on the uniform grid {k·step} (F6, F10, F49, F53 Alg. 6 with E15, I21); the grid
operations on PLDs (`regrid`, `truncate`, `trim`) are in grid.

The variable is X = ℓ under P ("remove", F6) or X = −ℓ under Q ("add", = L_{Q,P}). Grid point k is the float
k·step, so PLDs built with the same step compose without re-rounding.
`discretize` rounds the law of X alone (first order in the step). Directions (F10, F49):
"upper" rounds every value up to the next grid point and moves the finite tail above the top point to +inf
(the result stochastically dominates X and keeps all its mass); "lower" rounds down and drops the finite tail
below the bottom point (it is stochastically dominated, a sub-probability). Moved tail mass is summed
directly into `truncated`, never as 1 − Σ(others). The law's CDF values are float64 (relative error ~1e-15,
not tracked); a lower PLD may have E[e^{−L}] up to e^{step} > 1 (rounding down), so it is not a realization.
`discretize_pair` discretizes the pair (both distributions) instead: second order in the step (see there).

Why this module is long: the upper (`_spread`) and lower (`_contract`) pair discretizations rest on the same
cell masses and their float64 error bounds (`_Variable`, `_pair`); kept together, both directions round from one
set of enclosures, and a change to the cell arithmetic cannot make one of them unsound unnoticed.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import InvalidParameter
from ...validation import direction as check_direction
from .grid import grid_size_check, check_bound, check_step, check_tail, trim
from ...mechanisms.loss_law import LossLaw
from .pld import PLD

_U = np.finfo(np.float64).eps / 2  # unit roundoff
#: discretize_pair keeps its grid within [−MAX_PAIR_LOSS, MAX_PAIR_LOSS] (float64 range of e^{±g})
MAX_PAIR_LOSS = 700.0


class _Variable:
    """CDF/survival pieces of X (finite part) and its +inf atom, for one direction of a loss law.

    le(x) = Pr[X ≤ x], lt(x) = Pr[X < x], gt(x) = Pr[x < X < inf], ge(x) = Pr[x ≤ X < inf]; the law's
    CDFs are right-continuous, so one-sided limits at atoms use the law's atoms (exact value match).
    le2 / gt2: the same for the second distribution of the direction's pair (Q for remove, P for add), under
    which X may be −inf but never +inf. first_total / second_total: the finite masses of the two, from the law
    (LossLaw.finite_p/finite_q; never 1 − a singular mass near 1).
    """

    def __init__(self, law: LossLaw, direction: str):
        self.law, self.remove = law, check_direction(direction, allow_both=False) == "remove"
        values, p_masses, q_masses = law.atoms()
        self.values, self.masses = (values, p_masses) if self.remove else (-values[::-1], q_masses[::-1])
        self.second_masses = q_masses if self.remove else p_masses[::-1]
        self.inf_mass = law.p_inf if self.remove else law.q_neg_inf
        self.first_total, self.second_total = (
            (law.finite_p(), law.finite_q()) if self.remove else (law.finite_q(), law.finite_p())
        )

    def atom(self, x: np.ndarray, masses: np.ndarray | None = None) -> np.ndarray:
        masses = self.masses if masses is None else masses
        if self.values.size == 0:
            return np.zeros_like(x)
        i = np.clip(np.searchsorted(self.values, x), 0, self.values.size - 1)
        return np.where(self.values[i] == x, masses[i], 0.0)

    def le(self, x):
        return self.law.cdf_p(x) if self.remove else self.law.sf_q(-x) + self.atom(x)

    def lt(self, x):
        return self.law.cdf_p(x) - self.atom(x) if self.remove else self.law.sf_q(-x)

    def gt(self, x):
        return self.law.sf_p(x) if self.remove else self.law.cdf_q(-x) - self.atom(x)

    def ge(self, x):
        return self.law.sf_p(x) + self.atom(x) if self.remove else self.law.cdf_q(-x)

    def le2(self, x):
        """Second distribution (remove: Q, add: P): Pr[−inf < X ≤ x]."""
        return self.law.cdf_q(x) if self.remove else self.law.sf_p(-x) + self.atom(x, self.second_masses)

    def gt2(self, x):
        """Second distribution: Pr[x < X] (X is never +inf under it)."""
        return self.law.sf_q(x) if self.remove else self.law.cdf_p(-x) - self.atom(x, self.second_masses)

    def range(self, tail: float) -> tuple[float, float]:
        lo, hi = self.law.support()
        if tail == 0 and not (np.isfinite(lo) and np.isfinite(hi)):
            raise InvalidParameter("tail", tail, "must be > 0 for a loss law with unbounded support")
        a, b = self.law.quantile_range(tail) if tail > 0 else (lo, hi)
        return (a, b) if self.remove else (-b, -a)


def discretize(law: LossLaw, direction: str, step, tail, bound: str) -> PLD:
    """The remove/add PLD of `law` on the grid {k·step} (F53 Alg. 6 with the intended semantics of E15, I21).

    Grid from ⌊q_tail/step⌋ to ⌈q_{1−tail}/step⌉ (one-sided tail quantiles under P and Q, LossLaw.quantile_range).
    upper: mass in (g_{i−1}, g_i] → g_i, mass ≤ g_0 → g_0, finite mass > g_top → +inf (counted in `truncated`).
    lower: mass in [g_i, g_{i+1}) → g_i, mass ≥ g_top → g_top, mass < g_0 dropped (counted in `truncated`).
    The law's infinite atom (remove: P(Q=0); add: Q(P=0), since −ℓ = +inf) becomes `inf_mass`. Bin masses are
    differences of the CDF below the median and of the survival function above it (relative accuracy in both tails).
    """
    var = _Variable(law, direction)
    step, tail, bound = check_step(step), check_tail(tail), check_bound(bound)
    lo, hi = var.range(tail)
    k_lo, k_hi = int(np.floor(lo / step)), int(np.ceil(hi / step))
    grid_size_check(k_lo, k_hi, step)
    grid = np.arange(k_lo, k_hi + 1, dtype=np.float64) * step
    if bound == "upper":
        below, above = np.asarray(var.le(grid), float), np.asarray(var.gt(grid), float)
        split = np.searchsorted(below >= above, True)  # first point at or past the median
        inner = np.where(np.arange(1, grid.size) <= split, np.diff(below), -np.diff(above))  # (g_{i−1}, g_i]
        masses = np.concatenate([below[:1], inner])
        moved = float(above[-1])
        return trim(PLD(grid, np.maximum(masses, 0.0), inf_mass=var.inf_mass + moved, truncated=moved, bound="upper"))
    below, above = np.asarray(var.lt(grid), float), np.asarray(var.ge(grid), float)
    split = np.searchsorted(below >= above, True)
    inner = np.where(np.arange(grid.size - 1) < split, np.diff(below), -np.diff(above))  # [g_i, g_{i+1})
    masses = np.concatenate([inner, above[-1:]])
    dropped = float(below[0])
    return trim(PLD(grid, np.maximum(masses, 0.0), inf_mass=var.inf_mass, truncated=dropped, bound="lower"))


def discretize_pair(law: LossLaw, direction: str, step, tail, bound: str) -> PLD:
    """The remove/add PLD of a pair discretized on {k·step} keeping BOTH distributions (F2, F7, F8, F10, F47–F49).

    Both directions are functionals of one object: the law of Λ = P/Q under the second distribution plus the
    singular mass of the first (F2); the variable is X = ℓ under P (remove) or −ℓ under Q (add, the pair (Q, P)),
    with the same grid (negated) as `discretize`. The result is *second order* in the step, where `discretize` is
    first order. Both bounds are sound for every ε of their direction and under composition (`self_compose`).

    upper ("connect the dots", `_spread`): each cell (g_i, g_{i+1}] goes to its two ends with masses keeping its
      mass under both distributions — a mean-preserving spread of Λ, i.e. a pair of which the true one is a
      garbling (Blackwell), hence dominating in both directions (F8) and after composition; the tails beyond the
      grid are spread too (first-distribution excess above the top to +inf, counted in `truncated`).
    lower (`_contract`): conditional means on cells centred at the grid points, then classes of fractions of these
      atoms, each aimed just above a grid value e^{g_k} with a fraction of a neighbour (`_neighbours`, vectorized;
      `_settle` for the few loose ones) — a garbling, dominated in both directions; each class's first-mass is
      rounded down to the grid value at or below its ratio (dropped below the grid: `truncated`), the tail above
      the grid goes to its top point (stochastic lowering of the garbled pair's PLD, F10, F49). Second order where
      the law has mass between neighbouring grid points; isolated atoms cost up to their distance to the grid.
    Float64: every CDF/SF value is within the loss law's accuracy contract (LossLaw.eval_rtol); the resulting bounds on
    the cell masses are pushed in the safe direction (upper: tail sums only raised; lower: first-masses lowered,
    second-masses raised, class ratios and masses certified below their exact values), so `float_error` stays 0
    (see `_spread`, `_contract`).
    """
    var = _Variable(law, direction)
    step, tail, bound = check_step(step), check_tail(tail), check_bound(bound)
    lo, hi = var.range(tail)
    k_top = int(np.floor(MAX_PAIR_LOSS / step))  # e^{±g} stays finite; beyond: the tails' rules apply
    k_hi = min(int(np.ceil(hi / step)), k_top)
    k_lo = min(max(int(np.floor(lo / step)), -k_top), k_hi)
    grid_size_check(k_lo, k_hi, step)
    ks = np.arange(k_lo, k_hi + 1, dtype=np.float64)
    return trim(_spread(var, ks * step) if bound == "upper" else _contract(var, ks, step))


class _Cells:
    """Masses of one distribution on the cells (e_i, e_{i+1}], at the edges and beyond them, with error bounds.

    lo = Pr[X ≤ e], hi = Pr[e < X < inf]; a cell uses the CDF below the crossover (lo ≤ hi), the survival function
    above it and total − CDF − SF across it (relative accuracy in both tails). scale: the magnitude of the law's
    value used at each edge (atoms added back, since the add direction subtracts them); edge_err: bound on the
    error of the value used at each edge (the law's accuracy contract at that edge, LossLaw.eval_rtol/eval_abs,
    plus 2u for adding an atom back); err: bound on the absolute error of each cell mass; below / above: mass at
    X ≤ e_0 / e_last < X < inf, with bound tail_err.
    """

    def __init__(self, le, gt, atoms, edges: np.ndarray, total: float, rtol: np.ndarray, eval_abs: float):
        self.lo, self.hi = np.asarray(le(edges), float), np.asarray(gt(edges), float)
        self.low = self.lo <= self.hi
        self.scale = np.where(self.low, self.lo, self.hi) + np.asarray(atoms, float)
        self.edge_err = (rtol + 2 * _U) * self.scale + eval_abs
        lo, hi, low = self.lo, self.hi, self.low
        cell = np.where(low[1:], lo[1:] - lo[:-1], np.where(low[:-1], total - lo[:-1] - hi[1:], hi[:-1] - hi[1:]))
        self.err = self.edge_err[:-1] + self.edge_err[1:] + 2 * _U * np.abs(cell)
        self.cell = np.maximum(cell, 0.0)
        self.below = float(lo[0] if low[0] else total - hi[0])
        self.above = float(hi[-1] if not low[-1] else total - lo[-1])
        self.tail_err = self.edge_err[[0, -1]]


def _pair(var: _Variable, edges: np.ndarray) -> tuple[_Cells, _Cells]:
    """Cells of the first (remove: P, add: Q) and the second distribution of the view."""
    rtol = np.asarray(var.law.eval_rtol(edges if var.remove else -edges), float)
    first = _Cells(var.le, var.gt, var.atom(edges), edges, var.first_total, rtol, var.law.eval_abs)
    second = _Cells(
        var.le2, var.gt2, var.atom(edges, var.second_masses), edges, var.second_total, rtol, var.law.eval_abs
    )
    return first, second


def _spread(var: _Variable, grid: np.ndarray) -> PLD:
    """Upper: the connect-the-dots pair (F2, F8), as a PLD that stochastically dominates its exact PLD (F10).

    Cell (g_{c−1}, g_c] with masses (a, b) (first, second) sends the first-mass
    u = (a − e^{g_{c−1}} b)/(1 − e^{g_{c−1}−g_c}) to g_c and a − u to g_{c−1} (the second's masses are e^{−g} times
    these: both totals kept). Above the top point g_T, first-mass e^{g_T}·b_T stays at g_T and the excess goes to
    +inf; below g_0 everything goes to g_0 (the second's excess to −inf, invisible here).
    Float64: the PLD is built from the sums Pr[X' ≥ g_c] (above the crossover) and Pr[X' ≤ g_{c−1}] (below it),
    each moved outward by a bound on the error of the CDF values (the law's contract), of u (cancellation: divided by
    1 − e^{−step}) and of the roundings, then made monotone outward; so every tail sum of the result is ≥ the exact
    pair's and the total stays 1. Atoms are located by the law's float64 loss values.
    """
    n = grid.size
    a, b = _pair(var, grid)
    g = np.exp(grid)
    den = -np.expm1(grid[:-1] - grid[1:])
    up = np.clip((a.cell - g[:-1] * b.cell) / den, 0.0, a.cell)
    up_err = (a.err + g[:-1] * b.err + 8 * _U * (a.cell + g[:-1] * b.cell)) / den * (1 + 8 * _U) + 4 * _U * up
    cross_err = up_err + a.edge_err[1:] + 2 * _U * a.scale[1:]
    tails = a.hi[1:] + var.inf_mass + up + cross_err  # Pr[X' ≥ g_c], c = 1..n−1
    heads = a.lo[1:] - up - cross_err  # Pr[X' ≤ g_{c−1}]
    excess = a.above - g[-1] * b.above
    excess_err = a.tail_err[1] + g[-1] * b.tail_err[1] + 8 * _U * (a.above + g[-1] * b.above)
    moved = min(max(excess, 0.0) + excess_err, a.above)
    # crossings 0..n: heads below the split s, tails from s on (crossing 0: head 0; crossing n: the +inf atom)
    s = 1 + int(np.argmin(a.low[1:])) if a.low[1:].size and not a.low[1:].all() else n
    head = np.minimum.accumulate(np.maximum(np.concatenate([[0.0], heads[: s - 1]]), 0.0)[::-1])[::-1]
    tail = np.maximum.accumulate(np.minimum(np.concatenate([tails[s - 1 :], [var.inf_mass + moved]]), 1.0)[::-1])[::-1]
    junction = 1.0 - head[-1] - tail[0]
    if junction < 0:  # only with absurd error bounds: lower the heads further
        head = np.minimum.accumulate(np.minimum(head, 1.0 - tail[0])[::-1])[::-1]
        junction = max(1.0 - head[-1] - tail[0], 0.0)
    masses = np.concatenate([np.diff(head), [junction], tail[:-1] - tail[1:]])
    return PLD(grid, masses, inf_mass=float(tail[-1]), truncated=moved, bound="upper")


def _contract(var: _Variable, ks: np.ndarray, step: float) -> PLD:
    """Lower: the PLD of a garbling of the pair whose classes have ratios at or just above grid values e^{g_k}, each
    class's first-mass moved down to the grid value at or below its ratio — stochastically below the garbled pair's
    PLD, hence below the exact one in both directions and under composition (F2, F8, F10, F49).

    Stage 1: the cells (g_k − step/2, g_k + step/2] and the finite tail below them become atoms (merging outcomes is a
    post-processing), pessimistic in float64: first-mass a = cell − error bound (at least 0), second-mass b = cell +
    bound, so each true atom's first-mass is ≥ a and its second-mass ≤ b; the atoms without first-mass become one
    (second-masses summed, rounded up). The second's mass at X = −inf stays a class of its own (invisible here); the
    tail above the grid puts its first-mass lower bound on the top point (all its ratios exceed e^{g_top}). Stage 2
    sorts the atoms by ratio and splits them into classes of fractions of atoms (`_neighbours`, `_settle`): any such
    split is a garbling, and a class of pessimistic fractions has a ratio at most its true one. Each class's
    first-mass bound (`_mass_bound`) goes to the largest grid point its certified ratio reaches (`_floor_index`),
    below the grid it is dropped (`truncated`). Soundness rests on these two certificates only; where the classes are
    aimed (just above grid values) decides the tightness: second order where the law has mass between neighbouring
    grid points, an isolated atom costs up to its distance to the grid. O(n log n) (the sort), vectorized but for
    the few loose classes of `_settle`.
    """
    n = ks.size
    grid = ks * step
    edges = (np.arange(n + 1, dtype=np.float64) + (ks[0] - 0.5)) * step
    a, b = _pair(var, edges)
    first = np.concatenate([[a.below - a.tail_err[0]], a.cell - a.err])
    second = np.concatenate([[b.below + b.tail_err[0]], b.cell + b.err])
    keep = second > 0
    first, second = np.maximum(first[keep], 0.0), second[keep]
    with np.errstate(over="ignore"):
        order = np.argsort(first / second, kind="stable")
    first, second = first[order], second[order]
    zeros = int(np.count_nonzero(first == 0))  # sorted first
    if zeros > 1:  # any order of summation is within γ_{zeros−1}: rounded up past it
        first = first[zeros - 1 :]
        second = np.concatenate([[float(np.sum(second[:zeros])) * (1 + 2 * (zeros + 1) * _U)], second[zeros:]])
    g = np.exp(grid)
    num, den, err = _neighbours(first, second, g, grid)
    at, num, err = _settle(num, den, err, g, grid, step)
    content = _mass_bound(num, err)
    placed = at >= 0
    count = np.bincount(at[placed], minlength=n)  # a grid value's sum of c contents rounds up by ≤ γ_{c−1}
    masses = np.bincount(at[placed], weights=content[placed], minlength=n) * (1 - 2 * count * _U)
    masses[-1] += max(a.above - a.tail_err[1], 0.0)
    return PLD(grid, masses, inf_mass=var.inf_mass, truncated=float(np.sum(content[~placed])), bound="lower")


#: ratios are aimed at g·(1 + (_AIM + 4·terms)·u) above a grid value g: past the certification's margin
_AIM = 64
#: `_settle`: a class is loose when its ratio exceeds its grid value by more than step/_LOOSE in loss
_LOOSE = 32
#: `_settle` stops after examining this many classes per atom (plus _WORK_BASE): a cap on its cost
_WORK_PER_ATOM, _WORK_BASE = 16, 1 << 20


def _floor_index(num, den, err, g: np.ndarray) -> np.ndarray:
    """Largest k with e^{g_k} ≤ the exact ratio of classes whose float sums num, den are each within relative err of
    their exact values (−1: below the grid, or den = 0); g = np.exp(grid), within 1 ulp (2u).

    The exact ratio is ≥ (num/den)(1 − err)/(1 + err) ≥ (num/den)(1 − 2err); the float quotient times the float factor
    (1 − 2err − 8u) stays below (num/den)(1 − 2err − 4u) (three roundings), and e^{g_k} ≤ g_k/(1 − 2u) for the float
    g_k compared with it."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        r = num / den * (1 - 2 * err - 8 * _U)
    return np.searchsorted(g, np.where(den > 0, r, 0.0), side="right") - 1


def _mass_bound(num: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Lower bound on the true first-mass of classes whose float sum num is within relative err of the exact sum of
    their pessimistic fractions: num(1 − 2err − 8u) ≤ num(1 − 2err − 5u) after its roundings, below
    num/((1 + err)(1 + 2.01u)) — `_neighbours` may hand out fractions of an atom summing to 1 + 2.01u, so the garbling
    uses them divided by that (ratios unchanged, first-masses scaled)."""
    return num * (1 - 2 * err - 8 * _U)


def _neighbours(a: np.ndarray, b: np.ndarray, g: np.ndarray, grid: np.ndarray):
    """Classes of atoms sorted by ratio (first-mass a, second-mass b), each with a fraction of one neighbour, aimed
    at a grid value (vectorized): (num, den, err) per atom — the class's first- and second-mass and the relative
    float error bound of both.

    Atom i (a > 0) has the certified floor g_lo of its ratio x and the next value g_hi; with aims A = g(1 + 64u):
    down: lower the class to A_lo with a fraction σ of atom i − 1 (if x > A_lo > x_{i−1}; otherwise it is rounded
    down whole); up: lift it to A_hi with a fraction τ ≤ 1 of atom i + 1 (x_{i+1} > A_hi). The move with the smaller
    drift (first-mass-weighted log distance to the placement, Σ a ln(x/g)) is taken. Atom j then gives τ_{j−1} to
    class j − 1 and σ_{j+1} to class j + 1 and keeps own_j = 1 − τ_{j−1} − σ_{j+1}. The exact needs τ_i = own_i·c_i,
    σ_i = own_i·e_i (c, e: the needs of a whole atom; σ at most what atom i − 1 has left) form an antitone map Φ of
    (τ, σ); its iterates from 0 alternate below and above its fixed point, so τ from the 5th and σ from the 4th keep
    every lifted class at or above A_hi and every lowered class at or above A_lo, within O(c⁵) of the aims.
    Each atom's fractions sum to at most 1 + 2.01u in float64 (covered by `_contract`'s mass factor); num and den are
    two rounded products and a sum, one of them 0 (err = γ_2 ≤ 2.01u).
    """
    m, n = a.size, g.size
    if m == 0:
        return a, b, a
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        x = a / b
        lx = np.log(x)
    lo = np.searchsorted(g, x * (1 - 8 * _U), side="right") - 1  # `_floor_index` of the atom alone
    lo_at, hi_at = np.maximum(lo, 0), np.minimum(lo + 1, n - 1)
    aim_lo, aim_hi = g[lo_at] * (1 + _AIM * _U), g[hi_at] * (1 + _AIM * _U)
    has = a > 0
    e, c = np.zeros(m), np.zeros(m)  # whole-atom needs: σ (class i from atom i − 1), τ (class i from atom i + 1)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        excess, room = a[1:] - aim_lo[1:] * b[1:], aim_lo[1:] * b[:-1] - a[:-1]
        lower = np.concatenate([[False], has[1:] & (lo[1:] >= 0) & (excess > 0) & (room > 0)])
        e[lower] = (excess / room)[lower[1:]]
        short, room = aim_hi[:-1] * b[:-1] - a[:-1], a[1:] - aim_hi[:-1] * b[1:]
        up = np.concatenate([has[:-1] & (lo[:-1] + 1 < n) & (short > 0) & (room > 0), [False]])
        c[up] = (short / room)[up[:-1]]
        up &= c <= 1
        # where both moves are possible, the drifts: the class's own atom plus the donor's share
        both = np.flatnonzero(up & (lo >= 0))
        own_lo, own_hi = a[both] * (lx[both] - grid[lo_at[both]]), a[both] * (lx[both] - grid[hi_at[both]])
        donor_lo = np.zeros(both.size)
        inner = both > 0
        j = both[inner] - 1
        donor_lo[inner] = np.where(a[j] > 0, np.minimum(e[j + 1], 1.0) * a[j] * (lx[j] - grid[lo_at[j + 1]]), 0.0)
        donor_hi = c[both] * a[both + 1] * (lx[both + 1] - grid[hi_at[both]])
    up[both[own_hi + donor_hi >= own_lo + donor_lo]] = False
    lower &= ~up
    c[~up], e[~lower] = 0.0, 0.0
    tau, sigma = np.zeros(m), np.zeros(m)
    own, cap = np.empty(m), np.zeros(m)
    for iterate in range(5):  # Φ: own from the previous iterate, needs from own
        _own(own, tau, sigma)
        if m > 1:  # what atom i − 1 has left after its share of class i − 2
            cap[1] = 1.0
            np.subtract(1.0, tau[:-2], out=cap[2:])
        tau_next = own * c
        if iterate < 4:
            sigma = np.minimum(own * e, cap)
        tau = tau_next
    _own(own, tau, sigma)
    num, den = own * a, own * b
    num[:-1] += tau[:-1] * a[1:]
    den[:-1] += tau[:-1] * b[1:]
    num[1:] += sigma[1:] * a[:-1]
    den[1:] += sigma[1:] * b[:-1]
    return num, den, np.full(m, 2.01 * _U)


def _own(own: np.ndarray, tau: np.ndarray, sigma: np.ndarray) -> None:
    """own_i = max((1 − τ_{i−1}) − σ_{i+1}, 0), in place."""
    own[:] = 1.0
    own[1:] -= tau[:-1]
    own[:-1] -= sigma[1:]
    np.maximum(own, 0.0, out=own)


def _settle(num, den, err, g: np.ndarray, grid: np.ndarray, step: float):
    """Place the classes; a loose one (ratio more than step/32 above its grid value, or below the grid) takes whole
    classes next to it and a fraction of one more, the way `_neighbours` takes one atom: down to its aim (the others'
    ratios below it) or up to the next (theirs above). Taking a class or a fraction of it keeps the grouping a
    garbling; the one with the larger gain Σ first-mass × (new − old grid value) is taken.
    Returns (grid index per class, −1 below the grid; first-mass; relative error bound).
    Float64: a fraction f is split off as (f, 1 − f) with both parts exact complements (Sterbenz), so no atom is
    over-allocated; merged sums carry the largest error of their terms plus (terms + 2)u, scaled classes one more u.
    """
    num, den, err = num.copy(), den.copy(), err.copy()
    at = _floor_index(num, den, err, g)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.log(num / den * (1 - 2 * err - 8 * _U)) - grid[np.maximum(at, 0)]
    budget = _WORK_PER_ATOM * num.size + _WORK_BASE
    for c in np.flatnonzero((num > 0) & ((at < 0) | (gap > step / _LOOSE))).tolist():
        if not num[c] > 0 or budget <= 0:
            continue
        best = None
        for target, sign in ((int(at[c]), -1), (int(at[c]) + 1, 1)):
            if 0 <= target < g.size:
                plan, work = _borrow(num, den, err, at, grid, c, target, sign, g)
                budget -= work
                if plan is not None and plan[0] > 0 and (best is None or plan[0] > best[0]):
                    best = plan
        if best is not None:
            _, k, whole, part, kept, merged = best
            num[c], den[c], err[c] = merged
            at[c] = k
            num[whole], den[whole] = 0.0, 0.0
            num[part], den[part] = num[part] * kept, den[part] * kept  # kept may be 0: taken whole
            err[part] = (err[part] + _U) * (1 + 1e-9)
    return at, num, err


def _borrow(num, den, err, at, grid, c: int, target: int, sign: int, g: np.ndarray):
    """(plan, classes examined) for class c to reach just above g[target] with the nearest classes below (sign −1) or
    above (+1) whose ratios are on the other side of the aim; plan = (gain, grid index, whole donors, partial donor,
    its kept fraction, (num, den, err) of the merged class), or None when they cannot."""
    m, width, work = num.size, 32, 0
    while True:
        idx = np.arange(c - 1, max(c - 1 - width, -1), -1) if sign < 0 else np.arange(c + 1, min(c + 1 + width, m))
        work += idx.size
        aim = g[target] * (1 + (_AIM + 4 * (idx.size + 2)) * _U)
        need = num[c] - aim * den[c] if sign < 0 else aim * den[c] - num[c]
        if not need > 0:
            return None, work
        room = aim * den[idx] - num[idx] if sign < 0 else num[idx] - aim * den[idx]
        room = np.where(room > 0, room, 0.0)
        cum = np.cumsum(room)
        hit = int(np.searchsorted(cum, need))
        if hit < idx.size:
            break
        if idx.size < width or width >= 1 << 16:
            return None, work
        width *= 4
    used = room[:hit] > 0
    whole, p = idx[:hit][used], int(idx[hit])
    f = (need - (cum[hit - 1] if hit else 0.0)) / room[hit]
    kept = 1.0 - f if f <= 0.5 else 1.0 - min(f, 1.0)  # exact complements: given = 1 − kept (Sterbenz)
    given = 1.0 - kept
    nums = np.concatenate([[num[c]], num[whole], [num[p] * given]])
    dens = np.concatenate([[den[c]], den[whole], [den[p] * given]])
    merged_err = (max(err[c], float(np.max(err[whole], initial=0.0)), err[p] + _U) + (nums.size + 2) * _U) * (1 + 1e-9)
    merged = (float(np.sum(nums)), float(np.sum(dens)), merged_err)
    k = int(_floor_index(merged[0], merged[1], merged_err, g))
    if k < target:
        return None, work
    moved = nums[1:]
    was = np.concatenate([at[whole], [at[p]]])
    delta = np.where(moved > 0, moved * (grid[k] - np.where(was >= 0, grid[np.maximum(was, 0)], -np.inf)), 0.0)
    if sign < 0:
        gain = float(np.sum(delta))
    else:
        own = num[c] * (grid[k] - grid[at[c]]) if at[c] >= 0 else math.inf
        gain = own + float(np.sum(delta))
    return (gain, k, whole, p, kept, merged), work


def atomic_pld(law: LossLaw, direction: str) -> PLD:
    """The exact remove/add PLD (F6) of a purely atomic law (e.g. a finite pair, or SubsampledLoss of one)."""
    var = _Variable(law, direction)
    total = float(np.sum(var.masses)) + var.inf_mass
    if abs(total - 1.0) > 1e-12:
        raise InvalidParameter("law", law, f"is not purely atomic (atoms carry mass {total!r}); use discretize")
    return PLD(var.values, var.masses, inf_mass=var.inf_mass, bound="exact")
