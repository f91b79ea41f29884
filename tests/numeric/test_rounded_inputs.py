"""Inputs whose float64 is not the number given (hostile-user pass): the float methods' ends come from the exact
value (outward), and a value the rounding moves out of its range is refused naming the parameter and its range.

References: the exact layer's bracket (lower ≤ exact.upper), the trivial bound ln(1 − δ) in 50-digit mpmath (I1).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import api
from verialloc.config import Config
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.mechanisms import Gaussian, Laplace, RandomizedResponse

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
    from verialloc.numeric.pld import pld_accountant

    cfg = Config(Gaussian(1), steps=2)
    for accountant in (analytic_accountant, mc_accountant, pld_accountant):
        with pytest.raises(InvalidParameter) as info:
            accountant.epsilon(cfg, delta, direction="remove")
        assert info.value.name == "delta" and "(0, 1)" in info.value.valid


# --- mechanism parameters beyond what float64 represents (Mechanism.float_limits) ----------------------------------

FLOAT_METHODS = ["pld", "best", "analytic", "rdp"]


@pytest.mark.parametrize("method", FLOAT_METHODS)
@pytest.mark.parametrize("eps0", ["1e155", "1e306", "1e308", "1e400"])
def test_randomized_response_eps0_beyond_the_float_range_is_refused_naming_eps0(method, eps0):
    cfg = Config(RandomizedResponse(eps0), steps=2)
    for query, value in (("delta", "1"), ("epsilon", "1e-5")):
        with pytest.raises(UnsupportedRequest) as info:
            getattr(api, query)(cfg, value, direction="remove", method=method)
        assert info.value.name == "eps0" and "1e+150" in info.value.supported


@pytest.mark.parametrize("method", ["pld", "best", "rdp"])
@pytest.mark.parametrize("eps0", ["1e-400", "1e-300", "1e-20", "1e100", "1e150"])
def test_randomized_response_eps0_within_the_float_range_is_bracketed_soundly(method, eps0):
    """Reference: the exact layer (ε(δ) of the finite pair in arbitrary precision). rdp at ε0 = 1e306 gave an upper
    end of 0.0014 for ε ≈ 1e306 before ε0 was limited."""
    cfg = Config(RandomizedResponse(eps0), steps=2)
    exact = api.epsilon(cfg, "1e-5", direction="remove", method="exact")
    got = api.epsilon(cfg, "1e-5", direction="remove", method=method)
    assert got.lower <= exact.upper and exact.lower <= got.upper


@pytest.mark.parametrize("method", FLOAT_METHODS)
@pytest.mark.parametrize("scale", ["1e-400", "1e-300", "1e-155", "1e309", "1e400"])
def test_laplace_scale_beyond_the_float_range_is_refused_naming_scale(method, scale):
    cfg = Config(Laplace(scale), steps=2)
    for query, value in (("delta", "1"), ("epsilon", "1e-5")):
        with pytest.raises(UnsupportedRequest) as info:
            getattr(api, query)(cfg, value, direction="remove", method=method)
        assert info.value.name == "scale" and "1e-150" in info.value.supported


@pytest.mark.parametrize("scale", ["1e-4", "1e-50", "1e-300", "1e-400"])
def test_exact_laplace_below_the_quadrature_range_is_refused_naming_scale(scale):
    cfg = Config(Laplace(scale), steps=2)
    for query, value in (("delta", "1"), ("epsilon", "1e-5")):
        with pytest.raises(UnsupportedRequest) as info:
            getattr(api, query)(cfg, value, direction="remove", method="exact")
        assert info.value.name == "scale" and "0.001" in info.value.supported and "decay" not in str(info.value)


@pytest.mark.parametrize("method", ["pld", "best"])
@pytest.mark.parametrize(
    "scale, eps", [("1e-150", "0"), ("1e300", "0"), ("1e300", "-1e-300"), ("1e-2", "99"), ("1e-3", "600")]
)
def test_laplace_at_the_float_range_ends_against_the_closed_form(method, scale, eps):
    """One step (allocation over t = 1 is the mechanism): δ(ε) = 1 − e^{(ε − 1/b)/2} on [−1/b, 1/b]."""
    b, e = Fraction(scale), Fraction(eps)
    with mp.workdps(60):
        closed = -mp.expm1((mp.mpf(e.numerator) / e.denominator - mp.mpf(b.denominator) / b.numerator) / 2)
        got = api.delta(Config(Laplace(scale), steps=1), eps, direction="remove", method=method)
        assert got.lower <= closed <= got.upper


@pytest.mark.parametrize("query, value", [("delta", "1"), ("epsilon", "1e-5")])
@pytest.mark.parametrize("confidence", ["0.99999999999999999", "1e-400"])
def test_mc_confidence_rounding_out_of_the_unit_interval_is_refused(query, value, confidence):
    with pytest.raises(InvalidParameter) as info:
        getattr(api, query)(Config(Gaussian(1), steps=2), value, method="mc", confidence=confidence)
    assert info.value.name == "confidence" and "(0, 1)" in info.value.valid


# --- option types (hostile-user pass): numpy integers are integers, text is not a grid step ---------------------


@pytest.mark.parametrize("alpha_max", [np.int64(64), np.int32(64), np.uint16(64), 64])
def test_rdp_alpha_max_accepts_every_integer_type(alpha_max):
    """Reference: the Gaussian's RDP at integer orders is exact, α/(2σ²) per composed step (F13; allocation's
    remove-direction RDP is at most the t-fold Gaussian's with k = t here: Poisson at rate 1 is the composition)."""
    cfg = Config(Gaussian(2), scheme="poisson", steps=4, rate=1)
    got = api.delta(cfg, 1, direction="remove", method="rdp", alpha_max=alpha_max)
    ref = api.delta(cfg, 1, direction="remove", method="exact")  # the composed Gaussian, N(0, 4/4 = 1): μ = 1
    assert ref.upper <= got.upper <= 1


@pytest.mark.parametrize("alpha_max", [2.5, True, np.bool_(True), "64", 1, 10**6])
def test_rdp_alpha_max_refuses_non_integers_and_out_of_range(alpha_max):
    with pytest.raises(InvalidParameter) as info:
        api.delta(Config(Gaussian(2), steps=4), 1, direction="remove", method="rdp", alpha_max=alpha_max)
    assert info.value.name == "alpha_max"


@pytest.mark.parametrize("search_tol", [1, 1.5, -0.1, "0.99999999999999999", "x"])
def test_rdp_search_tol_range_names_search_tol(search_tol):
    with pytest.raises(InvalidParameter) as info:
        api.delta(Config(Gaussian(2), steps=4), 1, direction="remove", method="rdp", search_tol=search_tol)
    assert info.value.name == "search_tol"


@pytest.mark.parametrize("knob", ["grid_step", "loss_step", "tail"])
@pytest.mark.parametrize("value", ["0.1", True, None, [0.1]])
def test_pld_settings_refuse_non_numbers_naming_the_knob(knob, value):
    from verialloc.numeric.pld.settings import Settings

    if value is None and knob == "grid_step":
        assert Settings(grid_step=None).grid_step is None  # automatic
        return
    with pytest.raises(InvalidParameter) as info:
        Settings(**{knob: value})
    assert info.value.name == knob
