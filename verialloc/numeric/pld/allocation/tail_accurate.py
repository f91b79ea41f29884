"""Tail-accurate mode of the allocation (`delta_floor`): directed convolutions that keep relative accuracy in both
tails (the package docstring gives the soundness argument).

The single-step masses are moved by their evaluation estimate (`envelope`); each convolution adds (upper) or
subtracts (lower) a per-entry error bound (`convolve_tail`: exact scalings for top bins, lattice compression,
direct products, or block pairs with tilted FFTs, `_blocked`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import fft

from ..compose import TINY, fft_error_bound
from ....mechanisms.loss_law import LossLaw
from .convolution import U, gamma
from .exp_grid import GridLaw

#: tail-accurate mode (delta_floor): relative accuracy ρ sought per convolution for tail sums above the floor,
#: ρ = REL_TARGET/t clipped to [REL_MIN, REL_MAX] (relative errors add up to about 2tρ over the t-fold sum)
REL_TARGET, REL_MIN, REL_MAX = 1e-4, 1e-9, 1e-6
#: tail-accurate mode: largest tail mass, as a share of delta_floor
TAIL_SHARE = 1e-3
#: blocked convolution: block length, direct work limit, pairs of blocks recomputed directly per convolution
BLOCK = 4096
REL_DIRECT_WORK = 16_000_000
DIRECT_PAIRS = 48
#: resolution of the tail-sum check (`_unresolved`)
SUBBLOCK = 64


@dataclass
class Tail:
    """Tail-accurate mode: direction of the node arrays, accuracy ρ per convolution, negligible tail mass, and a
    count of the output blocks left unresolved (`_blocked`)."""

    upper: bool
    rho: float
    floor: float
    unresolved: int = 0


def convolve_tail(a: np.ndarray, b: np.ndarray | None, tail: Tail, limit: int) -> tuple[np.ndarray, float]:
    """Directed convolution of non-negative arrays (b None: a*a): (c, rel) with a*b ≤ (1 + rel)·c entrywise for
    tail.upper, c ≤ (1 + rel)·a*b otherwise. Entries from `limit` on are only used through their sums (top bin).

    The last entries (top bins, which may hold far more mass than their neighbours) enter as exact scalings of
    the other array; the rest goes through `_directed`.
    """
    bb = a if b is None else b
    out = np.zeros(a.size + bb.size - 1)
    if a.size > 1 and bb.size > 1:
        out[: a.size + bb.size - 3] = _directed(a[:-1], None if b is None else bb[:-1], tail, limit)
    out[a.size - 1 :] += a[-1] * bb
    out[bb.size - 1 : a.size + bb.size - 2] += bb[-1] * a[:-1]
    return out, gamma(4)


def _directed(a: np.ndarray, b: np.ndarray | None, tail: Tail, limit: int) -> np.ndarray:
    """a*b (b None: a*a) moved by its error bound: up (tail.upper) or down (clipped at 0), up to a relative 2u.

    Lattice arrays (all non-zero entries on a common period) are convolved on the period. Short inputs are
    convolved directly (error ≤ (n + 2)·1.01u·ĉ + n·TINY per entry), long ones blockwise (`_blocked`), so
    relative accuracy in both tails carries over.
    """
    bb = a if b is None else b
    out = np.zeros(a.size + bb.size - 1)
    ia, ib = np.flatnonzero(a), np.flatnonzero(bb)
    if ia.size == 0 or ib.size == 0:
        return out
    d = max(1, math.gcd(int(np.gcd.reduce(ia - ia[0])), int(np.gcd.reduce(ib - ib[0]))))
    x, y = a[ia[0] : ia[-1] + 1 : d], bb[ib[0] : ib[-1] + 1 : d]
    if x.size * y.size <= REL_DIRECT_WORK or min(x.size, y.size) <= 64:
        c = np.convolve(x, y)
        short = min(x.size, y.size)
        err, missing = (short + 2) * 1.01 * U * c + short * TINY, 0.0
    else:
        c, err, missing = _blocked(x, None if b is None else y, tail, max(0, -(-(limit - ia[0] - ib[0]) // d)))
    c = c + err + missing if tail.upper else np.maximum(c - err, 0.0)
    start = ia[0] + ib[0]
    out[start : start + d * c.size : d] = c
    return out


@dataclass(frozen=True)
class _Blocks:
    """An array cut into rows of BLOCK entries (zero padded) with their logs and per-row mass, largest entry,
    largest |log| of the positive entries and least-squares slope of log x over them — 0 unless the largest
    entry is the first or last positive one (a row with a mode inside is not flattened by any tilt)."""

    rows: np.ndarray
    logs: np.ndarray
    mass: np.ndarray
    top: np.ndarray
    log_size: np.ndarray
    slope: np.ndarray

    @staticmethod
    def of(x: np.ndarray) -> "_Blocks":
        rows = np.zeros(-(-x.size // BLOCK) * BLOCK)
        rows[: x.size] = x
        rows = rows.reshape(-1, BLOCK)
        positive = rows > 0
        with np.errstate(divide="ignore"):
            logs = np.log(rows)
        finite = np.where(positive, logs, 0.0)
        at = np.where(positive, np.arange(BLOCK, dtype=float), 0.0)
        n, sa, sl = positive.sum(1), at.sum(1), finite.sum(1)
        denominator = n * (at * at).sum(1) - sa * sa
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(denominator > 0, (n * (at * finite).sum(1) - sa * sl) / denominator, 0.0)
        where, last = np.argmax(rows, axis=1), BLOCK - 1 - np.argmax(positive[:, ::-1], axis=1)
        slope[(where != np.argmax(positive, axis=1)) & (where != last)] = 0.0
        return _Blocks(rows, logs, rows.sum(1), rows.max(1), np.abs(finite).max(1), slope)


def _window_min(xb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per block: running minima from each entry to the block end (suffix) and from the block start (prefix)."""
    return np.minimum.accumulate(xb[:, ::-1], axis=1)[:, ::-1], np.minimum.accumulate(xb, axis=1)


def _min_from(minima: tuple[np.ndarray, np.ndarray], start: np.ndarray) -> np.ndarray:
    """min(x[b : b + BLOCK]) for every b in `start` (0 where the window leaves the array)."""
    suffix, prefix = minima
    rows = suffix.shape[0]
    q, r = np.divmod(start, BLOCK)
    inside = (start >= 0) & (q < rows) & ((r == 0) | (q + 1 < rows))
    q, r = np.where(inside, q, 0), np.where(inside, r, 0)
    rest = np.where(r > 0, prefix[np.minimum(q + 1, rows - 1), np.maximum(r - 1, 0)], np.inf)
    return np.where(inside, np.minimum(suffix[q, r], rest), 0.0)


def _block_floor(xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
    """Lower bounds of x*y on output blocks: c_s ≥ x_a·min(y[s − a]) with a each block's largest entry (both ways)."""
    starts = np.arange(xb.shape[0] + yb.shape[0] + 1) * BLOCK
    out = np.zeros(starts.size)
    pairs = ((xb, _window_min(yb)),) if xb is yb else ((xb, _window_min(yb)), (yb, _window_min(xb)))
    for ab, minima in pairs:
        arg = np.argmax(ab, axis=1)
        top = ab[np.arange(ab.shape[0]), arg]
        where = arg + np.arange(ab.shape[0]) * BLOCK
        out = np.maximum(out, np.max(top[:, None] * _min_from(minima, starts[None, :] - where[:, None]), axis=0))
    return out


def _tilted(x: _Blocks, y: _Blocks, i: np.ndarray, j: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tilted FFT convolutions of the block pairs (x_i, y_j), tilt θ per pair, with compose's per-entry error model
    (`_fft_run`, vectorized): rows of (ĉ, err) of length 2·BLOCK (last entry 0), |ĉ − c| ≤ err.

    The exponent of a tilted entry, ln x_a + θa − max, is rounded with error ≤ u·(|ln x_a| + |θ|·BLOCK + |max|)
    per operation; the largest of these per pair is `magnitude`."""
    size = 2 * BLOCK
    shift = theta[:, None] * np.arange(BLOCK)
    with np.errstate(over="ignore", invalid="ignore"):
        lx, ly = x.logs[i] + shift, y.logs[j] + shift
        sx, sy = lx.max(1), ly.max(1)
        xt, yt = np.exp(lx - sx[:, None]), np.exp(ly - sy[:, None])
        exponent = (sx + sy)[:, None] - theta[:, None] * np.arange(size)
        magnitude = x.log_size[i] + y.log_size[j] + 2 * np.abs(theta) * BLOCK + np.abs(sx) + np.abs(sy)
        rel = (4 * magnitude + 2 * np.maximum(np.abs(exponent[:, 0]), np.abs(exponent[:, -1])) + 16) * U
        raw = fft.irfft(fft.rfft(xt, size) * fft.rfft(yt, size), size)
        raw[:, -1] = 0.0
        np.maximum(raw, 0.0, out=raw)
        norms = np.maximum(np.sqrt((xt * xt).sum(1)) * yt.sum(1), xt.sum(1) * np.sqrt((yt * yt).sum(1)))
        unit = fft_error_bound(np.ones(1), np.ones(1), size)  # compose's bound per unit of the norms
        # untilt in log space: raw underflows exactly where e^exponent overflows (0·inf would be NaN)
        with np.errstate(divide="ignore"):
            value = np.exp(np.log(raw) + exponent)
            err = (
                np.exp(np.log(unit * norms + 2 * BLOCK * TINY)[:, None] + exponent)
                + np.exp(np.log(1.01 * rel[:, None] * raw) + exponent)
                + 2 * TINY
            )
    return value, err


def _blocked(x: np.ndarray, y: np.ndarray | None, tail: Tail, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x*y (y None: x*x) from pairs of blocks of length BLOCK: (ĉ, err, missing), |ĉ − c| ≤ err per entry and
    c − ĉ ≤ err + missing (missing: bounds of the pairs left out, non-negative contributions).

    Pair (i, j) adds to output blocks i + j and i + j + 1, each entry at most M_ij = min(Σx_i·max y_j, max x_i·Σy_j).
    It is left out when M_ij is below ρ/(8·pairs per block) of the lower bound of those blocks (`_block_floor`),
    or when its 2·BLOCK·M_ij belongs to the smallest ones summing to at most the floor. Kept pairs are one tilted
    FFT each (`_tilted`), the tilt flattening the block of smaller mass (the other one mostly scales it): a block
    is nearly log-linear even where the array is not log-concave (heavy tails, where no global tilt works).
    Output blocks below `limit` whose upper or lower tail sums stay unresolved (`_unresolved`) are recomputed from
    direct convolutions of their pairs, as long as these number at most DIRECT_PAIRS.
    """
    xb = _Blocks.of(x)
    yb = xb if y is None else _Blocks.of(y)
    nx, ny = xb.rows.shape[0], yb.rows.shape[0]
    k = np.add.outer(np.arange(nx), np.arange(ny))
    weight = np.ones((nx, ny)) if y is not None else 2 * np.triu(np.ones((nx, nx)), 1) + np.eye(nx)  # x*x: i ≤ j
    bound = np.minimum(np.outer(xb.mass, yb.top), np.outer(xb.top, yb.mass)) * weight
    lower = _block_floor(xb.rows, yb.rows)
    candidate = bound > 0
    keep = candidate & (bound > tail.rho / (8 * (min(nx, ny) + 1)) * np.minimum(lower[k], lower[k + 1]))
    index = np.flatnonzero(keep)
    order = index[np.argsort(bound.flat[index])]
    keep.flat[order[np.cumsum(2 * BLOCK * bound.flat[order]) <= tail.floor]] = False
    left = candidate & ~keep
    missing = np.zeros(nx + ny + 1)
    np.add.at(missing, k[left], bound[left])
    np.add.at(missing, k[left] + 1, bound[left])
    c, err = np.zeros((nx + ny + 1, BLOCK)), np.zeros((nx + ny + 1, BLOCK))
    rows, cols = np.nonzero(keep)
    theta = -np.where(xb.mass[rows] <= yb.mass[cols], xb.slope[rows], yb.slope[cols])
    for start in range(0, rows.size, 64):
        i, j, tilt = rows[start : start + 64], cols[start : start + 64], theta[start : start + 64]
        ci, ei = _tilted(xb, yb, i, j, tilt)
        flat = ~np.isfinite(ei).all(1)
        if flat.any():
            ci[flat], ei[flat] = _tilted(xb, yb, i[flat], j[flat], np.zeros(int(flat.sum())))
        double = weight[i, j] > 1
        ci[double] *= 2.0
        ei[double] *= 2.0
        for p, b in enumerate((i + j).tolist()):
            c[b] += ci[p, :BLOCK]
            c[b + 1] += ci[p, BLOCK:]
            err[b] += ei[p, :BLOCK]
            err[b + 1] += ei[p, BLOCK:]
    redo = _unresolved(c, err, missing, tail, tail.rho, limit)
    by_block = {}
    for i, j in zip(rows.tolist(), cols.tolist()):
        by_block.setdefault(i + j, []).append((i, j))
    chosen, direct = set(), set()
    for b in redo.tolist():
        touching = set(by_block.get(b, []) + by_block.get(b - 1, []))
        if len(direct | touching) <= DIRECT_PAIRS:
            chosen.add(b)
            direct |= touching
    for b in chosen:
        c[b], err[b] = 0.0, 0.0
    for i, j in direct:
        ci = np.append(np.convolve(xb.rows[i], yb.rows[j]), 0.0).reshape(2, BLOCK)
        ei = (BLOCK + 2) * 1.01 * U * ci + BLOCK * TINY
        for b in (i + j, i + j + 1):
            if b in chosen:
                c[b] += weight[i, j] * ci[b - i - j]
                err[b] += weight[i, j] * ei[b - i - j]
    if redo.size > len(chosen):
        tail.unresolved += _unresolved(c, err, missing, tail, 10 * tail.rho, limit).size
    n = x.size + (x if y is None else y).size - 1
    terms = min(nx, ny) + 2
    c, err, missing = c.ravel()[:n], err.ravel()[:n], np.repeat(missing, BLOCK)[:n]
    return c, err * (1 + 2 * gamma(terms)) + 2 * gamma(terms) * c, missing


def _unresolved(c: np.ndarray, err: np.ndarray, missing: np.ndarray, tail: Tail, rho: float, limit: int) -> np.ndarray:
    """Output blocks holding a cell of SUBBLOCK entries, below `limit`, whose upper tail sum (from it up) or lower
    tail sum has error above rho times itself, unless that tail (with its error) is below the floor."""
    cells = (c.size // SUBBLOCK, SUBBLOCK)
    low, bad = np.maximum(c - err, 0.0).reshape(cells).sum(1), (err + missing[:, None]).reshape(cells).sum(1)
    up_c, up_e = np.cumsum(low[::-1])[::-1], np.cumsum(bad[::-1])[::-1]
    down_c, down_e = np.cumsum(low), np.cumsum(bad)
    flagged = ((up_e > rho * up_c) & (up_c + up_e > tail.floor)) | (
        (down_e > rho * down_c) & (down_c + down_e > tail.floor)
    )
    flagged[limit // SUBBLOCK + 1 :] = False
    return np.unique(np.flatnonzero(flagged) // (BLOCK // SUBBLOCK))


def envelope(law: LossLaw, grid_law: GridLaw) -> GridLaw:
    """Tail-accurate mode: the single-step law moved by its estimated evaluation error entry by entry (upper: +,
    lower: −, clipped at 0), so that error stays relative to each mass instead of entering a W1 budget.

    Cell Q-masses q and moments m = E_Q[X; cell] are off by at most `_evaluation_errors` (Δq, Δm). Spread: the mass
    sent up, (m − g_j·q)/h, is off by (Δm + g_j·Δq)/h + Δq plus its rounding 8u·g_{j+1}·q/h (q ≤ the two end
    masses); each point collects the errors of its two cells. Contraction: a cell's conditional mean moves by
    (Δm + g·Δq)/q, shifting (Δm + g·Δq)/h (plus the same rounding) between classes; it is charged to the cell's
    point and both neighbours (an estimate: `_merge` may also borrow further down). The top bin adds the tail
    errors (its excess Δm + T·h·Δq); every mass adds 8u for its own rounding.
    """
    h, o, top = grid_law.h, grid_law.offset, grid_law.masses.size - 1
    g = o + h * np.arange(top + 1)
    upper = grid_law.bound == "upper"
    edges = g if upper else o + h * np.concatenate([[0.0], np.arange(top) + 0.5])
    (dq, dq_tail), (dm, dm_tail), below = _evaluation_errors(law, edges)
    masses = grid_law.masses
    err = 8 * U * masses
    err[0] += below
    err[-1] += dq_tail
    rounding = 8 * U * g[1:] * (masses[:-1] + masses[1:]) / h
    if upper:
        shift = (dm + g[:-1] * dq) / h + dq + rounding
        err[:-1] += dq + shift
        err[1:] += shift
    else:
        shift = dq + (dm + edges[1:] * dq) / h + rounding
        err[:-1] += shift
        err[1:] += shift
        err[:-2] += shift[1:]
    excess = dm_tail + g[-1] * dq_tail + 8 * U * grid_law.top_excess
    if upper:
        return replace(grid_law, masses=masses + err, top_excess=grid_law.top_excess + excess, w1_error=0.0)
    return replace(
        grid_law, masses=np.maximum(masses - err, 0.0), top_excess=max(grid_law.top_excess - excess, 0.0), w1_error=0.0
    )


def _evaluation_errors(law: LossLaw, edges: np.ndarray):
    """Bounds on the evaluation error of the Q-mass and of E_Q[X; ·] (= P-mass) of each cell (e_i, e_{i+1}] and of
    the tail beyond the last edge, and of the Q-mass at or below the first edge: the loss law's accuracy contract
    (LossLaw.eval_rtol, eval_abs) at the values the CDF differences use at the edges (the smaller of CDF and SF).
    A purely atomic law has exact (zero) differences over cells without atoms: only cells holding atoms keep an
    error there.
    """
    with np.errstate(divide="ignore"):
        y = np.log(edges)
    rtol = np.asarray(law.eval_rtol(y), float)
    out = []
    for cdf, sf in ((law.cdf_q, law.sf_q), (law.cdf_p, law.sf_p)):
        w = rtol * np.minimum(np.asarray(cdf(y), float), np.asarray(sf(y), float)) + law.eval_abs
        out.append([w[:-1] + w[1:], float(w[-1])])
    below = (rtol[0] * float(np.asarray(law.cdf_q(y[0]), float)) + law.eval_abs) if np.isfinite(y[0]) else 0.0
    values, p_at, q_at = law.atoms()
    if values.size and abs(q_at.sum() + law.q_neg_inf - 1) + abs(p_at.sum() + law.p_inf - 1) < 1e-12:
        # atoms with y[i−1] < value ≤ y[i] (as the CDFs count them) lie in cell i − 1; index edges.size: the tail
        counts = np.bincount(np.searchsorted(y, values, side="left"), minlength=edges.size + 1)
        for pair in out:
            pair[0] = np.where(counts[1 : edges.size] > 0, pair[0], 0.0)
            pair[1] = pair[1] if counts[edges.size] > 0 else 0.0
    return out[0], out[1], below
