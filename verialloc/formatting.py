"""Decimal strings with a fixed number of significant digits, rounded in a stated direction."""
from __future__ import annotations

import mpmath as mp


def decimal(x, digits: int, rounding: str = "nearest") -> str:
    """`x` with `digits` significant digits; rounding "down"/"up" rounds toward −inf/+inf (outward brackets)."""
    with mp.workdps(digits + 30):  # never through mpmath's default 15 digits
        x = mp.mpf(x)
        if mp.isinf(x) or mp.isnan(x):
            return str(x)
        if x == 0 or rounding == "nearest":
            return mp.nstr(x, digits, min_fixed=-5, max_fixed=digits + 1, strip_zeros=True)
        exponent = int(mp.floor(mp.log10(abs(x)))) - digits + 1
        scaled = x / mp.mpf(10) ** exponent
        step = mp.floor(scaled) if rounding == "down" else mp.ceil(scaled)
        return mp.nstr(step * mp.mpf(10) ** exponent, digits + 1, min_fixed=-5, max_fixed=digits + 1, strip_zeros=True)
