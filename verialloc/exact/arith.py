"""Arithmetic backends shared by the exact RDP forms (F38, F40, generating function).

A backend fixes the number type: `MPArith` (mpmath mpf at the current `mp.mp.prec`), `FractionArith`
(exact rationals) and `SymbolicArith` (sympy rational functions of a moment generator). The forms use
`+`, `*`, `**` on backend values and the methods below; `dot` is the hot loop of every form.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction

import mpmath as mp
import sympy as sp
from mpmath.libmp import from_man_exp, from_rational, round_nearest

#: bits kept below the rounding position of the largest product in `MPArith.dot`
_DOT_GUARD_BITS = 64


class Arith(ABC):
    """Common interface: constants, exact rational coefficients, normal form and Σ c_k x_k y_k."""

    zero = 0
    one = 1

    @abstractmethod
    def coef(self, num: int, den: int = 1):
        """The rational num/den as a backend value."""

    def normalize(self, x):
        """A canonical (small) representation of x; the identity for numeric backends."""
        return x

    def dot(self, xs, ys, coeffs=None):
        """Σ_k c_k x_k y_k over sequences xs, ys with integer coefficients c_k (all 1 when None)."""
        if coeffs is None:
            terms = [x * y for x, y in zip(xs, ys)]
        else:
            terms = [c * x * y for c, x, y in zip(coeffs, xs, ys)]
        return self.normalize(self._sum(terms))

    def _sum(self, terms):
        return sum(terms, self.zero)


class MPArith(Arith):
    """mpmath mpf at the current precision; `dot` rounds once (exact integer accumulation)."""

    zero = mp.mpf(0)
    one = mp.mpf(1)

    def coef(self, num: int, den: int = 1) -> mp.mpf:
        return mp.mp.make_mpf(from_rational(num, den, mp.mp.prec, round_nearest))

    def dot(self, xs, ys, coeffs=None) -> mp.mpf:
        """Σ c_k x_k y_k: products kept exactly as integers, summed on a common binary grid.

        Products more than prec + 64 bits below the largest one are truncated (error below
        2^-(prec+64) of the largest product per term), then the sum is rounded once to mp.mp.prec.
        """
        prec = mp.mp.prec
        prods = []
        if coeffs is None:
            coeffs = [1] * len(xs)
        for c, x, y in zip(coeffs, xs, ys):
            sx, mx, ex, bx = x._mpf_
            sy, my, ey, by = y._mpf_
            if not (mx and my and c):
                if (not mx and ex) or (not my and ey):  # inf or nan: no exact grid exists
                    return mp.fsum(c * x * y for c, x, y in zip(coeffs, xs, ys))
                continue
            m = c * mx * my
            if sx ^ sy:
                m = -m
            prods.append((m, ex + ey, ex + ey + bx + by + c.bit_length()))
        if not prods:
            return self.zero
        cut = max(p[2] for p in prods) - prec - _DOT_GUARD_BITS - len(prods).bit_length()
        total = 0
        for m, e, top in prods:
            if e >= cut:
                total += m << (e - cut)
            elif top > cut:
                total += m >> (cut - e)
        return mp.mp.make_mpf(from_man_exp(total, cut, prec, round_nearest))


class FractionArith(Arith):
    """Exact rationals (`fractions.Fraction`)."""

    zero = Fraction(0)
    one = Fraction(1)

    def coef(self, num: int, den: int = 1) -> Fraction:
        return Fraction(num, den)


class SymbolicArith(Arith):
    """sympy expressions kept as cancelled rational functions of the moment generator."""

    zero = sp.Integer(0)
    one = sp.Integer(1)

    def coef(self, num: int, den: int = 1) -> sp.Rational:
        return sp.Rational(num, den)

    def normalize(self, x):
        return sp.cancel(x)

    def _sum(self, terms):
        return sp.Add(*terms)
