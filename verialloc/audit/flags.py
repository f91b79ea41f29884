"""Audit flags: how an accountant's reported value compares with a certified bracket [lower, upper].

* ERROR  — the call raised, or returned a non-number, NaN, ±inf or a negative value;
* UNSAFE — reported < certified lower: the claimed guarantee is false (the true ε or δ is larger);
* LOOSE  — reported > certified upper · (1 + x/100): sound but more than x% above the truth;
* OK     — otherwise.
Comparisons are exact (Fraction of the float, decimal strings of the bracket); an infinite certified upper
never makes a value LOOSE.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

OK, LOOSE, UNSAFE, ERROR = "OK", "LOOSE", "UNSAFE", "ERROR"
FLAGS = (OK, LOOSE, UNSAFE, ERROR)
DEFAULT_LOOSE_PERCENT = 10.0


def exact(x) -> Fraction | float:
    """A decimal string, int or float as an exact Fraction; infinities stay float."""
    if isinstance(x, str):
        x = x.strip().lstrip("+")
        return math.inf if x == "inf" else Fraction(x)
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


def classify(value, lower, upper, loose_percent: float = DEFAULT_LOOSE_PERCENT) -> tuple[str, str]:
    """(flag, reason) of a reported `value` against the certified bracket [lower, upper]."""
    if loose_percent < 0:
        raise ValueError("loose_percent must be >= 0")
    why = invalid(value)
    if why is not None:
        return ERROR, why
    v, lo, hi = Fraction(float(value)), exact(lower), exact(upper)
    if v < lo:
        short = float((lo - v) / lo * 100)
        return UNSAFE, f"{short:.3g}% below the certified lower bound"
    if hi != math.inf and v > hi * (1 + Fraction(loose_percent) / 100):
        excess = float((v - hi) / hi * 100) if hi > 0 else math.inf
        return LOOSE, f"{excess:.3g}% above the certified upper bound"
    return OK, ""
