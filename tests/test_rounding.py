"""verialloc.rounding: directed rounding helpers for bound endpoints, against exact rationals / 50-digit mpmath."""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verialloc.rounding import (
    _enclose,
    exp_up,
    float_down,
    float_up,
    round_down,
    round_up,
    trivial_delta_lower,
    trivial_epsilon_lower,
)


def two_ulps_up(x: float) -> float:
    """Two float64 steps above x (tightness: a rounded-down value is within two ulps, subnormals included)."""
    return math.nextafter(math.nextafter(x, math.inf), math.inf)


rationals = st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**12)


@given(rationals)
@settings(max_examples=200)
def test_float_down_and_up_are_the_neighbouring_floats(x):
    lo, hi = float_down(x), float_up(x)
    assert Fraction(lo) <= x <= Fraction(hi)
    assert hi == lo if Fraction(lo) == x else hi == math.nextafter(lo, math.inf)


def test_float_down_and_up_edge_cases():
    assert float_down(Fraction(1, 10)) < 0.1 == float_up(Fraction(1, 10))
    assert float_down(0.1) == 0.1 == float_up(0.1)  # a float is exact already
    assert float_down(10**400) == 1.7976931348623157e308 and float_up(10**400) == math.inf
    assert float_up(Fraction(1, 10**400)) == 5e-324 and float_down(Fraction(1, 10**400)) == 0.0
    with mp.workprec(100):  # an mpf with more bits than a float
        third = mp.mpf(1) / 3
        assert float_down(third) < third < float_up(third) == math.nextafter(float_down(third), 1)


def test_round_down_and_up():
    assert round_down(1.0) < 1.0 < round_up(1.0)
    assert round_down(math.inf) == math.inf and round_up(-math.inf) == -math.inf
    x = np.array([0.0, 1.0, np.inf, -np.inf])
    assert np.all(round_down(x)[:2] < x[:2]) and np.all(round_up(x)[:2] > x[:2])
    assert np.array_equal(round_down(x)[2:], x[2:]) and np.array_equal(round_up(x)[2:], x[2:])


@given(
    st.one_of(
        st.floats(-800, 0, allow_nan=False),
        rationals.filter(lambda v: v <= 0),
        st.integers(1, 2**20).map(lambda i: -Fraction(i, 2**60)),
    )
)
@settings(max_examples=200)
def test_trivial_delta_lower_is_below_and_within_two_ulps(eps):
    value = trivial_delta_lower(eps)
    e = Fraction(eps)
    with mp.workdps(60):
        exact = -mp.expm1(mp.mpf(e.numerator) / e.denominator)
        assert mp.mpf(value) <= exact <= mp.mpf(two_ulps_up(value))


@given(
    st.one_of(
        st.floats(1e-300, 1, exclude_max=True),
        rationals.filter(lambda v: 0 < v < 1),
        st.integers(1, 2**20).map(lambda i: Fraction(i, 2**60)),
    )
)
@settings(max_examples=200)
def test_trivial_epsilon_lower_is_below_and_within_two_ulps(delta):
    value = trivial_epsilon_lower(delta)
    d = Fraction(delta)
    with mp.workdps(60):
        exact = mp.log1p(-mp.mpf(d.numerator) / d.denominator)
        assert mp.mpf(value) <= exact <= mp.mpf(two_ulps_up(value))


#: arguments of every magnitude: tiny ones (continuous and dyadic, both signs) are where mpmath's interval exp
#: returned [1, 1] (seed-243 run of #10: exp_up(2.6e-53) was 1.0 < e^x)
signed_tiny = st.builds(lambda s, e: s * 10.0**e, st.sampled_from([-1, 1]), st.floats(-320, -8))
signed_dyadic = st.builds(
    lambda s, i, k: s * Fraction(i, 2**k), st.sampled_from([-1, 1]), st.integers(1, 2**20), st.integers(30, 1100)
)


@given(st.one_of(st.floats(-3000, 700), st.floats(-1e7, 1e5), signed_tiny, signed_dyadic))
@example(-6978923.5)  # rdp's ln δ at ε = 700 of a pair with a 1e-20 mass: its Fraction rounding took 132 s
@example(2.635063912189752e-53)
@example(-2.635063912189752e-53)
@example(2.0**-30)
@example(-(2.0**-30))
@settings(max_examples=200)
def test_exp_up_is_above_and_tight(x):
    with mp.workdps(400):
        v = Fraction(x)
        exact = mp.exp(mp.mpf(v.numerator) / v.denominator)
        assert exact <= exp_up(x) <= exact * (1 + mp.mpf(2) ** -51)
    assert exp_up(-math.inf) == 0 and exp_up(0.0) == 1


@pytest.mark.parametrize("x", [66.07131430507583, -1.2123872935947937e-07, 2.0**-30, -700.25, 1e-5])
def test_interval_enclosures_contain_the_400_digit_values(x):
    """mpmath's iv.exp at 160 bits missed e^x by ~2^-170 relative at the first two points (both endpoints below
    it); the widened enclosure (_WIDEN = 2^-100) contains it."""
    v = Fraction(x)
    with mp.workdps(400):
        ex = mp.exp(mp.mpf(v.numerator) / v.denominator)
        for fn, truth in ((lambda c, a: c.exp(a), ex), (lambda c, a: 1 - c.exp(a), 1 - ex)):
            lo, hi = _enclose(fn, v)
            assert mp.mpf(lo.numerator) / lo.denominator <= truth <= mp.mpf(hi.numerator) / hi.denominator


def test_mpf_far_outside_float64_rounds_like_its_exact_value_without_building_it():
    """Hostile-user pass: analytic at σ = 1e6 spent 25 s per float_up of δ ≈ 1e-20000000 (its exact Fraction has a
    2^66000000 denominator) and overran --budget 10 by minutes. The directed roundings of such values, both signs."""
    import mpmath as mp

    from verialloc.rounding import float_down, float_up

    smallest, largest = 5e-324, 1.7976931348623157e308
    for v, down, up in [
        (mp.mpf("1e-20000000"), 0.0, smallest),
        (-mp.mpf("1e-20000000"), -smallest, -0.0),
        (mp.mpf("1e20000000"), largest, math.inf),
        (-mp.mpf("1e20000000"), -math.inf, -largest),
        (mp.mpf(2) ** -1075, 0.0, smallest),  # half the smallest subnormal: the exact path
        (mp.mpf(2) ** 1024, largest, math.inf),
    ]:
        assert (float_down(v), float_up(v)) == (down, up)


def test_analytic_at_a_huge_sigma_answers_at_once():
    from verialloc import Config, Gaussian, api

    b = api.delta(Config(Gaussian("1e6"), steps=5), 1, direction="remove", method="analytic", budget=10)
    assert b.lower == 0 and 0 < b.upper < 1e-15
