"""exp_grid._merge (the contraction's stage 2, F8, F24–F26) on small atom sets whose classes are derived by hand.

h = 1, top = 4 (grid 0..3 plus the top class at 4). Each case follows `_merge`'s rule (docstring): an atom above
its nearest grid point k borrows a proportional share of the classes below k — whole classes first, from the
nearest down, the lowest class (index 0) included; an atom below k either borrows down to k − 1 (when the atoms
above cannot lift it) or takes mass from above; an atom that can borrow from nothing moves its target up, and a
remnant with nothing above or below is dropped. The expected classes are worked out in the comments. Independently
of them, mass and first moment are checked to be kept exactly (Fractions) and the convex order X_c ≤_cx X
(E[(X_c − a)_+] ≤ E[(X − a)_+], F8) at every grid point and atom.

Checked to kill (on a scratch copy): in `borrow` `while p >= 0` → `p > 0` (class 0 never lent), `cap >= need` →
`>`, `need -= cap` → `+=` / `=`, `taken += ms[p]` → `-=` / `=`, `p -= 1` → `p -= 2`, `del ks[p + 1:first + 1]`
→ `p + 2` / `first + 2`, `share = need / ((k - ks[p]) * h)` → `(k + ks[p])`, `ms[p] -= share` → `+=`,
`taken += share` → `-=`, `return taken` → `return None`; in the sweep the borrow failure's `k += 1` → `k += 2`,
`k >= top` → `k > top`, the remnant's `dropped += mass` → `-=`, `dropped_moment += mass * mean` → `mass / mean`.
Equivalent: `if p >= 0 and ks[p] == k` → `p > 0` (not skipping an own class 0 gives cap 0 < need, so borrow
returns None all the same), `rem * s >= deficit` → `>` (at equality the whole atom is taken either way), and
`dropped += mass` → `=` (a remnant ends the sweep, and the top-class drop happens only without one: each adds
to 0).
"""

from fractions import Fraction

import numpy as np
import pytest

from verialloc.numeric.pld.allocation.exp_grid import _merge

H, TOP = 1.0, 4

CASES = [
    # 2.25 borrows 0.25 of moment from class 0 (cap 2): share 0.125 → classes 0: 0.875, 2: 1.125
    pytest.param([0, 2.25], [1, 1], [0.875, 0, 1.125, 0], 0, 0, 0, 0, id="from-class-0"),
    # 2.25 needs 0.25; class 1 (cap 0.125) is taken whole, class 0 lends the rest 0.125/2 → 0.9375, 1.1875
    pytest.param([0, 1, 2.25], [1, 0.125, 1], [0.9375, 0, 1.1875, 0], 0, 0, 0, 0, id="whole-class-then-class-0"),
    # as before with class 0 lending exactly its whole capacity 0.125·2: it is emptied, not skipped
    pytest.param([0, 2.25], [0.125, 1], [0, 0, 1.125, 0], 0, 0, 0, 0, id="class-0-exactly-used"),
    # 3.25 needs 0.25; classes 2 (cap 0.0625) and 1 (cap 0.125) whole, class 0 lends 0.0625/3 → 47/48, 1.125 + 1/48
    pytest.param(
        [0, 1, 2, 3.25], [1, 0.0625, 0.0625, 1], [47 / 48, 0, 0, 1.125 + 1 / 48], 0, 0, 0, 0, id="two-whole-classes"
    ),
    # 3.25 borrows from class 1 alone (cap 0.5): share 0.25/2 → classes 1: 0.125, 3: 1.125
    pytest.param([0, 1, 3.25], [1, 0.25, 1], [1, 0.125, 0, 1.125], 0, 0, 0, 0, id="share-two-points-down"),
    # 2.25 joins the existing class 2 (0.5); class 1 whole (0.125), class 0 lends 0.125/2 → 0.9375, 0.5 + 1.1875
    pytest.param([0, 1, 2, 2.25], [1, 0.125, 0.5, 1], [0.9375, 0, 1.6875, 0], 0, 0, 0, 0, id="own-class-kept"),
    # 2.5 (nearest point 3, nothing above) borrows down to 2: need 0.5, class 1 whole (0.125), class 0 0.375/2
    pytest.param([0, 1, 2.5], [1, 0.125, 1], [0.8125, 0, 1.3125, 0], 0, 0, 0, 0, id="down-to-k-1"),
    # 0.5 takes 0.125 (at 1.0) and 1/14 of 2.75 from above into class 1; the rest 13/14 of 2.75 borrows down to 2:
    # class 1 whole (moment 0.375 + 1/14), class 0 the missing 0.25/2 → 0.375, 1.5
    pytest.param([0, 0.5, 1, 2.75], [0.5, 0.25, 0.125, 1], [0.375, 0, 1.5, 0], 0, 0, 0, 0, id="from-above-then-down"),
    # 0.25 has nothing below: target 1, lifted by all of 1.75 (0.75 · 1 = 0.75, the deficit exactly)
    pytest.param([0.25, 1.75], [1, 1], [0, 2, 0, 0], 0, 0, 0, 0, id="target-up-lifted-exactly"),
    # 0.25 → target 1, lifted by 3/7 of 2.75 (deficit 0.75 = 1.75·3/7); the rest 1/14 at 2.75 borrows down to 2
    # from class 1 (moment 3/56) → classes 1: 10/7 − 3/56 = 1.375, 2: 1/14 + 3/56 = 0.125
    pytest.param([0.25, 2.75], [1, 0.5], [0, 1.375, 0.125, 0], 0, 0, 0, 0, id="target-up-partial-lift"),
    # 0.75: nothing below 1 and nothing above: dropped with its moment
    pytest.param([0.75], [1], [0, 0, 0, 0], 0, 0, 1, 0.75, id="dropped"),
    # 1.25 needs 0.25 but class 0 lends only 0.125 → target 2, nothing above, remnant (mean 1.25) dropped
    pytest.param([0, 1.25], [0.125, 1], [0.125, 0, 0, 0], 0, 0, 1, 1.25, id="borrow-fails-dropped"),
    # 3.25 can borrow from nothing, its target 4 is the top: 3.25 and 5 form the top class, excess −0.75 + 1
    pytest.param([3.25, 5], [1, 1], [0, 0, 0, 0], 2, 0.25, 0, 0, id="target-up-to-top"),
    # 3.75 and 5 lie at or above 3.5: the top class, excess 0.25·(−0.25) + 0.25·1
    pytest.param([0, 1, 3.75, 5], [1, 0.5, 0.25, 0.25], [1, 0.5, 0, 0], 0.5, 0.1875, 0, 0, id="top-class"),
]


def call(values, weights, a):
    return sum(w * max(v - a, 0) for v, w in zip(values, weights))


@pytest.mark.parametrize("xs,ws,masses,top_mass,top_excess,dropped,dropped_moment", CASES)
def test_merge_matches_hand_derived_classes(xs, ws, masses, top_mass, top_excess, dropped, dropped_moment):
    out = _merge(np.array(xs, float), np.array(ws, float), H, TOP)
    np.testing.assert_allclose(out[0], masses, rtol=0, atol=1e-15)
    assert out[1:] == pytest.approx((top_mass, top_excess, dropped, dropped_moment), rel=0, abs=1e-15)
    got, tm, te, dm, dmom = (np.array([Fraction(m) for m in out[0]]),) + tuple(Fraction(v) for v in out[1:])
    xs_f, ws_f = [Fraction(x) for x in xs], [Fraction(w) for w in ws]
    grid = [Fraction(k) for k in range(TOP)]
    assert abs(sum(got) + tm + dm - sum(ws_f)) <= Fraction(1, 2**50)
    assert abs(
        sum(g * m for g, m in zip(grid, got)) + TOP * tm + te + dmom - sum(x * w for x, w in zip(xs_f, ws_f))
    ) <= Fraction(1, 2**50)
    values, weights = grid + ([TOP + te / tm] if tm else []), list(got) + ([tm] if tm else [])
    for a in grid + xs_f:
        assert call(values, weights, a) <= call(xs_f, ws_f, a) + Fraction(1, 2**50)
