"""Known gap of issue #15 in the exact layer: the singular flag of the Poisson quadrature's kink at k = 0 (F46).

For two Poisson steps, remove, δ_2(ε) = E_{x~Q}[a·δ_1(κ/a)] with a = 1 − λ + λU(x) and the closed single step
δ_1(c) = λ·H_{1+(c−1)/λ}(P‖Q) (F12 (b)); the argument of H crosses 0 where a = κ/(1 − λ), a C^∞ but non-analytic
point of the integrand (H_c = 1 − c for c ≤ 0, and for the Gaussian e^{−Θ(ln² c)}-flat above). The flag sends
the pieces next to it to tanh-sinh; without it Gauss–Legendre converges slowly there, the value loses ~10 digits
and the stated error grows from the requested 10^−20 to ~10^−10: sound, but not the promised accuracy.

Reference: the same expectation written out here for the Gaussian (F13 hockey-stick, U = e^{(2x−1)/(2σ²)}, Q =
N(0, σ²)) and integrated by mpmath's tanh-sinh at 40 digits over (−∞, x*] and [x*, ∞), x* the kink.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc.exact.quadrature import poisson_delta_quadrature
from verialloc.mechanisms import Gaussian

DIGITS = 20


def reference(sigma: Fraction, lam: Fraction, eps: Fraction) -> mp.mpf:
    with mp.workdps(40):
        s, lam, kappa = (
            mp.mpf(sigma.numerator) / sigma.denominator,
            mp.mpf(lam.numerator) / lam.denominator,
            mp.exp(mp.mpf(eps.numerator) / eps.denominator),
        )

        def hockey(c):  # H_c(N(1, σ²) ‖ N(0, σ²)), F13; 1 − c for c ≤ 0
            if c <= 0:
                return 1 - c
            return mp.ncdf(1 / (2 * s) - s * mp.log(c)) - c * mp.ncdf(-1 / (2 * s) - s * mp.log(c))

        def integrand(x):
            a = 1 - lam + lam * mp.exp((2 * x - 1) / (2 * s**2))
            return mp.npdf(x, 0, s) * a * lam * hockey(1 + (kappa / a - 1) / lam)

        kink = s**2 * mp.log((kappa / (1 - lam) - (1 - lam)) / lam) + mp.mpf(1) / 2
        return mp.quad(integrand, [-mp.inf, kink, mp.inf])


@pytest.mark.parametrize(
    "sigma, lam, eps",
    [(Fraction(1, 2), Fraction(1, 10), Fraction(1, 10)), (Fraction(1, 2), Fraction(1, 2), Fraction(1))],
)
def test_poisson_two_steps_keeps_its_digits_at_the_zero_kink(sigma, lam, eps):
    """|value − reference| ≤ stated error ≤ 10^−(digits−2)·value. Checked to kill: the k = 0 flag `k == 0` →
    `k != 0` / `k == 1` in `_Poisson.delta` (stated error ~2e−10 relative, value off by ~1e−10)."""
    value, error = poisson_delta_quadrature(Gaussian(sigma), 2, lam, eps, "remove", digits=DIGITS)
    ref = reference(sigma, lam, eps)
    with mp.workdps(40):
        assert abs(value - ref) <= error, (value, ref, error)
        assert error <= mp.mpf(10) ** (2 - DIGITS) * value, error
