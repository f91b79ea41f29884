"""Pairs on a finite output set: randomized response and arbitrary discrete pairs."""

from __future__ import annotations

import math
from abc import abstractmethod
from fractions import Fraction

import mpmath as mp
import numpy as np
import sympy as sp
from scipy.special import logsumexp

from ..errors import InvalidParameter
from ..validation import abbreviated, check_number_text, positive, real, to_fraction
from .base import FloatMoments, LossStatistics, Mechanism, SymbolicMoments, mpq
from .loss_law import U, FiniteLoss, finite_loss


class FinitePair(Mechanism):
    """A pair (P, Q) of probability vectors over outputs 0..m−1."""

    def probabilities(self) -> tuple[list, list]:
        """(P, Q) as mpf lists at the current precision."""
        p, q = self.symbolic_probabilities()
        return [self._to_mp(x) for x in p], [self._to_mp(x) for x in q]

    def exact_probabilities(self) -> tuple[list[Fraction], list[Fraction]] | None:
        """(P, Q) as Fractions when they are rational, else None."""
        return None

    @abstractmethod
    def symbolic_probabilities(self) -> tuple[tuple, tuple]:
        """(P, Q) as sympy expressions in `self.generator` (or plain Rationals)."""

    generator: sp.Symbol | None = None
    generator_value: sp.Expr | None = None

    def _to_mp(self, expr) -> mp.mpf:
        if self.generator is not None:
            expr = expr.subs(self.generator, self.generator_value)
        return (
            mp.mpf(sp.N(expr, mp.mp.dps + 5))
            if not isinstance(expr, sp.Rational)
            else mpq(Fraction(int(expr.p), int(expr.q)))
        )

    @property
    def size(self) -> int:
        return len(self.symbolic_probabilities()[0])

    @property
    def absolutely_continuous(self) -> bool:
        p, q = self.symbolic_probabilities()
        return all(not (qi == 0 and pi != 0) for pi, qi in zip(p, q))

    def privacy_loss(self, i: int) -> mp.mpf:
        """ℓ(i; P, Q) = ln P_i/Q_i, ±inf where one side vanishes (F1)."""
        p, q = self.probabilities()
        if q[i] == 0:
            return mp.inf if p[i] > 0 else mp.nan
        return mp.log(p[i] / q[i]) if p[i] > 0 else -mp.inf

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """H_{e^ε} = Σ_i [A_i − e^ε B_i]_+ with (A, B) = (P, Q) for remove, (Q, P) for add (F2)."""
        d = self._direction(direction)
        kappa = mp.exp(mpq(real("epsilon", epsilon)))
        p, q = self.probabilities()
        a, b = (p, q) if d == "remove" else (q, p)
        return mp.fsum(max(ai - kappa * bi, 0) for ai, bi in zip(a, b))

    def moment(self, p) -> mp.mpf:
        """D_p = Σ_{Q_i>0} Q_i (P_i/Q_i)^p (F5); +inf for p > 1 when P is not ≪ Q."""
        p = mp.mpf(p)
        if p > 1 and not self.absolutely_continuous:
            return mp.inf
        pv, qv = self.probabilities()
        return mp.fsum(qi * (pi / qi) ** p for pi, qi in zip(pv, qv) if qi > 0)  # 0^0 = 1: D_0 = 1

    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """Exact D_0..D_n: rationals for rational pairs, rational functions of the generator otherwise."""
        if not self.absolutely_continuous:
            raise InvalidParameter("pair", self, "Rényi moments are infinite: P has mass where Q has none")
        pv, qv = self.symbolic_probabilities()
        vals = []
        for k in range(n + 1):
            terms = [qi * (pi / qi) ** k for pi, qi in zip(pv, qv) if qi != 0]  # sympy: 0**0 == 1
            vals.append(sp.cancel(sp.Add(*terms)) if self.generator is not None else sp.Add(*terms))
        return SymbolicMoments(tuple(vals), self.generator, self.generator_value)

    def finite_pairs(self) -> tuple:
        return self, self

    def largest_loss(self, direction: str, rate: Fraction | None):
        """L* = the largest privacy loss of one step in `direction` (F1), the pair Poisson-subsampled at `rate`
        (None: not subsampled; F46): with r = P/Q per output over Q > 0, remove ln max r, add −ln min r, r replaced
        by λr + 1 − λ at rate λ. mp.inf (mass of one side where the other has none), an exact Fraction, a callable
        giving the irrational L* at the current precision (the log of a rational ≠ 1: Lindemann–Weierstrass), or
        None for a pair without rational masses."""
        exact = self.exact_probabilities()
        if exact is None:
            return None
        p, q = exact
        if direction == "remove":
            if any(x > 0 and y == 0 for x, y in zip(p, q)):
                return mp.inf
            r = max(x / y for x, y in zip(p, q) if y > 0)
            ratio = r if rate is None else rate * r + 1 - rate
        else:
            r = min(x / y for x, y in zip(p, q) if y > 0)
            s = r if rate is None else rate * r + 1 - rate
            if s == 0:
                return mp.inf
            ratio = 1 / s
        if ratio == 1:
            return Fraction(0)
        return lambda: mp.log1p(mpq(ratio - 1))

    def loss_law(self, bound: str = "upper") -> FiniteLoss:
        """The atoms ℓ_i = ln P_i/Q_i, each correctly rounded (mechanisms.loss_law.finite_loss)."""
        return finite_loss(self)

    def float_log_moments(self, j: np.ndarray) -> FloatMoments:
        """ln Σ_{Q_i>0, P_i>0} Q_i e^{j ℓ_i} (atoms with P_i = 0 only matter for j = 0, where ln D_0 = 0)."""
        p, q = self.symbolic_probabilities()
        if all(a == b for a, b in zip(p, q)):
            zeros = np.zeros(j.size)
            return FloatMoments(zeros, zeros, np.full(j.size, -np.inf), zeros, identical=True)
        with mp.workdps(40):
            p, q = self.probabilities()
            keep = [(float(mp.log(qi)), float(mp.log(pi) - mp.log(qi))) for pi, qi in zip(p, q) if pi > 0 and qi > 0]
        log_q = np.array([a for a, _ in keep])
        loss = np.array([b for _, b in keep])
        terms = log_q[:, None] + j[None, :] * loss[:, None]
        log_d = logsumexp(terms, axis=0)
        log_d[0] = 0.0
        scale = np.max(np.abs(log_q)) + j * np.max(np.abs(loss)) + math.log2(len(keep) + 1)
        return FloatMoments(np.maximum(log_d, 0.0), 16 * U * (scale + 2))

    def loss_statistics(self) -> LossStatistics:
        """From the largest finite |ℓ_i| (logs of the exact rationals: a mass of 1e-400 is no float)."""
        exact = self.exact_probabilities()
        if exact is None:
            losses = [2 * float(getattr(self, "eps0", 1))]
        else:
            losses = [abs(_log(Fraction(pi)) - _log(Fraction(qi))) for pi, qi in zip(*exact) if pi > 0 and qi > 0]
        big = max(losses) if losses else 1.0
        return LossStatistics(big, big**2, 2 * big, math.expm1(min(2 * big, 700.0)))


def _log(x: Fraction) -> float:
    return math.log(x.numerator) - math.log(x.denominator)


class RandomizedResponse(FinitePair):
    """Binary randomized response: P = (e^{ε0}, 1)/(1+e^{ε0}), Q = (1, e^{ε0})/(1+e^{ε0}) over outputs (1, 0)."""

    name = "randomized-response"
    parameter = "eps0"
    parameter_help = "randomized-response ε0 > 0"
    milder = "a smaller eps0"
    #: beyond 1e150 the pld grids overflow (ε0² > 1e308: OverflowError at 1e155) and rdp's orders lose ε0 (at 1e306
    #: its ε(1e-5) upper end was 0.0014, unsound); below, the losses ±ε0 round to 0 and the bounds stay sound
    float_limits = {"eps0": (Fraction(0), Fraction(10**150))}

    def __init__(self, eps0):
        self.eps0 = positive("eps0", eps0)
        self.generator = sp.Symbol("x", positive=True)  # x = exp(eps0)
        self.generator_value = sp.exp(sp.Rational(self.eps0))

    def params(self) -> dict[str, str]:
        return {"eps0": str(self.eps0)}

    def symbolic_probabilities(self):
        x = self.generator
        return (x / (1 + x), 1 / (1 + x)), (1 / (1 + x), x / (1 + x))

    def probabilities(self):
        x = mp.exp(mpq(self.eps0))
        return [x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]

    def largest_loss(self, direction: str, rate: Fraction | None):
        """L* with r = (e^{ε0}, e^{−ε0}): ε0 unsubsampled, else ±ln(1 + λ·(e^{±ε0} − 1)) (F46)."""
        if rate is None or rate == 1:
            return self.eps0
        e0 = self.eps0 if direction == "remove" else -self.eps0
        log_ratio = lambda: mp.log1p(mpq(rate) * mp.expm1(mpq(e0)))  # noqa: E731
        return log_ratio if direction == "remove" else (lambda: -log_ratio())

    def loss_statistics(self) -> LossStatistics:
        """Losses ±ε0: mean ε0·tanh(ε0/2) under P, variance at most ε0², span 2ε0, χ² ≤ e^{2ε0} − 1."""
        e0 = float(self.eps0)
        return LossStatistics(e0 * math.tanh(e0 / 2), e0 * e0, 2 * e0, math.expm1(min(2 * e0, 700.0)))


class DiscretePair(FinitePair):
    """Any finite pair; P may put mass where Q has none (then the remove loss has an atom at +inf).

    Entries are read exactly (floats through their shortest repr, strings like "1/3" exactly).
    A vector whose sum is within SUM_TOLERANCE of 1 (rounded decimals: 0.333333333 × 3) is divided by its sum; the
    pair then describes itself with the sum it was given (`p_given_sum`), so every report shows the change.
    """

    name = "discrete"
    parameter = "pair"
    parameter_help = '--mechanism discrete: inline JSON \'{"p": [...], "q": [...]}\' or a JSON file holding that object'
    parameter_kind = "json"

    def __init__(self, p, q):
        (self.p, p_sum), (self.q, q_sum) = _probability_vector("p", p), _probability_vector("q", q)
        self.given_sums = {name: total for name, total in (("p", p_sum), ("q", q_sum)) if total != 1}
        if len(self.p) != len(self.q):
            raise InvalidParameter("q", f"length {len(self.q)}", f"must have the same length as p ({len(self.p)})")

    @classmethod
    def from_parameter(cls, data, shown=None) -> "DiscretePair":
        """The pair from its parameter's object {"p": [...], "q": [...]} (io.config_file reads it from inline JSON
        or a file); `shown`: how errors name what was given (the text or path), default the object itself."""
        shown = abbreviated(data) if shown is None else shown
        if not isinstance(data, dict):
            raise InvalidParameter("pair", shown, PAIR_FORMAT)
        if set(data) != {"p", "q"}:
            extra, missing = sorted(map(str, set(data) - {"p", "q"})), sorted({"p", "q"} - set(data))
            why = "; ".join(
                part
                for part in (
                    extra and "unknown key " + ", ".join(map(repr, extra)),
                    missing and "missing " + ", ".join(map(repr, missing)),
                )
                if part
            )
            raise InvalidParameter("pair", shown, f"{PAIR_FORMAT} ({abbreviated(why, 120)})")
        return cls(data["p"], data["q"])

    def params(self) -> dict[str, str]:
        out = {"p": "[" + ", ".join(map(str, self.p)) + "]", "q": "[" + ", ".join(map(str, self.q)) + "]"}
        out.update({f"{name}_given_sum": str(total) for name, total in self.given_sums.items()})
        return out

    def exact_probabilities(self):
        return list(self.p), list(self.q)

    def symbolic_probabilities(self):
        return tuple(sp.Rational(x) for x in self.p), tuple(sp.Rational(x) for x in self.q)

    def probabilities(self):
        return [mpq(x) for x in self.p], [mpq(x) for x in self.q]


#: largest number of atoms of a pair (each a list entry of p and q)
MAX_PAIR_ATOMS = 100_000
PAIR_FORMAT = 'must be a JSON object {"p": [...], "q": [...]} of probability vectors'


#: largest |sum − 1| of a probability vector that is renormalized (DiscretePair) rather than refused
SUM_TOLERANCE = Fraction(1, 10**9)


def _probability_vector(name: str, values) -> tuple[tuple[Fraction, ...], Fraction]:
    """The vector divided by its sum, and the sum it was given."""
    rule = "must be a non-empty list of probabilities >= 0 summing to 1"
    if not isinstance(values, (list, tuple)) or not values:
        raise InvalidParameter(name, abbreviated(values), rule)
    if len(values) > MAX_PAIR_ATOMS:
        raise InvalidParameter(name, f"length {len(values)}", f"must have at most {MAX_PAIR_ATOMS} atoms")
    vec = []
    for i, v in enumerate(values):
        if v is None or isinstance(v, (list, tuple, dict)):
            raise InvalidParameter(
                f"{name}[{i}]", abbreviated(v), "must be a probability (a number or a decimal/p/q string)"
            )
        check_number_text(f"{name}[{i}]", v)
        x = to_fraction(f"{name}[{i}]", v)
        if x < 0:
            raise InvalidParameter(f"{name}[{i}]", v, "must be >= 0")
        vec.append(x)
    total = sum(vec)
    if abs(total - 1) > SUM_TOLERANCE:
        raise InvalidParameter(name, "sum " + mp.nstr(mpq(total), 10), rule + f" (within {float(SUM_TOLERANCE):g})")
    return tuple(x / total for x in vec), total
