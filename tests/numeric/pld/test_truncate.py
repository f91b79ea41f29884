"""truncate (F54 "additional truncation") against hand-derived results, including a tail at or above the finite mass.

Masses are dyadic, so every sum is exact in float64 and the expected PLDs are exact. The rule (docstring of
`truncate`): the top cut is the longest suffix of mass ≤ tail that leaves at least one point, the bottom cut the
longest prefix of mass ≤ tail among the points left; upper moves the top to +inf (counted in `truncated`) and the
bottom onto the lowest kept point; lower moves the top onto the highest kept point and drops the bottom.

Checked to kill (on a scratch copy): `min(n_top, m.size - 1)` → `m.size` / `m.size + 1` / `m.size - 2` (every mass
cut when tail ≥ total, an empty PLD; or a point more kept than the rule says), `m.size - 1 - n_top` → `+ 1` / `- 2`,
`n_top == 0 and n_bottom == 0` → `or`, `masses.size <= 1` → `<= 2`, either `side="right"` → `"left"`, `kept[0]` →
`kept[-1]`, `kept[-1]` → `kept[0]`, the `top` / `bottom` bookkeeping dropped or swapped.
"""

import numpy as np
import pytest

from verialloc.numeric.pld.grid import truncate
from verialloc.numeric.pld.pld import PLD

LOSSES = np.arange(6) * 0.5


def pld(masses, bound, inf_mass=0.0):
    return PLD(
        LOSSES[: len(masses)], np.array(masses), inf_mass=inf_mass, truncated=2.0**-30, float_error=1e-13, bound=bound
    )


CASES = [
    # tail at and above the finite mass (3/8): every point but the lowest goes, the lowest keeps its own mass
    pytest.param([1 / 16, 1 / 8, 1 / 8, 1 / 16], 0.375, "upper", [0.0], [1 / 16], 5 / 16, id="upper-tail=total"),
    pytest.param([1 / 16, 1 / 8, 1 / 8, 1 / 16], 0.4, "upper", [0.0], [1 / 16], 5 / 16, id="upper-tail>total"),
    pytest.param([1 / 16, 1 / 8, 1 / 8, 1 / 16], 0.4, "lower", [0.0], [3 / 8], 0.0, id="lower-tail>total"),
    pytest.param([1 / 8, 1 / 8], 0.3, "upper", [0.0], [1 / 8], 1 / 8, id="upper-two-points"),
    pytest.param([1 / 8, 1 / 8], 0.3, "lower", [0.0], [1 / 4], 0.0, id="lower-two-points"),
    # both sides cut (suffix sums 1/16, 3/16; prefix sums 1/16, 5/16 at tail 3/16)
    pytest.param(
        [1 / 16, 1 / 4, 1 / 4, 1 / 4, 1 / 8, 1 / 16],
        3 / 16,
        "upper",
        [0.5, 1.0, 1.5],
        [5 / 16, 1 / 4, 1 / 4],
        3 / 16,
        id="upper-both-sides",
    ),
    pytest.param(
        [1 / 16, 1 / 4, 1 / 4, 1 / 4, 1 / 8, 1 / 16],
        3 / 16,
        "lower",
        [0.5, 1.0, 1.5],
        [1 / 4, 1 / 4, 7 / 16],
        1 / 16,
        id="lower-both-sides",
    ),
    # a prefix summing to exactly the tail is cut (suffix sums 1/16, 5/16; prefix sums 1/16, 3/16)
    pytest.param(
        [1 / 16, 1 / 8, 1 / 2, 1 / 4, 1 / 16],
        3 / 16,
        "upper",
        [1.0, 1.5],
        [11 / 16, 1 / 4],
        1 / 16,
        id="upper-tail=prefix",
    ),
    pytest.param(
        [1 / 16, 1 / 8, 1 / 2, 1 / 4, 1 / 16],
        3 / 16,
        "lower",
        [1.0, 1.5],
        [1 / 2, 5 / 16],
        3 / 16,
        id="lower-tail=prefix",
    ),
    # only the bottom is cut, up to the last point
    pytest.param([1 / 8, 1 / 8, 1 / 2], 0.3, "upper", [1.0], [3 / 4], 0.0, id="upper-bottom-only"),
    pytest.param([1 / 8, 1 / 8, 1 / 2], 0.3, "lower", [1.0], [1 / 2], 1 / 4, id="lower-bottom-only"),
]


@pytest.mark.parametrize("masses,tail,bound,losses,kept,moved", CASES)
def test_truncate_matches_hand_derived_cut(masses, tail, bound, losses, kept, moved):
    inf_mass = 1 - sum(masses) if bound == "upper" else 0.0
    source = pld(masses, bound, inf_mass)
    cut = truncate(source, tail)
    assert cut.bound == bound and cut.float_error == source.float_error and cut.neg_inf_mass == 0
    np.testing.assert_array_equal(cut.losses, losses)
    np.testing.assert_array_equal(cut.masses, kept)
    assert cut.truncated == source.truncated + moved
    assert cut.inf_mass == (inf_mass + moved if bound == "upper" else 0.0)


def test_single_point_is_never_cut():
    source = pld([1 / 4], "lower")
    assert truncate(source, 0.4) is source
