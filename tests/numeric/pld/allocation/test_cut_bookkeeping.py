"""Issue #16 item 2: allocation cut bookkeeping at user-settable tails, against exact count enumeration.

`verialloc.numeric.pld.allocation.allocation(law, t, tail=9e-4)` (default mode) and the tail-accurate mode
(`delta_floor=...`) drop Q-mass in the Bernstein cuts (Budget.dropped, PLD.truncated). The upper PLDs must
charge that mass (to +inf) and the lower ones must drop it, so that lower ≤ exact ≤ upper still holds (I11, F2,
F23–F26). Reference: the exact allocation pair of the finite mechanism (`allocation_pair`, F23/F24), evaluated
at 40 digits in mpmath and compared as an mpf with the floats (no slack). Nothing asserted is a number produced
by the code under test alone.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc.exact.discrete_profiles import allocation_pair
from verialloc.mechanisms import DiscretePair, RandomizedResponse
from verialloc.numeric.pld.allocation import allocation

DIRECTIONS = ("remove", "add")
EPS = [-0.5, 0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0]

ASYM = DiscretePair([Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 3), Fraction(2, 3)])
CASES = [
    pytest.param(RandomizedResponse(1), 1000, {"tail": 9e-4}, id="rr1-t1000-tail9e-4"),
    pytest.param(RandomizedResponse("0.5"), 1000, {"tail": 9e-4}, id="rr0.5-t1000-tail9e-4"),
    pytest.param(RandomizedResponse(1), 100, {"tail": 9e-4}, id="rr1-t100-tail9e-4"),
    pytest.param(ASYM, 300, {"tail": 9e-4}, id="asym-t300-tail9e-4"),
    pytest.param(RandomizedResponse(1), 1000, {"tail": 9e-4, "delta_floor": 1e-2}, id="rr1-t1000-floor1e-2"),
    pytest.param(ASYM, 1000, {"tail": 9e-4, "delta_floor": 1e-2}, id="asym-t1000-floor1e-2"),
]


def exact_deltas(mech, t, direction, dps=40):
    """δ(ε) of the exact allocation pair (F23), as mpf at `dps` digits."""
    with mp.workdps(dps):
        pair = allocation_pair(mech, t)
        return [+pair.delta(mp.mpf(e), direction) for e in EPS]


@pytest.mark.parametrize("mech,t,kwargs", CASES)
def test_cut_mass_is_charged_and_bracket_holds(mech, t, kwargs):
    """I11 with the cuts active: Budget.dropped and every PLD's `truncated` are > 0; the upper PLDs carry the cut
    mass in their +inf atom (δ_upper(ε) ≥ truncated for every ε), the lower ones lose it (total mass ≤ 1 − truncated
    up to float rounding); and lower ≤ exact ≤ upper (δ with the float budget, `Allocation.delta`) at every ε,
    exact from count enumeration (F23). Would catch: a cut whose mass is dropped from an upper bound, counted twice,
    or not recorded; a tail parameter ignored by the tail-accurate mode."""
    result = allocation(mech.loss_law(), t, epsilon_max=2.0, **kwargs)
    up_dropped, low_dropped = result.budget.dropped
    assert up_dropped > 0 and low_dropped > 0, result.budget.dropped
    for d in DIRECTIONS:
        up, low = result.plds[d, "upper"], result.plds[d, "lower"]
        assert up.truncated > 0 and low.truncated > 0, (d, up.truncated, low.truncated)
        # the upper PLD charges the cut to +inf: its atom alone is at least the truncated mass
        assert up.inf_mass >= up.truncated
        assert all(up.delta(e) >= up.truncated for e in EPS)
        # the lower PLD really lost it: exact (Fraction) total of its float masses + truncated ≤ 1 + rounding
        total = sum(Fraction(float(m)) for m in low.masses) + Fraction(float(low.inf_mass))
        assert total + Fraction(float(low.truncated)) <= 1 + Fraction(1, 10**9)
        lower, upper = result.delta(EPS, d)
        exact = exact_deltas(mech, t, d)
        for e, lo, ex, hi in zip(EPS, lower, exact, upper):
            assert mp.mpf(float(lo)) <= ex, (d, e, lo, ex)
            assert ex <= mp.mpf(float(hi)), (d, e, ex, hi)
        # the test reaches the region the cut affects: some positive exact δ is within 1000× the charged mass
        assert any(0 < ex < 1000 * up.truncated for ex in exact), (d, [float(x) for x in exact], up.truncated)
