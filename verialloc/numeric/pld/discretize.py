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
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from ...errors import InvalidParameter
from ...validation import direction as check_direction
from .grid import _grid_size_check, check_bound, check_step, check_tail, trim
from .loss_law import LossLaw
from .pld import PLD

_U = np.finfo(np.float64).eps / 2  # unit roundoff
#: discretize_pair keeps its grid within [−MAX_PAIR_LOSS, MAX_PAIR_LOSS] (float64 range of e^{±g})
MAX_PAIR_LOSS = 700.0


class _Variable:
    """CDF/survival pieces of X (finite part) and its +inf atom, for one direction of a loss law.

    le(x) = Pr[X ≤ x], lt(x) = Pr[X < x], gt(x) = Pr[x < X < inf], ge(x) = Pr[x ≤ X < inf]; the law's
    CDFs are right-continuous, so one-sided limits at atoms use the law's atoms (exact value match).
    le2 / gt2 and second_neg_inf: the same for the second distribution of the direction's pair (Q for remove,
    P for add), under which X may be −inf but never +inf.
    """

    def __init__(self, law: LossLaw, direction: str):
        self.law, self.remove = law, check_direction(direction, allow_both=False) == "remove"
        values, p_masses, q_masses = law.atoms()
        self.values, self.masses = (values, p_masses) if self.remove else (-values[::-1], q_masses[::-1])
        self.second_masses = q_masses if self.remove else p_masses[::-1]
        self.inf_mass = law.p_inf if self.remove else law.q_neg_inf
        #: mass of the second distribution at X = −inf (remove: Q(P = 0); add: P(Q = 0))
        self.second_neg_inf = law.q_neg_inf if self.remove else law.p_inf

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
    _grid_size_check(k_lo, k_hi, step)
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
    lower (`_contract`): conditional means on cells centred at the grid points, then classes of (fractions of)
      these atoms whose ratio is exactly a grid value e^{g_k} (`_sweep`) — a garbling, dominated in both
      directions; what is not merged is rounded down (dropped below the grid: `truncated`), the tail above the
      grid goes to its top point (stochastic lowering of the garbled pair's PLD, F10, F49). Second order where
      the law has mass between neighbouring grid points; isolated atoms cost up to their distance to the grid.
    Float64: every CDF/SF value is within the loss law's accuracy contract (LossLaw.eval_rtol); the resulting bounds on
    the cell masses are pushed in the safe direction (upper: tail sums only raised; lower: ratios and masses
    only lowered), so `float_error` stays 0 (see `_spread`, `_contract`).
    """
    var = _Variable(law, direction)
    step, tail, bound = check_step(step), check_tail(tail), check_bound(bound)
    lo, hi = var.range(tail)
    k_top = int(np.floor(MAX_PAIR_LOSS / step))  # e^{±g} stays finite; beyond: the tails' rules apply
    k_hi = min(int(np.ceil(hi / step)), k_top)
    k_lo = min(max(int(np.floor(lo / step)), -k_top), k_hi)
    _grid_size_check(k_lo, k_hi, step)
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
    first = _Cells(var.le, var.gt, var.atom(edges), edges, 1.0 - var.inf_mass, rtol, var.law.eval_abs)
    second = _Cells(var.le2, var.gt2, var.atom(edges, var.second_masses), edges, 1.0 - var.second_neg_inf, rtol,
                    var.law.eval_abs)
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
    tail = np.maximum.accumulate(np.minimum(np.concatenate([tails[s - 1:], [var.inf_mass + moved]]), 1.0)[::-1])[::-1]
    junction = 1.0 - head[-1] - tail[0]
    if junction < 0:  # only with absurd error bounds: lower the heads further
        head = np.minimum.accumulate(np.minimum(head, 1.0 - tail[0])[::-1])[::-1]
        junction = max(1.0 - head[-1] - tail[0], 0.0)
    masses = np.concatenate([np.diff(head), [junction], tail[:-1] - tail[1:]])
    return PLD(grid, masses, inf_mass=float(tail[-1]), truncated=moved, bound="upper")


def _contract(var: _Variable, ks: np.ndarray, step: float) -> PLD:
    """Lower: a garbling with class ratios on the grid (F2, F8), as a PLD stochastically below its exact PLD (F10).

    Stage 1: the cells (g_k − step/2, g_k + step/2] and the finite tail below them become atoms at their conditional
    ratio a/b (a garbling; the second's mass at X = −inf stays a class of its own, invisible here, and so does the
    tail above the grid, rounded down to the top point). Stage 2 (`_sweep`) groups fractions of the atoms into
    classes whose ratio is exactly some e^{g_k}; a class keeps its first-mass at g_k, a loose class (ratio between
    grid values) is rounded down, below the grid dropped (`truncated`). Float64: the sweep runs on pessimistic
    atoms — first-mass a minus its error bound (at least 0), second-mass b plus its bound, ratio lowered by
    η = 16·u·(atoms + 2), which exceeds the relative error the sweep's roundings can accumulate (≤ 8u per class,
    inherited along at most `atoms` borrowings) — so every class's exact ratio is ≥ its grid value; placed masses
    are scaled by 1 − 3η, covering the rounding of the fractions (no over-allocation of an atom).
    """
    n = ks.size
    grid = ks * step
    edges = (np.arange(n + 1, dtype=np.float64) + (ks[0] - 0.5)) * step
    a, b = _pair(var, edges)
    first = np.concatenate([[a.below - a.tail_err[0]], a.cell - a.err])
    second = np.concatenate([[b.below + b.tail_err[0]], b.cell + b.err])
    keep = np.flatnonzero(second > 0)
    eta = 16 * _U * (keep.size + 2)
    g = np.exp(grid)
    with np.errstate(over="ignore"):  # beyond the top point a ratio may only be lowered (first-mass given up)
        ratio = np.minimum(np.maximum(first[keep], 0.0) / second[keep], 2 * g[-1]) * (1 - eta)
    order = np.argsort(ratio, kind="stable")
    x, w = ratio[order], second[keep][order]
    j = np.searchsorted(g, x)  # g[j−1] < x ≤ g[j]; the nearest of the two in log
    with np.errstate(divide="ignore"):
        nearer_below = 2 * np.log(x) < grid[np.maximum(j - 1, 0)] + grid[np.minimum(j, n - 1)]
    near = np.where((j > 0) & ((j == n) | nearer_below), j - 1, j)
    at, mass, ratio, loose = _sweep(x, w, near, g)
    content = np.where(loose, ratio, g[at]) * mass  # first-mass of each class
    masses = np.zeros(n)
    np.add.at(masses, at[at >= 0], content[at >= 0])  # loose classes rounded down; below the grid: dropped
    dropped = float(np.sum(content[at < 0]))
    masses *= 1 - 3 * eta
    masses[-1] += max(a.above - a.tail_err[1], 0.0)  # the tail above the grid, rounded down to its top point
    return PLD(grid, masses, inf_mass=var.inf_mass, truncated=dropped, bound="lower")


def _sweep(xs: np.ndarray, ws: np.ndarray, near: np.ndarray, g: np.ndarray):
    """Group sorted atoms (ratio xs, second-mass ws) into classes whose ratio is a grid value g[k] (a contraction).

    exp_grid._merge's upward sweep, for arbitrary grid values and with loose classes. An atom at or above its
    nearest grid value g[k] borrows proportional shares of the nearest earlier classes with lower ratios (their
    ratios are kept). Other moves are chosen by their *drift*, the first-mass-weighted loss they give up
    (Σ a_j ln(x_j / class ratio), the Jensen gap of a merge; a·(ln x − g) for rounding down): lifting the atom to
    the next grid value with shares of the next atoms (cheap when those are close, costly when it spends far,
    large ratios) is taken when it drifts less than rounding the atom down; otherwise an atom below g[k] borrows
    down to g[k−1], and what cannot borrow stays a loose class at its own ratio, rounded down by the caller.
    Deficits are kept relative to the target (no cancellation).
    Returns (placement grid index — the floor for loose classes, −1 below the grid —, second-mass, ratio, loose).
    """
    xs, ws, near, g = xs.tolist(), ws.tolist(), near.tolist(), g.tolist()
    n, log = len(xs), math.log
    ks: list[int] = []  # placement grid index of each class
    ms: list[float] = []  # second-mass of each class
    rs: list[float] = []  # ratio of each class: g[k] (exact) or its own (loose)
    loose: list[bool] = []
    suffix_w = np.concatenate([np.cumsum(np.asarray(ws)[::-1])[::-1], [0.0]]).tolist()
    suffix_m = np.concatenate([np.cumsum((np.asarray(ws) * np.asarray(xs))[::-1])[::-1], [0.0]]).tolist()

    def borrow(target: float, need: float) -> float | None:
        """Shares of the nearest classes with ratio < target worth `need` of moment: second-mass taken, or None."""
        p, taken, gone = len(ms) - 1, 0.0, []
        while p >= 0:
            gap = target - rs[p]
            if gap > 0:
                if ms[p] * gap >= need:
                    share = need / gap
                    ms[p] = max(ms[p] - share, 0.0)
                    for q in gone:  # decreasing indices
                        del ks[q], ms[q], rs[q], loose[q]
                    return taken + share
                need -= ms[p] * gap
                taken += ms[p]
                gone.append(p)
            p -= 1
        return None

    def push(k: int, mass: float, ratio: float, is_loose: bool) -> None:
        ks.append(k)
        ms.append(mass)
        rs.append(ratio)
        loose.append(is_loose)

    def place(k: int, mass: float) -> None:
        if ks and not loose[-1] and ks[-1] == k:
            ms[-1] += mass
        else:
            push(k, mass, g[k], False)

    def lift(i: int, rem: float, x: float, target: float, limit: float):
        """Lift rem at x to `target` with the atoms after i: (next atom, its remainder, class mass), or None when
        impossible (suffix sums) or drifting more than `limit`."""
        j = bisect.bisect_right(xs, target, lo=i + 1)
        below = target * (suffix_w[i + 1] - suffix_w[j]) - (suffix_m[i + 1] - suffix_m[j])
        if suffix_m[j] - target * suffix_w[j] < (rem * (target - x) + below) * (1 + 1e-9):
            return None
        mass, deficit = rem, rem * (target - x)
        drift = rem * x * log(x / target) if x > 0 else 0.0
        i += 1
        while i < n:
            r, y = ws[i], xs[i]
            s = y - target
            if s > 0 and r * s >= deficit:
                share = deficit / s
                drift += share * y * log(y / target)
                return (i, max(r - share, 0.0), mass + share) if drift <= limit else None
            mass += r
            deficit -= r * s
            drift += r * y * log(y / target) if y > 0 else 0.0
            if s > 0 and drift > limit:
                return None
            i += 1
        return None

    i, rem = 0, (ws[0] if n else 0.0)
    while i < n:
        x, k = xs[i], near[i]
        if x <= 0:  # no first-mass to keep: one loose class below the grid, its second-mass left for borrowing
            if ks and loose[-1] and rs[-1] <= 0:
                ms[-1] += rem
            else:
                push(-1, rem, 0.0, True)
            i += 1
            rem = ws[i] if i < n else 0.0
            continue
        if x >= g[k]:
            taken = borrow(g[k], rem * (x - g[k])) if x > g[k] else 0.0
            if taken is not None:
                place(k, rem + taken)
                i += 1
                rem = ws[i] if i < n else 0.0
                continue
            up, down = k + 1, k
        else:
            up, down = k, k - 1
        # drift of rounding down to g[down]: none without first-mass, everything below the grid
        limit = 0.0 if x <= 0 else (rem * x * log(x / g[down]) if down >= 0 else math.inf)
        lifted = lift(i, rem, x, g[up], limit) if up < len(g) else None
        if lifted is not None:
            i, rem, mass = lifted
            place(up, mass)
            continue
        taken = borrow(g[down], rem * (x - g[down])) if down < k and down >= 0 else None
        if taken is not None:
            place(down, rem + taken)
        else:
            push(down, rem, x, True)
        i += 1
        rem = ws[i] if i < n else 0.0
    return np.asarray(ks, dtype=np.int64), np.asarray(ms), np.asarray(rs), np.asarray(loose, dtype=bool)


def atomic_pld(law: LossLaw, direction: str) -> PLD:
    """The exact remove/add PLD (F6) of a purely atomic law (e.g. a finite pair, or SubsampledLoss of one)."""
    var = _Variable(law, direction)
    total = float(np.sum(var.masses)) + var.inf_mass
    if abs(total - 1.0) > 1e-12:
        raise InvalidParameter("law", law, f"is not purely atomic (atoms carry mass {total!r}); use discretize")
    return PLD(var.values, var.masses, inf_mass=var.inf_mass, bound="exact")
