"""Flag logic (verialloc.audit.flags): UNSAFE below the certified lower, LOOSE above upper·(1 + x%), ERROR for
exceptions/NaN/inf/negative values, OK otherwise."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from verialloc.audit.flags import ERROR, LOOSE, OK, OUTSIDE, UNSAFE, classify, exact

finite = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(
    "value, flag",
    [
        (0.29, UNSAFE),
        (0.3000001, OK),
        (0.305, OK),
        (0.31, OK),
        (0.34, OK),
        (0.3411, LOOSE),
        (5.0, LOOSE),
        (float("nan"), ERROR),
        (float("inf"), LOOSE),  # a true but useless upper end
        (-1e-9, ERROR),
        ("0.3", ERROR),
        (None, ERROR),
    ],
)
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


# --- issue #10 item 6: the flag follows from what the value claims ---------------------------------------------


@pytest.mark.parametrize(
    "value, claims, flag",
    [
        # a declared lower end: unsafe only above the certified upper; far below the lower is merely loose
        (0.0, "lower", LOOSE),
        (0.26, "lower", LOOSE),
        (0.28, "lower", OK),
        (0.29, "lower", OK),
        (0.305, "lower", OK),
        (0.31, "lower", OK),
        (0.3100001, "lower", UNSAFE),
        (10.46, "lower", UNSAFE),
        # a point estimate: OUTSIDE when it misses the bracket, never UNSAFE
        (0.0, "estimate", OUTSIDE),
        (0.2999999, "estimate", OUTSIDE),
        (0.305, "estimate", OK),
        (0.3100001, "estimate", OUTSIDE),
        (5.0, "estimate", OUTSIDE),
        # an upper claim keeps the old rules
        (0.29, "upper", UNSAFE),
        (0.34, "upper", OK),
        (0.3411, "upper", LOOSE),
        # invalid values are ERROR whatever the claim
        (float("nan"), "lower", ERROR),
        (-1e-9, "estimate", ERROR),
    ],
)
def test_flag_follows_the_claim(value, claims, flag):
    """Regression (issue #10 item 6): prv.lower / pld-optimistic returning 0 below the truth were flagged UNSAFE."""
    assert classify(value, "0.3", "0.31", 10, claims)[0] == flag


def test_lower_and_estimate_reasons_and_bad_claim():
    assert "declared lower end" in classify(1.0, "0.3", "0.31", claims="lower")[1]
    assert "estimate" in classify(0.0, "0.3", "0.31", claims="estimate")[1]
    assert classify(1e9, "0.3", "+inf", claims="lower")[0] == OK  # nothing is above an infinite upper
    assert classify(0.0, "-inf", "0.31", claims="lower")[0] == OK  # "-inf" parses; nothing is loose below it
    assert classify(0.0, "0.3", "0.31", 100, claims="lower")[0] == OK  # 100%: any non-negative lower end is fine
    with pytest.raises(ValueError):
        classify(0.3, "0.3", "0.31", claims="guess")


@given(finite, finite, finite, st.floats(min_value=0, max_value=100))
def test_lower_claim_partition(a, b, v, pct):
    lo, hi = sorted((a, b))
    flag, _ = classify(v, lo, hi, pct, "lower")
    assert (flag == UNSAFE) == (Fraction(v) > Fraction(hi))
    assert flag in (OK, LOOSE, UNSAFE)
    flag, _ = classify(v, lo, hi, pct, "estimate")
    assert (flag == OUTSIDE) == (not Fraction(lo) <= Fraction(v) <= Fraction(hi)) and flag in (OK, OUTSIDE)


# --- issue #16: ratios of tiny or huge bracket ends never overflow ------------------------------------------------

TINY = 5e-324  # smallest subnormal


@pytest.mark.parametrize(
    "value, lower, upper, claims, flag",
    [
        (1.0, "0", "5e-324", "upper", LOOSE),  # old code: OverflowError in (v − hi)/hi
        (1.7e308, "0", "5e-324", "upper", LOOSE),
        (1.0, "0", "5e-324", "lower", UNSAFE),
        (1.0, "0", "5e-324", "estimate", OUTSIDE),
        (1.0, "0", "0", "lower", UNSAFE),  # division by a zero end
        (0.0, "5e-324", "1e-300", "upper", UNSAFE),
        (0.0, "1e300", "1.7e308", "estimate", OUTSIDE),
        (1e-300, "1.7e308", "inf", "upper", UNSAFE),
    ],
)
def test_subnormal_and_huge_ends_do_not_overflow(value, lower, upper, claims, flag):
    got, reason = classify(value, lower, upper, 10, claims)
    assert got == flag and "%" in reason


def test_issue16_subnormal_certified_upper_does_not_overflow():
    """Issue #16: a certified upper of 5e-324 made (v − hi)/hi overflow float (OverflowError); now in logs."""
    assert classify(1.0, "0", "5e-324")[0] == LOOSE
    _, reason = classify(1.0, "0", repr(TINY), 10)
    assert reason.startswith("2e+325%") and "above" in reason  # 100·(1 − 5e-324)/5e-324 (the decimal end is exact)
    assert classify(1.0, "0", "3e-324", 10)[1].startswith("3.33e+325%")


def test_infinite_loose_percent_never_loose():
    """loose_percent = inf used to raise OverflowError (Fraction(inf)); NaN is rejected like a negative."""
    assert classify(1e300, "0.3", "0.31", math.inf)[0] == OK
    assert classify(0.0, "0.3", "0.31", math.inf, "lower")[0] == OK
    with pytest.raises(ValueError):
        classify(0.3, "0.3", "0.31", math.nan)


extreme = st.one_of(st.floats(min_value=0, max_value=1.7e308, allow_nan=False), st.sampled_from([0.0, TINY, 1e-320]))


@given(
    extreme,
    extreme,
    extreme,
    st.sampled_from(["upper", "lower", "estimate"]),
    st.sampled_from([0.0, 10.0, 1e300, math.inf]),
)
def test_classify_never_raises_on_extreme_values(a, b, v, claims, pct):
    lo, hi = sorted((a, b))
    flag, reason = classify(v, repr(lo), repr(hi), pct, claims)
    assert flag in (OK, LOOSE, UNSAFE, OUTSIDE)
