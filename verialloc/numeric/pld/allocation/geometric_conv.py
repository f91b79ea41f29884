"""Exp-space laws on geometric grids and their one-sided convolutions: Alg. 3–5 of [003] (F53), E14, E15, E17 fixed.

Part of the geometric-grid allocation (geometric.py, whose docstring states the grid and rounding conventions):
two grids of equal length n and ratio r = e^{α'} sum into the grid of length n starting at the sum of the first
points (Alg. 5, `range_renorm`); `conv` rounds every pairwise sum to the safe side (Alg. 4 with E15), `self_conv`
is the t-fold sum by binary exponentiation (Alg. 3 with E14). The values 0 and +inf stay exact atoms (E17).

Float budget in two parts: every mass and atom m̂ is within `rel`·m of the value m it has in exact arithmetic,
plus a share of the ℓ1 `error`. Placement is exact integer arithmetic and every mass operation is a product or a
sum of non-negative numbers (window sums without subtraction, the +inf atom without 1 − Σ), so each output
entry of `conv` keeps the relative error of its inputs plus γ of its longest chain of roundings (Higham 2002,
eq. 3.4 and 4.4): a tail mass of 1e-30 is then known to ~1e-12 of itself, where the ℓ1 budget alone (≈ 1e-11
absolute after a few convolutions) exceeded tiny δ targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath as mp
import numpy as np

from ....errors import InvalidParameter
from ....rounding import float_down, float_up
from ....validation import integer
from ..pld import PLD

#: unit roundoff of float64
_U = np.finfo(np.float64).eps / 2
#: spacing of float64 below the normal range: a product or sum there is off by up to half of it, absolutely
_TINY = np.finfo(np.float64).smallest_subnormal
#: shortest run of d summed as window sums (a window costs about as much as 16 direct slices)
_WINDOW_MIN = 16


# ------------------------------------------------------------------------------------ exp-space, Alg. 4/5


@dataclass(frozen=True)
class GeometricDist:
    """exp-space law: masses on [e^{log_start + i·step}]_{i<n}, plus atoms at the values 0 and +inf (F53, E17).

    rel, error: float64 budget — each mass and atom is within rel·(its exact value) plus its share of the ℓ1
    bound `error` (from the loss law's accuracy contract, LossLaw.eval_rtol / eval_abs, in geometric).
    """

    log_start: float
    step: float
    masses: np.ndarray
    zero: float = 0.0
    inf: float = 0.0
    error: float = 0.0
    rel: float = 0.0

    @property
    def size(self) -> int:
        return self.masses.size

    @property
    def total(self) -> float:
        return float(np.sum(self.masses)) + self.zero + self.inf


def exp_space(pld: PLD, log_start: float, step: float, negate: bool, rel: float = 0.0) -> GeometricDist:
    """e^{L} (negate=False) or e^{−L} (negate=True) of a PLD on a uniform grid; log_start is the log of the
    smallest exp-space value. A loss of ±inf becomes the value +inf/0 (e^{−(+inf)} = 0: E17). `rel`: relative
    error of the PLD's masses and atoms, beyond its ℓ1 float_error."""
    if negate:
        return GeometricDist(
            log_start, step, pld.masses[::-1], zero=pld.inf_mass, inf=pld.neg_inf_mass, error=pld.float_error, rel=rel
        )
    return GeometricDist(
        log_start, step, pld.masses, zero=pld.neg_inf_mass, inf=pld.inf_mass, error=pld.float_error, rel=rel
    )


def range_renorm(x: GeometricDist, y: GeometricDist, bound: str | None = None) -> float:
    """Alg. 5: log of the first point of the sum's grid, ln(e^{a} + e^{b}); same length n and ratio kept.

    With a bound, the float is directed (upper: ≥ the exact value, lower: ≤), so that the diagonal sums
    (e^{a} + e^{b})·r^i sit on (upper: below, lower: above) grid point i, as `conv` places them at offset 0."""
    if x.size != y.size or x.step != y.step:
        raise InvalidParameter(
            "grids",
            f"n={x.size}, {y.size}; step={x.step}, {y.step}",
            "conv needs two grids of equal length and ratio (Alg. 5)",
        )
    if bound is None:
        return float(np.logaddexp(x.log_start, y.log_start))
    with mp.workdps(40):
        exact = mp.log(mp.exp(mp.mpf(x.log_start)) + mp.exp(mp.mpf(y.log_start)))
        return float_up(exact) if bound == "upper" else float_down(exact)


def _round(index: np.ndarray, tie: float, bound: str) -> np.ndarray:
    """Upper: smallest grid index ≥ the real index; lower: largest ≤ (E15). Indices within `tie` of a grid
    point (float noise) go one more step in the safe direction."""
    return (np.ceil(index + tie) if bound == "upper" else np.floor(index - tie)).astype(np.int64)


def _window_sums(a: np.ndarray, length: int) -> np.ndarray:
    """Sums of a[s:s+length] for every s, without subtraction (van Herk/Gil-Werman blocks: the relative
    accuracy of small sums survives, unlike differences of one long cumsum)."""
    blocks = -(-a.size // length)
    padded = np.zeros(blocks * length)
    padded[: a.size] = a
    table = padded.reshape(blocks, length)
    prefix = np.cumsum(table, axis=1).ravel()
    suffix = np.cumsum(table[:, ::-1], axis=1)[:, ::-1].ravel()
    count = a.size - length + 1
    head = prefix[length - 1 : length - 1 + count].copy()
    head[::length] = 0.0  # windows that are whole blocks are the suffix alone
    return suffix[:count] + head


def _segment(f: np.ndarray, start: int, length: int) -> np.ndarray:
    """f[start:start+length], zero outside 0..f.size−1."""
    seg = np.zeros(length)
    lo, hi = max(start, 0), min(start + length, f.size)
    if lo < hi:
        seg[lo - start : hi - start] = f[lo:hi]
    return seg


def _pair_sums(
    out: np.ndarray,
    fx: np.ndarray,
    fy: np.ndarray,
    ds: np.ndarray,
    offsets: np.ndarray,
    crossover: float,
    span: tuple[int, int, int, int],
) -> int:
    """out[i + o(j − i) + 1] += fx[i]·fy[j] over all pairs, o the offset table of `conv`; returns the longest
    chain of float additions behind one output (slice updates + longest window), for the error bound.

    Exact-equivalent regrouping of the direct sum: while o(d) stays constant over d ∈ [d1, d2] (d below the
    crossover, where e^{b+dα} < e^{a}), the pairs of one i form a window sum of fy; while o(d) − d stays
    constant (above it), the pairs of one j form a window sum of fx. Runs of fewer than _WINDOW_MIN values of
    d are summed directly, one vectorized slice per d.
    """
    ix0, ix1, iy0, iy1 = span
    updates, longest = 0, 0
    split = int(np.searchsorted(ds, crossover))
    for by_i, part, keys in ((True, slice(0, split), offsets), (False, slice(split, ds.size), offsets - ds)):
        dpart, kpart = ds[part], keys[part]
        if dpart.size == 0:
            continue
        bounds = np.concatenate([[0], np.flatnonzero(np.diff(kpart)) + 1, [dpart.size]])
        for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            d1, d2, key = int(dpart[s]), int(dpart[e - 1]), int(kpart[s])
            length = d2 - d1 + 1
            updates += 1 if length >= _WINDOW_MIN else length
            if length < _WINDOW_MIN:
                for d in range(d1, d2 + 1):
                    o = key if by_i else key + d
                    lo, hi = max(ix0, iy0 - d), min(ix1, iy1 - d) + 1
                    if lo < hi:
                        out[lo + o + 1 : hi + o + 1] += fx[lo:hi] * fy[lo + d : hi + d]
            elif by_i:  # o constant: out[i + o] += fx[i] Σ_{d1≤d≤d2} fy[i + d]
                lo, hi = max(ix0, iy0 - d2), min(ix1, iy1 - d1)
                if lo <= hi:
                    window = _window_sums(_segment(fy, lo + d1, hi - lo + length), length)
                    out[lo + key + 1 : hi + key + 2] += fx[lo : hi + 1] * window
                    longest = max(longest, length)
            else:  # o − d = key constant: out[j + key] += fy[j] Σ_{d1≤d≤d2} fx[j − d]
                lo, hi = max(iy0, ix0 + d1), min(iy1, ix1 + d2)
                if lo <= hi:
                    window = _window_sums(_segment(fx, lo - d2, hi - lo + length), length)
                    out[lo + key + 1 : hi + key + 2] += fy[lo : hi + 1] * window
                    longest = max(longest, length)
    return updates + longest


def conv(x: GeometricDist, y: GeometricDist, bound: str) -> GeometricDist:
    """Alg. 4 with the intended rounding (E15): the law of X + Y on the Alg. 5 grid, each pairwise sum rounded
    UP ("upper": dominates X + Y) or DOWN ("lower": dominated); 0 and +inf stay exact atoms.

    For j − i = d the sum e^{a+iα} + e^{b+jα} = e^{a+iα}(1 + e^{b−a+dα}) lies at the fixed real index offset
    φ(d) = [ln(e^{a} + e^{b+dα}) − ln(e^{a} + e^{b})]/α from i, so the O(n²) direct sum is organized by d
    (`_pair_sums`).
    """
    log_c = range_renorm(x, y, bound)
    n, step = x.size, x.step
    tie = 64 * _U * (abs(x.log_start) + abs(y.log_start) + abs(log_c) + n * step + 1) / step
    out = np.zeros(n + 2)  # out[k + 1] is grid index k; out[0] and out[n + 1] catch float-tie spill
    fx, fy = x.masses, y.masses
    nzx, nzy = np.flatnonzero(fx), np.flatnonzero(fy)
    depth, pairs = 0, 0
    if nzx.size and nzy.size:
        span = (int(nzx[0]), int(nzx[-1]), int(nzy[0]), int(nzy[-1]))
        ds = np.arange(span[2] - span[1], span[3] - span[0] + 1)
        offsets = _round((np.logaddexp(x.log_start, y.log_start + ds * step) - log_c) / step, tie, bound)
        offsets[ds == 0] = 0  # (e^{a} + e^{b})·r^i is on the safe side of grid point i (directed log_c)
        depth = _pair_sums(out, fx, fy, ds, offsets, (x.log_start - y.log_start) / step, span)
        pairs = (span[1] - span[0] + 1) * (span[3] - span[2] + 1)
    zero = x.zero * y.zero
    for grid, other, log_s in ((fx, y.zero, x.log_start), (fy, x.zero, y.log_start)):
        if other > 0:  # e^{s + iα} + 0, placed on the new grid
            shift = int(_round(np.array((log_s - log_c) / step), tie, bound))
            keep = min(max(0, -shift), n)
            out[keep + shift + 1 : n + shift + 1] += grid[keep:] * other
            below = float(np.sum(grid[:keep])) * other
            if bound == "upper":
                out[1] += below
            else:
                zero += below
    finite_y = float(np.sum(fy)) + y.zero  # y's mass off +inf, summed once (y.total adds y.inf to it)
    tx, ty = x.total, finite_y + y.inf
    inf = x.inf * finite_y + y.inf * tx  # no subtraction (was tx·y.inf + … − x.inf·y.inf)
    if bound == "upper":
        out[1] += out[0]
        inf += out[n + 1]
    else:
        zero += out[0]
        out[n] += out[n + 1]
    # longest rounding chain behind one entry: its slice updates and window (depth), the spill, an atom's
    # product, and the pairwise np.sum of `below` (≤ log2 n + 1)
    gamma = 1.01 * (depth + n.bit_length() + 8) * _U
    rel = ((1 + x.rel) * (1 + y.rel) * (1 + gamma) - 1) * (1 + 1e-6)
    # below the normal range the relative bound fails: each operation may be off by TINY/2 absolutely — a direct
    # slice costs 2 per pair; a window update ~5 per entry of its segment, which is shorter than its pairs; the
    # atoms and the spill fewer than 4n
    underflow = (5 * pairs + 4 * n) * _TINY
    error = (x.error * ty + y.error * tx + x.error * y.error) * (1 + rel) + underflow
    return GeometricDist(log_c, step, out[1 : n + 1], zero=zero, inf=inf, error=error, rel=rel)


def self_conv(x: GeometricDist, t: int, bound: str) -> tuple[GeometricDist, int]:
    """Alg. 3 with E14 fixed: t-fold sum by binary exponentiation, squaring on every iteration (the last
    squaring is skipped). Returns (result, number of pairwise convolutions): ≤ 2⌈log2 t⌉, t = 13 → 5 (I23)."""
    t = integer("t", t)
    base, acc, count = x, None, 0
    while True:
        if t & 1:
            if acc is None:
                acc = base
            else:
                acc = conv(base, acc, bound)
                count += 1
        t >>= 1
        if t == 0:
            return acc, count
        base = conv(base, base, bound)
        count += 1
