"""Gaussian mechanism: P = N(1, σ²), Q = N(0, σ²) (F9, F16)."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from ..validation import positive, real
from .base import ContinuousMechanism, SymbolicMoments, mpq


class Gaussian(ContinuousMechanism):
    """Tightly dominating pair of the Gaussian mechanism with noise multiplier σ (F16)."""

    name = "gaussian"

    def __init__(self, sigma):
        self.sigma = positive("sigma", sigma)

    def params(self) -> dict[str, str]:
        return {"sigma": str(self.sigma)}

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Balle–Wang profile (F13): Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ); both directions agree."""
        self._direction(direction)
        s, e = mpq(self.sigma), mpq(real("epsilon", epsilon))
        return gaussian_delta(s, e)

    def moment(self, p) -> mp.mpf:
        """D_p = exp(p(p−1)/(2σ²)) (F14)."""
        p = mp.mpf(p)
        return mp.exp(p * (p - 1) / (2 * mpq(self.sigma) ** 2))

    def rdp(self, alpha) -> mp.mpf:
        """R_α = α/(2σ²) (F14)."""
        super().rdp(alpha)  # validates alpha
        return mp.mpf(alpha) / (2 * mpq(self.sigma) ** 2)

    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """D_p = u^{p(p−1)} with u = exp(1/(2σ²)): polynomials in u (F14)."""
        u, sigma = sp.Symbol("u", positive=True), sp.Symbol("sigma", positive=True)
        vals = tuple(u ** (p * (p - 1)) for p in range(n + 1))
        return SymbolicMoments(vals, u, sp.exp(1 / (2 * sigma**2)).subs(sigma, sp.Rational(self.sigma)))

    def q_pdf(self, x) -> mp.mpf:
        return mp.npdf(x, 0, mpq(self.sigma))

    def privacy_loss(self, x) -> mp.mpf:
        """ℓ(x) = (2x − 1)/(2σ²) (F15)."""
        return (2 * x - 1) / (2 * mpq(self.sigma) ** 2)

    def breakpoints(self) -> list:
        return []


def gaussian_delta(sigma: mp.mpf, epsilon: mp.mpf) -> mp.mpf:
    """F13 at the current precision (sigma, epsilon as mpf; epsilon may be ±inf)."""
    if epsilon == mp.inf:
        return mp.mpf(0)
    if epsilon == -mp.inf:
        return mp.mpf(1)
    a = 1 / (2 * sigma)
    if a - epsilon * sigma < NCDF_SERIES_BELOW:
        return _far_tail_delta(sigma, epsilon)
    return ncdf(a - epsilon * sigma) - mp.exp(epsilon) * ncdf(-a - epsilon * sigma)


def _far_tail_delta(sigma: mp.mpf, epsilon: mp.mpf) -> mp.mpf:
    """F13 when x = a − εσ lies in the asymptotic region (x < NCDF_SERIES_BELOW), without cancellation.

    With x' = −a − εσ = x − 2a: x'² − x² = 2ε, so e^ε φ(x') = φ(x) exactly and δ = φ(x)·(R(x) − R(x')) for the
    Mills series R(y) = Σ_k (−1)^k (2k−1)!! |y|^{−(2k+1)}. Each difference |x|^{−n} − |x'|^{−n} =
    |x|^{−n}·(−expm1(−n·log1p(2a/|x|))) is formed without subtracting close numbers (the two Φ terms agree to
    about 2 log10|x| digits, which made the plain form negative at ε = 1e300). Each series' remainder is below its
    first omitted term; the sum stops when twice that term is below mp.eps times the leading difference. x and
    x²/2 are formed with 2·log2|x| extra bits (their absolute error is what the exponential turns relative)."""
    extra = 2 * int(mp.log(abs(epsilon * sigma) + 1, 2)) + 20
    with mp.extraprec(extra):
        a = 1 / (2 * sigma)
        x = a - epsilon * sigma
        head = exp_large(-x * x / 2) / mp.sqrt(2 * mp.pi)
    ax = -x
    ratio = mp.log1p(2 * a / ax)
    inv = 1 / (ax * ax)
    lead = -mp.expm1(-ratio) / ax
    total, k, double_fact, power = lead, 0, mp.mpf(1), 1 / ax  # power = |x|^{−(2k+1)}
    while True:
        k += 1
        double_fact *= 2 * k - 1
        power *= inv
        if 2 * double_fact * power < mp.eps * lead:
            break
        total += (-1) ** k * double_fact * power * -mp.expm1(-(2 * k + 1) * ratio)
    return head * total


def exp_large(z: mp.mpf) -> mp.mpf:
    """e^z as 2^n·e^r, n = round(z/ln 2), at the current precision with the bits of n added for the reduction.

    mpmath's exp of an integer-valued argument above 600 bits of precision is a power of e by squaring with 1.45
    bits per bit of the argument's magnitude extra (11 s for z = −5e3999 at 45 digits; δ at σ = 1e1000, ε = 1e1000
    took 110 s); z = −x²/2 of the Mills series is such an argument (F13 far tail)."""
    magnitude = max(int(mp.mag(z)), 0)
    with mp.extraprec(magnitude + 10):
        n = int(mp.nint(z / mp.ln2))
        r = z - n * mp.ln2
    return mp.ldexp(mp.exp(r), n)


#: below this argument Φ is summed from its asymptotic series (mpmath's erfc overflows near -1e300)
NCDF_SERIES_BELOW = -mp.mpf(10) ** 10


def ncdf(x: mp.mpf) -> mp.mpf:
    """Φ(x) at the current precision for any real x, including |x| up to the mpf range (σ or ε near 1e300).

    For x < NCDF_SERIES_BELOW: Φ(x) = φ(x)/|x| · Σ_k (−1)^k (2k−1)!!/x^{2k}, an alternating series whose terms
    shrink by (2k+1)/x² < 1e-19 each (so a few hundred terms reach 4000 digits); its truncation error is below
    the first omitted term. The exponent −x²/2 is kept exact in mpf (no float64 overflow)."""
    x = mp.mpf(x)
    if x >= NCDF_SERIES_BELOW:
        return mp.ncdf(x)
    if mp.isinf(x):
        return mp.mpf(0)
    inv = 1 / (x * x)
    total, term, k, eps = mp.mpf(1), mp.mpf(1), 0, mp.eps
    while True:
        k += 1
        term = -term * (2 * k - 1) * inv
        total += term
        if abs(term) < eps:
            break
    return exp_large(-x * x / 2) / (-x * mp.sqrt(2 * mp.pi)) * total
