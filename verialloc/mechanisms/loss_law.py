"""Laws of the privacy loss ℓ = ln P/Q under P and under Q, in float64 (F1, F6, F7): the contract every
mechanism's `loss_law` meets, and the law of a finite pair (its atoms), which finite mechanisms share.

Every law offers right-continuous CDFs and survival functions of the finite part of ℓ under both
distributions (survival functions keep relative accuracy in upper tails), its finite atoms, and the
masses at the infinite ends: P(Q = 0) (loss +inf under P) and Q(P = 0) (loss −inf under Q).
Because dP = e^ℓ dQ on the finite part, E_Q[e^ℓ; ℓ ≤ y] = P(ℓ ≤ y) — the partial first moment of the
exp-PLD that the allocation discretization needs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction

import mpmath as mp
import numpy as np

from ..errors import InvalidParameter, UnsupportedRequest
from ..rounding import rounded_sum
from .base import mpq

#: unit round-off of float64
U = np.finfo(np.float64).eps / 2
#: smallest positive float64: values in the subnormal range keep only an absolute accuracy
TINY = np.finfo(np.float64).smallest_subnormal
#: most digits for a loss ln P/Q of a non-rational pair (doubling from 40 until every loss is resolved)
MAX_LOSS_DIGITS = 2560


class LossLaw(ABC):
    """Laws of the loss under P and Q for one dominating pair.

    Accuracy contract (issue #10 item 10): every float64 value v of cdf_p, sf_p, cdf_q, sf_q at y is within
    eval_rtol(y)·v + eval_abs of the exact value for the mechanism's exact parameters. Each law states its bound
    and how it is derived (closed-form routines: their published or measured accuracy, re-measured against mpmath
    by tests/numeric/pld/test_eval_accuracy.py; sums: exact rational accumulation).
    """

    #: P(Q = 0): loss +inf under P; like q_neg_inf within 4u relative (+ eval_abs) of the exact mass
    p_inf: float = 0.0
    #: Q(P = 0): loss −inf under Q
    q_neg_inf: float = 0.0
    #: absolute part of the accuracy contract: results near the float64 underflow keep only an absolute accuracy
    eval_abs: float = 1e-320

    @abstractmethod
    def eval_rtol(self, y) -> np.ndarray:
        """Relative part of the accuracy contract at losses y (array)."""

    def finite_p(self) -> float:
        """P(ℓ < inf), within the contract: 1 − p_inf here; a law whose p_inf may round to 1 while a finite mass
        remains overrides it with a direct sum (P = (1e-20, 1 − 1e-20), Q = (1, 0): 1 − p_inf is 0, not 1e-20)."""
        return 1.0 - self.p_inf

    def finite_q(self) -> float:
        """Q(ℓ > −inf), as finite_p."""
        return 1.0 - self.q_neg_inf

    def log_slope(self, y) -> np.ndarray:
        """A bound on |d ln F/dy| for the four functions F at y (how an error in y moves them relatively); +inf
        where unbounded. Finite atoms do not count: their membership is decided by exact comparison."""
        return np.full(np.shape(np.asarray(y, float)), np.inf)

    @abstractmethod
    def cdf_p(self, y):
        """P(ℓ ≤ y) over finite ℓ."""

    @abstractmethod
    def sf_p(self, y):
        """P(y < ℓ < inf)."""

    @abstractmethod
    def cdf_q(self, y):
        """Q(−inf < ℓ ≤ y)."""

    @abstractmethod
    def sf_q(self, y):
        """Q(ℓ > y) over finite ℓ."""

    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Smallest and largest finite loss values (may be ±inf for unbounded laws)."""

    def atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Finite atoms (values, P-masses, Q-masses); empty for purely continuous laws."""
        empty = np.empty(0)
        return empty, empty, empty

    def quantile_range(self, tail: float) -> tuple[float, float]:
        """[a, b] with P(ℓ < a) ≤ tail, Q(ℓ < a) ≤ tail, P(ℓ > b) ≤ tail and Q(ℓ > b) ≤ tail (finite parts)."""
        lo, hi = self.support()
        a = (
            lo
            if np.isfinite(lo)
            else _search(lambda y: max(self.cdf_p(y), self.cdf_q(y)) - tail, -1.0, decreasing=False)
        )
        b = hi if np.isfinite(hi) else _search(lambda y: max(self.sf_p(y), self.sf_q(y)) - tail, 1.0, decreasing=True)
        return float(a), float(b)


def _search(fn, start: float, decreasing: bool) -> float:
    """A point beyond which fn ≤ 0 (fn monotone): doubling then bisection to relative 1e-12."""
    step = abs(start) or 1.0
    inner, outer = 0.0, start
    while fn(outer) > 0:
        inner, outer = outer, outer + (step if decreasing else -step)
        step *= 2
        if not np.isfinite(outer):  # a law whose tail never falls below the mass (a non-finite parameter)
            raise ValueError("the loss law's tail does not fall below the given mass at any finite loss")
    for _ in range(200):
        mid = 0.5 * (inner + outer)
        if mid in (inner, outer):
            break
        if fn(mid) > 0:
            inner = mid
        else:
            outer = mid
    return outer


class FiniteLoss(LossLaw):
    """A finite pair: atoms ℓ_i = ln P_i/Q_i, merged when equal; P-mass where Q = 0 is p_inf, Q-mass where P = 0 is q_neg_inf.

    `losses` (optional): the float64 loss of each outcome, formed in log space from the exact probabilities
    (`loss_law`, F1). Then only an infinite loss marks a zero: a mass that underflows float64 (e.g. Q = 1e-400)
    is stored as 0.0 but its atom keeps its finite loss — it is not "Q = 0" (issue #10 item 7). Without
    `losses`, they are ln p − ln q of the float masses (an underflowed mass then counts as a zero).
    """

    def __init__(self, p: np.ndarray, q: np.ndarray, losses: np.ndarray | None = None):
        p, q = np.asarray(p, float), np.asarray(q, float)
        if losses is None:
            with np.errstate(divide="ignore"):
                losses = np.where(
                    (p > 0) & (q > 0),
                    np.log(np.where(p > 0, p, 1.0)) - np.log(np.where(q > 0, q, 1.0)),
                    np.where(p > 0, np.inf, -np.inf),
                )
            losses = np.where((p == 0) & (q == 0), np.nan, losses)
        losses = np.asarray(losses, float)
        both = np.isfinite(losses)
        self.p_inf = rounded_sum(p[losses == np.inf])
        self.q_neg_inf = rounded_sum(q[losses == -np.inf])
        values = losses[both]
        order = np.argsort(values, kind="stable")
        values, pm, qm = values[order], p[both][order], q[both][order]
        uniq, index = np.unique(values, return_inverse=True)
        self._values = uniq
        self._p = np.bincount(index, weights=pm, minlength=uniq.size)
        self._q = np.bincount(index, weights=qm, minlength=uniq.size)
        self._cp, self._cq = _exact_cumsum(self._p), _exact_cumsum(self._q)
        self._finite = (rounded_sum(self._p), rounded_sum(self._q))
        self._sp = np.concatenate([_exact_cumsum(self._p[::-1])[::-1][1:], [0.0]])
        self._sq = np.concatenate([_exact_cumsum(self._q[::-1])[::-1][1:], [0.0]])
        # every float mass is within u of the exact one (or, underflowed, within TINY/2): a table value is the
        # correctly rounded sum of such masses
        self.eval_abs = LossLaw.eval_abs + uniq.size * TINY

    def eval_rtol(self, y):
        """3u: the CDF/SF tables are exact rational sums of the float masses, rounded once (`_exact_cumsum`); each
        mass is the exact probability rounded to nearest. Membership of an atom is an exact float comparison."""
        return np.full(np.shape(np.asarray(y, float)), 3 * U)

    def log_slope(self, y):
        return np.zeros(np.shape(np.asarray(y, float)))

    def _at(self, table, y, below):
        i = np.searchsorted(self._values, np.asarray(y, float), side="right") - 1
        return np.where(i >= 0, table[np.maximum(i, 0)], below)

    def cdf_p(self, y):
        return self._at(self._cp, y, 0.0)

    def cdf_q(self, y):
        return self._at(self._cq, y, 0.0)

    def sf_p(self, y):
        return self._at(self._sp, y, self._finite[0])

    def sf_q(self, y):
        return self._at(self._sq, y, self._finite[1])

    def finite_p(self) -> float:
        """The exact sum of the finite atoms' P-masses, rounded once (not 1 − p_inf)."""
        return self._finite[0]

    def finite_q(self) -> float:
        return self._finite[1]

    def support(self):
        if self._values.size == 0:
            raise InvalidParameter("pair", "P and Q with disjoint supports", "has no finite privacy loss")
        return float(self._values[0]), float(self._values[-1])

    def atoms(self):
        return self._values, self._p, self._q


def _exact_cumsum(masses: np.ndarray) -> np.ndarray:
    """Prefix sums of non-negative floats, each the correctly rounded exact sum (no accumulated rounding)."""
    total, out = Fraction(0), np.empty(masses.size)
    for i, m in enumerate(masses.tolist()):
        total += Fraction(m)
        out[i] = float(total)
    return out


def finite_loss(mech) -> FiniteLoss:
    """FiniteLoss of a finite pair with every loss ℓ_i = ln P_i/Q_i (F1) correctly rounded to float64.

    Formed in mpmath from the probabilities (its exponent range is unbounded: Q_i = 1e-400 gives the finite loss
    ln(P_i·10^400)), never float(P_i)/float(Q_i) before the log; P_i ≈ Q_i cancels, so a rational pair takes
    log1p of the exact P_i/Q_i − 1, and any other pair is recomputed at doubled precision until each loss is
    resolved (ln P − ln Q at 40 digits was 1 ulp low at ℓ = 5e-26, and 0 for randomized response at
    ε0 = 1e-300). Masses are rounded to float64 separately (a mass below the float64 range becomes 0.0 on an atom
    whose loss stays finite). Outcomes with P_i = Q_i = 0 are dropped.
    """
    exact = mech.exact_probabilities()
    with mp.workdps(40):
        p, q = mech.probabilities()
        masses = np.array([float(mp.mpf(x)) for x in p]), np.array([float(mp.mpf(x)) for x in q])
    losses = _rational_losses(*exact) if exact is not None else _converged_losses(mech)
    return FiniteLoss(*masses, np.array(losses))


def _zero_loss(a, b) -> float | None:
    """The loss when P or Q is 0 (nan for both: the outcome is dropped), else None."""
    if a == 0:
        return np.nan if b == 0 else -np.inf
    return np.inf if b == 0 else None


def _rational_losses(p: list, q: list) -> list[float]:
    out = []
    with mp.workdps(60):  # relative error ~1e-58, then one rounding to float64
        for a, b in zip(p, q):
            loss = _zero_loss(a, b)
            if loss is None:
                r = a / b  # exact: near 1, log1p of the exact r − 1; elsewhere ln r has no cancellation
                loss = float(mp.log1p(mpq(r - 1)) if abs(r - 1) < Fraction(1, 2) else mp.log(mpq(r)))
            out.append(loss)
    return out


def _converged_losses(mech) -> list[float]:
    """ln P − ln Q at doubling precision until every loss exceeds 2^100 times its error bound (then one rounding to
    float64 is correct but for a 2^-47 chance); an exact 0 from P and Q rounded alike is not resolved."""
    dps = 40
    while True:
        with mp.workdps(dps):
            p, q = mech.probabilities()
            out = []
            for a, b in zip(p, q):
                loss = _zero_loss(a, b)
                if loss is None:
                    la, lb = mp.log(a), mp.log(b)
                    bound = mp.ldexp(1 + abs(la) + abs(lb), 16 - mp.mp.prec)  # P, Q and both logs: a few ulps each
                    if abs(la - lb) < mp.ldexp(bound, 100):
                        break
                    loss = float(la - lb)
                out.append(loss)
            else:
                return out
        if dps >= MAX_LOSS_DIGITS:
            raise UnsupportedRequest(
                "pair",
                mech.name,
                f"a loss ln P/Q is not resolved at {MAX_LOSS_DIGITS} digits (P and Q agree to more digits than that)",
            )
        dps *= 2
