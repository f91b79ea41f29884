"""Loss laws and PLDs on the uniform grid {k·step} (F6, F10, F49, F53 Alg. 6 with E15, I21).

The variable is X = ℓ under P ("remove", F6) or X = −ℓ under Q ("add", = L_{Q,P}). Grid point k is the float
k·step, so PLDs built with the same step compose without re-rounding. Directions (F10, F49):
"upper" rounds every value up to the next grid point and moves the finite tail above the top point to +inf
(the result stochastically dominates X and keeps all its mass); "lower" rounds down and drops the finite tail
below the bottom point (it is stochastically dominated, a sub-probability). Moved tail mass is summed
directly into `truncated`, never as 1 − Σ(others). The law's CDF values are float64 (relative error ~1e-15,
not tracked); a lower PLD may have E[e^{−L}] up to e^{step} > 1 (rounding down), so it is not a realization.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InvalidParameter, UnsupportedRequest
from ..validation import direction as check_direction
from .loss_law import LossLaw
from .pld import PLD

#: Largest grid a discretization or regrid may produce.
MAX_GRID = 50_000_000
BOUNDS = ("upper", "lower")


def check_step(step) -> float:
    step = float(step)
    if not (np.isfinite(step) and step > 0):
        raise InvalidParameter("step", step, "must be a finite number > 0")
    return step


def check_tail(tail) -> float:
    tail = float(tail)
    if not 0 <= tail < 0.5:
        raise InvalidParameter("tail", tail, "must lie in [0, 0.5)")
    return tail


def check_bound(bound: str) -> str:
    if bound not in BOUNDS:
        raise InvalidParameter("bound", bound, "must be one of " + "|".join(BOUNDS))
    return bound


def grid_index(losses: np.ndarray, step: float, rounding: str) -> np.ndarray:
    """Integer k of the grid point k·step nearest to each loss in the given rounding ("up", "down", "snap").

    "up": smallest k with k·step ≥ loss (as floats); "down": largest k with k·step ≤ loss; "snap": the k whose
    grid float is within a relative 1e-12·max(1, |k|) of the loss (values built on the grid), else an error.
    """
    ratio = losses / step
    if rounding == "snap":
        k = np.rint(ratio)
        if np.any(np.abs(losses - k * step) > 1e-12 * step * np.maximum(1.0, np.abs(k))):
            raise InvalidParameter("step", step, "the PLD values are not integer multiples of this grid step")
        return k.astype(np.int64)
    k = np.ceil(ratio) if rounding == "up" else np.floor(ratio)
    if rounding == "up":  # fix the rounding of the division so that k·step is the first grid float ≥ loss
        k = np.where(k * step < losses, k + 1, k)
        k = np.where((k - 1) * step >= losses, k - 1, k)
    else:
        k = np.where(k * step > losses, k - 1, k)
        k = np.where((k + 1) * step <= losses, k + 1, k)
    return k.astype(np.int64)


def _grid_size_check(k_lo: int, k_hi: int, step: float) -> None:
    if k_hi - k_lo + 1 > MAX_GRID:
        raise UnsupportedRequest("step", step,
                                 f"the grid would have {k_hi - k_lo + 1} points; at most {MAX_GRID} are supported")


class _Variable:
    """CDF/survival pieces of X (finite part) and its +inf atom, for one direction of a loss law.

    le(x) = Pr[X ≤ x], lt(x) = Pr[X < x], gt(x) = Pr[x < X < inf], ge(x) = Pr[x ≤ X < inf]; the law's
    CDFs are right-continuous, so one-sided limits at atoms use the law's atoms (exact value match).
    """

    def __init__(self, law: LossLaw, direction: str):
        self.law, self.remove = law, check_direction(direction, allow_both=False) == "remove"
        values, p_masses, q_masses = law.atoms()
        self.values, self.masses = (values, p_masses) if self.remove else (-values[::-1], q_masses[::-1])
        self.inf_mass = law.p_inf if self.remove else law.q_neg_inf

    def atom(self, x: np.ndarray) -> np.ndarray:
        if self.values.size == 0:
            return np.zeros_like(x)
        i = np.clip(np.searchsorted(self.values, x), 0, self.values.size - 1)
        return np.where(self.values[i] == x, self.masses[i], 0.0)

    def le(self, x):
        return self.law.cdf_p(x) if self.remove else self.law.sf_q(-x) + self.atom(x)

    def lt(self, x):
        return self.law.cdf_p(x) - self.atom(x) if self.remove else self.law.sf_q(-x)

    def gt(self, x):
        return self.law.sf_p(x) if self.remove else self.law.cdf_q(-x) - self.atom(x)

    def ge(self, x):
        return self.law.sf_p(x) + self.atom(x) if self.remove else self.law.cdf_q(-x)

    def range(self, tail: float) -> tuple[float, float]:
        lo, hi = self.law.support()
        if tail == 0 and not (np.isfinite(lo) and np.isfinite(hi)):
            raise InvalidParameter("tail", tail, "must be > 0 for a loss law with unbounded support")
        a, b = self.law.quantile_range(tail) if tail > 0 else (lo, hi)
        return (a, b) if self.remove else (-b, -a)


def discretize(law: LossLaw, direction: str, step, tail, bound: str) -> PLD:
    """The remove/add PLD of `law` on the grid {k·step} (F53 Alg. 6 with the intended semantics of E15, I21).

    Grid from ⌊q_tail/step⌋ to ⌈q_{1−tail}/step⌉ (one-sided tail quantiles under P and Q, LossLaw.quantile_range).
    upper: mass in (g_{i−1}, g_i] → g_i, mass ≤ g_0 → g_0, finite mass > g_top → +inf (counted in `truncated`).
    lower: mass in [g_i, g_{i+1}) → g_i, mass ≥ g_top → g_top, mass < g_0 dropped (counted in `truncated`).
    The law's infinite atom (remove: P(Q=0); add: Q(P=0), since −ℓ = +inf) becomes `inf_mass`. Bin masses are
    differences of the CDF below the median and of the survival function above it (relative accuracy in both tails).
    """
    var = _Variable(law, direction)
    step, tail, bound = check_step(step), check_tail(tail), check_bound(bound)
    lo, hi = var.range(tail)
    k_lo, k_hi = int(np.floor(lo / step)), int(np.ceil(hi / step))
    _grid_size_check(k_lo, k_hi, step)
    grid = np.arange(k_lo, k_hi + 1, dtype=np.float64) * step
    if bound == "upper":
        below, above = np.asarray(var.le(grid), float), np.asarray(var.gt(grid), float)
        split = np.searchsorted(below >= above, True)  # first point at or past the median
        inner = np.where(np.arange(1, grid.size) <= split, np.diff(below), -np.diff(above))  # (g_{i−1}, g_i]
        masses = np.concatenate([below[:1], inner])
        moved = float(above[-1])
        return trim(PLD(grid, np.maximum(masses, 0.0), inf_mass=var.inf_mass + moved, truncated=moved, bound="upper"))
    below, above = np.asarray(var.lt(grid), float), np.asarray(var.ge(grid), float)
    split = np.searchsorted(below >= above, True)
    inner = np.where(np.arange(grid.size - 1) < split, np.diff(below), -np.diff(above))  # [g_i, g_{i+1})
    masses = np.concatenate([inner, above[-1:]])
    dropped = float(below[0])
    return trim(PLD(grid, np.maximum(masses, 0.0), inf_mass=var.inf_mass, truncated=dropped, bound="lower"))


def atomic_pld(law: LossLaw, direction: str) -> PLD:
    """The exact remove/add PLD (F6) of a purely atomic law (e.g. a finite pair, or SubsampledLoss of one)."""
    var = _Variable(law, direction)
    total = float(np.sum(var.masses)) + var.inf_mass
    if abs(total - 1.0) > 1e-12:
        raise InvalidParameter("law", law, f"is not purely atomic (atoms carry mass {total!r}); use discretize")
    return PLD(var.values, var.masses, inf_mass=var.inf_mass, bound="exact")


def regrid(pld: PLD, step, bound: str) -> PLD:
    """Re-round `pld` onto {k·step}: up for "upper", down for "lower" (F10, F49); atoms and bookkeeping carried.

    An "exact" input may go either way; an upper (lower) input can only be regridded upward (downward).
    """
    step, bound = check_step(step), check_bound(bound)
    if pld.bound not in ("exact", bound):
        raise InvalidParameter("bound", bound, f"a {pld.bound} PLD can only be regridded in its own direction")
    if pld.losses.size == 0:
        return replace(pld, bound=bound)
    k = grid_index(pld.losses, step, "up" if bound == "upper" else "down")
    _grid_size_check(int(k[0]), int(k[-1]), step)
    uniq, index = np.unique(k, return_inverse=True)
    masses = np.bincount(index, weights=pld.masses, minlength=uniq.size)
    return replace(pld, losses=uniq.astype(np.float64) * step, masses=masses, bound=bound)


def truncate(pld: PLD, tail) -> PLD:
    """Cut the finite tails holding at most `tail` mass each, in the PLD's safe direction (F54 "additional truncation").

    upper: top tail → +inf (added to `truncated`), bottom tail → the lowest kept point (rounded up);
    lower: bottom tail dropped (added to `truncated`), top tail → the highest kept point (rounded down).
    The moved masses are summed directly. An exact PLD only accepts tail = 0 (no direction to move mass in).
    """
    tail = check_tail(tail)
    if tail == 0 or pld.masses.size <= 1:
        return pld
    if pld.bound == "exact":
        raise InvalidParameter("tail", tail, "an exact PLD has no safe direction; use PLD.with_bound first")
    m = pld.masses
    n_top = int(np.searchsorted(np.cumsum(m[::-1]), tail, side="right"))
    n_bottom = int(np.searchsorted(np.cumsum(m), tail, side="right"))
    n_top = min(n_top, m.size - 1)
    n_bottom = min(n_bottom, m.size - 1 - n_top)
    if n_top == 0 and n_bottom == 0:
        return pld
    lo, hi = n_bottom, m.size - n_top
    kept = m[lo:hi].copy()
    top, bottom = float(np.sum(m[hi:])), float(np.sum(m[:lo]))
    if pld.bound == "upper":
        kept[0] += bottom
        return replace(pld, losses=pld.losses[lo:hi], masses=kept, inf_mass=pld.inf_mass + top,
                       truncated=pld.truncated + top)
    kept[-1] += top
    return replace(pld, losses=pld.losses[lo:hi], masses=kept, truncated=pld.truncated + bottom)


def trim(pld: PLD) -> PLD:
    """Drop zero masses at both ends of the grid (interior zeros stay, keeping the grid dense)."""
    nz = np.flatnonzero(pld.masses)
    lo, hi = (nz[0], nz[-1] + 1) if nz.size else (0, 0)
    if lo == 0 and hi == pld.masses.size:
        return pld
    return replace(pld, losses=pld.losses[lo:hi], masses=pld.masses[lo:hi])
