"""Inputs whose float64 is not the number given (hostile-user pass): the float methods' ends come from the exact
value (outward), and a value the rounding moves out of its range is refused naming the parameter and its range.

References: the exact layer's bracket (lower ≤ exact.upper), the trivial bound ln(1 − δ) in 50-digit mpmath (I1).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import api
from verialloc.config import Config
from verialloc.errors import InvalidParameter
from verialloc.mechanisms import Gaussian, RandomizedResponse

#: randomized response at a tiny ε0: ε(δ) sits within ~1e-18 of ln(1 − δ), so a trivial lower end rounded to
#: nearest from float(δ) < δ lands above it
TINY_RR = Config(RandomizedResponse("1e-9"), steps=3)


def _float_below(text: str) -> bool:
    return Fraction(float(text)) < Fraction(text)


@pytest.mark.parametrize("method", ["pld", "best", "analytic", "rdp"])
@pytest.mark.parametrize("delta", ["0.999", "0.99", "0.95", "0.7", "0.3"])
def test_trivial_epsilon_lower_end_is_rounded_outward_I1(method, delta):
    assert _float_below(delta)  # float(δ) < δ: ln(1 − float(δ)) > ln(1 − δ)
    exact = api.epsilon(TINY_RR, delta, direction="remove", method="exact")
    with mp.workdps(50):
        trivial = mp.log(1 - mp.mpf(Fraction(delta).numerator) / Fraction(delta).denominator)
        assert exact.lower >= trivial - mp.mpf("1e-40")
        got = api.epsilon(TINY_RR, delta, direction="remove", method=method)
        assert got.lower <= trivial <= exact.upper
        assert got.lower <= exact.upper


@settings(max_examples=15, deadline=None)
@given(digits=st.integers(1, 10**12), scale=st.integers(13, 16))
def test_trivial_epsilon_lower_end_never_above_ln_one_minus_delta(digits, scale):
    delta = Fraction(10**scale - digits, 10**scale)  # near 1, where ln(1 − δ) is most sensitive to δ's rounding
    text = f"{delta.numerator}/{delta.denominator}"
    if float(delta) == 1.0:
        return
    with mp.workdps(50):
        trivial = mp.log(mp.mpf(delta.denominator - delta.numerator) / delta.denominator)
        for method in ("pld", "analytic"):
            got = api.epsilon(TINY_RR, text, direction="remove", method=method)
            assert got.lower <= trivial


DELTA_ONE = ["0.99999999999999999", "0.999999999999999999999", Fraction(10**30 - 1, 10**30)]


@pytest.mark.parametrize("method", ["pld", "best", "analytic", "mc", "rdp"])
@pytest.mark.parametrize("delta", DELTA_ONE)
def test_delta_rounding_to_one_is_refused_naming_delta(method, delta):
    cfg = Config(Gaussian(1), steps=2)
    with pytest.raises(InvalidParameter) as info:
        api.epsilon(cfg, delta, direction="remove", method=method)
    assert info.value.name == "delta"
    assert "(0, 1)" in info.value.valid and "delta_floor" not in str(info.value)


@pytest.mark.parametrize("delta", DELTA_ONE)
def test_delta_rounding_to_one_is_refused_by_the_accountants_themselves(delta):
    from verialloc.numeric.analytic import analytic_accountant
    from verialloc.numeric.montecarlo import mc_accountant

    cfg = Config(Gaussian(1), steps=2)
    for accountant in (analytic_accountant, mc_accountant):
        with pytest.raises(InvalidParameter) as info:
            accountant.epsilon(cfg, delta, direction="remove")
        assert info.value.name == "delta" and "(0, 1)" in info.value.valid
