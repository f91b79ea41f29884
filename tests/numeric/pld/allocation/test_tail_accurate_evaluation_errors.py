"""tail_accurate._evaluation_errors on a finite pair: the loss law's accuracy contract per cell, derived by hand.

FiniteLoss P = (1/8, 3/8, 1/2), Q = (1/2, 3/8, 1/8): atoms ℓ = −ln 4, 0, ln 4 (X = 1/4, 1, 4), exact dyadic CDFs.
Its contract (LossLaw.eval_rtol = 3u, eval_abs) bounds each CDF/SF value v by 3u·v + eval_abs; at an edge the
smaller of CDF and SF is used, w(e) = 3u·min(F(ln e), 1 − F(ln e)) + eval_abs, computed here from Fractions of
the masses. A cell (e_i, e_{i+1}] is off by w(e_i) + w(e_{i+1}) if it holds an atom (ℓ ≤ ln e counts as at or
below e, as the CDFs count it) and is exact (0) otherwise; the tail beyond the last edge by w(e_last) if it holds
an atom; the Q-mass at or below the first edge by 3u·F_Q(ln e_0) + eval_abs.

Checked to kill (on a scratch copy): `w[:-1] + w[1:]` → `-`, `float(w[-1])` → `w[0]`, `np.minimum` → `np.maximum`,
`+ law.eval_abs` → `-` (an edge below every atom, where only eval_abs remains), `side="left"` → `"right"` (the
atom at X = 1 on an edge), `counts[1:edges.size] > 0` → `>= 0`, `counts[edges.size] > 0` → `>= 0`, the
atomic-law test `< 1e-12` → `> 1e-12`, `below` from `cdf_q` → `sf_q`, `np.isfinite(y[0])` → `not`.
"""

from fractions import Fraction

import numpy as np
import pytest

from verialloc.numeric.pld.allocation.tail_accurate import _evaluation_errors
from verialloc.mechanisms.loss_law import FiniteLoss

P, Q = [Fraction(1, 8), Fraction(3, 8), Fraction(1, 2)], [Fraction(1, 2), Fraction(3, 8), Fraction(1, 8)]
X = [Fraction(1, 4), Fraction(1), Fraction(4)]  # e^ℓ of the atoms
U3 = 3 * np.finfo(float).eps / 2


def weight(masses, edge, abs_):
    below = sum(m for m, x in zip(masses, X) if x <= edge)
    return float(U3 * float(min(below, 1 - below))) + abs_


@pytest.mark.parametrize(
    "edges",
    [[0.2, 0.5, 2.0, 3.0, 3.5], [0.2, 0.5, 2.0, 3.0, 5.0], [0.2, 1.0, 3.0, 5.0], [0.5, 3.0], [0.1, 0.2]],
    ids=["tail-atom", "no-tail-atom", "atom-on-edge", "atom-below", "all-in-tail"],
)
def test_evaluation_errors_match_the_contract_cell_by_cell(edges):
    law = FiniteLoss(np.array([float(p) for p in P]), np.array([float(q) for q in Q]))
    e = [Fraction(x) for x in edges]
    (dq, dq_tail), (dm, dm_tail), below = _evaluation_errors(law, np.array(edges))
    for got_cells, got_tail, masses in ((dq, dq_tail, Q), (dm, dm_tail, P)):
        w = [weight(masses, x, law.eval_abs) for x in e]
        holds = [any(lo < x <= hi for x in X) for lo, hi in zip(e[:-1], e[1:])]
        np.testing.assert_allclose(
            got_cells, [a + b if h else 0.0 for a, b, h in zip(w[:-1], w[1:], holds)], rtol=1e-12, atol=0
        )
        assert got_tail == pytest.approx(w[-1] if any(x > e[-1] for x in X) else 0.0, rel=1e-12, abs=0)
    below_q = sum(m for m, x in zip(Q, X) if x <= e[0])
    assert below == pytest.approx(U3 * float(below_q) + law.eval_abs, rel=1e-12, abs=0)
