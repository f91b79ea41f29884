"""δ at every loss of a PLD's uniform grid in O(n), with bounds on what the accurate sum gives there (F2).

`PLD.epsilon` first searches the grid segment where δ crosses the target, comparing δ(l_i) with the target at
~log₂ n grid losses, each by the accurate O(n) sum (`PLD.delta`). `GridDelta.at_most(i, target)` answers the same
comparison from values computed once per PLD wherever their error bound decides it, and None where it does not
(the caller then sums): the comparisons, hence the segment and every float the inversion computes after it, are
those of the sums themselves — the inversion's answer is unchanged, bit for bit, only cheaper.

Values. On a grid l_i = l_0 + i·h + τ_i (|τ_i| ≤ τ), with a = e^{−h}, g = 1 − e^{−h} and
Y_i = Σ_{j≥i} m_j a^{j−i}, the hockey-stick of the grid model δ°(l_i) = Σ_{j>i} m_j (1 − a^{j−i}) + inf_mass obeys
δ°(l_i) − δ°(l_{i+1}) = g·Y_{i+1}, so δ°(l_i) = inf_mass + g·Σ_{k>i} Y_k: sums of non-negative terms, no
cancellation. Y is computed in blocks spanning at most BLOCK_SPAN in loss (Y_i = e^{(i−s)h}·Σ_{j≥i} m_j e^{−(j−s)h} in
the block from s, plus the next block's Y carried in), Σ_{k>i} Y_k by one cumulative sum.

Error bounds (u = 2⁻⁵³, γ_k = k·u/(1 − k·u), all terms non-negative):
* the grid model: |e^{l_i−l_j} − a^{j−i}| ≤ a^{j−i}(e^{2τ} − 1), so |δ_M(l_i) − δ°(l_i)| ≤ (e^{2τ} − 1)·Y_{i+1}
  (δ_M: the exact hockey-stick of the stored masses at the float losses); τ is measured from the losses;
* floats: each exponential within 4u of e^{x̂}, x̂ = fl(k·h) within u·BLOCK_SPAN of k·h; products, the block sums
  and the final cumulative sum within γ of their length: relative γ_{2n + 100·blocks + 10} in all, and products
  that underflow at most (n + 1)·TINY each, times e^{BLOCK_SPAN} after scaling;
* the accurate sum S_i (`PLD.delta`): |S_i − δ_M(l_i)| ≤ r·δ_M(l_i) + (n + 1)·TINY, r = `PLD.sum_rtol`.
`lower`/`upper` enclose S_i with every bound doubled (covering the rounding of the bounds themselves).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

U = np.finfo(np.float64).eps / 2
TINY = float(np.finfo(np.float64).smallest_subnormal)
#: loss span of one block of the scaled sums: e^{±BLOCK_SPAN} neither overflows nor underflows a mass ≥ 1e-290
BLOCK_SPAN = 32.0
#: largest grid deviation τ for which the values are kept (a grid with holes or uneven steps: None)
MAX_DEVIATION = 1e-9
#: below this many losses the search's sums are cheap, above this many blocks the values are not: no values
MIN_POINTS, MAX_BLOCKS = 64, 1000


@dataclass(frozen=True)
class GridDelta:
    """`lower[i] ≤ S_i ≤ upper[i]` for the accurate sum S_i = `PLD.delta(losses[i])`."""

    lower: np.ndarray
    upper: np.ndarray

    def at_most(self, i: int, target: float) -> bool | None:
        """S_i ≤ target where the bounds decide it, None where they do not."""
        if self.upper[i] <= target:
            return True
        if self.lower[i] > target:
            return False
        return None


def grid_delta(losses: np.ndarray, masses: np.ndarray, inf_mass: float, sum_rtol: float) -> GridDelta | None:
    """The bounds of the module docstring, or None for a short or non-uniform grid."""
    n = losses.size
    if n < MIN_POINTS:
        return None
    h = float(losses[-1] - losses[0]) / (n - 1)
    if not h > 0:
        return None
    k = np.arange(n, dtype=np.float64)
    deviation = float(np.max(np.abs(losses - (losses[0] + k * h))))
    tau = 1.01 * deviation + 8 * U * (abs(float(losses[0])) + abs(float(losses[-1])) + n * h)
    if not tau <= MAX_DEVIATION or n > MAX_BLOCKS * _width(h):
        return None
    y, blocks = _scaled_suffix(masses, h)
    after = np.zeros(n)  # Σ_{k>i} Y_k
    after[:-1] = np.cumsum(y[:0:-1])[::-1]
    g = -math.expm1(-h)
    values = inf_mass + g * after
    y_next = np.zeros(n)
    y_next[:-1] = y[1:]
    gamma = _gamma(2 * n + 100 * blocks + 10)
    underflow = (n + 1) * TINY * (math.exp(BLOCK_SPAN) * blocks * (n + 1) + 1)
    model = math.expm1(2 * tau) * (1 + 2 * gamma)
    err = 2 * (gamma * values + model * y_next + underflow)  # |values − δ_M(l_i)|, doubled
    rel, floor = 2 * sum_rtol, 2 * (n + 1) * TINY
    upper = (values + err) * (1 + rel) + floor
    lower = np.maximum((values - err) * (1 - rel) - floor, 0.0)
    return GridDelta(lower, upper)


def _scaled_suffix(masses: np.ndarray, h: float) -> tuple[np.ndarray, int]:
    """(Y_i = Σ_{j≥i} m_j e^{−(j−i)h}, number of blocks), block by block from the last (module docstring)."""
    n, width = masses.size, _width(h)
    y = np.empty(n)
    carry, blocks = 0.0, 0
    for s in range(((n - 1) // width) * width, -1, -width):
        stop = min(n, s + width)
        x = np.arange(stop - s, dtype=np.float64) * h
        shrink = np.exp(-x)
        local = np.cumsum((masses[s:stop] * shrink)[::-1])[::-1]
        y[s:stop] = np.exp(x) * (local + math.exp(-(stop - s) * h) * carry)
        carry, blocks = float(y[s]), blocks + 1
    return y, blocks


def _width(h: float) -> int:
    """Grid points per block: a block spans at most BLOCK_SPAN in loss."""
    return max(1, int(BLOCK_SPAN / h))


def _gamma(k: int) -> float:
    return k * U / (1 - k * U)
