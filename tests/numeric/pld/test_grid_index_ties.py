"""grid_index's "up"/"down" at losses one ulp off the grid, where the float quotient loss/step rounds onto an integer.

`grid_index(losses, step, "up")` is the smallest k with fl(k·step) ≥ loss, "down" the largest k with
fl(k·step) ≤ loss (F10, F49: regrid's upper PLD moves every loss up, the lower one down). The reference starts
from the exact rational quotient (fractions.Fraction of the float loss and step), whose ceiling (floor) has
k·step ≥ loss (≤ loss) in the reals and hence after rounding, and then steps down (up) while the float product of
the neighbour still satisfies the condition — it never looks at the float quotient the code divides.

Losses n·step ± 1 ulp are where the code's corrections act: the quotient rounds to n although fl(n·step) lies on
the wrong side of the loss (a tie class no grid-aligned loss reaches). The explicit examples hit each of the four
corrections. Checked to kill (on a scratch copy): in "up" `k * step < losses` → `>`, the `np.where` branches
swapped, `(k - 1) * step >= losses` → `>`, its `k - 1` → `k - 2` (either place); the same in "down"; and each of
the four corrections removed. Equivalent (the second correction of the branch undoes the difference): the first
correction's `<` → `<=` (`>` → `>=`) and its `k + 1` → `k + 2` (`k - 1` → `k - 2`).
"""

import math
from fractions import Fraction

import numpy as np
from hypothesis import example, given, strategies as st

from verialloc.numeric.pld.grid import grid_index


def reference(loss: float, step: float, rounding: str) -> int:
    quotient = Fraction(loss) / Fraction(step)
    if rounding == "up":
        k = math.ceil(quotient)
        while float(k - 1) * step >= loss:
            k -= 1
        return k
    k = math.floor(quotient)
    while float(k + 1) * step <= loss:
        k += 1
    return k


def nudge(x: float, ulps: int) -> float:
    for _ in range(abs(ulps)):
        x = math.nextafter(x, math.inf if ulps > 0 else -math.inf)
    return x


@given(st.floats(1e-3, 1.0), st.integers(-3000, 3000), st.integers(-2, 2))
@example(0.6373247256341329, 44, 1)  # "up": quotient rounds to 44, fl(44·step) < loss → k + 1
@example(0.7299257909835141, -1866, 0)  # "up": quotient above −1866, fl(−1866·step) = loss → k − 1
@example(0.3109316336833967, 101, -1)  # "down": quotient rounds to 101, fl(101·step) > loss → k − 1
@example(0.17647996498195645, -1643, 0)  # "down": quotient below −1643, fl(−1643·step) = loss → k + 1
def test_grid_index_near_grid_points_matches_exact_quotient(step, n, ulps):
    loss = nudge(n * step, ulps)
    for rounding in ("up", "down"):
        got = int(grid_index(np.array([loss]), step, rounding)[0])
        assert got == reference(loss, step, rounding), (rounding, loss, step)
