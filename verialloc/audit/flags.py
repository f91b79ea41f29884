"""Audit flags: how an accountant's reported value compares with a certified bracket [lower, upper] of the truth,
given what the value *claims* (each adapter declares it, docs/audit.md):

* claim "upper" (offered as the guarantee: the true ε or δ is at most the value)
    UNSAFE  — value < certified lower: the guarantee is false (the truth is larger);
    LOOSE   — value > certified upper · (1 + x/100): sound but more than x% above the truth (+inf included: a
              true but useless upper end);
* claim "lower" (a declared lower end: the truth is at least the value)
    UNSAFE  — value > certified upper: the declared lower end is false (the truth is smaller);
    LOOSE   — value < certified lower · (1 − x/100): sound but more than x% below the truth;
* claim "estimate" (a point estimate, no direction promised)
    OUTSIDE — value outside [lower, upper]: the estimate misses the truth (never UNSAFE: nothing was guaranteed);
* any claim
    ERROR   — the call raised, or returned a non-number, NaN, a negative value, or ±inf other than an upper +inf;
    TIMEOUT — no answer within the time limit (not a statement about correctness);
    OK      — otherwise.
Comparisons are exact (Fraction of the float, decimal strings of the bracket; ±inf ends stay infinite): an
infinite certified upper never makes an upper claim LOOSE nor a lower claim UNSAFE. Percentages in the reasons
are computed without overflow (subnormal or huge ends give "inf%" or a large finite value, never an exception).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

OK, LOOSE, UNSAFE, OUTSIDE, ERROR, TIMEOUT = "OK", "LOOSE", "UNSAFE", "OUTSIDE", "ERROR", "TIMEOUT"
FLAGS = (OK, LOOSE, UNSAFE, OUTSIDE, ERROR, TIMEOUT)
CLAIMS = ("upper", "lower", "estimate")
DEFAULT_LOOSE_PERCENT = 10.0


def exact(x) -> Fraction | float:
    """A decimal string, int or float as an exact Fraction; ±infinities stay float (NaN is a ValueError)."""
    if isinstance(x, str):
        text = x.strip().lstrip("+")
        if text in ("inf", "infinity"):
            return math.inf
        if text in ("-inf", "-infinity"):
            return -math.inf
        return Fraction(text)
    if isinstance(x, float) and math.isinf(x):
        return x
    return Fraction(x)


def invalid(value) -> str | None:
    """Why `value` is not a usable privacy parameter (None when it is a finite number ≥ 0)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return f"not a number: {value!r}"
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return f"{value}"
    if value < 0:
        return f"negative value {value!r}"
    return None


def _infinite_claim(value, upper, slack, claims: str) -> tuple[str, str] | None:
    """+inf offered as an upper end is true but useless: LOOSE against a finite certified upper end (OK when the
    truth itself may be infinite or no looseness is flagged), as the pytest fixture reads it; None otherwise."""
    if claims != "upper" or isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if not (math.isinf(float(value)) and float(value) > 0):
        return None
    if slack is None or exact(upper) == math.inf:
        return OK, ""
    return LOOSE, "inf: a true but useless upper bound (the certified upper end is finite)"


def percent(part, whole) -> str:
    """100·part/whole as text with 3 significant digits, for exact (Fraction) or infinite operands: never raises
    (a ratio beyond the float range, e.g. over a subnormal end, is computed in logs; whole = 0 or ∞ is handled)."""
    if part == 0:
        return "0%"
    if whole == 0 or (isinstance(part, float) and math.isinf(part)):
        return "inf%"
    if isinstance(whole, float) and math.isinf(whole):
        return "0%"
    ratio = Fraction(part) * 100 / Fraction(whole)
    try:
        return f"{float(ratio):.3g}%"
    except OverflowError:  # > 1.8e308: log10 of the exact ratio, from integer logs
        exp10 = _log10(ratio)
        lead = 10 ** (exp10 - math.floor(exp10))
        return f"{lead:.3g}e+{math.floor(exp10)}%"


def _log10(x: Fraction) -> float:
    """log10 of a positive Fraction whose float would overflow or underflow (math.log10 takes big ints)."""
    return math.log10(x.numerator) - math.log10(x.denominator)


def classify(
    value, lower, upper, loose_percent: float = DEFAULT_LOOSE_PERCENT, claims: str = "upper"
) -> tuple[str, str]:
    """(flag, reason) of a reported `value` that claims to be an `claims` end ("upper" | "lower" | "estimate") of
    the truth, against the certified bracket [lower, upper] of the truth."""
    if not loose_percent >= 0:  # also NaN
        raise ValueError("loose_percent must be >= 0")
    if claims not in CLAIMS:
        raise ValueError(f"claims must be one of {', '.join(CLAIMS)}")
    slack = None if math.isinf(loose_percent) else Fraction(loose_percent) / 100
    infinite = _infinite_claim(value, upper, slack, claims)
    if infinite is not None:
        return infinite
    why = invalid(value)
    if why is not None:
        return ERROR, why
    v, lo, hi = Fraction(float(value)), exact(lower), exact(upper)
    if claims == "upper":
        if v < lo:
            return UNSAFE, f"{percent(lo - v, lo)} below the certified lower bound"
        if slack is not None and hi != math.inf and v > hi * (1 + slack):
            return LOOSE, f"{percent(v - hi, hi)} above the certified upper bound"
        return OK, ""
    if claims == "lower":
        if v > hi:
            return UNSAFE, f"declared lower end {percent(v - hi, hi)} above the certified upper bound"
        if slack is not None and slack < 1 and lo != -math.inf and v < lo * (1 - slack):
            return LOOSE, f"{percent(lo - v, lo)} below the certified lower bound"
        return OK, ""
    if v < lo:
        return OUTSIDE, f"estimate {percent(lo - v, lo)} below the certified lower bound"
    if v > hi:
        return OUTSIDE, f"estimate {percent(v - hi, hi)} above the certified upper bound"
    return OK, ""
