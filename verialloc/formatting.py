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


def strict_json(x):
    """`x` made JSON-safe, recursively: NaN and ±inf (float, numpy, mpmath) become the strings "nan", "inf", "-inf";
    numpy scalars and arrays become Python numbers and lists; a finite mpf becomes a float when float64 holds it
    (else its 17-digit string); Fraction, Decimal and paths become strings. Anything else is a TypeError (a bug)."""
    import math
    from decimal import Decimal
    from fractions import Fraction
    from pathlib import PurePath

    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        return _float(float(x))
    if isinstance(x, dict):
        return {_key(k): strict_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [strict_json(v) for v in x]
    if isinstance(x, mp.mpf):
        if not mp.isfinite(x):
            return "nan" if mp.isnan(x) else ("inf" if x > 0 else "-inf")
        f = float(x)
        return f if math.isfinite(f) else mp.nstr(x, 17)
    if isinstance(x, (Fraction, Decimal, PurePath)):
        return str(x)
    numpy = _numpy()
    if numpy is not None:
        if isinstance(x, numpy.bool_):
            return bool(x)
        if isinstance(x, numpy.integer):
            return int(x)
        if isinstance(x, numpy.floating):
            return _float(float(x))
        if isinstance(x, numpy.ndarray):
            return strict_json(x.tolist())
    raise TypeError(f"not JSON-serializable: {type(x).__name__}")


def dumps(x) -> str:
    """One strict JSON document: never a NaN/Infinity token (see strict_json)."""
    import json
    return json.dumps(strict_json(x), allow_nan=False)


def _float(f: float):
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    return f


def _key(k) -> str:
    if isinstance(k, str):
        return k
    v = strict_json(k)
    return v if isinstance(v, str) else str(v)


def _numpy():
    import sys
    return sys.modules.get("numpy")  # numpy values can only exist if numpy was imported
