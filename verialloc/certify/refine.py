"""Budgeted refinement: certified brackets from successively finer methods until the verdict is decided.

Schedule (docs/certify.md):
1. the exact method when it is cheap — finite pairs with few count vectors (`exact_is_cheap`), the Gaussian
   composition route (k = t or Poisson rate 1, F13), or continuous pairs with t·E ≤ 2 (closed form / quadrature),
   widened by 10^(2 − digits) (relative) for the printed digits, retried at more digits while the claim lies
   within that widening (exact_step) (quadrature: an *estimated* error, "quadrature");
2. the pld pipeline (numeric.pld.pipeline: the pld method's own, with its tail, tail-accurate, window, epoch and
   k > 1 rules and its tightened lower ends) with loss_step 1e-3 → 3e-4 → 1e-4 → 3e-5 → 1e-5, tail = min(1e-15,
   1e-3·δ) with δ the target (ε claims) or the claim (δ claims), evaluated by the PLDs' certified evaluators
   (`PLD.delta_bound`, `PLD.epsilon_bound`; per direction, F2; "both" = max, F3); 3. best (`_best_step`).
The certified bracket is the intersection of every step's bracket (each is sound, except that a quadrature
step's error is an estimate, labelled "quadrature" in reports; ±inf ends are kept: an exact +inf stays [+inf, +inf]).
`strict=True` intersects only rigorous brackets (error_kind "exact" or "bound"): a quadrature step is recorded but
skipped, and the pld schedule runs after it. Stops as soon as the verdict is decided, when the next step's predicted time
(GROWTH × the last pld step, or before the first pld step the cost model's estimate, verialloc.cost) exceeds the
remaining budget, when a step tightens the bracket by less than MIN_GAIN, or when the schedule ends. When not even
the first step fits, `cost.BudgetExceeded` is raised before any work, naming the driving parameter and the nearest
feasible setting.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import mpmath as mp

from .. import cost, registry
from ..config import Config
from ..errors import InvalidParameter, UnsupportedRequest, python_remedies, chooses_methods
from ..ledger import ledger_of
from ..mp_lock import serialized
from ..numeric.pld import pipeline
from ..numeric.pld.settings import Settings
from ..numeric.pld.table import PldTable
from ..validation import abbreviated, as_float, direction as check_direction, positive
from .exact_step import ESCALATED_DIGITS, EXACT_DIGITS, exact_bracket, exact_is_cheap, widening
from .verdict import Claim, decide

LOSS_STEPS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5)
GROWTH = 3.0
MIN_GAIN = 0.05
DEFAULT_BUDGET = 60
#: error kinds whose brackets are bounds (docs: verialloc.result.Bracket); the others are estimates
RIGOROUS = ("exact", "bound")
#: how a step whose error is estimated, not bounded, is named in reports
LABELS = {"quadrature": "quadrature (estimated error)", "statistical": "Monte Carlo (statistical, not a bound)"}


@dataclass
class Step:
    """One refinement step: the method and its settings, the bracket it certified, its cost and budget."""

    method: str
    settings: dict
    lower: mp.mpf
    upper: mp.mpf
    seconds: float
    error_kind: str
    budget: dict
    skipped: bool = False  # strict mode: recorded, not intersected (its error is estimated, not bounded)

    @property
    def rigorous(self) -> bool:
        return self.error_kind in RIGOROUS

    @property
    def name(self) -> str:
        """What certified a side: "exact", "pld", or the estimate it is ("quadrature", "statistical")."""
        return self.method if self.rigorous else self.error_kind

    @property
    def label(self) -> str:
        return LABELS.get(self.error_kind, self.name)


@dataclass
class Certificate:
    """The certified bracket of the claimed quantity, which step gave each side, and the verdict."""

    claim: Claim
    config: Config
    direction: str
    lower: mp.mpf
    upper: mp.mpf
    lower_step: int
    upper_step: int
    verdict: str
    steps: list
    stop_reason: str
    budget_seconds: float
    elapsed: float
    table: dict | None = field(default=None, repr=False)  # the last PLD table (for the report's profile plot)
    strict: bool = False
    #: an ε claim >= 0: the bracket is of max(ε(δ), 0) (`floor_at_zero`), the ε of (ε, δ)-DP, ε >= 0
    floored: bool = False

    def __str__(self) -> str:
        q = self.claim.quantity
        at = "delta" if q == "epsilon" else "epsilon"
        return (
            f"{self.verdict.upper()}: {q}({at}={self.claim.at}) <= {self.claim.value} [direction {self.direction}]; "
            f"certified {q} in [{mp.nstr(self.lower, 8)}, {mp.nstr(self.upper, 8)}] (lower by "
            f"{self.methods['lower']}, upper by {self.methods['upper']}; {len(self.steps)} step(s), "
            f"{self.elapsed:.1f} s)"
        )

    def __repr__(self) -> str:
        return f"<Certificate {self}>"

    def side(self, which: str) -> Step | None:
        """The step that certified the lower or upper end (None: no step did; the end is ∓inf)."""
        i = self.lower_step if which == "lower" else self.upper_step
        return self.steps[i] if i >= 0 else None

    @property
    def methods(self) -> dict:
        """Per side: "exact" or "pld" (rigorous), "quadrature" (estimated error), or "none"."""
        return {w: s.name if (s := self.side(w)) is not None else "none" for w in ("lower", "upper")}

    @property
    def error_kinds(self) -> dict:
        return {w: s.error_kind if (s := self.side(w)) is not None else "none" for w in ("lower", "upper")}

    @property
    def rigorous(self) -> bool:
        """True when both ends are bounds (exact or pld), not estimates."""
        return all((s := self.side(w)) is None or s.rigorous for w in ("lower", "upper"))


@serialized
@python_remedies
@chooses_methods("certify chooses among the exact layer, pld and best itself")
def certify(
    config: Config,
    claim: Claim,
    direction: str = "both",
    budget=DEFAULT_BUDGET,
    progress=None,
    loss_steps=LOSS_STEPS,
    use_exact: bool = True,
    strict: bool = False,
) -> Certificate:
    """Certified bracket and verdict for `claim` about `config`, refined within `budget` seconds (schedule above).

    use_exact=False skips step 1 (pld only); loss_steps replaces the pld schedule; strict=True decides on
    rigorous bounds only (a quadrature step is recorded as skipped and the pld schedule follows)."""
    d = check_direction(direction)
    seconds = as_float("budget", budget, positive)
    if seconds < cost.BASE_SECONDS:  # as every query's: below the fixed overhead nothing is computed in time
        raise InvalidParameter(
            "budget", f"{seconds:g}", f"must be at least {cost.BASE_SECONDS:g} s (the fixed overhead of any query)"
        )
    if progress is not None and not callable(progress):
        raise InvalidParameter("progress", abbreviated(progress), "must be a callable progress(stage) or None")
    if not isinstance(strict, bool):
        raise InvalidParameter("strict", abbreviated(strict), "must be True or False")
    start = time.perf_counter()
    steps: list[Step] = []
    lower, upper, lo_i, hi_i = mp.mpf("-inf"), mp.mpf("inf"), -1, -1
    table, reason, last_pld, eps_hint = None, "schedule exhausted", None, None

    def record(step: Step) -> str:
        nonlocal lower, upper, lo_i, hi_i
        step.lower, step.upper = _sane(step.lower, "lower"), _sane(step.upper, "upper")
        steps.append(step)
        if strict and not step.rigorous:
            step.skipped = True
            return decide(claim.value, lower, upper)
        i = len(steps) - 1
        if lo_i < 0 or step.lower > lower:  # the first used step names each side, even when its end is -inf
            lower, lo_i = step.lower, i
        if hi_i < 0 or step.upper < upper:
            upper, hi_i = step.upper, i
        if lower > upper:
            raise InvalidParameter("bracket", f"[{lower}, {upper}]", "certified steps disagree (lower > upper): a bug")
        return decide(claim.value, lower, upper)

    verdict = "inconclusive"
    exact = _exact_step(config, claim, d) if use_exact and exact_is_cheap(config) else None
    if exact is not None:
        verdict = record(exact)
        if exact.skipped:
            exact = None  # strict: its estimate decides nothing, the pld schedule runs
        else:
            for digits in ESCALATED_DIGITS:  # the claim within the widening: more digits while the budget allows
                left = seconds - (time.perf_counter() - start)
                if verdict != "inconclusive" or GROWTH * exact.seconds > left:
                    break
                finer = _exact_step(config, claim, d, digits)
                if finer is None:
                    break
                exact, verdict = finer, record(finer)
            reason = "decided" if verdict != "inconclusive" else "the claim lies within the exact value's widening"
    for loss_step in () if exact is not None or verdict != "inconclusive" else loss_steps:
        try:
            left = seconds - (time.perf_counter() - start)
            options = {"settings": settings_for(claim, loss_step)}
            if last_pld is not None:
                predicted = GROWTH * last_pld
            else:
                if not steps:  # nothing certified yet: a request that cannot fit at all is refused, naming its size
                    _check_first(claim, config, options, left, seconds)
                predicted = cost.estimate(claim.quantity, config, "pld", claim.at, options).seconds
            if predicted > left:
                reason = f"budget: the next step would exceed {seconds:g} s"
                break
            width = _width(lower, upper)
            t0 = time.perf_counter()
            step, table, eps_hint = _pld_step(config, claim, d, loss_step, eps_hint, progress)
            step.seconds = last_pld = time.perf_counter() - t0
            verdict = record(step)
        except UnsupportedRequest as exc:  # pld cannot serve the claim at all (a grid too large, a range): best's
            if steps or isinstance(exc, cost.BudgetExceeded):  # bracket, each method within the budget left
                raise
            verdict = record(_best_step(config, claim, d, seconds - (time.perf_counter() - start)))
            reason = "decided" if verdict != "inconclusive" else f"pld cannot serve this claim ({exc.supported})"
            break
        if verdict != "inconclusive":
            reason = "decided"
            break
        new = _width(lower, upper)
        if new > (1 - MIN_GAIN) * width or (mp.isinf(width) and mp.isinf(new)):
            reason = "refinement no longer tightens the bracket (limit of the pld method here)"
            break
    floored = claim.quantity == "epsilon" and claim.value >= 0 and lower < 0
    if floored:
        lower, upper = floor_at_zero(lower, upper)
    return Certificate(
        claim,
        config,
        d,
        lower,
        upper,
        lo_i,
        hi_i,
        verdict,
        steps,
        reason,
        seconds,
        time.perf_counter() - start,
        table,
        strict,
        floored,
    )


def floor_at_zero(lower, upper) -> tuple:
    """The bracket of max(ε(δ), 0) from one of ε(δ): the ε of (ε, δ)-DP is >= 0, while ε(δ) = inf{ε : δ(ε) <= δ}
    over all real ε can lie below 0 (down to ln(1 − δ), the trivial lower end I1, when δ(0) = TV(P, Q) <= δ).
    max(·, 0) is monotone, so the ends stay bounds; a claim ε >= 0 gets the same verdict from either bracket."""
    zero = mp.mpf(0)
    return max(lower, zero), max(upper, zero)


def _sane(x, side: str) -> mp.mpf:
    """A step's bracket end as mpf, an mpf kept at its own precision (mp.mpf(x) would round a 30-digit exact end to
    nearest at 53 bits, seed run 271); NaN (no information) becomes the trivial end (−inf lower, +inf upper)."""
    x = x if isinstance(x, mp.mpf) else mp.mpf(x)
    return (mp.mpf("-inf") if side == "lower" else mp.mpf("inf")) if mp.isnan(x) else x


def _width(lower: mp.mpf, upper: mp.mpf) -> mp.mpf:
    """upper − lower without inf − inf: equal ends (finite or both +inf) have width 0."""
    return mp.mpf(0) if lower == upper else upper - lower


def _exact_step(config: Config, claim: Claim, direction: str, digits: int = EXACT_DIGITS) -> Step | None:
    got = exact_bracket(config, claim, direction, digits)
    if got is None:
        return None
    lo, hi, kind, seconds = got
    label = f", {LABELS.get(kind, kind)})" if kind not in RIGOROUS else ")"
    return Step(
        "exact",
        {"digits": digits},
        lo,
        hi,
        seconds,
        kind,
        {"widening": f"relative {mp.nstr(widening(digits), 3)} (printed digits{label}"},
    )


def _check_first(claim: Claim, config, options: dict, left: float, seconds: float) -> None:
    """The first pld step's cost check; a budget below its fixed overhead is named as the user gave it."""
    try:
        cost.check(claim.quantity, config, "pld", claim.at, options, cost.Budget(seconds=max(left, 1e-3)))
    except cost.BudgetExceeded as exc:
        if exc.name != "budget":  # cost.check names the budget when it is the cause
            raise
        need = exc.estimate.seconds + (seconds - left)
        raise cost.BudgetExceeded(
            "budget",
            f"{seconds:g}",
            f"certify needs about {need:.2g} s for its first step; raise --budget (e.g. --budget {max(need, 1):.2g})",
            exc.estimate,
            exc.budget,
        ) from None


def settings_for(claim: Claim, loss_step: float) -> Settings:
    """PLD settings of one step: the tail kept far below the δ that matters (target or claim)."""
    scale = float(claim.at if claim.quantity == "epsilon" else claim.value)
    tail = 1e-15 if scale <= 0 else max(min(1e-15, 1e-3 * scale), 1e-300)
    return Settings(loss_step=loss_step, tail=tail)


def _best_step(config: Config, claim: Claim, direction: str, left: float) -> Step:
    """Method best's bracket (pld, rdp, analytic, each within the budget left) for a claim the pld schedule cannot
    serve at all; best's refusal names every method's reason (hostile-user pass: σ = 0.3, t = 10⁵, E = 10)."""
    from .. import api

    t0, ask = time.perf_counter(), api.epsilon if claim.quantity == "epsilon" else api.delta
    b = ask(config, claim.at, direction=direction, method="best", budget=max(left, 0.1))
    notes = {"notes": list(b.details.get("notes", [])), "upper_from": b.details.get("upper_from")}
    return Step("best", {}, mp.mpf(b.lower), mp.mpf(b.upper), time.perf_counter() - t0, "bound", notes)


def _pld_step(config: Config, claim: Claim, direction: str, loss_step: float, eps_hint, progress):
    """One refinement step: the pld pipeline (numeric.pld.pipeline, the one the pld method runs) at this step's
    settings, a δ claim below its tiny-δ threshold kept in the tail-accurate mode; the window reached is the next
    step's start."""
    settings = settings_for(claim, loss_step)
    floor = None
    if claim.quantity == "delta" and 0 < claim.value < pipeline.TINY_DELTA:
        # the floor only sets the accuracy kept: a claim below float64's δ range (1e-400 is 0.0: ZeroDivisionError,
        # 1e-320 overflowed) is kept to that range's bottom — a δ above it still refutes, none certifies it
        floor = max(float(claim.value), float(registry.method("pld").float_range.delta_min))
    ans = pipeline.answer(
        config,
        claim.quantity,
        claim.at,
        direction,
        settings,
        epsilon_max=eps_hint or 0.0,
        delta_floor=floor,
        progress=progress,
    )
    table = ans.table
    budget = {
        d.value: {
            "truncated": {b: table[d, b].truncated for b in ("lower", "upper")},
            "float_error": {b: table[d, b].float_error for b in ("lower", "upper")},
            "evaluation_rounding": {b: table[d, b].evaluation_rounding() for b in ("lower", "upper")},
        }
        for d in ans.ends
    }
    budget["notes"] = list(table.notes) + [n for end in ans.ends.values() for n in end.notes if n not in table.notes]
    step = Step(
        "pld",
        {"loss_step": loss_step, "tail": settings.tail},
        mp.mpf(ans.lower),
        mp.mpf(ans.upper),
        0.0,
        "bound",
        budget,
    )
    return step, table, (ans.epsilon_max if claim.quantity == "epsilon" else None)


def profile_table(config, claim: Claim, epsilon_max: float) -> PldTable:
    """A PLD table at the schedule's first settings, resolved up to epsilon_max (for plotting a profile the exact
    method did not need): one configuration's, or a ledger's events composed."""
    builds, settings = pipeline.Builds(), settings_for(claim, LOSS_STEPS[0])
    tables = [builds.table(e, settings, epsilon_max, None, "both") for e in ledger_of(config).events]
    return tables[0] if len(tables) == 1 else builds.composed(tables, settings)
