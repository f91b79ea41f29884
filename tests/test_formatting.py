"""Decimal output keeps every requested digit and rounds brackets outward, exactly at any magnitude."""

import re
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, strategies as st

from verialloc.formatting import decimal


def test_keeps_digits_beyond_double_precision():
    with mp.workdps(60):
        x = mp.mpf(1) / 3
        assert decimal(x, 40) == "0." + "3" * 40  # computed at the caller's precision, printed at 40 digits


def test_outward_rounding():
    with mp.workdps(50):
        x = mp.mpf(2) / 3
        lo, hi = decimal(x, 25, "down"), decimal(x, 25, "up")
        assert mp.mpf(lo) < x < mp.mpf(hi)
        assert lo == "0." + "6" * 25 and hi == "0." + "6" * 24 + "7"


def test_negative_and_tiny_values():
    with mp.workdps(40):
        assert mp.mpf(decimal(mp.mpf("-1.23456789e-30"), 4, "down")) <= mp.mpf("-1.23456789e-30")
        assert mp.mpf(decimal(mp.mpf("-1.23456789e-30"), 4, "up")) >= mp.mpf("-1.23456789e-30")
    assert decimal(mp.inf, 5) == "+inf"


@given(st.integers(1, 2**200), st.integers(-4_000, 4_000), st.integers(1, 25), st.booleans())
def test_rounds_to_the_digits_asked_against_exact_rationals(man, exp, digits, negative):
    """#14: the value is read exactly (it was first rounded to digits + 30 digits, then directed)."""
    with mp.workprec(man.bit_length()):  # x exact; decimal is called at the default 53 bits
        x = mp.mpf((-man if negative else man, exp))
    exact = Fraction(-man if negative else man) * Fraction(2) ** exp
    down, up, nearest = (Fraction(decimal(x, digits, r)) for r in ("down", "up", "nearest"))
    unit = Fraction(10) ** (_leading_position(abs(exact)) - digits + 1)
    assert down <= exact <= up and up - down <= unit
    assert abs(nearest - exact) <= unit / 2


def _leading_position(q: Fraction) -> int:
    """floor(log10 q) for a rational q > 0, exactly."""
    k = len(str(q.numerator)) - len(str(q.denominator))
    while Fraction(10) ** k > q:
        k -= 1
    while Fraction(10) ** (k + 1) <= q:
        k += 1
    return k


def test_exact_binary_values_are_not_widened():
    assert decimal(mp.mpf("0.5"), 3, "up") == "0.5" and decimal(mp.mpf("-0.5"), 3, "down") == "-0.5"  # was 0.501
    assert decimal(mp.mpf(2) ** 200, 5) == "1.6069e+60" and decimal(mp.mpf("2.5"), 1) == "3.0"


@pytest.mark.parametrize("power", [10**600, -(10**600), 10**3999])
def test_astronomic_exponents_match_mpmath(power):
    """2^power with 8 digits: the leading digits and exponent of 10^(power·log10 2) by mpmath at 4100 digits. "down"
    printed 0.0 for e^(−5e599) and an exponent wrong after 36 digits (log10 at digits + 30 digits); nearest (mpmath's
    nstr) took 11 s at power ≈ 1e4000."""
    x = mp.ldexp(1, power)
    with mp.workdps(4100):
        z = power * mp.log10(2)
        top = int(mp.floor(z))
        lead = mp.power(10, z - top) * 10**7
    for rounding, expected in (("down", mp.floor(lead)), ("up", mp.ceil(lead)), ("nearest", mp.nint(lead))):
        text = decimal(x, 8, rounding)
        mantissa, exponent = re.fullmatch(r"(\d\.\d+)e([+-]\d+)", text).groups()
        assert int(exponent) == top and int(mantissa.replace(".", "").ljust(8, "0")) == int(expected)
