"""rounded_sum equals math.fsum (the correctly rounded sum) on every float64 array: wide exponent ranges, subnormals,
cancellation, signs, ties (reference: math.fsum, an independent implementation)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from verialloc.rounding import rounded_sum

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(0, 400), elements=finite))
def test_equals_fsum_any_finite_values(x):
    try:
        expected = math.fsum(x.tolist())
    except OverflowError:
        return
    assert rounded_sum(x) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(64, 3000), st.integers(0, 2**32 - 1), st.floats(1, 1074))
def test_equals_fsum_masses_over_many_decades(n, seed, decades):
    rng = np.random.default_rng(seed)
    x = np.exp2(-rng.random(n) * decades) * rng.random(n)
    assert rounded_sum(x) == math.fsum(x.tolist())


def test_cancellation_subnormals_and_half_ulp_ties():
    tiny = np.full(100, 5e-324)
    assert rounded_sum(np.concatenate([[1e16], np.ones(999), [-1e16]])) == 999.0
    assert rounded_sum(tiny) == 100 * 5e-324
    ties = np.array([1.0] + [2.0**-53] * 64 + [-(2.0**-53)] * 63)  # 1 + 2^-53: a tie, rounds to even (1.0)
    assert rounded_sum(ties) == math.fsum(ties.tolist()) == 1.0
    above = np.array([1.0] + [2.0**-53] * 65 + [-(2.0**-53)] * 63)  # 1 + 2^-52 exactly
    assert rounded_sum(above) == 1.0 + 2.0**-52


def test_non_finite_follow_fsum():
    assert rounded_sum(np.r_[np.ones(100), np.inf]) == math.inf
    assert math.isnan(rounded_sum(np.r_[np.ones(100), np.nan]))
