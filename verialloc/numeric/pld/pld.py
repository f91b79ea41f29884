"""PLD realizations in float64 (F7): a finite loss grid with masses plus explicit atoms at ±inf.

A `PLD` is the law of the privacy loss L under the first distribution of a pair. Its hockey-stick
functional is δ(ε) = E[(1 − e^{ε−L})_+] (F2), with the +inf atom counted in full. Every result that
came from an approximation carries its direction ("upper": dominating, "lower": dominated, "exact")
and the mass it moved because of tail truncation (`truncated`), accumulated explicitly, never as
1 − Σ(others).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...errors import InvalidParameter

_EPS_HALF = np.finfo(np.float64).eps / 2  # unit roundoff u

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
    subtracts it (see `delta_bound`); compositions combine two of them as fa + fb + fa·fb;
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
        return PLD(-self.losses[::-1], masses, inf_mass=inf, truncated=self.truncated,
                   float_error=self.float_error * scale + rounding, bound=self.bound)

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
            out[i] = float(np.sum(self.masses[start:] * -np.expm1(e - self.losses[start:]))) + self.inf_mass
        return out.reshape(eps.shape) if eps.ndim else float(out[0])

    def sum_rtol(self) -> float:
        """Relative rounding bound of one `delta` evaluation: each term m·(−expm1(ε − l)) is within 4u
        (subtraction u, amplified by at most x/(eˣ − 1) ≤ 1; expm1 2u; product u), and any summation order of the
        n + 1 non-negative terms adds ≤ γ_n (Higham 2002, eq. 4.4): γ_{n+4} ≤ 1.01·(n + 4)·u while n·u ≪ 1."""
        return 1.01 * (self.masses.size + 4) * _EPS_HALF

    def delta_bound(self, epsilon) -> np.ndarray | float:
        """δ(ε) moved by `float_error` and by the rounding of its own sum in the PLD's direction (upper: up, lower:
        down), clipped to [0, 1]."""
        sign = {"upper": 1.0, "lower": -1.0, "exact": 0.0}[self.bound]
        raw = self.delta(epsilon)
        return np.clip(raw * (1.0 + sign * self.sum_rtol()) + sign * self.float_error, 0.0, 1.0)

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
        # binary search over grid points (δ is non-increasing), then bisection inside the segment;
        # every δ is the accurate O(n) sum, so tiny targets keep their relative accuracy
        lo_i, hi_i = 0, self.losses.size - 1  # δ(l_last) = inf_mass <= delta
        while lo_i < hi_i:
            mid_i = (lo_i + hi_i) // 2
            if self.delta(self.losses[mid_i]) <= delta:
                hi_i = mid_i
            else:
                lo_i = mid_i + 1
        hi = float(self.losses[hi_i])
        lo = float(self.losses[hi_i - 1]) if hi_i > 0 else hi - 1.0
        while self.delta(lo) <= delta:  # only below the grid: δ → total mass > delta
            lo -= 2 * (hi - lo)
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

    # --- helpers ---------------------------------------------------------------------------------
    def with_bound(self, bound: str) -> "PLD":
        return replace(self, bound=bound)

    @staticmethod
    def point_mass(loss: float = 0.0) -> "PLD":
        """The PLD of identical distributions (L = 0): neutral element of composition."""
        return PLD(np.array([loss]), np.array([1.0]))
