"""Dominating pairs P = R(*), Q = R(⊥) (F8, F9) and the interface every layer relies on.

All mpmath-returning methods work at the *current* `mpmath.mp` precision; callers (the exact layer)
set it with `mp.workdps`. Directions (F3): "remove" is H(P‖Q), "add" is H(Q‖P).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import sympy as sp

from ..errors import InvalidParameter
from ..validation import direction as check_direction


def mpq(x: Fraction) -> mp.mpf:
    """An exact rational as an mpf at the current precision."""
    return mp.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class SymbolicMoments:
    """Moments D_0..D_n as exact rational functions of one generator symbol.

    `values[p]` is D_p; `generator` stands for `meaning` (e.g. u = exp(1/(2 sigma^2)) for the Gaussian),
    so identities between RDP forms reduce to identities between rational functions (exact).
    `generator` is None when the values are plain rationals (discrete pairs).
    """

    values: tuple
    generator: sp.Symbol | None
    meaning: sp.Expr | None


class Mechanism(ABC):
    """A dominating pair (P, Q) of a randomizer; P = R(*) (element present), Q = R(⊥)."""

    #: name used by the CLI (`--mechanism`)
    name: str

    @abstractmethod
    def params(self) -> dict[str, str]:
        """The defining parameters as exact decimal/rational strings (echoed by the CLI)."""

    @property
    def absolutely_continuous(self) -> bool:
        """True when P ≪ Q, i.e. every Rényi moment D_p (p > 1) is finite (F5)."""
        return True

    @abstractmethod
    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Exact single-step hockey-stick divergence H_{e^ε} (F2): remove H(P‖Q), add H(Q‖P)."""

    @abstractmethod
    def moment(self, p) -> mp.mpf:
        """D_p = E_Q[(P/Q)^p] (F5) for real p >= 0, at the current precision."""

    def moments(self, n: int) -> list:
        """[D_0, ..., D_n] at the current precision."""
        return [self.moment(p) for p in range(n + 1)]

    @abstractmethod
    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """[D_0, ..., D_n] exactly, as rational functions of one generator (see SymbolicMoments)."""

    def rdp(self, alpha) -> mp.mpf:
        """Single-step Rényi divergence R_α(P‖Q) = ln D_α / (α − 1) (F5), α > 1."""
        a = mp.mpf(alpha)
        if a <= 1:
            raise InvalidParameter("alpha", alpha, "must be > 1")
        if not self.absolutely_continuous:
            return mp.inf
        return mp.log(self.moment(a)) / (a - 1)

    def _direction(self, value: str) -> str:
        return check_direction(value, allow_both=False)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.params().items())))


class ContinuousMechanism(Mechanism):
    """A pair with densities on the real line; used by the small-t quadrature of the exact layer."""

    @abstractmethod
    def q_pdf(self, x) -> mp.mpf:
        """Density of Q at x."""

    @abstractmethod
    def privacy_loss(self, x) -> mp.mpf:
        """ℓ(x; P, Q) = ln P(x)/Q(x) (F1)."""

    @abstractmethod
    def breakpoints(self) -> list:
        """Points where the loss or the density of Q is not smooth (split points for quadrature)."""

    def q_interval(self) -> tuple:
        """Support of Q (for quadrature)."""
        return (-mp.inf, mp.inf)
