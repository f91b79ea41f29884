"""Laplace mechanism with sensitivity 1: P = Lap(1, b), Q = Lap(0, b)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp
from scipy.special import logsumexp

from ..validation import positive, real
from .base import ContinuousMechanism, FloatMoments, LossStatistics, SymbolicMoments, mpq
from .loss_law import U, LossLaw


class Laplace(ContinuousMechanism):
    """Dominating pair of the Laplace mechanism with scale b (privacy loss in [−1/b, 1/b])."""

    name = "laplace"
    parameter = "scale"
    parameter_help = "Laplace scale b > 0 (sensitivity 1)"
    milder = "a larger scale"
    #: losses ±1/b: below b = 1e-150 the pld grids overflow ((1/b)² > 1e308: OverflowError at 1e-155); b as a float64
    #: up to 1e308 (1e400 overflowed float())
    float_limits = {"scale": (Fraction(1, 10**150), Fraction(10**308))}
    #: at t = 2 every δ(1) and ε(1e-5) probed at b = 1e-4 and below was unresolved (b = 1e-3 resolved; at 1e-50 the
    #: ε search found no decay)
    quadrature_limits = {"scale": Fraction(1, 1000)}
    #: below the range the exact quadrature does not resolve it either: the advice is the monotone bound instead of
    #: a circular "use --method exact"
    float_advice = {
        ("scale", "below"): "a smaller scale only adds privacy loss, so the answer at --scale 1e-150 bounds delta "
        "from below and epsilon from below (delta <= 1)"
    }

    def __init__(self, scale):
        self.scale = positive("scale", scale)

    def params(self) -> dict[str, str]:
        return {"scale": str(self.scale)}

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Exact profile (symmetric in direction): 1 − e^{(ε − 1/b)/2} on [−1/b, 1/b], 0 above, 1 − e^ε below."""
        self._direction(direction)
        x = real("epsilon", epsilon)
        e, eps0 = mpq(x), 1 / mpq(self.scale)
        # the kinks ±1/b are decided exactly for a rational ε (ε = 1/b gives δ = 0, not the rounding of 1/b)
        top = x >= 1 / self.scale if isinstance(x, Fraction) else e >= eps0
        bottom = x < -1 / self.scale if isinstance(x, Fraction) else e < -eps0
        if top:
            return mp.mpf(0)
        if bottom:
            return -mp.expm1(e)
        gap = mpq(x - 1 / self.scale) if isinstance(x, Fraction) else e - eps0  # exact difference, then rounded
        return -mp.expm1(gap / 2)

    def moment(self, p) -> mp.mpf:
        """D_p = ½e^{−p/b} + ½e^{(p−1)/b} + e^{−p/b}(e^{(2p−1)/b} − 1)/(2(2p − 1)) (limit 1/(2b) at p = ½)."""
        p, v = mp.mpf(p), 1 / mpq(self.scale)
        inner = v / 2 if 2 * p == 1 else mp.expm1((2 * p - 1) * v) / (2 * (2 * p - 1))
        return mp.exp(-p * v) / 2 + mp.exp((p - 1) * v) / 2 + mp.exp(-p * v) * inner

    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """Laurent polynomials in v = exp(1/b) (integer p, so 2p − 1 ≠ 0)."""
        v, b = sp.Symbol("v", positive=True), sp.Symbol("b", positive=True)
        vals = tuple(
            sp.Rational(1, 2) * v ** (-p)
            + sp.Rational(1, 2) * v ** (p - 1)
            + v ** (-p) * (v ** (2 * p - 1) - 1) / (2 * (2 * p - 1))
            for p in range(n + 1)
        )
        return SymbolicMoments(tuple(sp.expand(x) for x in vals), v, sp.exp(1 / b).subs(b, sp.Rational(self.scale)))

    def q_pdf(self, x) -> mp.mpf:
        b = mpq(self.scale)
        return mp.exp(-abs(x) / b) / (2 * b)

    def privacy_loss(self, x) -> mp.mpf:
        """ℓ(x) = (|x| − |x − 1|)/b."""
        return (abs(x) - abs(x - 1)) / mpq(self.scale)

    def breakpoints(self) -> list:
        return [mp.mpf(0), mp.mpf(1)]

    def loss_scale(self) -> Fraction:
        return 1 / self.scale

    def loss_law(self, bound: str = "upper") -> "LaplaceLoss":
        return LaplaceLoss(float(self.scale))

    def float_log_moments(self, j: np.ndarray) -> FloatMoments:
        """ln of ½e^{−jv} + ½e^{(j−1)v} + e^{−jv}(e^{(2j−1)v} − 1)/(2(2j − 1)) (`moment`), j >= 1; ln D_0 = 0."""
        v = 1.0 / float(self.scale)
        jj = j[1:]
        w = (2 * jj - 1) * v
        big = np.maximum(w, 1.0)  # each branch on its own range (b = 1e300: log1p(-1) warned in the unused one)
        log_expm1 = np.where(w > 1, big + np.log1p(-np.exp(-big)), np.log(np.expm1(np.minimum(w, 1.0))))
        terms = np.stack(
            [-jj * v - math.log(2), (jj - 1) * v - math.log(2), -jj * v + log_expm1 - np.log(2 * (2 * jj - 1))]
        )
        log_d = np.concatenate([[0.0], logsumexp(terms, axis=0)])
        scale = np.concatenate([[0.0], np.max(np.abs(terms), axis=0)])
        return FloatMoments(np.maximum(log_d, 0.0), 16 * U * (scale + 2))

    def loss_statistics(self) -> LossStatistics:
        """|ℓ| ≤ ε0 = 1/b: mean and variance at most ε0 and ε0², span 2ε0, χ² ≤ e^{2ε0} − 1."""
        e0 = 1 / float(self.scale)
        return LossStatistics(e0, e0 * e0, 2 * e0, math.expm1(min(2 * e0, 700.0)))


class LaplaceLoss(LossLaw):
    """Laplace with scale b: ℓ ∈ [−1/b, 1/b], atoms at both ends, continuous in between.

    With c = (1 + yb)/2 ∈ (0, 1): Q(ℓ ≤ y) = 1 − ½e^{−c/b}, P(ℓ ≤ y) = ½e^{(c−1)/b}.
    Atoms: ℓ = −1/b with Q-mass ½, P-mass ½e^{−1/b}; ℓ = 1/b with Q-mass ½e^{−1/b}, P-mass ½.
    """

    def __init__(self, scale: float):
        self.b = scale
        self.top = 1.0 / scale

    def _c(self, y):
        return np.clip((1.0 + np.asarray(y, float) * self.b) / 2.0, 0.0, 1.0)

    def cdf_p(self, y):
        y = np.asarray(y, float)
        return np.where(y >= self.top, 1.0, np.where(y < -self.top, 0.0, 0.5 * np.exp((self._c(y) - 1.0) / self.b)))

    def sf_p(self, y):
        y = np.asarray(y, float)
        return np.where(
            y >= self.top, 0.0, np.where(y < -self.top, 1.0, -np.expm1((self._c(y) - 1.0) / self.b) / 2 + 0.5)
        )

    def cdf_q(self, y):
        y = np.asarray(y, float)
        return np.where(y >= self.top, 1.0, np.where(y < -self.top, 0.0, 1.0 - 0.5 * np.exp(-self._c(y) / self.b)))

    def sf_q(self, y):
        y = np.asarray(y, float)
        return np.where(y >= self.top, 0.0, np.where(y < -self.top, 1.0, 0.5 * np.exp(-self._c(y) / self.b)))

    def support(self):
        return -self.top, self.top

    def eval_rtol(self, y):
        """(8 + 4(|y| + 1/b))·u: each value is ½e^a or 1 − ½e^a (or its Q analogue) with |a| ≤ 1/b, and the
        roundings of a = (c − 1)/b (c = (1 + yb)/2, b from the float scale) move a by ≤ 4u(|y| + 1/b), which moves
        e^a relatively by as much (exp and expm1 within 1 ulp: 2u more); 1 − ½e^a ≥ ½ is no worse."""
        y = np.abs(np.asarray(y, float))
        return (8.0 + 4.0 * (np.where(np.isfinite(y), y, 0.0) + self.top)) * U

    def log_slope(self, y):
        """Inside (−1/b, 1/b) ln of each function has slope at most ½ (e.g. ln ½e^{y/2 − 1/(2b)}; the others are
        ¼e^{·}/(1 − ½e^{·}) with e^{·} ≤ 1); the end atoms are compared exactly."""
        return np.ones(np.shape(np.asarray(y, float)))

    def atoms(self):
        e = np.exp(-self.top)
        return np.array([-self.top, self.top]), np.array([0.5 * e, 0.5]), np.array([0.5, 0.5 * e])
