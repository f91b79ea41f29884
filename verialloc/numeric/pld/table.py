"""The PLDs of a whole configuration, per privacy direction and bound (F55, PLD route), as one typed table.

Construction (`build`):
* Poisson: the exact subsampled loss law (F47, E16; the rate rounded up for upper, down for lower PLDs, I6) →
  pair-preserving discretization on {k·Δ} (second order: connect-the-dots spread / contraction, F2, F8;
  discretize_pair) → t·E-fold composition (F48, exponentiation by squaring);
* every step holding the element with a pair closed under composition (the Gaussian, F13): one step of that pair;
* allocation, k = 1: the convex-order allocation PLDs (pld.allocation; F23–F26), or the geometric-grid PLDs for
  heavy tails (F52, F53 with E14, E15, E17) → E-fold composition;
* allocation, k > 1: upper from k blocks of steps, k − r of ⌊t/k⌋ and r = t mod k of ⌈t/k⌉, one allocation each,
  composed over blocks and epochs (F27's proof: a uniformly random partition into blocks of these sizes, then one
  uniform step per block, picks a uniform k-subset by symmetry; upper only, F27 itself when k | t); lower from
  k = 1 composed E times (F30, F8); at k = t the pair is the (t·E)-fold composition itself: both ends from it.

Only the directions asked are built. `finer_epochs` recomposes allocation epochs on a finer loss step when the
answer's bracket is wide. The rules that choose the settings of a build (tail, tail-accurate floor, window) are
the pipeline's (numeric.pld.pipeline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import reduce

from ...config import Config
from .allocation import allocation, planned
from .allocation.geometric import allocation_pld_geometric, grid_points
from .compose import compose, self_compose
from .discretize import discretize_pair
from .grid import regrid, truncate
from .pld import PLD
from .settings import Settings
from .subsample import subsampled_law


class Direction(str, Enum):
    """Privacy direction (F3): remove is H(P‖Q), add is H(Q‖P). Equal to (and hashes like) its string."""

    REMOVE = "remove"
    ADD = "add"

    def __str__(self) -> str:
        return self.value


class Bound(str, Enum):
    """Which side of the truth a PLD is on: upper dominates it, lower is dominated (F8, F10)."""

    UPPER = "upper"
    LOWER = "lower"

    def __str__(self) -> str:
        return self.value


#: one or both privacy directions of a request
BOTH = (Direction.REMOVE, Direction.ADD)


def directions(direction: str) -> tuple[Direction, ...]:
    """The directions a request in `direction` (remove, add or both) needs."""
    return BOTH if direction == "both" else (Direction(direction),)


@dataclass(frozen=True)
class Epochs:
    """One epoch's PLDs of an allocation and how many copies compose the whole configuration, per bound:
    [(PLDs keyed (direction, bound), copies)] (finer_epochs recomposes them on a finer loss step)."""

    upper: tuple
    lower: tuple

    def parts(self, bound: Bound) -> tuple:
        return self.upper if bound is Bound.UPPER else self.lower


@dataclass(frozen=True)
class PldTable:
    """The PLDs of a configuration keyed (Direction, Bound) — `table[d, b]` — with the notes of their construction,
    the allocation's one-epoch parts (`epochs`, None for Poisson) and the largest per-epoch loss resolved inside
    its windows (`window_loss`, None without an exp-grid window; +inf for the geometric grid)."""

    plds: dict
    notes: tuple = ()
    epochs: Epochs | None = None
    window_loss: float | None = None
    built: tuple = field(default=BOTH)

    def __getitem__(self, key) -> PLD:
        d, b = key
        return self.plds[Direction(d), Bound(b)]

    def noted(self, *notes: str) -> "PldTable":
        return replace(self, notes=self.notes + notes)


def uses_window(config: Config) -> bool:
    """Whether `build` reads its window (epsilon_max) and tail-accurate floor: for an allocation's exp-grid PLDs only
    (not Poisson, not a pair composed in closed form at k = t)."""
    every_step = config.k == config.steps
    return config.scheme == "allocation" and not (every_step and config.mechanism.composed(1) is not None)


def build(
    config: Config,
    settings: Settings = Settings(),
    *,
    epsilon_max: float = 0.0,
    progress=None,
    delta_floor: float | None = None,
    direction: str = "both",
) -> PldTable:
    """The table of `config` at `settings`: allocation windows resolve losses up to `epsilon_max`, and δ values
    down to `delta_floor` keep relative accuracy in the allocation (tail-accurate mode)."""
    mech = config.mechanism
    tick = progress or (lambda stage: None)
    dirs = directions(direction)
    every_step = config.rate == 1 if config.scheme == "poisson" else config.k == config.steps
    composed = mech.composed(config.steps * config.epochs) if every_step else None
    if config.scheme == "poisson" or composed is not None:
        if composed is not None:  # F13: t·E Gaussian steps that all hold the element are one of μ = tE/(2σ²)
            laws, copies = {Bound(b): law for b, law in composed.loss_laws().items()}, 1
        else:  # the rate rounded up for the upper, down for the lower PLDs (I6)
            laws = {Bound(b): subsampled_law(law, config.rate, b) for b, law in mech.loss_laws().items()}
            copies = config.steps * config.epochs
        out = {}
        for d in dirs:
            for b in Bound:
                tick(f"{config.scheme} {d} {b}")
                single = discretize_pair(laws[b], d.value, settings.loss_step, settings.tail, b.value)
                out[d, b] = self_compose(single, copies, settings.tail, settings.loss_step)
        return PldTable(out, built=dirs)
    notes = []
    k, epochs = config.k, config.epochs
    block, r = divmod(config.steps, k)  # t = (k − r)·⌊t/k⌋ + r·⌈t/k⌉
    args = mech, settings, epsilon_max, delta_floor, notes, tick
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
        notes.append(
            f"k={k}: upper bound from splitting the t steps into k blocks ({split} steps) with one "
            "allocation each (F27's proof, upper only); lower bound from k=1 (monotone in k, F30)"
        )
    parts = Epochs(tuple(upper), ((low_plds, (k if every_step else 1) * epochs),))
    plds = _compose_epochs(parts, dirs, settings, settings.loss_step, tick)
    # largest per-epoch loss resolved inside the allocation windows (S ≤ window)
    return PldTable(plds, tuple(notes), parts, min(up_loss, low_loss), dirs)


#: (α, β) of the geometric-grid fallback (F52, F53): ε-tightness α, total tail mass β
GEOMETRIC_ALPHA, GEOMETRIC_BETA = 1e-2, 1e-12


def _allocation_plds(
    steps: int, label: str, mech, settings: Settings, epsilon_max: float, delta_floor, notes: list, tick
) -> tuple[dict, float]:
    """(PLDs of one epoch, largest per-epoch loss resolved in its window): the uniform exp-grid allocation, or —
    when its window would have to end below the single-step tail (heavy tails, e.g. Gaussian σ ≲ 0.8 at tiny δ;
    decided from the plan, before any array is built) — the paper's geometric-grid PLDs (F52, F53 with E14, E15,
    E17), whose multiplicative grid covers heavy tails at (α, β)-tightness, with +inf as its window loss.
    The upper PLDs come from the pair's upper loss law, the lower from its lower one (`Mechanism.loss_law`)."""
    kwargs = {
        "epsilon_max": epsilon_max,
        "grid_step": settings.grid_step,
        "tail": settings.tail,
        "delta_floor": delta_floor,
    }
    laws = {Bound(b): law for b, law in mech.loss_laws().items()}
    if all(planned(law, steps, **kwargs)[0] for law in laws.values()):
        return _geometric(laws, steps, delta_floor, notes, tick), math.inf
    tick(f"allocation ({label})")
    out, windows = {}, []
    for i, law in enumerate(dict.fromkeys(laws.values())):  # one allocation when both bounds share the law
        alloc = allocation(law, steps, **kwargs)
        notes.extend(w for w in alloc.budget.warnings if i == 0 or w not in notes)
        windows.append(math.log(alloc.budget.window / steps))
        out.update({(Direction(d), Bound(b)): p for (d, b), p in alloc.plds.items() if laws[Bound(b)] is law})
    return out, min(windows)


def allocation_runs(config: Config, epsilon_max: float, delta_floor, settings: Settings) -> list:
    """[(steps, kind, size)] of the allocations `build` runs at these settings, for cost estimates, from their
    plans (no arrays): kind "geometric" (heavy tails; size = grid points per exp-PLD), "uniform" or
    "uniform-tail" (tail-accurate mode; size = array entries of the plan)."""
    every_step = config.k == config.steps
    if config.scheme != "allocation" or (every_step and config.mechanism.composed(1) is not None):
        return []  # Poisson, or F13's one Gaussian step
    law = config.mechanism.loss_laws()["upper"]
    out = []
    block, r = divmod(config.steps, config.k)
    runs = {block} | ({block + 1} if r else set()) | ({config.steps} if 1 < config.k < config.steps else set())
    for t in sorted(runs):
        reduced, points = planned(
            law, t, epsilon_max=epsilon_max, grid_step=settings.grid_step, tail=settings.tail, delta_floor=delta_floor
        )
        if reduced:
            out.append((t, "geometric", grid_points(law, t, GEOMETRIC_ALPHA, geometric_beta(delta_floor))))
        else:
            out.append((t, "uniform" if delta_floor is None else "uniform-tail", points))
    return out


def _geometric(laws: dict, steps: int, delta_floor, notes: list, tick) -> dict:
    """The geometric-grid PLDs. In tail-accurate mode (delta_floor) β ≤ 1e-3·floor: the truncated tail (≤ 2β, sent
    to +inf in the upper PLDs) stays small against the target, and the grid's float budget is relative to each
    mass (geometric_conv), so it holds at δ = 1e-30 as well."""
    beta = geometric_beta(delta_floor)
    out = {}
    for d in BOTH:
        for b in Bound:
            tick(f"geometric allocation {d} {b}")
            out[d, b], _ = allocation_pld_geometric(laws[b], steps, d.value, b.value, alpha=GEOMETRIC_ALPHA, beta=beta)
    notes.append(
        f"t={steps}: heavy tails exceed the uniform exp-grid; used the geometric-grid algorithm "
        f"(alpha={GEOMETRIC_ALPHA:g}, beta={beta:g})"
    )
    return out


def geometric_beta(delta_floor: float | None) -> float:
    """β of the geometric grid: GEOMETRIC_BETA, at most 1e-3·floor in tail-accurate mode."""
    return GEOMETRIC_BETA if delta_floor is None else min(GEOMETRIC_BETA, 1e-3 * delta_floor)


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


def _compose_epochs(parts: Epochs, dirs: tuple, settings: Settings, step: float, tick) -> dict:
    """{(direction, bound): PLD} of the composed epochs from the one-epoch PLDs, on the loss grid `step`: each
    bound's parts [(PLDs, copies)] composed `copies` times and then with each other (F48)."""
    out = {}
    for d in dirs:
        for b in Bound:
            bound_parts = parts.parts(b)
            if len(bound_parts) == 1 and bound_parts[0][1] == 1:  # one PLD used as built: no loss grid
                out[d, b] = bound_parts[0][0][d, b]
                continue
            composed = []
            for source, copies in bound_parts:
                tick(f"compose {copies}x {d} {b}")
                composed.append(self_compose(regrid(source[d, b], step, b.value), copies, settings.tail, step))
            out[d, b] = reduce(lambda x, y: truncate(compose(x, y, step), settings.tail), composed)
    return out


def finer_epochs(table: PldTable, settings: Settings, quantity: str, at, progress=None) -> PldTable:
    """The table with its epochs composed again on a finer loss step when the answer's bracket is wide
    (`finer_step`, `recompose`)."""
    step = finer_step(table, settings, quantity, at)
    return table if step is None else recompose(table, settings, step, progress)


def finer_step(table: PldTable, settings: Settings, quantity: str, at) -> float | None:
    """The finer loss step to compose the table's epochs on (`_epoch_step`), or None to keep them: a step when the
    bracket of the answer — ε(δ = at) or δ(ε = at), max over the directions built — is wider than 1 %. The ε it is
    about: the upper ε, or `at` for δ; times settings.loss_step over the default step (so that a finer loss step, as
    in certify's schedule, refines the composition too)."""
    if table.epochs is None:
        return None
    at = float(at)
    if quantity == "epsilon":
        lo, hi = (f(table[d, b].epsilon(at) for d in table.built) for f, b in ((min, "lower"), (max, "upper")))
        about = hi
    else:
        lo, hi = (
            f(float(table[d, b].delta_bound(at)) for d in table.built) for f, b in ((min, "lower"), (max, "upper"))
        )
        about = abs(at)
    if not hi - lo > 0.01 * hi:  # narrow already (or no finite upper end to refine towards)
        return None
    span = max((p.losses[-1] - p.losses[0] for p in table.plds.values() if p.losses.size), default=0.0)
    scale = settings.loss_step / Settings().loss_step
    step = _epoch_step(settings, sum(copies for _, copies in table.epochs.upper), about * scale, span)
    return None if step >= 0.5 * settings.loss_step else step


def recompose(table: PldTable, settings: Settings, step: float, progress=None) -> PldTable:
    """The table with its epochs composed again on the loss step `step` (the one-epoch PLDs are kept)."""
    finer = _compose_epochs(table.epochs, table.built, settings, step, progress or (lambda stage: None))
    return replace(table, plds=finer).noted(_EPOCH_STEP_NOTE.format(step))


def compose_tables(tables: list, settings: Settings, progress=None) -> PldTable:
    """The table of the composition of independent parts (the events of a ledger): for each direction built and
    each bound, the parts' PLDs regridded onto settings.loss_step and composed (F48: upper with upper, lower with
    lower; their float budgets add), the tail truncated after each composition."""
    tick = progress or (lambda stage: None)
    built = tables[0].built
    out = {}
    for d in built:
        for b in Bound:
            tick(f"compose {len(tables)} events {d} {b}")
            parts = [regrid(t[d, b], settings.loss_step, b.value) for t in tables]
            out[d, b] = reduce(
                lambda x, y: truncate(compose(x, y, settings.loss_step), settings.tail),
                parts,
            )
    notes = tuple(dict.fromkeys(n for t in tables for n in t.notes))
    return PldTable(out, notes + (f"{len(tables)} events composed (F48)",), built=built)
