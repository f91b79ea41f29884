"""Issue #15 (mutation A1): the allocation PLD absorbs the relative float error its node reports (F24, F7).

A `_Node` states that every mass it holds has relative error ≤ rel against the same computation in exact
arithmetic. So the true mass m of a computed m̃ can be anywhere in [m̃/(1 + rel), m̃/(1 − rel)]. The upper PLD
must cover the top of that range entrywise, the lower PLD must stay under its bottom. The reference here is that
interval, computed in exact rationals from the node's own arrays, never the code's scale factor. A node with a
large rel (5%) makes any slip in the absorption (×(1 + rel) instead of a factor ≥ 1/(1 − rel)) show.
"""

from fractions import Fraction

import numpy as np
import pytest

from verialloc.numeric.pld.allocation.exp_grid import GridLaw
from verialloc.numeric.pld.allocation.readout import read_pld
from verialloc.numeric.pld.allocation.squaring import _Node

REL = 0.05
H, T = 0.25, 4


def _law(offset: float) -> GridLaw:
    return GridLaw(
        h=H,
        offset=offset,
        masses=np.array([0.1, 0.2, 0.1]),
        top_excess=0.0,
        singular=0.0,
        dropped=0.0,
        dropped_moment=0.0,
        w1_error=0.0,
        bound="upper",
    )


def _node() -> _Node:
    return _Node(np.array([0.05, 0.1, 0.1, 0.05]), 1, 0.0, 0.0, 0.0, REL, 0.0, 0.0)


def _computed(node: _Node, offset: float, direction: str) -> list[Fraction]:
    """The node's masses as the PLD states them before any float absorption, exactly (F24: remove weights each
    Q-mass by S/t, add keeps it, reversed)."""
    q = [Fraction(float(v)) for v in node.arr]
    if direction == "add":
        return q[::-1]
    idx = range(node.lo, node.hi + 1)
    return [qi * (Fraction(offset) + i * Fraction(H) / T) for qi, i in zip(q, idx)]


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("offset", [0.5, 1.0])
def test_upper_covers_the_worst_case_the_relative_budget_allows(direction, offset):
    """Would catch: masses × (1 + rel) (short of 1/(1 − rel)), no absorption at all, absorption on one direction."""
    pld = read_pld(_node(), _law(offset), T, direction, "upper", relative=False)
    computed = _computed(_node(), offset, direction)
    worst = [m / (1 - Fraction(REL)) for m in computed]
    got = [Fraction(float(v)) for v in pld.masses]
    assert len(got) == len(worst)
    assert sum(got) + Fraction(float(pld.inf_mass)) <= 1  # no trimming here: the comparison is entrywise
    for g, w in zip(got, worst):
        assert g >= w, (float(g), float(w))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("offset", [0.5, 1.0])
def test_lower_stays_under_the_best_case_the_relative_budget_allows(direction, offset):
    """Would catch: masses × (1 − rel) (above 1/(1 + rel)), or the upper scale used for the lower PLD."""
    pld = read_pld(_node(), _law(offset), T, direction, "lower", relative=False)
    computed = _computed(_node(), offset, direction)
    best = [m / (1 + Fraction(REL)) for m in computed]
    got = [Fraction(float(v)) for v in pld.masses]
    # the lower PLD drops/moves its top bin (F24 lower): compare the entries it keeps as they are
    checked = got[:-1] if direction == "remove" else got[1:]
    reference = best[:-1] if direction == "remove" else best[1:]
    for g, b in zip(checked, reference):
        assert g <= b, (float(g), float(b))
