"""PLD realizations in float64 (F7): a finite loss grid with masses plus explicit atoms at ±inf.

A `PLD` is the law of the privacy loss L under the first distribution of a pair. Its hockey-stick
functional is δ(ε) = E[(1 − e^{ε−L})_+] (F2), with the +inf atom counted in full. Every result that
came from an approximation carries its direction ("upper": dominating, "lower": dominated, "exact")
and the mass it moved because of tail truncation (`truncated`), accumulated explicitly, never as
1 − Σ(others).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ...errors import InvalidParameter
from ...rounding import float_down, float_up, round_down, round_up, rounded_sum
from .grid_delta import GridDelta, grid_delta

_EPS_HALF = np.finfo(np.float64).eps / 2  # unit roundoff u
#: smallest positive float64: a term of the sum below it may have underflowed
TINY = float(np.finfo(np.float64).smallest_subnormal)
#: retries of a certified ε search with a tighter target when the verification fails
RETRIES = 4

DIRECTIONS = ("upper", "lower", "exact")
#: slack allowed in invariant checks (float64 sums of up to ~1e7 terms)
MASS_TOL = 1e-9


@dataclass(frozen=True)
class PLD:
    """Discrete privacy-loss variable: `losses` (strictly increasing, finite) with `masses`, plus atoms.

    inf_mass: mass at +inf (e.g. P-mass where Q vanishes, or tail truncated upward);
    neg_inf_mass: mass at −inf (a realization has none);
    truncated: part of the mass that truncation moved (upper: into inf_mass; lower: dropped);
    float_error: an ℓ1 bound on how far the masses (and atoms) may be off because of float64 round-off,
    hence also a bound on the error of any δ(ε) computed from them; an "upper" δ adds it, a "lower" δ
    subtracts it (`delta_bound`, `epsilon_bound`: the certified evaluations); compositions combine two of them
    as fa + fb + fa·fb;
    bound: "upper" (dominates the true PLD), "lower" (is dominated) or "exact".
    """

    losses: np.ndarray
    masses: np.ndarray
    inf_mass: float = 0.0
    neg_inf_mass: float = 0.0
    truncated: float = 0.0
    float_error: float = 0.0
    bound: str = "exact"

    def __post_init__(self):
        losses = np.ascontiguousarray(self.losses, dtype=np.float64)
        masses = np.ascontiguousarray(self.masses, dtype=np.float64)
        object.__setattr__(self, "losses", losses)
        object.__setattr__(self, "masses", masses)
        if losses.ndim != 1 or losses.shape != masses.shape:
            raise InvalidParameter("masses", f"shape {masses.shape}", f"must match losses {losses.shape} (1-D)")
        if not (np.all(np.isfinite(losses)) and np.all(np.isfinite(masses))):
            raise InvalidParameter("losses", "non-finite", "grid values and masses must be finite (use the ±inf atoms)")
        if losses.size > 1 and not np.all(np.diff(losses) > 0):
            raise InvalidParameter("losses", "unsorted", "must be strictly increasing")
        if np.any(masses < 0) or self.inf_mass < 0 or self.neg_inf_mass < 0:
            raise InvalidParameter("masses", "negative", "must be >= 0")
        if self.bound not in DIRECTIONS:
            raise InvalidParameter("bound", self.bound, "must be one of " + "|".join(DIRECTIONS))

    @cached_property
    def exact_total(self) -> float:
        """Σ masses correctly rounded (rounded_sum = math.fsum; np.sum drifts by n·u), computed once per PLD."""
        return rounded_sum(self.masses)

    # --- invariants (F7, I14) -------------------------------------------------------------------
    @property
    def total_mass(self) -> float:
        return float(np.sum(self.masses)) + self.inf_mass + self.neg_inf_mass

    def exp_neg_mean(self) -> float:
        """E[e^{−L}] over the finite part (+inf contributes 0; −inf would contribute +inf)."""
        if self.neg_inf_mass > 0:
            return float("inf")
        return float(np.sum(self.masses * np.exp(-self.losses)))

    def validate_realization(self) -> "PLD":
        """Check the PLD-realization invariants (F7): no −inf mass, E[e^{−L}] ≤ 1, total mass ≤ 1.

        A "lower" PLD only needs to be stochastically dominated: rounding down may push E[e^{−L}] above 1,
        so for it only the mass conditions are checked.
        """
        if self.neg_inf_mass > 0:
            raise InvalidParameter("neg_inf_mass", self.neg_inf_mass, "a PLD realization has no mass at -inf (F7)")
        if self.bound != "lower" and self.exp_neg_mean() > 1 + MASS_TOL:
            raise InvalidParameter("E[exp(-L)]", self.exp_neg_mean(), "must be <= 1 for a PLD realization (F7)")
        if self.total_mass > 1 + MASS_TOL:
            raise InvalidParameter("total mass", self.total_mass, "must be <= 1")
        if self.bound == "upper" and self.total_mass < 1 - MASS_TOL:
            raise InvalidParameter("total mass", self.total_mass, "an upper (dominating) PLD must keep all mass")
        return self

    # --- dual (F7, Alg. 7) ------------------------------------------------------------------------
    def dual(self) -> "PLD":
        """D(L): f(l) = f_L(−l) e^{l}; f(+inf) = 1 − E[e^{−L}]; f(−inf) = 0 (F7, Alg. 7)."""
        if self.neg_inf_mass > 0:
            raise InvalidParameter("neg_inf_mass", self.neg_inf_mass, "the dual needs a realization (no -inf mass)")
        weights = np.exp(-self.losses)
        masses = (self.masses * weights)[::-1]
        inf = max(0.0, 1.0 - float(np.sum(masses))) if self.bound != "lower" else 0.0
        # a mass error of at most `float_error` (in L1) moves the dual's masses and its +inf atom by at most
        # max e^{−l} times as much each; the dual's own rounding: e^{−l} (≤ 2u) and the product (u) per mass,
        # the pairwise sum behind 1 − Σ (log2 n + 1 u) for the atom
        scale = 2.0 * max(1.0, float(weights.max())) if weights.size else 2.0
        rounding = (np.log2(masses.size + 1) + 8) * _EPS_HALF * (float(np.sum(masses)) + 1.0)
        return PLD(
            -self.losses[::-1],
            masses,
            inf_mass=inf,
            truncated=self.truncated,
            float_error=self.float_error * scale + rounding,
            bound=self.bound,
        )

    # --- hockey-stick queries (F2) ---------------------------------------------------------------
    def delta(self, epsilon) -> np.ndarray | float:
        """δ(ε) = Σ_{l>ε} m (1 − e^{ε−l}) + inf_mass (F2); vectorized over ε, never negative."""
        eps = np.asarray(epsilon, dtype=np.float64)
        if np.any(np.isnan(eps)):
            raise InvalidParameter("epsilon", "nan", "must be a real number")
        flat = np.atleast_1d(eps)
        out = np.empty(flat.shape)
        for i, e in enumerate(flat):
            start = np.searchsorted(self.losses, e, side="right")
            # m·(−expm1(ε − l)) over l > ε, then np.sum: the terms are written into a scratch array of this thread
            # (an inversion sums ~15 times; a fresh array each time costs page faults), the same floats in the same
            # order as `self.masses[start:] * -np.expm1(e - self.losses[start:])`
            terms = _scratch(self.losses.size - start)
            np.subtract(e, self.losses[start:], out=terms)
            np.expm1(terms, out=terms)
            np.negative(terms, out=terms)
            np.multiply(self.masses[start:], terms, out=terms)
            out[i] = float(np.sum(terms)) + self.inf_mass
        return out.reshape(eps.shape) if eps.ndim else float(out[0])

    def sum_rtol(self) -> float:
        """Relative rounding bound of one `delta` evaluation: each term m·(−expm1(ε − l)) is within 4u
        (subtraction u, amplified by at most x/(eˣ − 1) ≤ 1; expm1 2u; product u), and any summation order of the
        n + 1 non-negative terms adds ≤ γ_n (Higham 2002, eq. 4.4): γ_{n+4} ≤ 1.01·(n + 4)·u while n·u ≪ 1."""
        return 1.01 * (self.masses.size + 4) * _EPS_HALF

    def evaluation_rounding(self) -> float:
        """Relative bound η on the rounding of one evaluation of δ(ε): 2·sum_rtol, rounded up. Doubled, the sum's
        bound covers the switch from δ_M (the exact hockey-stick of the stored masses) to the float sum δ̂:
        |δ̂ − δ_M| ≤ η·δ̂."""
        return round_up(2.0 * self.sum_rtol())

    def delta_bound(self, epsilon) -> np.ndarray | float:
        """Certified δ(ε) (F2) of everything this PLD bounds: an "upper" PLD's value is ≥ the δ of every pair it
        dominates, a "lower" one's ≤ that of every pair dominating it (F8); "exact": the float sum, clipped to [0, 1].

        The one evaluator of a PLD's δ (vectorized over ε): ε is read as the float64 neighbour on the safe side (δ
        is non-increasing in ε, I1: upper at a float ≤ ε, lower at one ≥ ε; a Fraction is rounded so, a float is
        itself); the float sum is widened by its rounding η (`evaluation_rounding`), by `float_error` (the ℓ1 budget
        of the masses) and by TINY for each term that may have underflowed, every operation rounded outward."""
        eps = self._safe_epsilon(epsilon)
        raw = np.asarray(self.delta(eps), dtype=float)
        # terms that may have underflowed: one per summed loss above ε (none summed: δ_M is the +inf atom exactly)
        summed = self.masses.size - np.searchsorted(self.losses, np.asarray(eps, dtype=float), side="right")
        lost = np.where(summed > 0, (summed + 1) * TINY, 0.0)
        if self.bound == "upper":
            value = _up(_up(raw * round_up(1.0 + self.evaluation_rounding())) + self.float_error)
            value = np.minimum(1.0, _up(value + lost))
        elif self.bound == "lower":
            value = round_down(round_down(raw / round_up(1.0 + self.evaluation_rounding())) - self.float_error)
            value = np.maximum(0.0, round_down(value - lost))
        else:
            value = np.clip(raw, 0.0, 1.0)
        return float(value) if value.ndim == 0 else value

    def _safe_epsilon(self, epsilon):
        """ε as float64(s) on the safe side of the PLD's bound (floats and arrays are exact already)."""
        if isinstance(epsilon, (float, np.ndarray, np.floating)):
            return epsilon
        if isinstance(epsilon, (list, tuple)):
            return np.asarray(epsilon, dtype=float)
        return float_up(epsilon) if self.bound == "lower" else float_down(epsilon)

    def epsilon_bound(self, delta) -> float:
        """Certified ε for δ = `delta` (a float or Fraction in (0, 1)): an "upper" PLD's ε_hi has δ(ε_hi) ≤ delta
        for every pair it dominates, so ε(delta) ≤ ε_hi (+inf if none is found); a "lower" one's ε_lo has
        δ(ε_lo) > delta for every pair dominating it, so ε(delta) ≥ ε_lo (−inf if none is found). `epsilon` is
        the search; its answer is then verified by `delta_bound` (F2, I1), the target tightened and retried up to
        RETRIES times. A lower ε of +inf (an atom at +inf above δ: disjoint supports) is verified the same way,
        by the certified lower δ beyond the last finite loss."""
        if self.bound == "lower":
            return self._epsilon_lower(delta)
        if self.bound == "upper":
            return self._epsilon_upper(delta)
        return self.epsilon(float(delta))

    def _epsilon_upper(self, delta) -> float:
        eta = self.evaluation_rounding()
        target = float_down(delta) / round_up(1.0 + eta)
        for _ in range(RETRIES):
            target = round_down(target)
            candidate = self.epsilon(target)
            if math.isinf(candidate):  # +inf is always sound; −inf (all mass below target) is not verified here
                return math.inf
            if self.delta_bound(candidate) <= delta:
                return candidate
            target *= 1 - 1e-9
        return math.inf

    def _epsilon_lower(self, delta) -> float:
        fe, eta = self.float_error, self.evaluation_rounding()
        target = round_up(round_up(float_up(delta) * round_up(1.0 + 2 * eta)) + 2 * eta * fe)
        for _ in range(RETRIES):
            target = round_up(target)
            if target + fe >= 1:
                return -math.inf
            candidate = self.epsilon(target)
            if candidate == math.inf:  # the +inf atom exceeds target: verified at and beyond the last finite loss
                return math.inf if self._infinite_atom_exceeds(delta) else -math.inf
            if math.isinf(candidate):  # −inf is always sound
                return -math.inf
            if self.delta_bound(candidate) > delta:
                return candidate
            target *= 1 + 1e-9
        return -math.inf

    def _infinite_atom_exceeds(self, delta) -> bool:
        """True when the certified lower δ beyond the last finite loss (there δ_M = the +inf atom, and δ is
        non-increasing, I1) still exceeds `delta`: then δ(ε) > delta for every real ε and ε(delta) = +inf."""
        beyond = float(self.losses[-1]) + 1.0 if self.masses.size else 0.0
        return math.isfinite(beyond) and self.delta_bound(beyond) > delta

    def epsilon(self, delta: float) -> float:
        """Smallest ε with δ(ε) ≤ delta (δ is non-increasing and continuous in ε, F2/I1).

        +inf when the +inf atom alone exceeds delta; −inf when delta ≥ total finite-and-inf mass.
        For an "upper" PLD the returned ε satisfies δ(ε) + float_error ≤ delta (rounded up); for "lower",
        δ(ε) − float_error ≥ delta (rounded down), so the float budget moves ε in the safe direction.
        """
        if not 0 <= delta <= 1:
            raise InvalidParameter("delta", delta, "must lie in [0, 1]")
        sign = {"upper": -1.0, "lower": 1.0, "exact": 0.0}[self.bound]
        delta = (delta + sign * self.float_error) / (1.0 - sign * self.sum_rtol())
        if delta <= 0 and self.bound == "upper":
            return float("inf")  # the float budget alone exceeds the target: no finite certified ε
        if self.inf_mass > delta:
            return float("inf")
        if self.masses.size == 0 or float(np.sum(self.masses)) + self.inf_mass <= delta:
            return float("-inf")
        # binary search over grid points (δ is non-increasing), then bisection inside the segment; every δ
        # compared is the accurate O(n) sum (so tiny targets keep their relative accuracy), read from the grid's
        # values where their bounds decide the comparison (`_at_most`)
        lo_i, hi_i = 0, self.losses.size - 1  # δ(l_last) = inf_mass <= delta
        while lo_i < hi_i:
            mid_i = (lo_i + hi_i) // 2
            if self._at_most(mid_i, delta):
                hi_i = mid_i
            else:
                lo_i = mid_i + 1
        hi = float(self.losses[hi_i])
        if hi_i > 0:  # the search found δ(l_{hi_i − 1}) > delta
            lo = float(self.losses[hi_i - 1])
        else:
            lo = hi - 1.0
            while self.delta(lo) <= delta:  # only below the grid: δ → total mass > delta
                lo -= 2 * (hi - lo)
        lo, hi = self._narrowed(lo, hi, hi_i, delta)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if self.delta(mid) > delta:
                lo = mid
            else:
                hi = mid
        # one ulp outward: the exact crossing may sit between hi's float neighbours
        return float(np.nextafter(hi, np.inf)) if self.bound != "lower" else float(np.nextafter(lo, -np.inf))

    def _at_most(self, i: int, delta: float) -> bool:
        """δ(l_i) ≤ delta as the accurate sum `delta(losses[i])` decides it: from the grid's values where their
        bounds decide (grid_delta), else by the sum."""
        decided = None if self._grid is None else self._grid.at_most(i, delta)
        return self.delta(self.losses[i]) <= delta if decided is None else decided

    @cached_property
    def _grid(self) -> GridDelta | None:
        """Bounds on the accurate sum at every grid loss (grid_delta), computed once per PLD; None off a uniform grid."""
        return grid_delta(self.losses, self.masses, self.inf_mass, self.sum_rtol())

    def _narrowed(self, lo: float, hi: float, hi_i: int, delta: float) -> tuple[float, float]:
        """[lo, hi] shrunk around the closed-form crossing before the bisection: between two grid losses the set
        {l > ε} is fixed, so δ(ε) = A − e^ε·B with A = Σ m + inf_mass and B = Σ m·e^{−l} over it (F2) and the
        crossing is ln((A − δ)/B). Only an interval whose ends the accurate sum confirms (δ(lo) > delta ≥ δ(hi))
        is used; the bisection then finds the same float crossing in ~15 instead of ~45 sums."""
        tail = slice(hi_i, None)
        a = float(np.sum(self.masses[tail])) + self.inf_mass
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            b = float(np.sum(self.masses[tail] * np.exp(-self.losses[tail])))
            ratio = (a - delta) / b if b > 0 and a > delta else 0.0
        if not 0 < ratio < math.inf:  # e^{−l} overflowed (losses below ≈ −709): no closed form, plain bisection
            return lo, hi
        guess = math.log(ratio)
        width = 1e-13 * max(1.0, abs(guess))
        left, right = max(lo, guess - width), min(hi, guess + width)
        if not left < right:
            return lo, hi
        if self.delta(left) > delta and self.delta(right) <= delta:
            return left, right
        return lo, hi

    # --- helpers ---------------------------------------------------------------------------------
    def with_bound(self, bound: str) -> "PLD":
        return replace(self, bound=bound)

    @staticmethod
    def point_mass(loss: float = 0.0) -> "PLD":
        """The PLD of identical distributions (L = 0): neutral element of composition."""
        return PLD(np.array([loss]), np.array([1.0]))


_SCRATCH = threading.local()


def _scratch(n: int) -> np.ndarray:
    """A float64 array of n entries owned by the calling thread (grown as needed, reused by every PLD)."""
    held = getattr(_SCRATCH, "array", None)
    if held is None or held.size < n:
        held = _SCRATCH.array = np.empty(max(n, 1024))
    return held[:n]


def _up(x):
    """round_up(x), but an exact 0 stays 0: a product or sum of non-negative floats is 0 only when it is exactly 0."""
    return np.where(np.asarray(x) == 0, 0.0, round_up(x))
