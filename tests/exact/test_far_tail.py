"""F13 far in the tail (|εσ| beyond 1e10): no cancellation, never negative (found by the CLI fuzz test of #11:
`delta --sigma 1 --steps 1 --epsilon 1e400` printed a negative "exact" δ).

Reference: the plain two-term F13 at enough digits to survive its cancellation and e^ε (4·log10|εσ| + 60 digits).
"""

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import Gaussian
from verialloc.mechanisms.gaussian import _far_tail_delta, ncdf


@pytest.mark.parametrize("sigma", ["1", "0.375", "7"])  # exact in binary: the same σ at both precisions
@pytest.mark.parametrize("eps", ["1e11", "3.5e13", "1e20", str(2**199)])  # exact at 40 digits too
def test_far_tail_matches_the_plain_form_at_high_precision(sigma, eps):
    with mp.workdps(int(4 * mp.log10(mp.mpf(eps) * mp.mpf(sigma) + 1)) + 60):
        s, e = mp.mpf(sigma), mp.mpf(eps)
        a = 1 / (2 * s)
        reference = ncdf(a - e * s) - mp.exp(e) * ncdf(-a - e * s)
    with mp.workdps(40):
        got = _far_tail_delta(mp.mpf(sigma), mp.mpf(eps))
        assert reference > 0
        assert abs(got - reference) <= mp.mpf("1e-35") * reference


@pytest.mark.parametrize("eps", ["1e300", "1e400", "-1e400"])
def test_exact_delta_is_a_probability_at_huge_epsilon(eps):
    got = api.delta(Config(Gaussian(1), steps=1), eps, direction="remove")
    assert 0 <= got.lower <= got.upper <= 1
    if not eps.startswith("-"):
        assert got.lower > 0  # full support: δ(ε) > 0 at every finite ε


@pytest.mark.parametrize("sigma", ["1", "0.3"])
@pytest.mark.parametrize("eps", ["12345678901.1", "3.3e15", "1e300"])  # not binary: no precision holds them exactly
def test_exact_delta_reads_a_decimal_epsilon_exactly(sigma, eps):
    """#14: ε was rounded once at digits + 15 and δ ≈ e^(−(εσ)²/2) moved by e^(−εσ²·Δε): at ε = 12345678901.1, 9 of
    12 digits; at 1e300, δ's exponent (10^580 off). Reference: the plain F13 from the exact rationals."""
    from fractions import Fraction

    s, e = Fraction(sigma), Fraction(eps)
    with mp.workdps(int(4 * mp.log10(float(e * s) + 1)) + 60):
        sm, em = mp.mpf(s.numerator) / s.denominator, mp.mpf(e.numerator) / e.denominator
        reference = ncdf(1 / (2 * sm) - em * sm) - mp.exp(em) * ncdf(-1 / (2 * sm) - em * sm)
        got = api.delta(Config(Gaussian(sigma), steps=1), eps, digits=12, direction="remove")
        assert abs(got.upper - reference) <= mp.mpf("1e-12") * reference


@pytest.mark.parametrize("z", ["-5e99", "-123456789.25", "100000", "-5e299", "7e1200"])
@pytest.mark.parametrize("bits", [100, 2000])
def test_exp_large_matches_mpmath(z, bits):
    """exp_large(z) = 2^n·e^r (n = round(z/ln 2)) against mpmath's exp at 40 more bits; mpmath takes a power of e by
    squaring for integer-valued z above 600 bits (11 s per δ at σ = 1e1000, ε = 1e1000), exp_large reduces instead."""
    from verialloc.mechanisms.gaussian import exp_large

    with mp.workprec(bits):
        x = mp.mpf(z)  # the same binary value for both
        got = exp_large(x)
    with mp.workprec(bits + 40):
        reference = mp.exp(x)
    assert abs(got - reference) <= mp.ldexp(reference, 4 - bits)
