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
from ...ledger import ledger_of
from ...errors import InternalError
from ...rounding import float_down, float_up, trivial_epsilon_lower
from . import summed_gaussian, tighten
from .allocation import default_grid_step, separable
from .pld import PLD
from .settings import Settings
from .table import (
    Direction,
    PldTable,
    allocation_runs,
    uses_window,
    build,
    compose_tables,
    directions,
    finer_step,
    recompose,
)

#: targets below this switch the allocation to its tail-accurate (relative-error) convolutions
TINY_DELTA = 1e-9
#: smallest floor a δ query's rebuild asks (the smallest target δ of an ε query, FloatRange.delta_min)
FLOOR_MIN = 1e-300
#: the separable lower end runs while t is at most this (one statistic per epoch beyond separable.SEARCH_MAX_COPIES:
#: ~2 s at t = 10⁴, 6–11 s at 10⁵, 36 s at 10⁶ on one core, plus ~1 s per squaring over epochs)
SEPARABLE_MAX_COPIES = 200_000
_RETRY_NOTE = "the float64 budget moved the upper end: the allocation was rebuilt in the tail-accurate mode"
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
    accounted,
    quantity: str,
    value,
    direction: str,
    settings: Settings = Settings(),
    *,
    epsilon_max: float = 0.0,
    delta_floor: float | None = None,
    progress=None,
    builds: Builds | None = None,
) -> Answer:
    """Certified ends of δ(ε = value) ("delta") or ε(δ = value) ("epsilon") of `accounted` (a Config, or a Ledger
    of events) in `direction` (remove, add, both), by the rules above; `value` exact (a Fraction) or a float.
    `delta_floor`: a δ that must keep relative accuracy (a δ claim), `epsilon_max`: a window to start from,
    `builds`: the tables built so far for this ledger (a compiled ledger's)."""
    builds = builds if builds is not None else Builds(progress)
    ledger = ledger_of(accounted)
    at = value if isinstance(value, Fraction) else Fraction(value)
    if ledger.single is None:
        return _answer_ledger(ledger, quantity, at, direction, settings, epsilon_max, delta_floor, builds)
    config = ledger.single
    dirs = directions(direction)
    if quantity == "epsilon":
        target = float(at)
        settings = tail_for(settings, target, config)
        floor = delta_floor if delta_floor is not None else _delta_floor(target)
        reached = [epsilon_max]

        def make(s: Settings) -> PldTable:
            table, fl = builds.table(config, s, epsilon_max, floor, direction), floor
            if (
                fl is None
                and config.scheme == "allocation"
                and tighten.budget_decides([table[d, "upper"] for d in dirs], target)
            ):
                fl = target  # the float budget, not the mechanism, would decide the upper end: tail-accurate mode
                table = builds.table(config, s, epsilon_max, fl, direction).noted(_RETRY_NOTE)
            if table.window_loss is not None and config.k == 1 and config.epochs == 1:  # beyond the window: rebuild
                top = max(table[d, "upper"].epsilon_bound(at) for d in dirs)
                if math.isfinite(top) and top > table.window_loss:
                    reached[0] = max(reached[0], 1.25 * top + 0.01)
                    table = builds.table(config, s, reached[0], fl, direction)
            return builds.finer(table, s, "epsilon", target)

        tables, steps = _chain(config, settings, quantity, target, make)
        above = float_up(at)  # ε is non-increasing in δ: a lower bound at a float ≥ δ bounds ε(δ) from below (I1)
        summed = summed_gaussian.epsilon_lower(config, above)
        sep = _separable(
            config,
            direction,
            builds.progress,
            lambda law, c: separable.epsilon_lower(law, c.steps, c.k, above, direction, epochs=c.epochs),
        )
        ends = {d: _epsilon_end(config, tables, steps, d, at, target, summed, sep.get(d.value)) for d in dirs}
        his = [e.upper for e in ends.values()]
        eps_max = max([reached[0]] + [1.25 * h + 0.01 for h in his if math.isfinite(h)])
        return Answer(ends, tables[0], eps_max)
    magnitude = float_down(abs(at))  # 1e400: the largest float
    window, eps = max(epsilon_max, magnitude), magnitude if at >= 0 else -magnitude

    def make_delta(s: Settings) -> PldTable:
        table = builds.table(config, s, window, delta_floor, direction)
        fl = None
        if delta_floor is None and config.scheme == "allocation" and math.isfinite(eps):
            fl = tighten.delta_budget_floor([table[d, "upper"] for d in dirs], eps)
        if fl is not None and FLOOR_MIN <= fl < TINY_DELTA:  # the float budget, not the mechanism, would decide
            # the upper end of a tiny δ: tail-accurate mode (relative accuracy below TINY_DELTA, down to the floors an
            # ε query may ask, δ >= FLOOR_MIN; a subnormal floor overflows the mode's tail sizes)
            table = builds.table(config, s, window, fl, direction).noted(_RETRY_NOTE)
        return builds.finer(table, s, "delta", eps)

    tables, steps = _chain(config, settings, quantity, eps, make_delta)
    above = float_up(at)  # δ is non-increasing: a lower bound at a float ≥ ε bounds δ(ε) from below (I1)
    summed = summed_gaussian.delta_lower(config, above) if math.isfinite(above) else None
    sep = (
        _separable(
            config,
            direction,
            builds.progress,
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
    lo = max(lo, trivial_epsilon_lower(at))  # I1: δ(ε) ≥ 1 − e^ε > δ below ln(1 − δ), rounded down (from δ, not its
    # nearest float: 0.999 as a float is below 0.999, and ln(1 − 0.999) rounded down from it was above ε(0.999))
    if math.isinf(hi) and config is not None:  # one configuration: the composed-Gaussian bound, at a float ≤ δ
        hi = tighten.fallback_upper(config, float_down(at), notes)
    return End(_raised(lo, hi, summed, sep, config, notes), hi, tuple(notes))


def tail_for(settings: Settings, target: float, accounted) -> Settings:
    """A truncation tail well below the target δ, so truncation cannot decide the answer: the tail is truncated
    once per composed copy (t·E Poisson steps, k·E allocation PLDs, summed over a ledger's events), so their total
    stays ≤ 1e-3·δ; rounded down to a power of ten, so that every target of one decade shares it (and a compiled
    ledger one table: above copies·10⁻¹², every target keeps the default tail)."""
    copies = sum(c.steps * c.epochs if c.scheme == "poisson" else c.k * c.epochs for c in ledger_of(accounted).events)
    share = max(1e-3 * target / copies, 1e-300)
    if share < settings.tail:
        share = max(10.0 ** math.floor(math.log10(share)), 1e-300)
    return replace(settings, tail=min(settings.tail, share))


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


def chain_levels(config: Config, settings: Settings, quantity: str, value: float) -> list:
    """The settings of every level `_chain` builds (for cost estimates): the settings alone, or with an explicit
    exp-grid step on an allocation its dyadic chain of coarser steps too (each level builds and composes)."""
    return _chain(config, settings, quantity, value, lambda s: s)[0]


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


class Builds:
    """The tables built for one ledger, kept by what they were built from, so that a query needing a table again
    reads it (a compiled pld ledger holds one; a single query uses a fresh one)."""

    def __init__(self, progress=None):
        self.progress = progress
        self._tables: dict = {}
        self._finer: dict = {}
        self._composed: dict = {}

    def table(self, config: Config, settings: Settings, epsilon_max: float, floor, direction: str) -> PldTable:
        if not uses_window(config):  # the window and the tail-accurate floor are the allocation's alone
            epsilon_max, floor = 0.0, None
        key = (config, settings, epsilon_max, floor, direction)
        held = self._held(key)
        if held is not None:
            return held
        if key not in self._tables:
            self._tables[key] = build(
                config,
                settings,
                epsilon_max=epsilon_max,
                progress=self.progress,
                delta_floor=floor,
                direction=direction,
            )
        return self._tables[key]

    def _held(self, key: tuple) -> PldTable | None:
        """A table already built that answers `key` as accurately: the same key for both directions, or, for an
        event without the allocation's window (Poisson, every step holding the element: the loss grid is fixed and
        the tail only truncates), the same but for a finer tail. A privacy curve thus reuses the table of its
        smallest δ. An allocation's table is not reused across tails, floors or windows: its plan (grid step, cuts,
        geometric grid) follows them, and a table planned for δ = 1e-20 gave [0.36, 8.38] at δ = 1e-10 where its
        own plan gives [0.363114, 0.363145] (σ = 0.8, t = 10⁴; accountant map of random-allocation)."""
        config, settings, epsilon_max, floor, direction = key
        if uses_window(config):
            return self._tables.get(key[:-1] + ("both",))
        for (c, s, e, f, d), table in self._tables.items():
            if c == config and d in (direction, "both") and s.tail <= settings.tail:
                if replace(s, tail=settings.tail) == settings and (e, f) == (epsilon_max, floor):
                    return table
        return None

    def finer(self, table: PldTable, settings: Settings, quantity: str, at) -> PldTable:
        step = finer_step(table, settings, quantity, at)
        if step is None:
            return table
        key = (id(table), settings, step)
        if key not in self._finer:
            self._finer[key] = (table, recompose(table, settings, step, self.progress))
        return self._finer[key][1]

    def composed(self, tables: list, settings: Settings) -> PldTable:
        key = (tuple(id(t) for t in tables), settings)
        if key not in self._composed:
            self._composed[key] = (tables, compose_tables(tables, settings, self.progress))
        return self._composed[key][1]


def _answer_ledger(
    ledger,
    quantity: str,
    at: Fraction,
    direction: str,
    settings: Settings,
    epsilon_max: float,
    delta_floor,
    builds: Builds,
) -> Answer:
    """A composition of events: each event's table by the rules above (its tail from the whole ledger's copies),
    the tables composed (compose_tables, F48), the ends read off. The tightened lower ends and the window rebuild
    belong to one configuration and are not applied; the bracket certifies the composition (docs/pld.md)."""
    dirs = directions(direction)
    if quantity == "epsilon":
        target = float(at)
        settings = tail_for(settings, target, ledger)
        floor = delta_floor if delta_floor is not None else _delta_floor(target)
        window = epsilon_max
    else:
        target, floor = None, delta_floor
        window = max(epsilon_max, float_down(abs(at)))
    tables = [builds.table(e, settings, window, floor, direction) for e in ledger.events]
    combined = builds.composed(tables, settings)
    steps = [settings.grid_step]
    if quantity == "epsilon":
        ends = {d: _epsilon_end(None, [combined], steps, d, at, target, None, None) for d in dirs}
    else:
        ends = {d: _delta_end(None, [combined], steps, d, at, None, None) for d in dirs}
    return Answer(ends, combined, window)
