"""Tightening a pld bracket's ends by other certified bounds of the same quantity (the max of lower bounds is a
lower bound, the min of upper bounds an upper bound).

* `raised`: the lower end raised by one candidate — the summed-output Gaussian (pld.summed_gaussian, F8, F13)
  or the separable statistic (pld.allocation.separable, F8); a candidate above the upper end means one of two
  certified bounds is wrong, an InternalError — never clipped (#10 item 9);
* `fallback_upper`: the composed-Gaussian bound (pld.summed_gaussian, F8, F13) as the upper end of ε where the
  upper PLD gives none (+inf);
* `budget_decides`: whether an upper PLD's absolute float budget, not the mechanism, decides its ε (the caller
  rebuilds in the tail-accurate mode, whose errors are relative);
* `best_level`: an explicit exp-grid step h (`--grid-step`): each end is the best over the dyadic chain h, 2h,
  4h, … up to CHAIN_TOP times the automatic step (`coarser_steps`; lower: max, upper: min). A contraction onto
  grid h is not one onto h/2 (grid-point class means do not nest; docs/pld.md), so one grid's ends can move
  outward when h is halved; the chain of h/2 holds the chain of h, so neither end moves outward on halving
  (h ≤ CHAIN_TOP·automatic). A step too fine for the uniform grid's size cap switches to the geometric grid,
  which ignores h: the chain keeps one such level.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...config import Config
from ...errors import InternalError
from . import summed_gaussian

#: an upper ε moved by more than this (relative) by the float budget asks for the tail-accurate rebuild, which
#: doubles the time: budgets of 1 % of δ moved the add direction's ε by 0.3–0.8 % at σ = 0.7–1 and changed the
#: final bracket by < 2e-4 (σ = 0.7, t = 10³, E = 100: 7.9 → 21.4 s for it)
BUDGET_MOVE = 1e-2
#: the chain's coarsest step, in units of the automatic exp-grid step (coarser levels cost less and say little)
CHAIN_TOP = 4.0
#: the coarsest exp-grid step accepted (the single-step ratio e^ℓ has mean 1 under Q: a step of 1 already puts
#: the bulk of the law in one cell; --grid-step 1e308 answered the trivial δ ≤ 1)
MAX_GRID_STEP = 1.0


def raised(lo: float, hi: float, candidate: float | None, what: str, note: str, config: Config, notes: list) -> float:
    """The lower end lo raised to `candidate` when that is larger (`note` appended to notes)."""
    if candidate is None or candidate <= lo:
        return lo
    if candidate > hi:
        raise InternalError(f"{what} lower end {candidate!r} exceeds the pld upper end {hi!r} for {config}")
    notes.append(note)
    return candidate


def coarser_steps(grid_step: float, automatic: float) -> list[float]:
    """2h, 4h, … while at most CHAIN_TOP·automatic and MAX_GRID_STEP (empty when h is coarser than half of that)."""
    out, g = [], 2 * grid_step
    while g <= min(CHAIN_TOP * automatic, MAX_GRID_STEP):
        out.append(g)
        g *= 2
    return out


def best_level(values: list[float], steps: list[float], end: str, notes: list) -> int:
    """Index of the tightest of one end's `values` found on the grid steps `steps` (the first is the one asked
    for): the largest for end="lower", the smallest for "upper"; a coarser level's win is noted."""
    pick = max if end == "lower" else min
    best = pick(range(len(values)), key=values.__getitem__)
    if values[best] != values[0]:
        notes.append(
            f"{end} end from the coarser exp-grid step {steps[best]:g} of the dyadic chain of "
            f"{steps[0]:g} (best over grids, each a sound {end} bound)"
        )
    return best


def best(values: list[float], steps: list[float], end: str, notes: list) -> float:
    """The tightest of `values` (best_level)."""
    return values[best_level(values, steps, end, notes)]


def grid_chain(settings, automatic: float | None, geometric, build) -> tuple[list, list]:
    """([build(settings)] and build at every coarser step of the chain of settings.grid_step, [their steps]);
    only the settings when `automatic` (the automatic step) is None; geometric(settings): whether that level runs
    the geometric grid alone (then only the first such level is built)."""
    if automatic is None:
        return [build(settings)], [settings.grid_step]
    tables, kept, seen = [], [], False
    for g in [settings.grid_step] + coarser_steps(settings.grid_step, automatic):
        level = replace(settings, grid_step=g)
        if geometric(level):
            if seen:
                continue
            seen = True
        tables.append(build(level))
        kept.append(g)
    return tables, kept


def fallback_upper(config: Config, target: float, notes: list) -> float:
    """The composed-Gaussian post-processing bound (F8, F13; summed_gaussian.epsilon_upper) where the upper PLD
    gives no finite ε (its +inf atom or budget exceeds δ), so pld never answers +inf where it holds (#13); +inf for
    other mechanisms (`--method best` adds the rdp and analytic bounds)."""
    composed = summed_gaussian.epsilon_upper(config, target)
    if composed is None:
        return math.inf
    notes.append(
        "upper end from the composed Gaussian bound (post-processing of the k·E steps an element joins, "
        "F8, F13): the upper PLD gives none at this delta"
    )
    return composed


def delta_budget_floor(uppers: list, eps: float) -> float | None:
    """The δ an allocation rebuilt in the tail-accurate mode must keep relative accuracy at, when some upper PLD's
    float budget exceeds BUDGET_MOVE of its δ(eps) (σ = 0.8, t = 10³, E = 3: δ(2) stopped at the budget 1.3e-9
    where the truth is 4.8e-11): the smallest such PLD's δ(eps) without the budget; None when no budget decides (or
    the δ is 0: no relative accuracy to keep)."""
    floors = [d for u in uppers if 0 < (d := float(u.delta(eps))) and u.float_error > BUDGET_MOVE * d]
    return min(floors) if floors else None


def budget_decides(uppers: list, target: float) -> bool:
    """True when some upper PLD's ε(target) with its float budget exceeds the one without it by more than
    BUDGET_MOVE (relative), or only the budgeted one is +inf (σ = 0.7, t = 10³, k = 4, E = 100, δ = 1e-5: the add
    budget 1.4e-5 > δ left the composed-Gaussian fallback, 529, as the upper end; rebuilt, 18.695)."""
    for upper in uppers:
        bare = replace(upper, float_error=0.0).epsilon(target)
        if math.isfinite(bare) and not upper.epsilon(target) <= bare + BUDGET_MOVE * abs(bare):
            return True
    return False
