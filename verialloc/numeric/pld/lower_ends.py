"""Raising a pld bracket's lower end by other certified lower bounds (LOWER direction only).

Every candidate is a sound lower bound of the same quantity, so the maximum is one too; a candidate above the
bracket's upper end means one of two certified bounds is wrong, an InternalError — never clipped (#10 item 9).
* `raised`: one candidate — the summed-output Gaussian (pld.summed_gaussian, F8, F13) or the separable statistic
  (pld.allocation.separable, F8);
* `over_chain`: an explicit exp-grid step h (`--grid-step`): the allocation's lower end is the maximum over the
  dyadic chain h, 2h, 4h, … up to CHAIN_TOP times the automatic step (`coarser_steps`). A contraction onto grid h
  is not one onto h/2 (grid-point class means do not nest; docs/pld.md), so one grid's lower end can drop when h
  is halved; the chain of h/2 holds the chain of h, so the maximum over it never drops (h ≤ CHAIN_TOP·automatic).
  A step too fine for the uniform grid's size cap switches to the geometric grid, which ignores h: the chain
  keeps one such level.
"""
from __future__ import annotations

from dataclasses import replace

from ...config import Config
from ...errors import InternalError

#: the chain's coarsest step, in units of the automatic exp-grid step (coarser levels cost less and say little)
CHAIN_TOP = 4.0


def raised(lo: float, hi: float, candidate: float | None, what: str, note: str, config: Config,
           notes: list) -> float:
    """The lower end lo raised to `candidate` when that is larger (`note` appended to notes)."""
    if candidate is None or candidate <= lo:
        return lo
    if candidate > hi:
        raise InternalError(f"{what} lower end {candidate!r} exceeds the pld upper end {hi!r} for {config}")
    notes.append(note)
    return candidate


def coarser_steps(grid_step: float, automatic: float) -> list[float]:
    """2h, 4h, … while at most CHAIN_TOP·automatic (empty when h is coarser than half of that)."""
    out, g = [], 2 * grid_step
    while g <= CHAIN_TOP * automatic:
        out.append(g)
        g *= 2
    return out


def over_chain(lows: list[float], steps: list[float], notes: list) -> float:
    """The largest of the lower ends `lows` found on the grid steps `steps` (the first is the one asked for)."""
    best = max(range(len(lows)), key=lambda i: lows[i])
    if lows[best] > lows[0]:
        notes.append(f"lower end from the coarser exp-grid step {steps[best]:g} of the dyadic chain of "
                     f"{steps[0]:g} (max over grids, each a sound lower bound)")
    return lows[best]


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
