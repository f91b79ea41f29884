"""Dominating pairs P = R(*), Q = R(⊥) (F8, F9) and the interface every layer relies on.

A mechanism declares everything the layers need from it, so that adding one is one module plus its registration
(mechanisms.registry): how the command line and configuration files name it and its parameter; its exact profile
and moments (exact layer); its float64 loss law and log-moments (numeric layer); summary statistics of its loss
(cost model); the range of its parameter that float64 methods represent; and whether its compositions have a
closed form. All mpmath-returning methods work at the *current* `mpmath.mp` precision; callers (the exact layer)
set it with `mp.workdps`. Directions (F3): "remove" is H(P‖Q), "add" is H(Q‖P).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np
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


@dataclass(frozen=True)
class FloatMoments:
    """ln D_j (j = 0..n) in float64 with absolute error bounds on each logarithm (F5); a mechanism with a closed
    form for ln(D_j − 1) gives it too (else the rdp route derives it, numeric.rdp.log_moments); `identical`: P = Q."""

    log_d: np.ndarray
    err: np.ndarray
    log_excess: np.ndarray | None = None
    err_excess: np.ndarray | None = None
    identical: bool = False


@dataclass(frozen=True)
class LossStatistics:
    """Mean, variance and span of one step's privacy loss under P, and χ² = D_2 − 1 (F5), in float64: what the
    cost model needs to size a composed loss grid (rough, on the expensive side)."""

    mean: float
    variance: float
    span: float
    chi2: float


class Mechanism(ABC):
    """A dominating pair (P, Q) of a randomizer; P = R(*) (element present), Q = R(⊥)."""

    #: name used by the CLI (`--mechanism`) and configuration files (`mechanism = ...`)
    name: str
    #: the one parameter the CLI flag (`--<parameter>`) and configuration key give (a number parameter is also the
    #: attribute holding its exact value), and its help text
    parameter: str
    parameter_help: str
    #: "number" (read exactly from its text) or "json" (an object, inline JSON or a JSON file: io.config_file)
    parameter_kind: str = "number"
    #: other libraries' names for the parameter, accepted as command-line aliases of `--<parameter>`
    parameter_aliases: tuple[str, ...] = ()
    #: how to shorten the loss tails, named in a refusal
    milder: str = "a pair with a narrower loss range"
    #: {parameter: (lo, hi)} the float64 methods represent (outside: refused before any work, naming the range)
    float_limits: dict = {}
    #: {parameter: lo} below which the exact layer's quadrature does not resolve the pair (refused before any work)
    quadrature_limits: dict = {}
    #: whether the moments D_p have a closed form (exact RDP is then cheaper: the cost model)
    closed_form_moments: bool = False

    @classmethod
    def from_parameter(cls, value) -> "Mechanism":
        """The mechanism from its parameter's value (validated by the constructor, errors name the parameter)."""
        return cls(value)

    @abstractmethod
    def params(self) -> dict[str, str]:
        """The defining parameters as exact decimal/rational strings (echoed by the CLI)."""

    def finite_pairs(self) -> tuple | None:
        """(lower, upper): finite pairs (mechanisms.finite.FinitePair) whose profiles bracket this pair's in every
        scheme — the same pair twice for a finite pair — or None (the exact layer enumerates them)."""
        return None

    def composed(self, n: int) -> "Mechanism | None":
        """The n-fold composition of this pair as one pair with a closed form (the Gaussian's, F13), or None."""
        return None

    def composed_with(self, other: "Mechanism") -> "Mechanism | None":
        """This pair composed with `other` as one pair with a closed form (two Gaussians: μ adds, F13), or None."""
        return None

    def epsilon_direct(self, target: Fraction) -> mp.mpf | None:
        """ε(δ = target) at the current precision by a solver of the pair's own (the Gaussian's shifted F13), or None:
        the exact layer then inverts `delta`."""
        return None

    @abstractmethod
    def loss_law(self, bound: str = "upper"):
        """The float64 law of the privacy loss (mechanisms.loss_law.LossLaw) that the PLDs of `bound` ("upper",
        "lower") are built from: the pair's own law, or for a pair known only up to a bracket the bracketing pair's."""

    def loss_laws(self) -> dict:
        """{"upper": law, "lower": law}: one law (the same object) for both bounds, unless the pair is known only
        up to a bracket (then `loss_law` of each bound)."""
        law = self.loss_law()
        return {"upper": law, "lower": law}

    @abstractmethod
    def float_log_moments(self, j: np.ndarray) -> FloatMoments:
        """ln D_j for the orders j (float array 0..n) with error bounds (F5), P ≪ Q assumed (callers check)."""

    def law_seconds(self) -> float:
        """Estimated seconds to build the float loss laws (`loss_laws`) the first time, for the cost model: 0 for
        closed-form laws and once built; the discrete Gaussian's finite brackets resolve every output in mpmath."""
        return 0.0

    def plan_proxy(self) -> "Mechanism":
        """The pair whose loss laws the cost model may read to plan a grid without building this pair's (self, or
        a closed-form pair of the same loss scale while `law_seconds` > 0)."""
        return self

    @abstractmethod
    def loss_statistics(self) -> LossStatistics:
        """Float64 summary of one step's privacy loss for the cost model."""

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

    @abstractmethod
    def loss_scale(self) -> Fraction:
        """The scale of the privacy loss (1/σ², 1/b), exactly: the quadrature exponentiates losses of that size."""

    def allocation_depth(self, epsilon: mp.mpf, t: int) -> mp.mpf | None:
        """A bound on how many standard deviations into the tail δ(ε) of 1-of-t allocation lies (remove), or None
        (the cost model's estimate of the nested quadrature)."""
        return None

    def q_interval(self) -> tuple:
        """Support of Q (for quadrature)."""
        return (-mp.inf, mp.inf)
