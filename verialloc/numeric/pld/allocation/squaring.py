"""The t-fold sum of the allocation by squaring, restricted to windows (F53 Alg. 3 with every squaring done, E14).

`window_plan` sets the window of every node (Bernstein cuts below, a top bin above); `power` runs the squarings with
`_combine`, in the default mode (`convolution`) or the tail-accurate mode (`tail_accurate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .convolution import convolve, dot, gamma, pairwise
from .exp_grid import GridLaw
from .tail_accurate import Tail, convolve_tail


@dataclass(frozen=True)
class _Plan:
    """Exponentiation by squaring (F53 Alg. 3, E14): node windows [lo, hi] in grid indices, keyed by name."""

    bits: tuple[int, ...]
    windows: dict
    single_top: int
    window_index: int


def window_plan(t: int, h: float, window: float, mean: float, second: float, c: float) -> _Plan:
    """Windows: node of m summands keeps [L(m), H]; H is set top-down so a top bin always lands in a top bin."""

    def cut(m: int) -> int:
        return max(0, int(math.floor((m * mean - c * math.sqrt(m * second)) / h)))

    top_bit = t.bit_length() - 1
    bits = tuple(j for j in range(top_bit + 1) if t >> j & 1)
    counts = [sum(1 << j for j in bits[: i + 1]) for i in range(len(bits))]
    w = int(math.ceil(window / h))
    hi_acc = [0] * len(bits)
    need = {j: 0 for j in range(top_bit + 1)}
    hi_acc[-1] = w
    for i in range(len(bits) - 1, 0, -1):
        hi_acc[i - 1] = max(hi_acc[i] - cut(1 << bits[i]), cut(counts[i - 1]))
        need[bits[i]] = max(need[bits[i]], hi_acc[i] - cut(counts[i - 1]))
    need[bits[0]] = max(need[bits[0]], hi_acc[0])
    hi_pow = [0] * (top_bit + 1)
    hi_pow[top_bit] = need[top_bit]
    for j in range(top_bit - 1, -1, -1):
        hi_pow[j] = max(need[j], hi_pow[j + 1] - cut(1 << j))
    windows = {("P", j): (cut(1 << j), max(hi_pow[j], cut(1 << j) + 1)) for j in range(top_bit + 1)}
    for i in range(len(bits)):
        windows["A", i] = (cut(counts[i]), max(hi_acc[i], cut(counts[i]) + 1))
    return _Plan(bits, windows, windows["P", 0][1], w)


@dataclass
class _Node:
    """Q-law of a partial sum on grid indices lo..hi; the entry at hi is the top bin (values ≥ hi·h).

    top_excess = E[S − hi·h; top bin]; dropped / dropped_moment: Q-mass and E[S; ·] cut so far.
    Float bounds against the same computation in exact arithmetic on the same single-step law: every mass and
    moment has relative error ≤ rel plus an absolute part, ℓ1 ≤ err over all masses and ≤ err_moment over all
    moments.
    """

    arr: np.ndarray
    lo: int
    top_excess: float
    dropped: float
    dropped_moment: float
    rel: float
    err: float
    err_moment: float

    @property
    def hi(self) -> int:
        return self.lo + self.arr.size - 1

    def kept_moment(self, h: float) -> float:
        return h * dot(self.arr, np.arange(self.lo, self.hi + 1, dtype=float)) + self.top_excess


def _combine(x: _Node, y: _Node | None, lo: int, hi: int, h: float, tail: Tail | None) -> _Node:
    """Node of X + Y (y None: X + X') on [lo, hi]: exact linear convolution, cut below lo, top bin at hi.

    Requires x.hi + y.lo ≥ hi and y.hi + x.lo ≥ hi (guaranteed by `window_plan`), so every product involving a top
    bin lands in the new top bin; the new top excess adds the input excesses weighted by the other side's mass.
    Every accumulated quantity is a sum of non-negative terms (relative errors compose multiplicatively).
    In the tail-accurate mode (`tail`) the arrays are directed bounds (`convolve_tail`), err stays 0.
    """
    yy = x if y is None else y
    if tail is None:
        c, rel_c, err_c = convolve(x.arr, None if y is None else y.arr)
    else:
        (c, rel_c), err_c = convolve_tail(x.arr, None if y is None else y.arr, tail, hi - x.lo - yy.lo), 0.0
    base = x.lo + yy.lo
    lo = max(lo, base)
    i_lo, i_hi = lo - base, hi - base
    idx = np.arange(base, base + c.size, dtype=float)
    low, high = c[:i_lo], c[i_hi:]
    arr = np.empty(hi - lo + 1)
    arr[:-1] = c[i_lo:i_hi]
    arr[-1] = float(high.sum())
    sx, sy = float(x.arr.sum()), float(yy.arr.sum())
    tx, ty = sx + x.dropped, sy + yy.dropped
    kx, ky = x.kept_moment(h), yy.kept_moment(h)
    mx, my = kx + x.dropped_moment, ky + yy.dropped_moment
    top_excess = h * dot(high, idx[i_hi:] - hi) + x.top_excess * sy + yy.top_excess * sx
    dropped = x.dropped * ty + sx * yy.dropped + float(low.sum())
    dropped_moment = (
        x.dropped_moment * ty + x.dropped * my + kx * yy.dropped + sx * yy.dropped_moment + h * dot(low, idx[:i_lo])
    )
    rel = (1 + x.rel) * (1 + yy.rel) * (1 + rel_c) * (1 + pairwise(c.size)) ** 2 * (1 + gamma(4)) - 1
    err = x.err * (ty + yy.err) + yy.err * (tx + x.err) + err_c
    err_moment = (
        x.err_moment * (ty + yy.err)
        + yy.err_moment * (tx + x.err)
        + x.err * my
        + yy.err * mx
        + err_c * h * float(idx[-1])
    )
    return _Node(arr, lo, top_excess, dropped, dropped_moment, rel, err, err_moment)


def power(law: GridLaw, plan: _Plan, tail: Tail | None) -> _Node:
    """t-fold sum by squaring (every squaring is done, E14), windows from the plan."""
    h = law.h
    node = _Node(law.masses.copy(), 0, law.top_excess, law.dropped, law.dropped_moment, 0.0, 0.0, 0.0)
    acc = None
    top_bit = max(j for kind, j in plan.windows if kind == "P")
    for j in range(top_bit + 1):
        if j > 0:
            node = _combine(node, None, *plan.windows["P", j], h, tail)
        if j in plan.bits:
            i = plan.bits.index(j)
            acc = node if acc is None else _combine(acc, node, *plan.windows["A", i], h, tail)
    return acc
