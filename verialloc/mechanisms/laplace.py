"""Laplace mechanism with sensitivity 1: P = Lap(1, b), Q = Lap(0, b)."""
from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import sympy as sp

from ..validation import positive, real
from .base import ContinuousMechanism, SymbolicMoments, mpq


class Laplace(ContinuousMechanism):
    """Dominating pair of the Laplace mechanism with scale b (privacy loss in [−1/b, 1/b])."""

    name = "laplace"

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
            sp.Rational(1, 2) * v ** (-p) + sp.Rational(1, 2) * v ** (p - 1)
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
