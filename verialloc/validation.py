"""Input checks shared by every layer. Numbers are kept as exact `Fraction`s.

Floats are read through their shortest decimal repr (0.8 -> 4/5), decimal strings exactly
("1e-5" -> 1/100000). NaN, inf, booleans and non-numbers are rejected with the parameter name.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from numbers import Rational

from .errors import InvalidParameter, huge_number_text

DIRECTIONS = ("remove", "add")


MAX_NUMBER_CHARS = 1000
#: largest numerator or denominator of an int or Fraction given directly (Python API): about 4000 decimal digits,
#: as number text reaches through its exponent range; str() of a larger int raises
MAX_RATIONAL_BITS = 13_300
#: decimal exponents accepted in number text: tiny values down to 1e-4000 (the exact layer resolves them; 10^4000 stays
#: below Python's 4300-digit int-to-str limit), large ones up to 1e1000 (1e3999 as ε or σ took 80 s, then crashed)
MIN_EXPONENT, MAX_EXPONENT = -4000, 1000
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)\s*$")
_NUMBER_CHARS = re.compile(r"[0-9.eE+\-/ \t\n]*", re.ASCII)


def check_number_text(name: str, value) -> None:
    """Refuse number text too long or with a decimal exponent outside [MIN_EXPONENT, MAX_EXPONENT] before anything
    converts it (an InvalidParameter naming `name`); other values pass unchanged to the usual validation."""
    if not isinstance(value, str):
        return
    if len(value) > MAX_NUMBER_CHARS:
        raise InvalidParameter(name, abbreviated(value), f"must be a number of at most {MAX_NUMBER_CHARS} characters")
    if not _NUMBER_CHARS.fullmatch(value):  # Fraction() also takes "1_0" (10) and other scripts' digits ("١")
        raise InvalidParameter(
            name,
            abbreviated(value),
            "must be a finite real number written with ASCII digits, '.', 'e', a sign and '/' (decimal or p/q)",
        )
    m = _EXPONENT.search(value)
    if m and not MIN_EXPONENT <= int(m.group(1)) <= MAX_EXPONENT:
        raise InvalidParameter(
            name, value, f"must be a number with a decimal exponent in [{MIN_EXPONENT}, {MAX_EXPONENT}]"
        )


def abbreviated(value, limit: int = 60) -> str:
    """A value as shown in an error line: its text (repr for non-strings; an integer too long for it named by its
    size), cut to `limit` characters."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # an int (or a Fraction's) of more than 4300 digits (sys.int_max_str_digits)
        return huge_number_text(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def to_fraction(name: str, value) -> Fraction:
    """Exact rational value of a finite real number given as int, Fraction, float or decimal string (text checked
    by check_number_text first: a 10^999999 is refused, not built)."""
    if isinstance(value, bool):
        raise InvalidParameter(name, value, "must be a finite real number")
    if isinstance(value, Rational):
        x = Fraction(int(value.numerator), int(value.denominator))  # numpy integers as Python ints
        if max(abs(x.numerator).bit_length(), x.denominator.bit_length()) > MAX_RATIONAL_BITS:
            raise InvalidParameter(
                name, abbreviated(value), "must be a number of at most 4000 digits (numerator and denominator)"
            )
        return x
    if isinstance(value, float):
        value = float(value)  # numpy float64 is a float subclass whose repr is 'np.float64(...)'
        if not math.isfinite(value):
            raise InvalidParameter(name, value, "must be a finite real number")
        return Fraction(repr(value))
    if isinstance(value, str):
        check_number_text(name, value)
        text = value.strip()
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InvalidParameter(name, value, "must be a finite real number (decimal or p/q)") from None
    try:  # Decimal, numpy scalars, mpmath mpf
        approx = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(name, value, "must be a finite real number") from None
    if not math.isfinite(approx):
        raise InvalidParameter(name, value, "must be a finite real number")
    if hasattr(value, "man_exp"):  # mpmath mpf: exact binary value (man_exp drops the sign)
        man, exp = value.man_exp
        magnitude = Fraction(man) * Fraction(2) ** exp
        return -magnitude if value < 0 else magnitude
    text = str(value)  # Decimal, numpy: their decimal text, checked like any number text (Decimal('1e-999999'))
    check_number_text(name, text)
    return Fraction(text)


def positive(name: str, value) -> Fraction:
    x = to_fraction(name, value)
    if x <= 0:
        raise InvalidParameter(name, value, "must be > 0")
    return x


def nonnegative(name: str, value) -> Fraction:
    x = to_fraction(name, value)
    if x < 0:
        raise InvalidParameter(name, value, "must be >= 0")
    return x


def real(name: str, value) -> Fraction:
    return to_fraction(name, value)


def as_float(name: str, value, check=real) -> float:
    """check(name, value) as the nearest float64; a value beyond the float64 range, or one the rounding moves out of
    check's range (a δ of 0.99999999999999999 is 1.0, a scale of 1e-400 is 0.0), is an InvalidParameter."""
    x = check(name, value)
    try:
        f = float(x)
    except OverflowError:
        raise InvalidParameter(
            name, value, f"must lie within the float64 range (|x| <= {sys.float_info.max:.6g})"
        ) from None
    if f != x:
        try:
            check(name, f)
        except InvalidParameter as exc:
            raise InvalidParameter(name, value, f"{exc.valid} also as a float64 (it rounds to {f!r})") from None
    return f


def open_unit(name: str, value) -> Fraction:
    """A probability in the open interval (0, 1), e.g. delta."""
    x = to_fraction(name, value)
    if not 0 < x < 1:
        raise InvalidParameter(name, value, "must lie in the open interval (0, 1)")
    return x


def rate(name: str, value) -> Fraction:
    """A sampling rate lambda in (0, 1]."""
    x = to_fraction(name, value)
    if not 0 < x <= 1:
        raise InvalidParameter(name, value, "must lie in (0, 1]")
    return x


def integer(name: str, value, lo: int = 1, hi: int | None = None) -> int:
    """An integer in [lo, hi] (hi=None: unbounded). Accepts integral floats/strings like '1e4'."""
    if isinstance(value, bool):
        raise InvalidParameter(name, value, _int_range(lo, hi))
    try:
        x = to_fraction(name, value)
    except InvalidParameter as exc:
        if "at most 4000 digits" in exc.valid or "decimal exponent" in exc.valid:  # a size limit: say which
            raise
        raise InvalidParameter(name, value, _int_range(lo, hi)) from None
    if x.denominator != 1 or x < lo or (hi is not None and x > hi):
        raise InvalidParameter(name, value, _int_range(lo, hi))
    return int(x)


def _int_range(lo: int, hi: int | None) -> str:
    return f"must be an integer >= {lo}" if hi is None else f"must be an integer in [{lo}, {hi}]"


def direction(value: str, allow_both: bool = True) -> str:
    valid = DIRECTIONS + (("both",) if allow_both else ())
    if value not in valid:
        raise InvalidParameter("direction", value, "must be one of " + "|".join(valid))
    return value


def digits(value) -> int:
    return integer("digits", value, lo=5, hi=1000)
