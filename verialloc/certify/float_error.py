"""Certified evaluation of a PLD bracket: the float64 rounding of the final hockey-stick sum, accounted for.

A numeric `PLD` carries `float_error` f, an ℓ1 budget on its masses: for an "upper" PLD the true profile is
≤ δ_M(ε) + f, for a "lower" one ≥ δ_M(ε) − f, where δ_M is the exact-arithmetic hockey-stick (F2) of the stored
float masses M. `PLD.delta` evaluates δ_M in float64; that last evaluation is not part of f on every path
(composition and Poisson PLDs leave it out), so certify bounds it here:

* the relative rounding of the sum is `PLD.sum_rtol` (η, derived there: 4u per term plus the summation,
  γ_{n+4}); doubled, it covers the switch from δ_M to δ̂: |δ̂ − δ_M| ≤ η·δ̂; terms lost to underflow add at
  most n·TINY;
* ε is read as the float64 neighbour on the safe side (δ is non-increasing in ε, I1): an upper δ is evaluated
  at a float ≤ ε, a lower δ at a float ≥ ε;
* every float operation of the inflation itself is followed by a one-ulp step outward (`math.nextafter`).

ε brackets (F2, I1): `PLD.epsilon` is used as a search only; the returned ε is then *verified* by a directed
evaluation (upper: δ(ε_hi) ≤ δ certified, so ε(δ) ≤ ε_hi; lower: δ(ε_lo) > δ certified, so ε(δ) ≥ ε_lo).
A lower ε of +inf (an atom at +inf above δ: disjoint supports) is verified the same way, by the certified lower δ
beyond the last finite loss.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..numeric.pld.pld import PLD
from ..rounding import float_down, float_up, round_down as down, round_up as up

TINY = float(np.finfo(np.float64).smallest_subnormal)
#: retries of the ε search with a tighter target when the verification fails
RETRIES = 4


def eta(pld: PLD) -> float:
    """Relative bound η on the rounding of one evaluation of δ(ε) from `pld`: 2·PLD.sum_rtol, rounded up."""
    return up(2.0 * pld.sum_rtol())


def delta_upper(pld: PLD, epsilon: Fraction) -> float:
    """Certified upper bound on δ(ε) of everything `pld` (bound "upper") dominates (F2, F8)."""
    raw = float(pld.delta(float_down(epsilon)))
    value = up(up(raw * up(1.0 + eta(pld))) + pld.float_error)
    return min(1.0, up(value + (pld.masses.size + 1) * TINY))


def delta_lower(pld: PLD, epsilon: Fraction) -> float:
    """Certified lower bound on δ(ε) of everything that dominates `pld` (bound "lower")."""
    raw = float(pld.delta(float_up(epsilon)))
    value = down(down(down(raw / up(1.0 + eta(pld))) - pld.float_error) - (pld.masses.size + 1) * TINY)
    return max(0.0, value)


def epsilon_upper(pld: PLD, delta: Fraction) -> float:
    """Certified ε_hi with δ(ε_hi) ≤ delta for the dominated truth, so ε(delta) ≤ ε_hi (+inf if none found)."""
    target = float_down(delta) / up(1.0 + eta(pld))
    for _ in range(RETRIES):
        target = down(target)
        candidate = pld.epsilon(target)
        if math.isinf(candidate):  # +inf is always sound; −inf (all mass below target) is not verified here
            return math.inf
        if delta_upper(pld, Fraction(candidate)) <= delta:
            return candidate
        target *= 1 - 1e-9
    return math.inf


def infinite_atom_exceeds(pld: PLD, delta: Fraction) -> bool:
    """True when the certified lower δ beyond the last finite loss (there δ_M = the +inf atom, and δ is
    non-increasing, I1) still exceeds `delta`: then δ(ε) > delta for every real ε and ε(delta) = +inf."""
    beyond = float(pld.losses[-1]) + 1.0 if pld.masses.size else 0.0
    return math.isfinite(beyond) and delta_lower(pld, Fraction(beyond)) > delta


def epsilon_lower(pld: PLD, delta: Fraction) -> float:
    """Certified ε_lo with δ(ε_lo) > delta for the dominating truth, so ε(delta) ≥ ε_lo (−inf if none found)."""
    fe = pld.float_error
    target = up(up(float_up(delta) * up(1.0 + 2 * eta(pld))) + 2 * eta(pld) * fe)
    for _ in range(RETRIES):
        target = up(target)
        if target + fe >= 1:
            return -math.inf
        candidate = pld.epsilon(target)
        if candidate == math.inf:  # the +inf atom exceeds target: verified at and beyond the last finite loss
            return math.inf if infinite_atom_exceeds(pld, delta) else -math.inf
        if math.isinf(candidate):  # −inf is always sound
            return -math.inf
        if delta_lower(pld, Fraction(candidate)) > delta:
            return candidate
        target *= 1 + 1e-9
    return -math.inf
