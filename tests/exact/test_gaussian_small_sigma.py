"""#14 item 2: ε(δ) of the Gaussian composition at small σ (F13, F15). The search in ε doubled from 1 up to
ε ≈ 1/(2σ²): at σ = 1e-4000, 26 575 doublings (100 s past --budget 5), then a refusal (F13 there needs 8000
working digits). It is now solved in s = (ε − μ)σ, μ = 1/(2σ²), where δ = Φ(−s) − φ(s)·R(s + 1/σ).

References: μ + s/σ with s = Φ⁻¹(1 − δ) when 1/σ is so large that φ(s)·R(s + 1/σ) ≤ φ(s)σ is below the digits
asked; otherwise the plain F13 solved for ε by mpmath's findroot at 60 digits."""

import subprocess
import sys
import time
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms.gaussian import SHIFTED_FROM
from verialloc.mechanisms import Gaussian


def upper_quantile(delta: str) -> mp.mpf:
    """z with Φ(−z) = δ, by findroot on ln Φ(−z) (relative accuracy at any δ) at the caller's precision."""
    target = mp.log(mp.mpf(Fraction(delta).numerator) / Fraction(delta).denominator)
    return mp.findroot(lambda z: mp.log(mp.ncdf(-z)) - target, mp.sqrt(max(-2 * target, 1)))


def closed_form(sigma: Fraction, steps: int, delta: str) -> mp.mpf:
    """μ + z·√(2μ) with μ = t/(2σ²) and Φ(−z) = δ (the Mills term is below 1e-150 relative here)."""
    with mp.workdps(60):
        c2 = steps / sigma**2
        z = upper_quantile(delta)
        return mp.mpf(c2.numerator) / c2.denominator / 2 + z * mp.sqrt(mp.mpf(c2.numerator) / c2.denominator)


def plain_root(sigma: str, steps: int, delta: str) -> mp.mpf:
    """ε with ln(Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs)) = ln δ, s = σ/√t (F13), by findroot at 60 digits, bracketed
    by μ + (z − 3)/s and μ + z/s (Φ(−z) = δ; in logs, so the tolerance is relative at δ = 1e-100)."""
    with mp.workdps(60):
        s = mp.mpf(Fraction(sigma).numerator) / Fraction(sigma).denominator / mp.sqrt(steps)
        target = mp.mpf(Fraction(delta).numerator) / Fraction(delta).denominator
        f = lambda e: mp.log(mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)) - mp.log(target)  # noqa: E731
        guess = 1 / (2 * s * s) + upper_quantile(delta) / s  # δ(guess) ≤ target
        return mp.findroot(f, (guess - 3 / s, guess), solver="anderson")


@pytest.mark.parametrize(
    "sigma,steps,delta",
    [("1e-4000", 1, "1e-5"), ("1e-4000", 3, "1e-300"), ("1e-160", 1, "0.5"), ("1e-300", 2, "1e-4000")],
)
def test_tiny_sigma_matches_the_closed_form(sigma, steps, delta):
    config = Config(Gaussian(sigma), steps=steps, k=steps)
    got = api.epsilon(config, delta, digits=30, direction="remove")
    reference = closed_form(Fraction(sigma), steps, delta)
    assert mp.isfinite(reference)
    assert abs(got.upper - reference) <= mp.mpf("1e-30") * reference


@pytest.mark.parametrize(
    "sigma,steps,delta",
    [("1e-3", 1, "1e-5"), ("9e-4", 1, "0.999"), ("2e-3", 4, "1e-5"), ("0.0009", 1, "1e-100"), ("5e-4", 2, "0.3")],
)
def test_small_sigma_matches_plain_f13(sigma, steps, delta):
    """1/σ_eff from about SHIFTED_FROM: where both routes meet, the shifted one against the plain F13."""
    config = Config(Gaussian(sigma), steps=steps, k=steps)
    assert steps / Fraction(sigma) ** 2 >= SHIFTED_FROM**2
    got = api.epsilon(config, delta, digits=20, direction="remove")
    reference = plain_root(sigma, steps, delta)
    assert mp.isfinite(reference)
    assert abs(got.upper - reference) <= mp.mpf("1e-20") * reference


def test_cli_answers_sigma_1e_minus_4000_within_its_budget():
    start = time.perf_counter()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "verialloc.cli",
            "epsilon",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1e-4000",
            "--steps",
            "1",
            "--delta",
            "1e-5",
            "--budget",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert '"5.0e+7999"' in run.stdout and time.perf_counter() - start < 30


def test_refusals_abbreviate_a_long_sigma():
    """The quadrature's refusal showed the mechanism's repr: 4230 characters at σ = 1e-4000."""
    from verialloc.errors import UnsupportedRequest

    sigma = "0.003" + "0" * 600 + "1"  # above QUAD_MIN_SIGMA, unresolved (tests/exact/test_quadrature.py)
    with pytest.raises(UnsupportedRequest) as info:
        api.delta(Config(Gaussian(sigma), steps=2), 1, method="exact", digits=12, direction="remove")
    assert "did not resolve" in str(info.value) and len(str(info.value)) < 400 and "characters)" in str(info.value)
