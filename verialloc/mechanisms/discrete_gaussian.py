"""Discrete Gaussian mechanism: P = N_Z(1, σ²), Q = N_Z(0, σ²) on the integers, N_Z(μ, σ²)(x) ∝ e^{−(x−μ)²/(2σ²)}
(Canonne, Kamath, Steinke 2020), the pair of integer-valued noise with sensitivity 1.

Its support is infinite, so the layers that enumerate or discretize use two finite pairs that bracket it, on the
kept outputs x ∈ [−T, T + 1] (T: the tail beyond them has Q- and P-mass ≤ TAIL):
* lower: each tail merged into one output (left tail, right tail) — a post-processing of (P, Q), so every
  privacy profile of it in every scheme lies below the pair's (F8);
* upper: the kept outputs as they are, plus an output holding P's tail mass where Q has none (loss +inf) and
  one holding Q's tail mass where P has none (loss −inf) — (P, Q) is a post-processing of it (send those two
  outputs to P's and Q's tails, each drawn from its own conditional law), so it dominates the pair (F8).
The truncated tail is thus carried into the bound: the exact layer answers with the bracket of the two finite
pairs' exact values (error_kind "bound"), the pld method builds its upper PLDs from the upper pair and its lower
PLDs from the lower one. The single-step profile (`delta`) and moments are exact sums (terms decay like e^{−x²/(2σ²)},
summed until below the working precision); at integer orders the moments are the continuous Gaussian's (integer
shifts), so the RDP routes serve it as they serve the Gaussian.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import numpy as np

from ..errors import UnsupportedRequest
from ..validation import positive, real
from .base import FloatMoments, LossStatistics, Mechanism, mpq
from .finite import FinitePair
from .gaussian import Z_TAIL, Gaussian

#: tail mass (under P and under Q) left outside the kept outputs [−T, T + 1]
TAIL = Fraction(1, 10**30)


#: seconds per output of the two finite brackets to build their loss laws (CPU, mpmath masses and losses)
C_LAW_OUTPUT = 3.5e-4


class DiscreteGaussian(Mechanism):
    """The discrete Gaussian pair with scale σ (integer sensitivity 1), bracketed by two finite pairs."""

    name = "discrete-gaussian"
    parameter = "sigma"
    parameter_help = "discrete-Gaussian σ > 0 (noise on the integers, sensitivity 1)"
    milder = "a larger sigma"
    closed_form_moments = True
    #: its finite brackets hold 2T + 4 ≈ 24σ + 8 outputs: up to the σ ≤ 10⁴ served at all (about 240 000 outputs,
    #: each resolved in mpmath: `law_seconds`, read by the cost model); below 1e-3 as the Gaussian's
    float_limits = {"sigma": (Fraction(1, 1000), Fraction(10**4))}

    def __init__(self, sigma):
        self.sigma = positive("sigma", sigma)
        if self.sigma > 10**4:
            raise UnsupportedRequest(
                "sigma",
                str(self.sigma),
                "the discrete Gaussian is served for sigma <= 10000 "
                "(its finite brackets would hold more than 240 000 outputs)",
            )

    def params(self) -> dict[str, str]:
        return {"sigma": str(self.sigma)}

    @property
    def top(self) -> int:
        """T: the kept outputs are −T … T + 1; beyond them each of P and Q has mass ≤ TAIL (a Gaussian tail bound
        on the discrete sums, checked exactly when the pairs are built)."""
        return _top(self.sigma)

    # --- exact profile and moments (sums over the integers at the current precision) -------------------------
    def _log_weight(self, x: int, shift: int) -> mp.mpf:
        """ln of the unnormalized mass e^{−(x − shift)²/(2σ²)}."""
        return -mpq(Fraction((x - shift) ** 2) / (2 * self.sigma**2))

    def _normalizer(self) -> mp.mpf:
        """Z = Σ_x e^{−x²/(2σ²)} = θ₃(0, e^{−1/(2σ²)}), the same for P and Q (integer shift). From σ² ≥ 1/(2π) on,
        by Poisson summation (θ₃'s modular transform) Z = σ√(2π)·θ₃(0, e^{−2π²σ²}): its nome is the smaller one
        there (both are ≤ e^{−π} at the switch), whereas e^{−1/(2σ²)} tends to 1 — mpmath's θ₃ loses about
        2·log10(σ) digits on it and refuses it above σ ≈ 2236."""
        s2 = mpq(self.sigma) ** 2
        if 2 * mp.pi * s2 >= 1:
            return mp.sqrt(2 * mp.pi * s2) * mp.jtheta(3, 0, mp.exp(-2 * mp.pi**2 * s2))
        return mp.jtheta(3, 0, mp.exp(-1 / (2 * s2)))

    def _tail_sum(self, start: int, step: int, shift: int) -> mp.mpf:
        """Σ_{x = start, start + step, …} e^{−(x − shift)²/(2σ²)}, the terms decreasing from `start` on (|x − shift|
        growing), summed until a term is below the working precision relative to the sum."""
        total, x = mp.mpf(0), start
        while True:
            term = mp.exp(self._log_weight(x, shift))
            total += term
            if term <= mp.eps * total or term == 0:
                return total
            x += step

    def mass(self, x: int, which: str) -> mp.mpf:
        """P(x) (which "p") or Q(x) ("q") at the current precision."""
        return mp.exp(self._log_weight(x, 1 if which == "p" else 0)) / self._normalizer()

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Σ_x [A(x) − e^ε B(x)]_+ (F2), (A, B) = (P, Q) remove, (Q, P) add: the loss ℓ(x) = (2x − 1)/(2σ²) of
        remove is increasing in x, so the positive part is a tail x ≥ x0 (remove) or x ≤ x0 (add), of both laws."""
        d = self._direction(direction)
        e = real("epsilon", epsilon)
        s2 = self.sigma**2
        if d == "remove":  # ℓ(x) > ε ⟺ x > σ²ε + 1/2
            x0 = math.floor(s2 * e + Fraction(1, 2)) + 1
            a, b = self._tail_from(x0, 1, shift=1), self._tail_from(x0, 1, shift=0)
        else:  # −ℓ(x) > ε ⟺ x < 1/2 − σ²ε
            x0 = math.ceil(Fraction(1, 2) - s2 * e) - 1
            a, b = self._tail_from(x0, -1, shift=0), self._tail_from(x0, -1, shift=1)
        value = (a - mp.exp(mpq(e)) * b) / self._normalizer()
        return max(value, mp.mpf(0))

    def _tail_from(self, x0: int, step: int, shift: int) -> mp.mpf:
        """Σ_{x ≥ x0} (step 1) or Σ_{x ≤ x0} (step −1) of e^{−(x − shift)²/(2σ²)}: a decreasing tail summed directly,
        or, when x0 lies beyond the mode, Z minus the opposite tail (which is then the small part)."""
        if (shift - x0) * step <= 0:  # x0 at or past the mode: the terms decrease from x0 on
            return self._tail_sum(x0, step, shift)
        return self._normalizer() - self._tail_sum(x0 - step, -step, shift)

    def moment(self, p) -> mp.mpf:
        """D_p = Σ_x Q(x)^{1−p} P(x)^p (F5): Σ_x e^{−((x − p)² + p − p²)/(2σ²)}/Z, summed both ways from x = round(p)."""
        p = mp.mpf(p)
        s2 = 2 * mpq(self.sigma) ** 2
        centre = int(mp.nint(p))

        def side(step: int) -> mp.mpf:
            total, x = mp.mpf(0), centre if step > 0 else centre - 1
            while True:
                term = mp.exp(-((x - p) ** 2) / s2)
                total += term
                if (term <= mp.eps * total and abs(x - p) > 1) or term == 0:
                    return total
                x += step

        return (side(1) + side(-1)) * mp.exp((p * p - p) / s2) / self._normalizer()

    def moments_symbolic(self, n: int):
        """D_p for integer p: the continuous Gaussian's u^{p(p−1)}, u = e^{1/(2σ²)} (F14) — Σ_x e^{−(x−p)²/(2σ²)} = Z
        for an integer p (the sum is shift-invariant), so D_p = e^{p(p−1)/(2σ²)} exactly (Canonne, Kamath, Steinke
        2020: integer shifts have the continuous Gaussian's Rényi divergences)."""
        return Gaussian(self.sigma).moments_symbolic(n)

    # --- the finite brackets ------------------------------------------------------------------------------------
    def finite_pairs(self) -> tuple:
        return _pairs(self.sigma)

    def loss_law(self, bound: str = "upper"):
        lower, upper = self.finite_pairs()
        return (upper if bound == "upper" else lower).loss_law()

    def loss_laws(self) -> dict:
        lower, upper = self.finite_pairs()
        return {"upper": upper.loss_law(), "lower": lower.loss_law()}

    def float_log_moments(self, j: np.ndarray) -> FloatMoments:
        """Integer orders j: the continuous Gaussian's closed form (see `moments_symbolic`)."""
        if not np.all(j == np.round(j)):
            raise UnsupportedRequest(
                "alpha", "non-integer", "the discrete Gaussian's closed-form moments hold at integer orders"
            )
        return Gaussian(self.sigma).float_log_moments(j)

    def law_seconds(self) -> float:
        """C_LAW_OUTPUT per output of the two brackets (σ = 100: 2372 outputs 0.5 s; σ = 1000: 23 634, 7.5 s;
        σ = 3000: 70 886, 22 s, CPU time), 0 once their laws are built."""
        lower, upper = self.finite_pairs()
        return 0.0 if lower._law is not None and upper._law is not None else C_LAW_OUTPUT * upper.size

    def plan_proxy(self):
        """The continuous Gaussian of this σ (same loss scale: ℓ(x) = (2x − 1)/(2σ²)) until the brackets are built."""
        return self if self.law_seconds() == 0 else Gaussian(self.sigma)

    def loss_statistics(self) -> LossStatistics:
        """ℓ(x) = (2x − 1)/(2σ²): as the continuous Gaussian's (mean 1/(2σ²), variance 1/σ²), its span bounded by
        the kept outputs."""
        s = float(self.sigma)
        return LossStatistics(0.5 / s**2, 1 / s**2, 2 * Z_TAIL / s + 1 / s**2, math.expm1(min(1 / s**2, 700.0)))


class BracketPair(FinitePair):
    """One finite bracket of a discrete Gaussian (DiscreteGaussian.finite_pairs): kept outputs −T … T + 1 and two
    tail outputs, as the upper (dominating) or lower (dominated) pair."""

    parameter = "sigma"

    def __init__(self, source: DiscreteGaussian, bound: str):
        self.source, self.bound = source, bound
        self.name = f"discrete-gaussian {bound} bracket"
        self._law = None

    def loss_law(self, bound: str = "upper"):
        """The finite pair's law (built once: 2T + 4 atoms, each loss resolved in mpmath)."""
        if self._law is None:
            self._law = super().loss_law()
        return self._law

    @property
    def sigma(self) -> Fraction:
        return self.source.sigma

    def params(self) -> dict[str, str]:
        return {**self.source.params(), "bracket": self.bound}

    @property
    def size(self) -> int:
        return 2 * self.source.top + 4

    @property
    def absolutely_continuous(self) -> bool:
        return self.bound == "lower"

    def symbolic_probabilities(self):
        return self.source.moments_symbolic(0)

    def probabilities(self) -> tuple[list, list]:
        """(P, Q) at the current precision: kept outputs, then the two tail outputs."""
        g, t = self.source, self.source.top
        z = g._normalizer()
        p = [mp.exp(g._log_weight(x, 1)) / z for x in range(-t, t + 2)]
        q = [mp.exp(g._log_weight(x, 0)) / z for x in range(-t, t + 2)]
        p_left, p_right = g._tail_sum(-t - 1, -1, 1) / z, g._tail_sum(t + 2, 1, 1) / z
        q_left, q_right = g._tail_sum(-t - 1, -1, 0) / z, g._tail_sum(t + 2, 1, 0) / z
        if self.bound == "lower":  # each tail merged into one output: a post-processing of (P, Q)
            return p + [p_left, p_right], q + [q_left, q_right]
        zero = mp.mpf(0)  # P's tail where Q has none, Q's tail where P has none: it dominates (P, Q)
        return p + [p_left + p_right, zero], q + [zero, q_left + q_right]

    def loss_statistics(self) -> LossStatistics:
        return self.source.loss_statistics()

    def largest_loss(self, direction: str, rate):
        """L* of one step (FinitePair.largest_loss): the loss ℓ(x) = (2x − 1)/(2σ²) increases with x, so the extreme
        ratio r = P/Q is a tail output's — the upper pair's tails have r = +inf (remove) and 0 (add), the lower
        pair's the merged right tail's (remove) and left tail's (add) ratio, irrational: a callable at the current
        precision; at rate λ, r becomes λr + 1 − λ (F46)."""
        lam = None if rate is None or rate == 1 else mpq(Fraction(rate))
        if self.bound == "upper" and (direction == "remove" or lam is None):
            return mp.inf
        if self.bound == "upper":  # add: r = 0 on Q's tail output
            return lambda: -mp.log1p(-lam)
        g, t = self.source, self.source.top
        shift_start = (t + 2, 1) if direction == "remove" else (-t - 1, -1)

        def loss() -> mp.mpf:
            r = g._tail_sum(*shift_start, 1) / g._tail_sum(*shift_start, 0)
            ratio = r if lam is None else lam * r + 1 - lam
            return mp.log(ratio) if direction == "remove" else -mp.log(ratio)

        return loss


@lru_cache(maxsize=64)
def _top(sigma: Fraction) -> int:
    """The smallest T ≥ 1 with Q(x < −T) + Q(x > T + 1) ≤ TAIL and the same for P (P's tails are Q's shifted by one:
    x < −T − 1 and x > T, so the P condition is the stronger one), checked at 40 digits on the sums themselves from a
    Gaussian-tail start σ·√(2 ln(2/TAIL)) + 2."""
    g = DiscreteGaussian.__new__(DiscreteGaussian)
    g.sigma = sigma
    t = max(1, math.ceil(float(sigma) * math.sqrt(2 * math.log(2 / float(TAIL)))) + 2)
    with mp.workdps(40):
        z = g._normalizer()
        while (g._tail_sum(-t - 1, -1, 1) + g._tail_sum(t + 2, 1, 1)) / z > mpq(TAIL):
            t += 1
    return t


@lru_cache(maxsize=64)
def _pairs(sigma: Fraction) -> tuple:
    g = DiscreteGaussian(sigma)
    return BracketPair(g, "lower"), BracketPair(g, "upper")
