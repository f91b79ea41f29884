"""Issue #15 (mutation G2), #16 item 3: the geometric convolution's float budget covers its own rounding.

`conv` (F53 Alg. 4, E15) reports `rel` and `error`: each mass is within rel·(its exact value) plus a share of the
ℓ1 `error`, against the same placement done in exact arithmetic. Placement only moves mass between bins, so the
total is placement-free: the exact sum of the float output (masses + atoms) may differ from (Σ x)(Σ y) — computed
here in exact rationals from the float inputs — by at most rel·(Σ x)(Σ y) + error. Inputs are built with a budget
of 0 and non-dyadic masses, so the whole budget is the convolution's own rounding: dropping it leaves a budget of
0 against a non-zero realized error.
"""

from fractions import Fraction

import numpy as np
import pytest

from verialloc.numeric.pld.allocation.geometric_conv import GeometricDist, conv


def _dist(rng, n, log_start, step, zero=0.0, inf=0.0):
    masses = rng.random(n)
    masses *= (1 - zero - inf) / masses.sum()
    return GeometricDist(log_start, step, masses, zero=zero, inf=inf, error=0.0, rel=0.0)


def _exact_total(d: GeometricDist) -> Fraction:
    return sum(map(Fraction, d.masses.tolist()), Fraction(0)) + Fraction(d.zero) + Fraction(d.inf)


@pytest.mark.parametrize("bound", ["upper", "lower"])
@pytest.mark.parametrize("n,step,atoms", [(50, 0.05, False), (300, 0.01, False), (120, 0.1, True)])
def test_total_mass_error_within_reported_budget(bound, n, step, atoms):
    """|exact Σ(output) − (Σx)(Σy)| ≤ rel·(Σx)(Σy) + error, and the realized error is non-zero (the check has
    power)."""
    rng = np.random.default_rng(n)
    extra = {"zero": 0.01, "inf": 0.02} if atoms else {}
    x, y = _dist(rng, n, -1.0, step, **extra), _dist(rng, n, -0.7, step, **extra)
    out = conv(x, y, bound)
    exact = _exact_total(x) * _exact_total(y)
    realized = abs(_exact_total(out) - exact)
    assert realized > 0  # float rounding happened: a budget of 0 would be caught
    assert realized <= Fraction(out.rel) * exact + Fraction(out.error), (float(realized), out.rel, out.error)
