"""Flag logic (verialloc.audit.flags): UNSAFE below the certified lower, LOOSE above upper·(1 + x%), ERROR for
exceptions/NaN/inf/negative values, OK otherwise."""
import math
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from verialloc.audit.flags import ERROR, LOOSE, OK, UNSAFE, classify, exact

finite = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("value, flag", [
    (0.29, UNSAFE), (0.3000001, OK), (0.305, OK), (0.31, OK), (0.34, OK), (0.3411, LOOSE), (5.0, LOOSE),
    (float("nan"), ERROR), (float("inf"), ERROR), (-1e-9, ERROR), ("0.3", ERROR), (None, ERROR),
])
def test_table(value, flag):
    assert classify(value, "0.3", "0.31", 10)[0] == flag


def test_loose_percent_threshold_and_infinite_upper():
    assert classify(0.32, "0.3", "0.31", 0)[0] == LOOSE
    assert classify(0.32, "0.3", "0.31", 5)[0] == OK
    assert classify(1e9, "0.3", "+inf")[0] == OK
    assert classify(0.3, "0.3", "0.31")[0] == UNSAFE  # the float 0.3 is below 3/10: comparisons are exact
    assert "below" in classify(0.29, "0.3", "0.31")[1]
    assert classify(0.0, "0", "0")[0] == OK
    assert classify(1e-300, "0", "0")[0] == LOOSE
    with pytest.raises(ValueError):
        classify(0.3, "0.3", "0.31", -1)


def test_comparison_is_exact_at_the_bracket_ends():
    """The float nearest 0.1 is above 1/10; the bracket string "0.1" is exactly 1/10."""
    assert Fraction(0.1) > Fraction(1, 10)
    assert classify(0.1, "0.1", "0.1", 0)[0] == LOOSE
    assert classify(math.nextafter(0.1, 0), "0.1", "0.2")[0] == UNSAFE
    assert exact("+inf") == math.inf and exact("1e-15") == Fraction(1, 10**15)


@given(finite, finite, finite, st.floats(min_value=0, max_value=100))
def test_flag_partition(a, b, v, pct):
    lo, hi = sorted((a, b))
    flag, reason = classify(v, lo, hi, pct)
    if v < lo:
        assert flag == UNSAFE
    elif v > hi * (1 + pct / 100) * (1 + 1e-12):
        assert flag == LOOSE and "above" in reason
    elif v < hi * (1 + pct / 100) * (1 - 1e-12):
        assert flag == OK
    elif lo <= v <= hi:
        assert flag == OK and reason == ""
