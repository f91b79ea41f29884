"""One step of the exp-PLD X = e^ℓ under Q on the grid {o, o + h, o + 2h, ...}, in convex order (F2, F8, F23–F26).

A pair (P, Q) is determined, for every hockey-stick query in both directions, by the Q-law of its likelihood
ratio X plus its singular P-mass P_s = P(Q = 0) (F2): remove H_κ(P‖Q) = E_Q[(X − κ)_+] + P_s, add
H_κ(Q‖P) = E_Q[(1 − κX)_+]. Both integrands are convex in X, so if X ≤_cx X' (convex order, equal means) and
P_s is kept, the pair of X' dominates the pair of X in both directions (F8), and sums of independent copies
inherit the order (the allocation pair has ratio S/t, S = X_1 + … + X_t, F24–F26).

* `spread` (upper): each cell (g_j, g_{j+1}] sends its Q-mass to its two end points so that the cell's first
  moment is kept — a mean-preserving spread, X ≤_cx X'.
* `contract` (lower): X_c = E[X | 𝒢] for a randomized partition 𝒢 whose classes have their means exactly on
  grid points — a contraction, X_c ≤_cx X. Anything that cannot be placed is dropped (a sub-probability is
  still a valid lower bound: both integrands are non-negative).

The offset o ≤ min X (o = 0 when X has an atom at 0) lets the extreme atoms of a finite law sit on grid points.
Laws are stored for Y = X − o on {0, h, …, T·h}. The last grid point is a *top bin*: it holds all mass at
Y ≥ T·h together with its exact excess moment E[Y − T·h; top] (`top_excess`), so no truncation is needed.
Q-law of X: F(x) = Q(ℓ = −inf) + cdf_q(ln x); partial first moment E_Q[X; X ≤ x] = cdf_p(ln x)
(dP = e^ℓ dQ on the finite part).
"""

from __future__ import annotations

import bisect
import math
import sys
from dataclasses import dataclass, field

import numpy as np

from ....errors import InvalidParameter
from ....mechanisms.loss_law import LossLaw

_U = np.finfo(float).eps / 2
#: `contract` keeps X = e^ℓ only up to h·e^HIGH_LOSS (x/h and the moment sums stay finite in float64)
HIGH_LOSS = 690.0


@dataclass(frozen=True)
class GridLaw:
    """Q-law of a discretized Y = X − offset on {0, h, …, T·h}; the entry at T·h is the top bin (Y ≥ T·h).

    top_excess: E_Q[Y − T·h; top bin] ≥ 0 (kept directly, no cancellation); singular: P-mass with no Q-mass
    (ratio +inf); dropped / dropped_moment: Q-mass and E_Q[Y; ·] removed (lower bounds only); w1_error:
    bound on the Wasserstein-1 distance of the float64 result to the law the same construction gives in exact
    arithmetic (from the loss law's accuracy contract, LossLaw.eval_rtol / eval_abs).
    """

    h: float
    offset: float
    masses: np.ndarray
    top_excess: float
    singular: float
    dropped: float
    dropped_moment: float
    w1_error: float
    bound: str
    #: lower only — single-step atoms left out of the law because X = e^ℓ lies beyond float64 (`contract`):
    #: high: (losses, P-masses) of atoms with ℓ > ln h + HIGH_LOSS; low: Q-mass of the outcomes whose X rounded
    #: to 0 (ℓ < −745: atoms, or a first cell whose P-mass underflowed) and the largest ℓ among them
    high_losses: np.ndarray = field(default_factory=lambda: np.empty(0))
    high_masses: np.ndarray = field(default_factory=lambda: np.empty(0))
    low_mass: float = 0.0
    low_top: float = -math.inf

    def mean(self) -> float:
        """E_Q[Y] over the kept mass, top bin at its exact moment."""
        g = self.h * np.arange(self.masses.size)
        return float(np.dot(self.masses, g)) + self.top_excess


def _cells(law: LossLaw, edges: np.ndarray):
    """Q-mass and E_Q[X; ·] of the finite-ℓ part on the cells (e_i, e_{i+1}] and on the tail (e_last, ∞).

    Each edge uses the smaller of its CDF and SF (relative accuracy in both tails); a cell whose edges use
    different sides is total − CDF − SF. Returns (mass, moment, tail_mass, tail_moment, error, head): error bounds
    the evaluation error of each cell's two edges under both laws (the law's accuracy contract), head
    the Q-mass of finite ℓ at X ≤ e_0 — from the same evaluation as the cells, so an atom sitting on the first
    edge is counted exactly once (a second ln of the edge may round to the other side of the atom).
    """
    with np.errstate(divide="ignore"):
        y = np.log(edges)
    out, error, head = [], np.zeros(edges.size - 1), 0.0
    rtol = np.asarray(law.eval_rtol(y), float)
    for cdf, sf, total in ((law.cdf_q, law.sf_q, law.finite_q()), (law.cdf_p, law.sf_p, law.finite_p())):
        lo, hi = np.asarray(cdf(y), float), np.asarray(sf(y), float)
        low = lo <= hi  # monotone: True on a prefix
        lo_c, hi_c, low_l, low_r = lo[:-1], hi[1:], low[:-1], low[1:]
        cell = np.where(low_r, lo[1:] - lo_c, np.where(low_l, total - lo_c - hi_c, hi[:-1] - hi_c))
        weight = np.where(low, lo, hi) * rtol + law.eval_abs
        error += weight[:-1] + weight[1:]
        tail = hi[-1] if not low[-1] else total - lo[-1]
        out.append((np.maximum(cell, 0.0), max(float(tail), 0.0)))
        if not out[1:]:
            head = max(float(lo[0] if low[0] else total - hi[0]), 0.0)
    (qm, qt), (mm, mt) = out
    return qm, mm, qt, mt, error, head


def spread(law: LossLaw, h: float, top: int, offset: float = 0.0) -> GridLaw:
    """Upper (dominating) single step: mean-preserving spread of X onto {o, o + h, …, o + top·h} (F2, F8; X ≤_cx X').

    Cell (g_j, g_{j+1}] with Q-mass q and moment m puts (m − g_j q)/h on g_{j+1} and the rest on g_j; the tail
    beyond the top stays whole in the top bin with its moment. Both directions are dominated (convex
    integrands), P_s = P(Q = 0) is kept. The variance grows by at most h²/4.
    """
    _check(law, h, top, offset)
    g = offset + h * np.arange(top + 1)
    q, m, tail_q, tail_m, error, head = _cells(law, g)
    up = np.clip((m - g[:-1] * q) / h, 0.0, q)
    tail_excess = max(tail_m - g[-1] * tail_q, 0.0)
    masses = np.zeros(top + 1)
    masses[:-1] += q - up
    masses[1:] += up
    masses[0] += law.q_neg_inf + head
    masses[-1] += tail_q
    w1 = float(np.dot(error, g[1:] + 1.0)) + _U * (float(np.dot(masses, g)) + tail_excess)
    return GridLaw(h, offset, masses, tail_excess, law.p_inf, 0.0, 0.0, w1, "upper")


def contract(law: LossLaw, h: float, top: int, offset: float = 0.0) -> GridLaw:
    """Lower (dominated) single step: a contraction X_c = E[X | 𝒢] with all class means on grid points (X_c ≤_cx X).

    Stage 1 takes conditional means of the continuous part on cells centred at the grid points (and keeps the
    law's atoms); stage 2 (`_merge`) groups these atoms, with fractional splits (external randomization), into
    classes whose means are grid points; everything from (top − ½)·h up forms the top bin with its exact mean.
    Both directions are dominated by the true pair (F8); P_s is kept. Mass that cannot be placed is dropped.
    """
    _check(law, h, top, offset)
    edges = offset + h * np.concatenate([[0.0], np.arange(top) + 0.5])
    q, m, tail_q, tail_m, error, _ = _cells(law, edges)
    q, m = np.append(q, tail_q), np.append(m, tail_m)
    values, p_at, q_at = law.atoms()
    high_cut = math.log(h) + HIGH_LOSS
    if values.size:
        with np.errstate(over="ignore"):
            x_at = np.exp(np.minimum(values, high_cut))
        with np.errstate(divide="ignore"):  # membership exactly as the CDFs counted the atom (value ≤ ln edge)
            cell = np.searchsorted(np.log(edges), values, side="left") - 1  # −1: at or below the first edge
        inside = cell >= 0
        cell, q_in = cell[inside], q_at[inside]
        np.subtract.at(q, cell, q_in)
        np.subtract.at(m, cell, p_at[inside])
        # what is left of a cell holding an atom at the rounding level of the atom is not continuous mass
        noise = q <= 1e-12 * np.bincount(cell, q_in, minlength=top + 1)
        # a cell whose P-mass came out negative has a moment below the float noise: dropped whole (sound for a
        # lower law), not kept with m = 0, which would move its mean to the cell's lower edge (issue #10 item 9)
        unsure = noise | (m < 0)
        cut = float(np.sum(q[unsure & ~noise]))
        q[unsure], m[unsure] = 0.0, 0.0
    else:
        cut = 0.0
    keep = q > 0
    hi_edge = np.append(edges[1:], np.inf)
    with np.errstate(over="ignore"):
        xs = np.clip(m[keep] / q[keep], edges[keep], hi_edge[keep])
    # the tail cell's mean may exceed float64 (tiny Q-mass): it lies in the top bin, whose excess moment the
    # lower PLDs drop, so lowering it to the cap keeps the bound (and x/h finite in `_merge`)
    xs = np.minimum(xs, h * math.exp(HIGH_LOSS))
    ws = q[keep]
    # X that rounded to 0 in the first cell (its P-mass underflowed) is not X = 0 (P = 0, add loss +inf): dropped
    # from the law and kept aside as `low` (all members have X ≤ e_1)
    zero = xs <= 0
    low_mass, low_top = float(np.sum(ws[zero])), (math.log(edges[1]) if np.any(zero) else -math.inf)
    xs, ws = xs[~zero], ws[~zero]
    high_losses = high_masses = np.empty(0)
    if values.size:
        # atoms beyond float64 in X (ℓ > ln h + HIGH_LOSS, above any top bin) or below its normal range (X is
        # subnormal or 0 but ℓ > −inf: e^ℓ has lost its relative precision, and Q·X underflows in `_merge`): left out
        # of the law (a sub-pair: dominated in both directions), kept aside for `readout.read_pld`
        high, low = values > high_cut, x_at < sys.float_info.min
        high_losses, high_masses = values[high], p_at[high]
        if np.any(low):
            low_mass += float(np.sum(q_at[low]))
            low_top = max(low_top, float(np.max(values[low])))
        mid = ~(high | low)
        xs, ws = np.concatenate([xs, x_at[mid]]), np.concatenate([ws, q_at[mid]])
    if law.q_neg_inf > 0:
        xs, ws = np.append(xs, 0.0), np.append(ws, law.q_neg_inf)
    order = np.argsort(xs, kind="stable")
    ys = np.maximum(xs[order] - offset, 0.0)
    masses, top_mass, top_excess, dropped, dropped_moment = _merge(ys, ws[order], h, top)
    dropped += cut  # its moment is below the float noise
    masses = np.append(masses, top_mass)
    g = offset + h * np.arange(top + 1)
    w1 = float(np.dot(error, edges[1:] + 1.0)) + _U * (float(np.dot(masses, g)) + top_excess)
    return GridLaw(
        h,
        offset,
        masses,
        top_excess,
        law.p_inf,
        dropped,
        dropped_moment,
        w1,
        "lower",
        high_losses,
        high_masses,
        low_mass,
        low_top,
    )


def _check(law: LossLaw, h: float, top: int, offset: float) -> None:
    if not (math.isfinite(h) and h > 0):
        raise InvalidParameter("grid_step", h, "must be a finite number > 0")
    if top < 1:
        raise InvalidParameter("top", top, "must be >= 1")
    lowest = 0.0 if law.q_neg_inf > 0 else math.exp(law.support()[0])
    if not 0 <= offset <= lowest:
        raise InvalidParameter("offset", offset, f"must lie in [0, min X] = [0, {lowest:g}]")


def _merge(xs: np.ndarray, ws: np.ndarray, h: float, top: int):
    """Group sorted atoms (xs, ws) into classes with means on {0, …, (top−1)·h} plus a top class (mean ≥ top·h).

    Sweep upward. The current atom's nearest grid point k is its target: if the atom lies above k·h, the class
    borrows a proportional share of earlier classes below k (their means stay on their grid points); if below,
    it takes the next atoms' mass from above, or — when the atoms above cannot lift it (suffix sums) — borrows
    down to k − 1. When borrowing is impossible the target moves up one point; a final remnant with nothing
    above is merged downward, or dropped if that is impossible too.
    All deficits are kept relative to the target (no cancellation). Returns
    (masses[0..top−1], top_mass, top_excess, dropped, dropped_moment), top_excess = E[X − top·h; top class].
    """
    xs, ws = xs.tolist(), ws.tolist()
    n = len(xs)
    ks: list[int] = []  # class grid indices, strictly increasing
    ms: list[float] = []  # class masses
    dropped = dropped_moment = 0.0
    top_mass = top_excess = 0.0

    def borrow(k: int, need: float) -> float | None:
        """Take classes below k worth `need` of moment deficit; returns the mass taken, None if impossible."""
        p = len(ks) - 1
        if p >= 0 and ks[p] == k:
            p -= 1
        first, taken = p, 0.0
        while p >= 0:
            cap = ms[p] * (k - ks[p]) * h
            if cap >= need:
                share = need / ((k - ks[p]) * h)
                ms[p] -= share
                taken += share
                del ks[p + 1 : first + 1], ms[p + 1 : first + 1]
                return taken
            need -= cap
            taken += ms[p]
            p -= 1
        return None

    def place(k: int, mass: float) -> None:
        if ks and ks[-1] == k:
            ms[-1] += mass
        else:
            ks.append(k)
            ms.append(mass)

    def down(mass: float, mean_excess: float, k: int) -> bool:
        """Class of `mass` whose mean is k·h + mean_excess/mass (excess ≥ 0): borrow from below, place at k."""
        if mean_excess <= 0:
            place(k, mass)
            return True
        taken = borrow(k, mean_excess)
        if taken is None:
            return False
        place(k, mass + taken)
        return True

    # suffix sums: mass and moment of atoms j.. (feasibility of taking mass from above without trial and error)
    suffix_w = np.concatenate([np.cumsum(np.asarray(ws)[::-1])[::-1], [0.0]]).tolist()
    suffix_m = np.concatenate([np.cumsum((np.asarray(ws) * np.asarray(xs))[::-1])[::-1], [0.0]]).tolist()

    def room_above(i: int, rem: float, x: float, target: float) -> bool:
        """Can atoms after i (all of them) lift rem at x to a class mean `target`?"""
        j = bisect.bisect_right(xs, target, lo=i + 1)
        below = target * (suffix_w[i + 1] - suffix_w[j]) - (suffix_m[i + 1] - suffix_m[j])
        above = suffix_m[j] - target * suffix_w[j]
        return above >= (rem * (target - x) + below) * (1 + 1e-9)

    i, rem = 0, (ws[0] if n else 0.0)
    while i < n:
        x = xs[i]
        if not x / h + 0.5 < top:  # top bin (also when x/h is beyond float64)
            break
        k = int(math.floor(x / h + 0.5))
        r = x - k * h
        if r >= 0:
            if down(rem, _moment(rem, r), k):
                i += 1
                rem = ws[i] if i < n else 0.0
                continue
            k += 1
            if k >= top:
                break
        elif not room_above(i, rem, x, k * h) and down(rem, _moment(rem, x - (k - 1) * h), k - 1):
            i += 1
            rem = ws[i] if i < n else 0.0
            continue
        # take mass from above until the class mean is k·h; deficit D = Σ m (k·h − x); moment Σ m x kept too
        mass, deficit, moment = rem, rem * (k * h - x), rem * x
        i += 1
        rem = ws[i] if i < n else 0.0
        target = k * h
        while deficit > 0 and i < n:
            s = xs[i] - target
            if s <= 0:
                mass += rem
                moment += rem * xs[i]
                deficit -= rem * s
            elif rem * s >= deficit:
                share = deficit / s
                mass += share
                rem -= share
                deficit = 0.0
                break
            else:
                mass += rem
                moment += rem * xs[i]
                deficit -= rem * s
            i += 1
            rem = ws[i] if i < n else 0.0
        if deficit <= 0:
            place(k, mass)
            continue
        # remnant: nothing left above; its mean lies below k·h — from the moment itself (target − deficit/mass
        # cancels to 0 when the atoms are small against k·h, which put the class on a grid point below its mean)
        mean = max(moment / mass, math.ulp(0.0))  # its first atom lies above 0: the mean too, though it underflows
        kf = int(math.floor(mean / h))
        if not down(mass, _moment(mass, mean - kf * h), kf):
            dropped += mass
            dropped_moment += mass * mean
    if i < n:
        g_top = top * h
        top_mass = rem + math.fsum(ws[i + 1 :])
        top_excess = rem * (xs[i] - g_top) + math.fsum(w * (x - g_top) for w, x in zip(ws[i + 1 :], xs[i + 1 :]))
        if top_excess < 0:  # the class mean from its moment (g_top + excess/mass cancels when h ≫ the atoms)
            mean = (rem * xs[i] + math.fsum(w * x for w, x in zip(ws[i + 1 :], xs[i + 1 :]))) / top_mass
            mean = max(mean, math.ulp(0.0))  # all its atoms lie above 0 (a sweep reaches the top only from x > 0)
            kf = int(math.floor(mean / h))
            if not down(top_mass, _moment(top_mass, mean - kf * h), kf):
                dropped += top_mass
                dropped_moment += top_mass * mean
            top_mass = top_excess = 0.0
    masses = np.zeros(top)
    np.add.at(masses, np.asarray(ks, dtype=np.int64), np.asarray(ms))
    return np.maximum(masses, 0.0), top_mass, top_excess, dropped, dropped_moment


def _moment(mass: float, excess: float) -> float:
    """mass·excess, never 0 for a positive excess: a product that underflowed to 0 would place the class on its
    grid point below the mean — at point 0 (X = 0, add loss +inf) an unsound lower law (issue #10, seed 220)."""
    product = mass * excess
    return math.ulp(0.0) if product <= 0 < excess and mass > 0 else product
