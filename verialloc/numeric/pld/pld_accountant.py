"""Method "pld": sound float64 lower and upper bounds from PLD realizations (F55, PLD route).

Pipeline per direction (remove, add) and bound (upper, lower):
* Poisson: the exact subsampled loss law (F47, E16) → pair-preserving discretization on {k·Δ} (second order:
  connect-the-dots spread / contraction, F2, F8; discretize_pair) → t·E-fold composition (F48, exponentiation by
  squaring);
* allocation, k = 1: the convex-order allocation PLDs (pld.allocation; F23–F26) → E-fold composition;
* allocation, k > 1: upper from k blocks of steps, k − r of ⌊t/k⌋ and r = t mod k of ⌈t/k⌉, one allocation each,
  composed over blocks and epochs (F27's proof: a uniformly random partition into blocks of these sizes, then one
  uniform step per block, picks a uniform k-subset by symmetry; upper only, F27 itself when k | t); lower from
  k = 1 composed E times (F30, F8); at k = t the pair is the (t·E)-fold composition itself: both ends from it;
* ends tightened (pld.tighten): the lower by the summed-output Gaussian (pld.summed_gaussian; tight at k = t)
  and a separable statistic for 1 < k < t (pld.allocation.separable; within ~1–2 % of the block upper end); both
  ends, for an explicit exp-grid step, by the coarser steps of its dyadic chain (monotone under halving the step);
* ε queries on allocation whose upper float budget moves the upper ε are rebuilt in the tail-accurate mode;
`direction="both"` is the maximum over the two directions (F3).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import reduce

import mpmath as mp

from ...config import Config
from ...mechanisms import Gaussian
from ...errors import InternalError, InvalidParameter, UnsupportedRequest
from ...result import Bracket, max_bracket
from ...rounding import trivial_epsilon_lower
from ...validation import as_float, direction as check_direction, open_unit
from .allocation import allocation, default_grid_step, planned
from .allocation import separable
from .allocation.geometric import allocation_pld_geometric, grid_points
from .compose import compose, self_compose
from .discretize import discretize_pair
from .grid import regrid, truncate
from .loss_law import gaussian_composition_law, loss_law
from .pld import PLD
from . import summed_gaussian, tighten
from .subsample import subsampled_law

METHOD = "pld"


@dataclass(frozen=True)
class Settings:
    """Accuracy knobs: loss_step Δ of the composition grid, tail β truncated per step (both tracked in the
    result), grid_step h of the allocation's exp-space grid (None: automatic)."""

    loss_step: float = 1e-4
    tail: float = 1e-15
    grid_step: float | None = None

    def __post_init__(self):  # pragma: no mutate block (validation only; Settings() runs at import in the tests)
        for name in ("loss_step", "tail"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise InvalidParameter(name, value, "must be a finite number > 0")
        if self.tail >= 1e-3:
            raise InvalidParameter("tail", self.tail, "must lie in (0, 1e-3)")
        h = self.grid_step
        if h is not None and not (math.isfinite(h) and 0 < h <= tighten.MAX_GRID_STEP):
            raise InvalidParameter("grid_step", h, f"must lie in (0, {tighten.MAX_GRID_STEP:g}]")


_SUMMED_NOTE = ("lower bound from the sum of all outputs, a Gaussian with noise multiplier {:.6g} "
                "(post-processing, F8, F13)")

#: targets below this switch the allocation to its tail-accurate (relative-error) convolutions
TINY_DELTA = 1e-9
#: the separable lower end runs while t is at most this (one statistic per epoch beyond separable.SEARCH_MAX_COPIES:
#: ~2 s at t = 10⁴, 6–11 s at 10⁵, 36 s at 10⁶ on one core, plus ~1 s per squaring over epochs)
SEPARABLE_MAX_COPIES = 200_000
_RETRY_NOTE = "the float64 budget moved the upper epsilon: the allocation was rebuilt in the tail-accurate mode"
_SEPARABLE_NOTE = "lower bound from a separable statistic of the outputs (post-processing, F8; allocation.separable)"


def plds(config: Config, settings: Settings = Settings(), *, epsilon_max: float = 0.0, progress=None,
         delta_floor: float | None = None) -> dict:
    """{(direction, bound): PLD} of the whole configuration, plus a "notes" entry (list of strings); allocation
    also keeps its one-epoch PLDs and copy counts under "epoch" (`finer_epochs` recomposes them).

    delta_floor: δ values down to it keep relative accuracy in the allocation (tail-accurate mode)."""
    law = loss_law(config.mechanism)
    tick = progress or (lambda stage: None)
    notes, out = [], {}
    every_step = config.rate == 1 if config.scheme == "poisson" else config.k == config.steps
    composed = isinstance(config.mechanism, Gaussian) and every_step
    if config.scheme == "poisson" or composed:
        if composed:  # F13: t·E Gaussian steps that all hold the element are one Gaussian step of μ = tE/(2σ²)
            gauss = gaussian_composition_law(config.mechanism, config.steps * config.epochs)
            subs, copies = {"upper": gauss, "lower": gauss}, 1
        else:  # the rate rounded up for the upper, down for the lower PLDs (I6)
            subs = {b: subsampled_law(law, config.rate, b) for b in ("upper", "lower")}
            copies = config.steps * config.epochs
        for d in ("remove", "add"):
            for b in ("upper", "lower"):
                tick(f"{config.scheme} {d} {b}")
                single = discretize_pair(subs[b], d, settings.loss_step, settings.tail, b)
                out[d, b] = self_compose(single, copies, settings.tail, settings.loss_step)
        out["notes"] = notes
        return out
    k, epochs = config.k, config.epochs
    block, r = divmod(config.steps, k)  # t = (k − r)·⌊t/k⌋ + r·⌈t/k⌉
    args = law, settings, epsilon_max, delta_floor, notes, tick
    up_plds, up_loss = _allocation_plds(block, "upper", *args)
    upper = [(up_plds, (k - r) * epochs)]
    if r:
        ceil_plds, ceil_loss = _allocation_plds(block + 1, "upper, ceil(t/k)", *args)
        upper.append((ceil_plds, r * epochs))
        up_loss = min(up_loss, ceil_loss)
    # k = t: every step holds the user, so the pair is exactly the (k·E)-fold composition — both ends from it
    if k == 1 or every_step:
        low_plds, low_loss = up_plds, up_loss
    else:
        low_plds, low_loss = _allocation_plds(config.steps, "lower, k = 1", *args)
        split = f"{k - r} of {block}" + (f" and {r} of {block + 1}" if r else "")
        notes.append(f"k={k}: upper bound from splitting the t steps into k blocks ({split} steps) with one "
                     "allocation each (F27's proof, upper only); lower bound from k=1 (monotone in k, F30)")
    # largest per-epoch loss resolved inside the allocation windows (S ≤ window)
    out["window_loss"] = min(up_loss, low_loss)
    out["epoch"] = {"upper": upper, "lower": [(low_plds, (k if every_step else 1) * epochs)]}
    out.update(_compose_epochs(out["epoch"], settings, settings.loss_step, tick))
    out["notes"] = notes
    return out


#: composed epochs: the loss step is at most EPOCH_SHARE·ε/copies — regrid rounds each copy's losses outward by
#: up to a step, so the composed ends drift apart by about copies·step (σ = 5, t = 10⁵, 100 epochs, δ = 1e-5: step
#: 1e-4 gave [0.01631, 0.02155], 1e-6 [0.016421, 0.016577]); never below loss_step/EPOCH_REFINE_MAX, and the grid
#: it makes stays near copies/EPOCH_SHARE points over the composed range of a few ε
EPOCH_SHARE, EPOCH_REFINE_MAX = 0.004, 256
#: nor below span/EPOCH_MAX_POINTS, span = the loss range of the PLDs composed on loss_step: the finer grid's size (a δ
#: query at ε = 0.1 for σ = 0.7, t = 10, 100 epochs asked for a step of 4e-6 over a span of ~250: 6 GB, > 300 s)
EPOCH_MAX_POINTS = 1 << 19
_EPOCH_STEP_NOTE = "epochs composed on a loss step of {:.3g}"


def _epoch_step(settings: Settings, copies: int, about: float, span: float) -> float:
    """The loss step for composing `copies` allocation epochs whose answer is about ε = `about`, the PLDs composed on
    settings.loss_step spanning `span` in loss: settings.loss_step, finer for a small ε (bounded below as above)."""
    if copies <= 1 or not (math.isfinite(about) and about > 0):
        return settings.loss_step
    finest = max(settings.loss_step / EPOCH_REFINE_MAX, span / EPOCH_MAX_POINTS)
    return min(settings.loss_step, max(finest, EPOCH_SHARE * about / copies))


def _compose_epochs(epoch: dict, settings: Settings, step: float, tick) -> dict:
    """{(direction, bound): PLD} of the composed epochs from the one-epoch PLDs, on the loss grid `step`: each
    bound's parts [(PLDs, copies)] composed `copies` times and then with each other (F48)."""
    out = {}
    for d in ("remove", "add"):
        for b in ("upper", "lower"):
            parts = epoch[b]
            if len(parts) == 1 and parts[0][1] == 1:  # one PLD used as built: no loss grid
                out[d, b] = parts[0][0][d, b]
                continue
            composed = []
            for source, copies in parts:
                tick(f"compose {copies}x {d} {b}")
                composed.append(self_compose(regrid(source[d, b], step, b), copies, settings.tail, step))
            out[d, b] = reduce(lambda x, y: truncate(compose(x, y, step, floor=settings.tail), settings.tail), composed)
    return out


def finer_epochs(table: dict, settings: Settings, quantity: str, at: float, progress=None, scale: float = 1.0) -> dict:
    """The table with its epochs composed again on a finer loss step (`_epoch_step`; the one-epoch PLDs are kept,
    not recomputed) when the bracket of the answer — ε(δ = at) or δ(ε = at), max over directions — is wider than
    1 %. The ε it is about: the upper ε, or `at` for δ; times `scale` (certify's schedule: its loss step over the
    default one, so that every step of the schedule refines the composition too)."""
    if "epoch" not in table:
        return table
    if quantity == "epsilon":
        lo, hi = (f(table[d, b].epsilon(at) for d in ("remove", "add")) for f, b in ((min, "lower"), (max, "upper")))
        about = hi
    else:
        lo, hi = (f(float(table[d, b].delta_bound(at)) for d in ("remove", "add"))
                  for f, b in ((min, "lower"), (max, "upper")))
        about = abs(at)
    if not hi - lo > 0.01 * hi:  # narrow already (or no finite upper end to refine towards)
        return table
    span = max((p.losses[-1] - p.losses[0] for key, p in table.items() if isinstance(p, PLD) and p.losses.size),
               default=0.0)
    step = _epoch_step(settings, sum(copies for _, copies in table["epoch"]["upper"]), about * scale, span)
    if step >= 0.5 * settings.loss_step:
        return table
    finer = _compose_epochs(table["epoch"], settings, step, progress or (lambda stage: None))
    return {**table, **finer, "notes": table["notes"] + [_EPOCH_STEP_NOTE.format(step)]}


def delta(config: Config, epsilon, direction: str = "both", digits: int = 30, settings: Settings = Settings(),
          progress=None) -> Bracket:
    """Bracket [lower, upper] for δ(ε) from the lower and upper PLDs (F2), float budget applied outward."""
    eps = as_float("epsilon", epsilon)  # beyond float64 (an int 10**5000): InvalidParameter, not OverflowError
    d = check_direction(direction)
    tables, steps = _chain(config, settings, "delta", eps, lambda s: finer_epochs(
        plds(config, s, epsilon_max=abs(eps), progress=progress), s, "delta", eps, progress))

    summed = summed_gaussian.delta_lower(config, eps)
    sep = _separable(config, d, progress, lambda law, c: separable.delta_lower(
        law, c.steps, c.k, eps, d, epochs=c.epochs))

    def one(dir_: str) -> Bracket:
        his, notes = [float(t[dir_, "upper"].delta_bound(eps)) for t in tables], []
        i = tighten.best_level(his, steps, "upper", notes)
        hi, notes = his[i], _accuracy_notes(tables[i][dir_, "upper"], his[i], None) + notes
        lo = tighten.best([float(t[dir_, "lower"].delta_bound(eps)) for t in tables], steps, "lower", notes)
        return _bracket("delta", _raised(lo, hi, summed, sep.get(dir_), config, notes), hi, dir_, tables[0], notes)

    return one(d) if d != "both" else max_bracket(one("remove"), one("add"))


def epsilon(config: Config, delta, direction: str = "both", digits: int = 30, settings: Settings = Settings(),
            progress=None) -> Bracket:
    """Bracket [lower, upper] for ε(δ): the upper PLD's ε satisfies δ_upper(ε) ≤ delta (F2, I1)."""
    target = float(open_unit("delta", delta))
    d = check_direction(direction)
    settings = _tail_for(settings, target, config)
    floor = _delta_floor(target)

    def build(s: Settings) -> dict:
        fl = floor
        table = plds(config, s, progress=progress, delta_floor=fl)
        if fl is None and config.scheme == "allocation" and tighten.budget_decides(
                [table[d, "upper"] for d in ("remove", "add")], target):
            fl = target  # the float budget, not the mechanism, would decide the upper end: tail-accurate mode
            table = plds(config, s, progress=progress, delta_floor=fl)
            table = {**table, "notes": table["notes"] + [_RETRY_NOTE]}
        if "window_loss" in table and config.k == 1 and config.epochs == 1:  # an allocation window (not F13's)
            table = _widen_window(config, s, table, target, progress, fl)
        return finer_epochs(table, s, "epsilon", target, progress)

    tables, steps = _chain(config, settings, "epsilon", target, build)

    summed = summed_gaussian.epsilon_lower(config, target)
    sep = _separable(config, d, progress, lambda law, c: separable.epsilon_lower(
        law, c.steps, c.k, target, d, epochs=c.epochs))

    def one(dir_: str) -> Bracket:
        his, notes = [t[dir_, "upper"].epsilon(target) for t in tables], []
        i = tighten.best_level(his, steps, "upper", notes)
        hi, notes = his[i], _accuracy_notes(tables[i][dir_, "upper"], target, his[i]) + notes
        lo = tighten.best([t[dir_, "lower"].epsilon(target) for t in tables], steps, "lower", notes)
        lo = max(lo, trivial_epsilon_lower(target))  # I1: δ(ε) ≥ 1 − e^ε > δ below ln(1 − δ), rounded down
        if math.isinf(hi):
            hi = tighten.fallback_upper(config, target, notes)
        return _bracket("epsilon", _raised(lo, hi, summed, sep.get(dir_), config, notes), hi, dir_, tables[0], notes)

    return one(d) if d != "both" else max_bracket(one("remove"), one("add"))


def rdp(config: Config, alpha, digits: int = 30):
    raise UnsupportedRequest("method", METHOD, "pld answers delta and epsilon queries; use --method exact for rdp")


#: (α, β) of the geometric-grid fallback (F52, F53): ε-tightness α, total tail mass β
GEOMETRIC_ALPHA, GEOMETRIC_BETA = 1e-2, 1e-12


def _allocation_plds(steps: int, label: str, law, settings: Settings, epsilon_max: float, delta_floor, notes: list,
                     tick) -> tuple[dict, float]:
    """(PLDs of one epoch, largest per-epoch loss resolved in its window): the uniform exp-grid allocation, or —
    when its window would have to end below the single-step tail (heavy tails, e.g. Gaussian σ ≲ 0.8 at tiny δ;
    decided from the plan, before any array is built) — the paper's geometric-grid PLDs (F52, F53 with E14, E15,
    E17), whose multiplicative grid covers heavy tails at (α, β)-tightness, with +inf as its window loss."""
    kwargs = {"epsilon_max": epsilon_max, "grid_step": settings.grid_step, "tail": settings.tail,
              "delta_floor": delta_floor}
    if planned(law, steps, **kwargs)[0]:
        return _geometric(law, steps, delta_floor, notes, tick), math.inf
    tick(f"allocation ({label})")
    alloc = allocation(law, steps, **kwargs)
    notes.extend(alloc.budget.warnings)
    return alloc.plds, math.log(alloc.budget.window / steps)


def allocation_runs(config: Config, quantity: str, value: float, settings: Settings | None = None) -> list:
    """[(steps, kind, size)] of the allocations a `quantity` ("delta" at ε = value, "epsilon" at δ = value) query
    runs, for cost estimates, from their plans (no arrays): kind "geometric" (heavy tails; size = grid points per
    exp-PLD), "uniform" or "uniform-tail" (tail-accurate mode; size = array entries of the plan)."""
    every_step = config.k == config.steps
    if config.scheme != "allocation" or (isinstance(config.mechanism, Gaussian) and every_step):
        return []  # Poisson, or F13's one Gaussian step
    settings = settings or Settings()
    if quantity == "epsilon":
        settings, floor, eps_max = _tail_for(settings, value, config), _delta_floor(value), 0.0
    else:
        floor, eps_max = None, abs(value)
    law = loss_law(config.mechanism)
    out = []
    block, r = divmod(config.steps, config.k)
    runs = {block} | ({block + 1} if r else set()) | ({config.steps} if 1 < config.k < config.steps else set())
    for t in sorted(runs):
        reduced, points = planned(law, t, epsilon_max=eps_max, grid_step=settings.grid_step, tail=settings.tail,
                                  delta_floor=floor)
        if reduced:
            out.append((t, "geometric", grid_points(law, t, GEOMETRIC_ALPHA, _geometric_beta(floor))))
        else:
            out.append((t, "uniform" if floor is None else "uniform-tail", points))
    return out


def _geometric(law, steps: int, delta_floor, notes: list, tick) -> dict:
    """The geometric-grid PLDs. In tail-accurate mode (delta_floor) β ≤ 1e-3·floor: the truncated tail (≤ 2β, sent
    to +inf in the upper PLDs) stays small against the target, and the grid's float budget is relative to each
    mass (geometric_conv), so it holds at δ = 1e-30 as well."""
    beta = _geometric_beta(delta_floor)
    out = {}
    for d in ("remove", "add"):
        for b in ("upper", "lower"):
            tick(f"geometric allocation {d} {b}")
            out[d, b], _ = allocation_pld_geometric(law, steps, d, b, alpha=GEOMETRIC_ALPHA, beta=beta)
    notes.append(f"t={steps}: heavy tails exceed the uniform exp-grid; used the geometric-grid algorithm "
                 f"(alpha={GEOMETRIC_ALPHA:g}, beta={beta:g})")
    return out


def _delta_floor(target: float) -> float | None:
    """The δ down to which the allocation keeps relative accuracy (tail-accurate mode), or None above TINY_DELTA."""
    return target if target < TINY_DELTA else None


def _geometric_beta(delta_floor: float | None) -> float:
    """β of the geometric grid: GEOMETRIC_BETA, at most 1e-3·floor in tail-accurate mode."""
    return GEOMETRIC_BETA if delta_floor is None else min(GEOMETRIC_BETA, 1e-3 * delta_floor)


def _widen_window(config, settings, table, target, progress, floor):
    """One epoch of allocation: if the answer lies beyond the window's resolved losses, rebuild past it."""
    eps = max(table[d, "upper"].epsilon(target) for d in ("remove", "add"))
    if math.isfinite(eps) and eps > table["window_loss"]:
        return plds(config, settings, epsilon_max=1.25 * eps + 0.01, progress=progress, delta_floor=floor)
    return table


def _tail_for(settings: Settings, target: float, config: Config) -> Settings:
    """A truncation tail well below the target δ, so truncation cannot decide the answer: the tail is truncated
    once per composed copy (t·E Poisson steps, k·E allocation PLDs), so their total stays ≤ 1e-3·δ."""
    copies = config.steps * config.epochs if config.scheme == "poisson" else config.k * config.epochs
    return replace(settings, tail=max(min(settings.tail, 1e-3 * target / copies), 1e-300))


def _accuracy_notes(upper: PLD, delta: float, eps_upper: float | None) -> list[str]:
    """Say when a budget, not the mechanism, limits the upper bound (never a silent floor). `delta` is the target
    of an ε query (eps_upper given) or the computed upper end of a δ query (eps_upper None), named as such."""
    notes = []
    what = "delta" if eps_upper is not None else "the upper delta"
    if eps_upper is not None and math.isinf(eps_upper) and eps_upper > 0:
        notes.append(f"accuracy not met: the upper PLD gives no finite epsilon at delta={delta:g}; its +inf atom "
                     f"({upper.inf_mass:.3g}) or float64 budget ({upper.float_error:.3g}) exceeds delta")
    elif delta > 0 and upper.float_error > 1e-2 * delta:
        notes.append(f"accuracy not met: float64 budget {upper.float_error:.3g} exceeds 1% of {what}={delta:g}")
    elif delta > 0 and upper.inf_mass > 1e-2 * delta and upper.truncated > 1e-2 * delta:
        notes.append(f"accuracy limited: truncated mass {upper.truncated:.3g} counted at +inf exceeds 1% of "
                     f"{what}={delta:g}")
    return notes


def _raised(lo: float, hi: float, summed: float | None, sep: float | None, config: Config, notes: list) -> float:
    """The lower end raised to the summed-output Gaussian's and the separable statistic's bounds (tighten)."""
    note = _SUMMED_NOTE.format(summed_gaussian.summed_sigma(config)) if summed is not None else ""
    lo = tighten.raised(lo, hi, summed, "summed-output", note, config, notes)
    return tighten.raised(lo, hi, sep, "separable", _SEPARABLE_NOTE, config, notes)


def _chain(config: Config, settings: Settings, quantity: str, value: float, build) -> tuple[list, list]:
    """build(settings) and, for an explicit exp-grid step on an allocation, build at the coarser steps of its
    dyadic chain (tighten.grid_chain), with their steps."""
    def geometric(s: Settings) -> bool:
        return all(kind == "geometric" for _, kind, _ in allocation_runs(config, quantity, value, s))

    auto = (default_grid_step(loss_law(config.mechanism), config.steps, tail=settings.tail)
            if settings.grid_step and allocation_runs(config, quantity, value, settings) else None)
    return tighten.grid_chain(settings, auto, geometric, build)


def _separable(config: Config, direction: str, progress, query) -> dict:
    """{direction: separable lower end} for allocation with 1 < k < t (k = 1 and k = t have tight lower ends
    already) while t ≤ SEPARABLE_MAX_COPIES; {} otherwise."""
    if config.scheme != "allocation" or not 1 < config.k < config.steps:
        return {}
    if config.steps > SEPARABLE_MAX_COPIES:
        return {}
    (progress or (lambda stage: None))("separable lower bound")
    found = query(loss_law(config.mechanism), config)
    return {d: v for d, v in found.items() if v is not None}


def _bracket(quantity: str, lo: float, hi: float, direction: str, table: dict, accuracy: list[str]) -> Bracket:
    if lo > hi:  # both ends are directed bounds of one quantity: crossing means one of them is wrong
        raise InternalError(f"pld {quantity} bounds crossed ({lo!r} > {hi!r}, direction {direction})")
    plds_ = [table[direction, b] for b in ("lower", "upper")]
    details = {
        "truncated": {b: p.truncated for b, p in zip(("lower", "upper"), plds_)},
        "float_error": {b: p.float_error for b, p in zip(("lower", "upper"), plds_)},
        "notes": list(table["notes"]) + accuracy,
    }
    return Bracket(quantity, mp.mpf(lo), mp.mpf(hi), METHOD, direction, "bound", details)


