"""Exact zero decisions for finite pairs: whether δ(ε) of a composed scheme pair is exactly 0 (ε at or beyond the
largest privacy loss, F1, F2), and whether ε(δ) is exactly 0 — decided exactly or at growing precision, never by
a rounded value (discrete_profiles asks these before it trusts a computed 0)."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ..errors import UnsupportedRequest
from ..mechanisms.base import mpq
from ..validation import digits as check_digits
from ..validation import integer, rate as check_rate
from .finite_pair import MAX_WORKING_DIGITS, as_finite_pair


def loss_bound(mech, scheme, steps, k, epochs, rate, direction):
    """L*, the largest privacy loss of the composed pair in `direction` (F1): δ(ε) = 0 iff ε ≥ L* (F2).

    With r = P/Q per output (over Q > 0) and c = epochs·k (allocation) or epochs·steps (Poisson):
    allocation remove L* = c ln max r, add L* = −c ln min r (the k-subset average of ∏ r is extreme when every
    output is extreme, F23); Poisson the same with r replaced by λr + 1 − λ (F46). Loss +inf (mass of A where
    B = 0) gives mp.inf. Returns mp.inf, an exact Fraction, or (c, fn) with L* = c·fn() at the current
    precision when L* is irrational (then it differs from every rational ε: Lindemann–Weierstrass), or
    None for a finite pair of unknown form.
    """
    t, e = integer("steps", steps), integer("epochs", epochs)
    lam = None if scheme == "allocation" else check_rate("rate", rate)
    c = e * (integer("k", k, 1, t) if lam is None else t)
    single = as_finite_pair(mech).largest_loss(direction, lam)
    if single is None or (isinstance(single, mp.mpf) and mp.isinf(single)):
        return single
    return c * single if isinstance(single, Fraction) else (c, single)


def vanishes(parts: list, eps: Fraction, direction: str, digits: int) -> bool:
    """True iff δ(ε) = 0 exactly for the composition of `parts` (discrete_profiles.Part), i.e. ε ≥ L* = the sum of
    the parts' largest losses (`loss_bound`); an irrational L* is compared at growing precision."""
    bounds = [loss_bound(p.mech, p.scheme, p.steps, p.k, p.epochs, p.rate, direction) for p in parts]
    if any(b is None or (isinstance(b, mp.mpf) and mp.isinf(b)) for b in bounds):
        return False
    exact = sum((b for b in bounds if isinstance(b, Fraction)), Fraction(0))
    irrational = [b for b in bounds if not isinstance(b, Fraction)]
    if not irrational:
        return eps >= exact
    dps = check_digits(digits) + 10
    scale = 1 + abs(exact) + sum(c for c, _ in irrational)
    while dps <= MAX_WORKING_DIGITS:
        with mp.workdps(dps):
            e = mpq(eps)
            diff = e - mpq(exact) - mp.fsum(c * log_ratio() for c, log_ratio in irrational)
            if abs(diff) > (abs(e) + scale) * mp.mpf(10) ** (10 - dps):
                return diff > 0
        dps *= 2
    raise UnsupportedRequest(
        "epsilon",
        _short(eps),
        f"epsilon is within 10^-{MAX_WORKING_DIGITS // 2} of the largest "
        "privacy loss, where delta becomes 0: not decidable here",
    )


def _short(x: Fraction):
    """x itself, or a 15-digit decimal string when printing x exactly would be huge (Python caps int → str)."""
    if max(x.numerator.bit_length(), x.denominator.bit_length()) < 3000:
        return x
    with mp.workdps(15):
        return mp.nstr(mpq(x), 15)


def unresolved_delta(mech, eps: Fraction, digits: int, cap: int) -> UnsupportedRequest:
    text = (
        f"delta(epsilon={_short(eps)}) is positive but not resolved to {digits} digits within {cap} working digits "
        "(P and Q too close at this epsilon)"
    )
    if mech.exact_probabilities() is None:  # irrational masses: their parameter sets how close P and Q are
        return UnsupportedRequest(mech.parameter, _short(getattr(mech, mech.parameter)), text)
    return UnsupportedRequest("epsilon", _short(eps), text)


def epsilon_is_zero(mechs: list, exact_pair, target: Fraction) -> bool:
    """True iff the smallest ε with δ(ε) ≤ target is exactly 0: δ(0) = target and δ(ε) > target for ε < 0.

    Pairs with irrational masses, e.g. randomized response: never. Every mass is a polynomial with rational
    coefficients in the transcendental y = e^{ε0}/(1 + e^{ε0}), so δ(0) = TV is such a polynomial that vanishes at
    y = 1/2 (P = Q there); it equals a rational target only if target = 0 = TV, impossible for ε0 > 0. Rational
    pairs: decided with exact Fractions (TV = δ(0), and the slope −B(ratio ≥ 1) left of 0 must be nonzero) on the
    composed pair `exact_pair()` (Fraction masses). Unknown pairs: False.
    """
    if any(m.exact_probabilities() is None for m in mechs):
        return False
    pair = exact_pair()
    tv = sum((x - y for x, y in zip(pair.a, pair.b) if x > y), Fraction(0))
    return tv == target and any(x >= y > 0 for x, y in zip(pair.a, pair.b))
