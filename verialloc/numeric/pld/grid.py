"""PLDs on the uniform grid {k·step}: grid indices, the size cap, re-rounding (`regrid`, F10, F49), tail truncation
in the safe direction (`truncate`, F54) and `trim`. Shared by the discretizations (discretize) and the
compositions (compose), so that PLDs built with the same step compose without re-rounding.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...errors import InvalidParameter, UnsupportedRequest
from .pld import PLD

_U = np.finfo(np.float64).eps / 2  # unit roundoff

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


def grid_size_check(k_lo: int, k_hi: int, step: float) -> None:
    if k_hi - k_lo + 1 > MAX_GRID:
        raise UnsupportedRequest(
            "step", step, f"the grid would have {k_hi - k_lo + 1} points; at most {MAX_GRID} are supported"
        )


def regrid(pld: PLD, step, bound: str) -> PLD:
    """Re-round `pld` onto {k·step}: up for "upper", down for "lower" (F10, F49); atoms and bookkeeping carried.

    An "exact" input may go either way; an upper (lower) input can only be regridded upward (downward).
    """
    step, bound = check_step(step), check_bound(bound)
    if pld.bound not in ("exact", bound):
        raise InvalidParameter("bound", bound, f"a {pld.bound} PLD can only be regridded in its own direction")
    if pld.losses.size == 0:
        return replace(pld, bound=bound)
    losses, masses = onto_grid(pld.losses, pld.masses, step, bound)
    return replace(pld, losses=losses, masses=masses, bound=bound)


def onto_grid(losses: np.ndarray, masses: np.ndarray, step: float, bound: str) -> tuple[np.ndarray, np.ndarray]:
    """Losses (any order, ties allowed, at least one) rounded onto {k·step} — up for "upper", down for "lower" —
    and their masses merged per grid point: (increasing grid losses, masses)."""
    k = grid_index(losses, step, "up" if bound == "upper" else "down")
    grid_size_check(int(k.min()), int(k.max()), step)
    uniq, index, counts = np.unique(k, return_inverse=True, return_counts=True)
    merged = np.bincount(index, weights=masses, minlength=uniq.size)
    # bincount sums each bin sequentially: each bin within γ = (its count − 1)·u of its exact sum (Higham 2002,
    # eq. 4.4; non-negative terms), taken into the masses in the PLD's direction, relative to each (m̂·(1 ± (γ +
    # 2u)), the product's own rounding included): tail masses of 1e-30 keep their accuracy, where an ℓ1 budget
    # of γ·Σ masses (2.2e-15 at ten points a bin) hid every δ below it (#13)
    gamma = (int(counts.max()) - 1) * _U * (1 + 1e-10)
    if gamma > 0:
        merged = merged * (1 + gamma + 2 * _U if bound == "upper" else 1 - gamma - 2 * _U)
    return uniq.astype(np.float64) * step, merged


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
    d = pld.bound
    top, bottom = _directed_sum(m[hi:].tolist(), d), _directed_sum(m[:lo].tolist(), d)
    if d == "upper":
        kept[0] = _directed_sum([kept[0], bottom], d)
        return replace(
            pld,
            losses=pld.losses[lo:hi],
            masses=kept,
            inf_mass=_directed_sum([pld.inf_mass, top], d),
            truncated=_directed_sum([pld.truncated, top], d),
        )
    kept[-1] = _directed_sum([kept[-1], top], d)
    return replace(pld, losses=pld.losses[lo:hi], masses=kept, truncated=pld.truncated + bottom)


def _directed_sum(values: list, bound: str) -> float:
    """Σ values rounded up ("upper") or down ("lower"): fsum is correctly rounded and the fsum of the values and
    its negation is the sign of what it dropped, so exact sums stay exact (rounded to nearest, a moved tail of
    non-dyadic masses could lose an ulp of upper mass)."""
    total = math.fsum(values)
    dropped = math.fsum(values + [-total])
    if (dropped > 0 and bound == "upper") or (dropped < 0 and bound == "lower"):
        total = math.nextafter(total, math.inf if bound == "upper" else -math.inf)
    return max(total, 0.0)


def trim(pld: PLD) -> PLD:
    """Drop zero masses at both ends of the grid (interior zeros stay, keeping the grid dense)."""
    nz = np.flatnonzero(pld.masses)
    lo, hi = (nz[0], nz[-1] + 1) if nz.size else (0, 0)
    if lo == 0 and hi == pld.masses.size:
        return pld
    return replace(pld, losses=pld.losses[lo:hi], masses=pld.masses[lo:hi])
