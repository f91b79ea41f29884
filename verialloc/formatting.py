"""Decimal strings with a fixed number of significant digits, rounded in a stated direction; the one-line echo of
a configuration and of the inputs as typed (`describe`, `shown`)."""

from __future__ import annotations

import functools

import mpmath as mp
from mpmath.libmp import fone, from_int, mpf_add, mpf_div, mpf_mul, round_ceiling, round_floor, to_int

from .validation import abbreviated

#: 1/2 as a raw mpf
_HALF = (0, 1, -1, 1)


def decimal(x, digits: int, rounding: str = "nearest") -> str:
    """`x` with `digits` significant digits; rounding "down"/"up" rounds toward −inf/+inf (outward brackets).

    Exact at any magnitude (5e319, e^(−5e599)): the integer m·10^e nearest (or below, above) x is read from bounds
    of |x|·10^−e rounded outward by mpmath's directed rounding, at a precision raised until both bounds give the same
    m. (The exponent used to come from log10 at digits + 30 digits: for e^(−5e599) "down" printed 0.0 and "up" an
    exponent wrong after 36 digits; mpmath's nstr took 11 s for e^(−5e3999).) Printed as mpmath prints digits + 1
    digits: fixed point when the leading digit's position lies in (−5, digits + 1), else d.ddde±X."""
    if not isinstance(x, mp.mpf):
        with mp.workdps(digits + 30):  # never through mpmath's default 15 digits
            x = mp.mpf(x)
    if mp.isinf(x) or mp.isnan(x):
        return str(x)
    if not x:
        return "0.0"
    sign, man, exp, bc = x._mpf_
    negative, magnitude = bool(sign), (0, man, exp, bc)  # |x| exactly (abs(x) rounds to mp.prec)
    with mp.workprec(64 + exp.bit_length()):
        e = int(mp.floor(mp.log10(mp.mpf(magnitude)))) - digits + 1  # about; corrected below when one digit off
    prec = 4 * digits + 64 + e.bit_length()  # `_power_of_ten`
    while True:
        low, high = _scaled(magnitude, -e, prec)
        m = _integer(low, rounding, negative, round_floor)
        if m != _integer(high, rounding, negative, round_ceiling):
            prec *= 2
        elif len(str(m)) != digits:  # the estimate of e was one off
            e += 1 if len(str(m)) > digits else -1
        else:
            return _text(-m if negative else m, e, digits)


def _integer(y: tuple, rounding: str, negative: bool, direction) -> int:
    """The integer of magnitude y (a raw mpf bound, rounded `direction` when 1/2 is added) that `rounding` gives x:
    nearest (half away from 0), or floor/ceil of |x| for rounding toward −inf/+inf."""
    if rounding == "nearest":
        return to_int(mpf_add(y, _HALF, y[2] + y[3] + 64, direction), round_floor)  # y ≥ 1: exact
    return to_int(y, round_floor if (rounding == "down") != negative else round_ceiling)


def _scaled(magnitude: tuple, k: int, prec: int) -> tuple:
    """Bounds (low, high) on magnitude·10^k (raw mpf values, magnitude > 0), each rounded outward at prec bits."""
    if k >= 0:
        return (
            mpf_mul(magnitude, _power_of_ten(k, prec, round_floor), prec, round_floor),
            mpf_mul(magnitude, _power_of_ten(k, prec, round_ceiling), prec, round_ceiling),
        )
    return (
        mpf_div(magnitude, _power_of_ten(-k, prec, round_ceiling), prec, round_floor),
        mpf_div(magnitude, _power_of_ten(-k, prec, round_floor), prec, round_ceiling),
    )


@functools.lru_cache(maxsize=16)
def _power_of_ten(k: int, prec: int, rounding) -> tuple:
    """10^k (k ≥ 0) by squaring, every product rounded the same way at prec bits: a bound from below (round_floor)
    or above (round_ceiling), since all factors are positive. Its relative width is about k·2^−prec (each squaring
    doubles it): callers add bits(k) to the bits they need (mpmath's mpf_pow_int adds 4·bits(k): 46 s for the two
    ends of e^(−5e3999), where k ≈ 2e3999 has 13 000 bits). Cached: a bracket, its directions and its JSON print
    values of one magnitude (1.2 s per bound at k ≈ 2e3999)."""
    result, base = fone, from_int(10)
    while k:
        if k & 1:
            result = mpf_mul(result, base, prec, rounding)
        k >>= 1
        if k:
            base = mpf_mul(base, base, prec, rounding)
    return result


def _text(m: int, e: int, digits: int) -> str:
    """m·10^e with the leading digit's position in (−5, digits + 1) in fixed point, else d.ddde±X; trailing zeros
    stripped, at least one decimal (as mpmath's nstr with min_fixed=−5, max_fixed=digits + 1)."""
    sign, text = ("-" if m < 0 else ""), str(abs(m))
    lead = len(text) - 1 + e  # position of the leading digit
    if -5 < lead < digits + 1:
        if lead < 0:
            whole, frac = "0", "0" * (-lead - 1) + text
        else:
            padded = text + "0" * max(0, lead + 1 - len(text))
            whole, frac = padded[: lead + 1], padded[lead + 1 :]
        return f"{sign}{whole}.{frac.rstrip('0') or '0'}"
    return f"{sign}{text[0]}.{text[1:].rstrip('0') or '0'}e{'+' if lead >= 0 else ''}{lead}"


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


def describe(echo: dict, show=lambda name, value: str(value)) -> str:
    """One line for the echo of a Config or a Ledger (`as_dict`): the mechanism, its parameters, the scheme and its
    sizes; for a composition, how many events (`describe_events` lists them). `show(name, value)`: how a value is
    printed (the CLI adds the text as typed)."""
    if "events" in echo:
        return f"a composition of {len(echo['events'])} events"
    params = ", ".join(f"{k}={show(k, v)}" for k, v in echo["params"].items())
    head = (
        f"{echo['mechanism']}({params}), {echo['scheme']} steps={show('steps', echo['steps'])} "
        f"k={show('k', echo['k'])} epochs={show('epochs', echo['epochs'])}"
    )
    return head + (f" rate={show('rate', echo['rate'])}" if "rate" in echo else "")


def describe_events(echo: dict) -> list[str]:
    """One line per event of a composition's echo (none for one configuration)."""
    return [f"    phase {i + 1}: {describe(e)}" for i, e in enumerate(echo.get("events", []))]


def shown(out: dict, name: str, exact) -> str:
    """`typed (=exact)` when the text typed (`out["input"]`) differs from the exact rational used ("1e-5 (=1/100000)"),
    else `exact`."""
    typed = out.get("input", {}).get(name)
    return f"{typed} (={exact})" if typed is not None and typed.strip() != str(exact) else str(exact)


#: longest parameter text in a human header (a 1e-400 mass is a 400-digit rational: --json keeps it whole)
HEADER_PARAM_CHARS = 80


def header_show(out: dict):
    """`show` for `describe`: a parameter as typed and as used, cut to HEADER_PARAM_CHARS."""
    return lambda name, value: abbreviated(shown(out, name, value), HEADER_PARAM_CHARS)
