"""Decimal output keeps every requested digit and rounds brackets outward."""
import mpmath as mp

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
