"""Gaussian mechanism: P = N(1, σ²), Q = N(0, σ²) (F9, F16), and n composed steps of it as one pair (F13)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp
from scipy import special

from ..validation import positive, real
from .base import ContinuousMechanism, FloatMoments, LossStatistics, SymbolicMoments, mpq
from .loss_law import U, LossLaw

#: 1/σ (of the composition) from which ε(δ) is solved in the shifted variable (`Gaussian.epsilon_direct`)
SHIFTED_FROM = 1000
#: tail quantile (in standard deviations) of the loss that the cost model's span counts (tail 1e-15)
Z_TAIL = 8.5


class Gaussian(ContinuousMechanism):
    """Tightly dominating pair of the Gaussian mechanism with noise multiplier σ (F16); with `copies` = n it is the
    n-fold composition, itself the Gaussian pair of σ/√n (F13: N(√n, σ²) vs N(0, σ²) after scaling)."""

    name = "gaussian"
    parameter = "sigma"
    parameter_help = "Gaussian noise multiplier σ > 0"
    parameter_aliases = ("noise-multiplier",)  # opacus, dp_accounting's DP-SGD helpers
    milder = "a larger sigma"
    float_limits = {"sigma": (Fraction(1, 1000), Fraction(10**8))}
    #: at t = 2 every δ (ε from 0.1 to 4/(2σ²)) and ε(1e-5) probed at σ = 0.003 and below was unresolved, allocation
    #: and Poisson (some at σ = 0.005 were resolved)
    quadrature_limits = {"sigma": Fraction(1, 500)}
    closed_form_moments = True

    def __init__(self, sigma, copies=1):
        self.sigma = positive("sigma", sigma)
        self.copies = positive("copies", copies)  # a rational weight once Gaussians of other σ are folded in

    def params(self) -> dict[str, str]:
        return {"sigma": str(self.sigma), **({"copies": str(self.copies)} if self.copies != 1 else {})}

    def composed(self, n: int) -> "Gaussian":
        """n compositions of this pair: the Gaussian of σ/√(copies·n) (F13)."""
        return Gaussian(self.sigma, self.copies * n)

    def composed_with(self, other) -> "Gaussian | None":
        """This pair composed with another Gaussian: μ adds (F13, F15), so it is the Gaussian of σ with copies
        c + c'·σ²/σ'² (exact); None for another kind of pair."""
        if not isinstance(other, Gaussian):
            return None
        return Gaussian(self.sigma, self.copies + other.copies * self.sigma**2 / other.sigma**2)

    @property
    def noise_multiplier(self) -> float:
        """σ/√copies in float64 (σ itself, exactly rounded, for one step): what the Gaussian-only float theorems
        read (summed-output bound, Monte Carlo, asymptotic bound, other libraries' accountants)."""
        return float(self.sigma) if self.copies == 1 else float(self.sigma) / math.sqrt(float(self.copies))

    def _sigma(self) -> mp.mpf:
        """σ/√copies at the current precision."""
        s = mpq(self.sigma)
        return s if self.copies == 1 else s / mp.sqrt(mpq(self.copies))

    def _mu(self) -> Fraction:
        """μ = copies/(2σ²), exactly (F15)."""
        return self.copies / (2 * self.sigma**2)

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Balle–Wang profile (F13): Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ); both directions agree."""
        self._direction(direction)
        e = epsilon if isinstance(epsilon, mp.mpf) else mpq(real("epsilon", epsilon))  # an mpf of any size as it is
        return gaussian_delta(self._sigma(), e)

    def epsilon_direct(self, target: Fraction) -> mp.mpf | None:
        """ε(δ = target) at the current precision where 1/σ² ≥ SHIFTED_FROM² (F13, F15), through s = (ε − μ)/c,
        c = 1/σ, μ = c²/2:

            δ = Φ(−s) − e^ε Φ(−s − c) = Φ(−s) − φ(s)·R(s + c),   R(y) = Φ(−y)/φ(y) (Mills ratio),

        since e^ε φ(s + c) = φ(s) exactly. Both terms are of moderate size (|s| ≲ 150 for δ ≥ 1e-5000, no
        cancellation: R(s + c) ≤ 1/(s + c)), so s is bisected and ε = μ + c·s formed once; the search in ε doubled
        from 1 up to ε ≈ 1/(2σ²) (26 575 doublings at σ = 1e-4000, 100 s). None below SHIFTED_FROM: the caller
        inverts `delta` instead. The caller settles the precision (exact.accountant)."""
        c2 = 2 * self._mu()
        if c2 < SHIFTED_FROM**2:
            return None
        c = mp.sqrt(mpq(c2))
        goal = mpq(target)

        def excess(s):  # δ(μ + c·s) − δ, decreasing in s
            return mp.ncdf(-s) - mp.npdf(s) * _mills(s + c) - goal

        lo, hi = mp.mpf(-1), mp.mpf(1)
        while excess(lo) <= 0:
            lo *= 2
        while excess(hi) > 0:
            hi *= 2
        for _ in range(4 * mp.mp.prec):
            if hi - lo <= mp.eps * (1 + abs(hi)):
                break
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
        return mpq(c2) / 2 + c * hi

    def moment(self, p) -> mp.mpf:
        """D_p = exp(p(p−1)/(2σ²)) (F14)."""
        p = mp.mpf(p)
        return mp.exp(p * (p - 1) / (2 * self._sigma() ** 2))

    def rdp(self, alpha) -> mp.mpf:
        """R_α = α/(2σ²) (F14)."""
        super().rdp(alpha)  # validates alpha
        return mp.mpf(alpha) / (2 * self._sigma() ** 2)

    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """D_p = u^{p(p−1)} with u = exp(1/(2σ²)): polynomials in u (F14)."""
        u, sigma = sp.Symbol("u", positive=True), sp.Symbol("sigma", positive=True)
        vals = tuple(u ** (p * (p - 1)) for p in range(n + 1))
        value = sp.exp(sp.Rational(self.copies) / (2 * sigma**2)).subs(sigma, sp.Rational(self.sigma))
        return SymbolicMoments(vals, u, value)

    def q_pdf(self, x) -> mp.mpf:
        return mp.npdf(x, 0, self._sigma())

    def privacy_loss(self, x) -> mp.mpf:
        """ℓ(x) = (2x − 1)/(2σ²) (F15)."""
        return (2 * x - 1) / (2 * self._sigma() ** 2)

    def breakpoints(self) -> list:
        return []

    def loss_scale(self) -> Fraction:
        return self.copies / self.sigma**2

    def allocation_depth(self, epsilon: mp.mpf, t: int) -> mp.mpf:
        """σ·ln(t·e^ε) + 1/(2σ): one U = P/Q of the t steps reaching t·e^ε alone (F15)."""
        s = self._sigma()
        return s * (epsilon + mp.log(t)) + 1 / (2 * s)

    def loss_law(self, bound: str = "upper") -> "GaussianLoss":
        """ℓ ~ N(±μ, 2μ) with μ = copies/(2σ²) correctly rounded from the exact rational (F15)."""
        return GaussianLoss.from_mu(float(self._mu()))

    def float_log_moments(self, j: np.ndarray) -> FloatMoments:
        """F14: x_j = j(j−1)/(2σ²) (j(j−1) exact in float64; 2σ² has relative error <= 3u), excess ln expm1(x_j)."""
        sigma = float(self.sigma)
        x = j * (j - 1) * float(self.copies) / (2.0 * sigma * sigma)
        err = 5 * U * x + U
        excess = np.full(j.size, -np.inf)
        pos = x > 0
        xp = x[pos]
        excess[pos] = np.where(
            xp > 1, xp + np.log1p(-np.exp(-np.minimum(xp, 700.0))), np.log(np.expm1(np.minimum(xp, 1.0)))
        )
        # d ln expm1(x)/dx = 1/(1 − e^{−x}) <= 1 + 1/x: the relative error of x passes to at most (x + 1)·5u
        err_excess = np.where(pos, 5 * U * (x + 1) + 4 * U * (1 + np.abs(excess)), 0.0)
        return FloatMoments(x, err, excess, np.where(pos, err_excess, 0.0))

    def loss_statistics(self) -> LossStatistics:
        """ℓ ~ N(μ, 2μ) under P: mean μ, variance 2μ = 1/σ², span ±Z_TAIL standard deviations plus 2μ (F15)."""
        s = float(self.sigma) / math.sqrt(float(self.copies))
        return LossStatistics(0.5 / s**2, 1 / s**2, 2 * Z_TAIL / s + 1 / s**2, math.expm1(min(1 / s**2, 700.0)))


class GaussianLoss(LossLaw):
    """ℓ ~ N(μ, 2μ) under P and N(−μ, 2μ) under Q, μ = 1/(2σ²) (F15)."""

    #: ndtr flushes to 0 below z ≈ −37.677, where the exact Φ is still up to 5.9e-311
    eval_abs = 1e-310

    def __init__(self, sigma: float):
        self._set(1.0 / (2.0 * sigma * sigma))

    @classmethod
    def from_mu(cls, mu: float) -> "GaussianLoss":
        """The law of μ directly (n Gaussian steps of σ composed are one of μ = n/(2σ²), F13)."""
        law = cls.__new__(cls)
        law._set(mu)
        return law

    def _set(self, mu: float) -> None:
        self.mu = mu
        self.scale = np.sqrt(2.0 * mu)

    def cdf_p(self, y):
        return special.ndtr((np.asarray(y, float) - self.mu) / self.scale)

    def sf_p(self, y):
        return special.ndtr((self.mu - np.asarray(y, float)) / self.scale)

    def cdf_q(self, y):
        return special.ndtr((np.asarray(y, float) + self.mu) / self.scale)

    def sf_q(self, y):
        return special.ndtr((-self.mu - np.asarray(y, float)) / self.scale)

    def support(self):
        return -np.inf, np.inf

    def _z(self, y) -> np.ndarray:
        y = np.asarray(y, float)
        with np.errstate(invalid="ignore"):
            z = np.maximum(np.abs(y - self.mu), np.abs(y + self.mu)) / self.scale
        return np.where(np.isfinite(z), z, 0.0)

    def eval_rtol(self, y):
        """16·(1 + z²)·u, z the larger standardized argument (y ∓ μ)/√(2μ).

        scipy's ndtr (Cephes erfc/erf; its documentation reports peak relative errors 5.7e-14 for erfc on
        [0, 26.6]) loses relative accuracy like z²·u in the tails (the rounding of the exponent −z²/2): measured
        ≤ 4.1·(1 + z²)·u over 6·10⁴ points in [−37.5, 8.3] (the former flat 1e-13 assumption fails from z ≈ 26,
        2.4e-13 at z = −36.9). The argument's own roundings and those of μ, √(2μ) from the float σ move z by
        ≤ 6u|z|, i.e. Φ by ≤ 6(|z| + 1)|z|·u relatively (Mills ratio); 16 covers the sum with a factor ~1.5."""
        z = self._z(y)
        return 16.0 * (1.0 + z * z) * U

    def log_slope(self, y):
        """|d ln Φ(z)/dz| ≤ |z| + 2 for both tails (Mills ratio), over dz/dy = 1/√(2μ)."""
        return (self._z(y) + 2.0) / self.scale


def _mills(y: mp.mpf) -> mp.mpf:
    """R(y) = Φ(−y)/φ(y): Σ_k (−1)^k (2k−1)!!/y^(2k+1) when y² > 5(dps + 10), else directly. The series envelops R
    (the error is below the first omitted term) and its smallest term, about e^(−y²/2), is then below the working
    precision, so the sum stops while the terms still shrink; directly, e^(y²/2) of y = 1e4000 took the time."""
    if y * y <= 5 * (mp.mp.dps + 10):
        return mp.ncdf(-y) / mp.npdf(y)
    inv, term, total, k = 1 / (y * y), 1 / y, 1 / y, 0
    while abs(term) > mp.eps * total:
        k += 1
        term *= -(2 * k - 1) * inv
        total += term
    return total


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
NCDF_SERIES_BELOW = -(mp.mpf(10) ** 10)


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
