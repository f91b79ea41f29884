"""Issue #16 item 5: PLD.epsilon answers are certified in the safe direction, recomputed in mpmath (F2, I1).

For an UPPER PLD, ε_u = pld.epsilon(target) must satisfy δ(ε_u) + float_error ≤ target with NO slack, where δ is
Σ_{l>ε} m (1 − e^{ε−l}) + inf_mass of the exact values of the PLD's float64 masses, losses and atoms (PLD.epsilon's
docstring). It is evaluated in 64-bit-mantissa long double with a rigorous, deliberately generous error bound
(each term within 16 ulps of long double, a sum of n terms within 2n ulps more); when the comparison is not decided
by that enclosure, the sum is redone in mpmath at 50 digits. For a LOWER PLD, δ(ε_l) − float_error ≥ target, or ε_l = −inf when the
whole (finite + inf) mass minus float_error cannot reach the target. PLDs come from `discretize_pair`
(Gaussian/Laplace one step) and `allocation` (randomized response, Gaussian). The reference is the F2 sum in
mpmath, not PLD.delta.
"""

import mpmath as mp
import numpy as np
import pytest

from verialloc.mechanisms import RandomizedResponse
from verialloc.numeric.pld.allocation import allocation
from verialloc.numeric.pld.discretize import discretize_pair
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.mechanisms.laplace import LaplaceLoss
from verialloc.numeric.pld.pld import PLD

DPS = 50
TARGETS = [0.9, 0.5, 0.3, 0.1, 0.0123, 1e-3, 1e-4, 3.3e-6, 1e-8, 1e-10, 1e-12, 1e-14]


def mp_delta(pld, eps):
    """F2 at ε (a float, or −inf: the whole mass), summed at DPS digits from the float values."""
    if eps == np.inf:
        return mp.mpf(float(pld.inf_mass))
    e = mp.mpf(float(eps)) if eps != -np.inf else None
    start = 0 if e is None else int(np.searchsorted(pld.losses, float(eps), side="right"))
    total = mp.mpf(float(pld.inf_mass))
    for l, m in zip(pld.losses[start:].tolist(), pld.masses[start:].tolist()):
        if m:
            total += mp.mpf(m) if e is None else mp.mpf(m) * -mp.expm1(e - mp.mpf(l))
    return total


_ULP = float(np.finfo(np.longdouble).eps)


def enclosure(pld, eps):
    """(value, radius): the exact F2 sum of the float values lies in [value − radius, value + radius]."""
    start = int(np.searchsorted(pld.losses, float(eps), side="right"))
    m = pld.masses[start:].astype(np.longdouble)
    terms = m * -np.expm1(np.longdouble(float(eps)) - pld.losses[start:].astype(np.longdouble))
    value = np.sum(terms) + np.longdouble(float(pld.inf_mass))
    radius = value * (16 + 2 * (terms.size + 2)) * _ULP
    return value, radius


def decide(pld, eps, shift, target, relation):
    """Is δ(ε) + shift `relation` target ("le": ≤, "ge": ≥) for the exact sum? mpmath only when needed."""
    value, radius = enclosure(pld, eps)
    lo, hi = value - radius + np.longdouble(shift), value + radius + np.longdouble(shift)
    t = np.longdouble(target)
    if relation == "le" and hi <= t or relation == "ge" and lo >= t:
        return True
    with mp.workdps(DPS):
        exact = mp_delta(pld, eps) + mp.mpf(shift)
        return exact <= mp.mpf(target) if relation == "le" else exact >= mp.mpf(target)


def check_upper(pld, target):
    eps = pld.epsilon(target)
    if eps == np.inf:  # always safe; must then be forced by the +inf atom or the float budget
        assert pld.inf_mass + pld.float_error > target * (1 - 1e-12), (target, pld.inf_mass, pld.float_error)
        return eps
    assert decide(pld, eps, float(pld.float_error), target, "le"), (target, eps, pld.delta(eps), pld.float_error)
    return eps


def check_lower(pld, target):
    eps = pld.epsilon(target)
    if eps == -np.inf:
        # trivial answer: no finite ε has δ − float_error ≥ target (the whole mass minus float_error is short)
        with mp.workdps(DPS):
            full = mp_delta(pld, -np.inf) - mp.mpf(float(pld.float_error))
            assert full <= mp.mpf(target) * (1 + mp.mpf(10) ** -12), (target, float(full))
        return eps
    assert decide(pld, eps, -float(pld.float_error), target, "ge"), (target, eps, pld.delta(eps), pld.float_error)
    return eps


def pair_plds():
    out = []
    for name, law in (("gauss1", GaussianLoss(1.0)), ("gauss0.4", GaussianLoss(0.4)), ("laplace1", LaplaceLoss(1.0))):
        for d in ("remove", "add"):
            out.append(pytest.param(law, d, id=f"{name}-{d}"))
    return out


@pytest.mark.parametrize("law,direction", pair_plds())
def test_discretize_pair_epsilon_is_certified(law, direction):
    """upper: δ(ε_u) + float_error ≤ target exactly; lower: δ(ε_l) − float_error ≥ target; ε_l ≤ ε_u.
    Would catch a bisection that returns the inner end of its last interval, a missing ulp step, or a float
    budget applied with the wrong sign."""
    up = discretize_pair(law, direction, 0.02, 1e-12, "upper")
    low = discretize_pair(law, direction, 0.02, 1e-12, "lower")
    for target in TARGETS:
        eu, el = check_upper(up, target), check_lower(low, target)
        assert el <= eu, (target, el, eu)


ALLOC_CASES = [
    pytest.param(RandomizedResponse(1).loss_law(), 100, {}, id="rr1-t100"),
    pytest.param(RandomizedResponse(1).loss_law(), 1000, {"tail": 9e-4}, id="rr1-t1000-tail9e-4"),
    pytest.param(RandomizedResponse(1).loss_law(), 1000, {"delta_floor": 1e-2}, id="rr1-t1000-floor1e-2"),
    pytest.param(GaussianLoss(1.0), 10, {"grid_step": 0.05}, id="gauss1-t10"),
]


@pytest.mark.parametrize("law,t,kwargs", ALLOC_CASES)
def test_allocation_plds_epsilon_is_certified(law, t, kwargs):
    """The same certificates for the allocation PLDs (non-zero float_error, +inf atoms from the cuts)."""
    result = allocation(law, t, **kwargs)
    for d in ("remove", "add"):
        up, low = result.plds[d, "upper"], result.plds[d, "lower"]
        for target in TARGETS:
            eu, el = check_upper(up, target), check_lower(low, target)
            assert el <= eu, (d, target, el, eu)


STEEP = [([-2.0, 30.0, 60.0], [0.5, 0.3, 0.2]), ([-700.0, 0.5, 700.0], [0.25, 0.5, 0.25]), ([0.1, 5.0], [0.6, 0.4])]


@pytest.mark.parametrize("losses,masses", STEEP)
@pytest.mark.parametrize("fraction", [0.9, 0.5, 0.1, 1e-3, 1e-6])
def test_epsilon_near_a_steep_atom_is_certified(losses, masses, fraction):
    """Targets whose crossing sits just below a large loss, where δ changes by ~1e−13 relative per ulp of ε — far
    more than the evaluation's relative error — so returning the inner end of the last bisection interval (ε with
    δ(ε) above the target) fails the exact check. PLDs built by hand (float_error 0 and 1e−18), both bounds."""
    top = losses[-1]
    for float_error in (0.0, 1e-18):
        for bound, check in (("upper", check_upper), ("lower", check_lower)):
            pld = PLD(
                np.array(losses), np.array(masses), inf_mass=0.0, truncated=0.0, float_error=float_error, bound=bound
            )
            # δ just below the top atom: masses[-1]·(1 − e^{ε − top}) for ε in (losses[-2], top)
            target = masses[-1] * fraction
            eps = check(pld, target)
            assert losses[-2] < eps < top, (eps, target)
