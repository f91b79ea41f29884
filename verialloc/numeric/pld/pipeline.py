"""The one pld pipeline: every pld answer — the pld method, certify's refinement steps, best's pld part — comes
from `answer`, which owns the rules that turn a request into PLDs and the PLDs into certified ends.

Rules (a request: δ at ε, or ε at a target δ, in one or both directions, at given `Settings`):
* tail: an ε query truncates at most 1e-3·δ/copies per composed copy (`tail_for`), so truncation cannot decide it;
* tail-accurate mode: δ below TINY_DELTA (the target, or a δ claim passed as `delta_floor`) keeps relative accuracy
  in the allocation; an allocation whose absolute float budget would decide the upper ε is rebuilt in that mode;
* window: an allocation resolves losses up to `epsilon_max` (|ε| of a δ query); one epoch of k = 1 whose ε answer
  lies beyond the resolved window is rebuilt past it (1.25·ε + 0.01; with blocks or epochs the answer exceeds one
  block's window without the window binding, and a wider window only coarsens the grid), and the window reached is
  returned for the next request;
* epochs: composed again on a finer loss step when the bracket is wide (table.finer_epochs);
* grid chain: an explicit exp-grid step answers by the best over its dyadic chain (tighten.grid_chain);
* ends: evaluated by the PLDs' certified evaluators (`PLD.delta_bound`, `PLD.epsilon_bound`: directed rounding,
  float budget); the lower end raised by the summed-output Gaussian (pld.summed_gaussian) and, for 1 < k < t, the
  separable statistic (pld.allocation.separable); ε's lower end at least the trivial ln(1 − δ) (I1); an ε upper
  end the PLD cannot give (+inf) falls back to the composed-Gaussian bound (tighten.fallback_upper).
`direction="both"` takes the maximum over the two directions (F3) in the caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from ...config import Config
from ...errors import InternalError
from ...rounding import float_down, float_up, trivial_epsilon_lower
from . import summed_gaussian, tighten
from .allocation import default_grid_step, separable
from .pld import PLD
from .settings import Settings
from .table import Direction, PldTable, allocation_runs, build, directions, finer_epochs

#: targets below this switch the allocation to its tail-accurate (relative-error) convolutions
TINY_DELTA = 1e-9
#: the separable lower end runs while t is at most this (one statistic per epoch beyond separable.SEARCH_MAX_COPIES:
#: ~2 s at t = 10⁴, 6–11 s at 10⁵, 36 s at 10⁶ on one core, plus ~1 s per squaring over epochs)
SEPARABLE_MAX_COPIES = 200_000
_RETRY_NOTE = "the float64 budget moved the upper epsilon: the allocation was rebuilt in the tail-accurate mode"
_SEPARABLE_NOTE = "lower bound from a separable statistic of the outputs (post-processing, F8; allocation.separable)"
_SUMMED_NOTE = (
    "lower bound from the sum of all outputs, a Gaussian with noise multiplier {:.6g} (post-processing, F8, F13)"
)


@dataclass(frozen=True)
class End:
    """One direction's certified ends and the notes on how they were reached."""

    lower: float
    upper: float
    notes: tuple


@dataclass(frozen=True)
class Answer:
    """Per direction asked, its `End`; the table the ends come from (the first level of a grid chain); the
    allocation window reached (`epsilon_max`, to start the next request of a refinement there)."""

    ends: dict
    table: PldTable
    epsilon_max: float

    @property
    def lower(self) -> float:
        """The lower end of the maximum over the directions asked (F3)."""
        return max(e.lower for e in self.ends.values())

    @property
    def upper(self) -> float:
        return max(e.upper for e in self.ends.values())


def answer(
    config: Config,
    quantity: str,
    value,
    direction: str,
    settings: Settings = Settings(),
    *,
    epsilon_max: float = 0.0,
    delta_floor: float | None = None,
    progress=None,
) -> Answer:
    """Certified ends of δ(ε = value) ("delta") or ε(δ = value) ("epsilon") of `config` in `direction` (remove,
    add, both), by the rules above; `value` exact (a Fraction) or a float. `delta_floor`: a δ that must keep
    relative accuracy (a δ claim), `epsilon_max`: a window to start from."""
    dirs = directions(direction)
    at = value if isinstance(value, Fraction) else Fraction(value)
    if quantity == "epsilon":
        target = float(at)
        settings = tail_for(settings, target, config)
        floor = delta_floor if delta_floor is not None else _delta_floor(target)
        reached = [epsilon_max]

        def make(s: Settings) -> PldTable:
            table, fl = (
                build(config, s, epsilon_max=epsilon_max, progress=progress, delta_floor=floor, direction=direction),
                floor,
            )
            if (
                fl is None
                and config.scheme == "allocation"
                and tighten.budget_decides([table[d, "upper"] for d in dirs], target)
            ):
                fl = target  # the float budget, not the mechanism, would decide the upper end: tail-accurate mode
                table = build(
                    config, s, epsilon_max=epsilon_max, progress=progress, delta_floor=fl, direction=direction
                ).noted(_RETRY_NOTE)
            if table.window_loss is not None and config.k == 1 and config.epochs == 1:  # beyond the window: rebuild
                top = max(table[d, "upper"].epsilon_bound(at) for d in dirs)
                if math.isfinite(top) and top > table.window_loss:
                    reached[0] = max(reached[0], 1.25 * top + 0.01)
                    table = build(
                        config, s, epsilon_max=reached[0], progress=progress, delta_floor=fl, direction=direction
                    )
            return finer_epochs(table, s, "epsilon", target, progress)

        tables, steps = _chain(config, settings, quantity, target, make)
        summed = summed_gaussian.epsilon_lower(config, target)
        sep = _separable(
            config,
            direction,
            progress,
            lambda law, c: separable.epsilon_lower(law, c.steps, c.k, target, direction, epochs=c.epochs),
        )
        ends = {d: _epsilon_end(config, tables, steps, d, at, target, summed, sep.get(d.value)) for d in dirs}
        his = [e.upper for e in ends.values()]
        eps_max = max([reached[0]] + [1.25 * h + 0.01 for h in his if math.isfinite(h)])
        return Answer(ends, tables[0], eps_max)
    magnitude = float_down(abs(at))  # 1e400: the largest float
    window, eps = max(epsilon_max, magnitude), magnitude if at >= 0 else -magnitude
    tables, steps = _chain(
        config,
        settings,
        quantity,
        eps,
        lambda s: finer_epochs(
            build(config, s, epsilon_max=window, progress=progress, delta_floor=delta_floor, direction=direction),
            s,
            "delta",
            eps,
            progress,
        ),
    )
    above = float_up(at)  # δ is non-increasing: a lower bound at a float ≥ ε bounds δ(ε) from below (I1)
    summed = summed_gaussian.delta_lower(config, above) if math.isfinite(above) else None
    sep = (
        _separable(
            config,
            direction,
            progress,
            lambda law, c: separable.delta_lower(law, c.steps, c.k, above, direction, epochs=c.epochs),
        )
        if math.isfinite(above)
        else {}
    )
    ends = {d: _delta_end(config, tables, steps, d, at, summed, sep.get(d.value)) for d in dirs}
    return Answer(ends, tables[0], window)


def _delta_end(config: Config, tables: list, steps: list, d: Direction, at: Fraction, summed, sep) -> End:
    his, notes = [t[d, "upper"].delta_bound(at) for t in tables], []
    i = tighten.best_level(his, steps, "upper", notes)
    hi, notes = his[i], accuracy_notes(tables[i][d, "upper"], his[i], None) + notes
    lo = tighten.best([t[d, "lower"].delta_bound(at) for t in tables], steps, "lower", notes)
    return End(_raised(lo, hi, summed, sep, config, notes), hi, tuple(notes))


def _epsilon_end(
    config: Config, tables: list, steps: list, d: Direction, at: Fraction, target: float, summed, sep
) -> End:
    his, notes = [t[d, "upper"].epsilon_bound(at) for t in tables], []
    i = tighten.best_level(his, steps, "upper", notes)
    hi, notes = his[i], accuracy_notes(tables[i][d, "upper"], target, his[i]) + notes
    lo = tighten.best([t[d, "lower"].epsilon_bound(at) for t in tables], steps, "lower", notes)
    lo = max(lo, trivial_epsilon_lower(target))  # I1: δ(ε) ≥ 1 − e^ε > δ below ln(1 − δ), rounded down
    if math.isinf(hi):
        hi = tighten.fallback_upper(config, target, notes)
    return End(_raised(lo, hi, summed, sep, config, notes), hi, tuple(notes))


def tail_for(settings: Settings, target: float, config: Config) -> Settings:
    """A truncation tail well below the target δ, so truncation cannot decide the answer: the tail is truncated
    once per composed copy (t·E Poisson steps, k·E allocation PLDs), so their total stays ≤ 1e-3·δ."""
    copies = config.steps * config.epochs if config.scheme == "poisson" else config.k * config.epochs
    return replace(settings, tail=max(min(settings.tail, 1e-3 * target / copies), 1e-300))


def _delta_floor(target: float) -> float | None:
    """The δ down to which the allocation keeps relative accuracy (tail-accurate mode), or None above TINY_DELTA."""
    return target if target < TINY_DELTA else None


def plan(config: Config, quantity: str, value: float, settings: Settings | None = None) -> list:
    """[(steps, kind, size)] of the allocations a request runs (table.allocation_runs at the settings, window and
    floor the rules above give it), for cost estimates."""
    settings = settings or Settings()
    if quantity == "epsilon":
        settings, floor, eps_max = tail_for(settings, value, config), _delta_floor(value), 0.0
    else:
        floor, eps_max = None, abs(value)
    return allocation_runs(config, eps_max, floor, settings)


def accuracy_notes(upper: PLD, delta: float, eps_upper: float | None) -> list[str]:
    """Say when a budget, not the mechanism, limits the upper bound (never a silent floor). `delta` is the target
    of an ε query (eps_upper given) or the computed upper end of a δ query (eps_upper None), named as such."""
    notes = []
    what = "delta" if eps_upper is not None else "the upper delta"
    if eps_upper is not None and math.isinf(eps_upper) and eps_upper > 0:
        notes.append(
            f"accuracy not met: the upper PLD gives no finite epsilon at delta={delta:g}; its +inf atom "
            f"({upper.inf_mass:.3g}) or float64 budget ({upper.float_error:.3g}) exceeds delta"
        )
    elif delta > 0 and upper.float_error > 1e-2 * delta:
        notes.append(f"accuracy not met: float64 budget {upper.float_error:.3g} exceeds 1% of {what}={delta:g}")
    elif delta > 0 and upper.inf_mass > 1e-2 * delta and upper.truncated > 1e-2 * delta:
        notes.append(
            f"accuracy limited: truncated mass {upper.truncated:.3g} counted at +inf exceeds 1% of {what}={delta:g}"
        )
    return notes


def _raised(lo: float, hi: float, summed: float | None, sep: float | None, config: Config, notes: list) -> float:
    """The lower end raised to the summed-output Gaussian's and the separable statistic's bounds (tighten)."""
    note = _SUMMED_NOTE.format(summed_gaussian.summed_sigma(config)) if summed is not None else ""
    lo = tighten.raised(lo, hi, summed, "summed-output", note, config, notes)
    lo = tighten.raised(lo, hi, sep, "separable", _SEPARABLE_NOTE, config, notes)
    if lo > hi:  # both ends are directed bounds of one quantity: crossing means one of them is wrong
        raise InternalError(f"pld bounds crossed ({lo!r} > {hi!r}) for {config}")
    return lo


def _chain(config: Config, settings: Settings, quantity: str, value: float, make) -> tuple[list, list]:
    """make(settings) and, for an explicit exp-grid step on an allocation, make at the coarser steps of its dyadic
    chain (tighten.grid_chain), with their steps."""

    def runs(s: Settings) -> list:
        return plan(config, quantity, value, s)

    auto = (
        default_grid_step(config.mechanism.loss_laws()["upper"], config.steps, tail=settings.tail)
        if settings.grid_step and runs(settings)
        else None
    )
    return tighten.grid_chain(settings, auto, lambda s: all(kind == "geometric" for _, kind, _ in runs(s)), make)


def _separable(config: Config, direction: str, progress, query) -> dict:
    """{direction: separable lower end} for allocation with 1 < k < t (k = 1 and k = t have tight lower ends
    already) while t ≤ SEPARABLE_MAX_COPIES; {} otherwise. The statistic is of the pair's lower loss law."""
    if config.scheme != "allocation" or not 1 < config.k < config.steps:
        return {}
    if config.steps > SEPARABLE_MAX_COPIES:
        return {}
    (progress or (lambda stage: None))("separable lower bound")
    found = query(config.mechanism.loss_laws()["lower"], config)
    return {d: v for d, v in found.items() if v is not None}
