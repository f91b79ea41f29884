"""Budgeted refinement: certified brackets from successively finer methods until the verdict is decided.

Schedule (docs/certify.md):
1. the exact method when it is cheap — finite pairs with few count vectors (`exact_is_cheap`), the Gaussian composition route
   (allocation k = t or Poisson rate 1, F13), or continuous pairs with t·E ≤ 2 (closed form / quadrature);
   its value is widened by EXACT_WIDEN (relative) to cover the printed digits (quadrature: an *estimated* error,
   error_kind "quadrature" in the step record);
2. method "pld" with loss_step 1e-3 → 3e-4 → 1e-4 → 3e-5 → 1e-5, tail = min(1e-15, 1e-3·δ) with δ the target
   (ε claims) or the claim (δ claims), evaluated by `float_error` (lower and upper certified per direction, F2;
   "both" = max over directions, F3).
The certified bracket is the intersection of every step's bracket (each is sound). Stops as soon as the verdict
is decided, when the next step's predicted time (GROWTH × the last pld step) exceeds the remaining budget, when
a step tightens the bracket by less than MIN_GAIN, or when the schedule ends.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath as mp

from ..config import Config
from ..errors import InvalidParameter, UnsupportedRequest
from ..exact import accountant as exact_accountant
from ..mechanisms import FinitePair, Gaussian
from ..numeric import accountant as pld_accountant
from ..numeric.accountant import Settings
from ..validation import direction as check_direction, positive
from . import float_error
from .verdict import Claim, decide

LOSS_STEPS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5)
EXACT_DIGITS = 12
EXACT_WIDEN = mp.mpf(10) ** (2 - EXACT_DIGITS)
#: count enumeration costs roughly 0.15 ms per count vector
EXACT_MAX_COUNTS = 20_000
GROWTH = 3.0
MIN_GAIN = 0.05
DEFAULT_BUDGET = 60


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

    @property
    def methods(self) -> dict:
        return {"lower": self.steps[self.lower_step].method, "upper": self.steps[self.upper_step].method}


def certify(config: Config, claim: Claim, direction: str = "both", budget=DEFAULT_BUDGET, progress=None,
            loss_steps=LOSS_STEPS, use_exact: bool = True) -> Certificate:
    """Certified bracket and verdict for `claim` about `config`, refined within `budget` seconds (schedule above).

    use_exact=False skips step 1 (pld only); loss_steps replaces the pld schedule."""
    d = check_direction(direction)
    seconds = float(positive("budget", budget))
    start = time.perf_counter()
    steps: list[Step] = []
    lower, upper, lo_i, hi_i = mp.mpf("-inf"), mp.mpf("inf"), -1, -1
    table, reason, last_pld, eps_hint = None, "schedule exhausted", None, None

    def record(step: Step) -> str:
        nonlocal lower, upper, lo_i, hi_i
        steps.append(step)
        if step.lower > lower:
            lower, lo_i = step.lower, len(steps) - 1
        if step.upper < upper:
            upper, hi_i = step.upper, len(steps) - 1
        if lower > upper:
            raise InvalidParameter("bracket", f"[{lower}, {upper}]", "certified steps disagree (lower > upper): a bug")
        return decide(claim.value, lower, upper)

    verdict = "inconclusive"
    exact = _exact_step(config, claim, d) if use_exact and exact_is_cheap(config) else None
    if exact is not None:
        verdict = record(exact)
        reason = "decided" if verdict != "inconclusive" else "the claim lies within the exact value's widening"
    for loss_step in () if exact is not None else loss_steps:
        if last_pld is not None and time.perf_counter() - start + GROWTH * last_pld > seconds:
            reason = f"budget: the next step would exceed {seconds:g} s"
            break
        width = upper - lower
        t0 = time.perf_counter()
        step, table, eps_hint = _pld_step(config, claim, d, loss_step, eps_hint, progress)
        step.seconds = last_pld = time.perf_counter() - t0
        verdict = record(step)
        if verdict != "inconclusive":
            reason = "decided"
            break
        if upper - lower > (1 - MIN_GAIN) * width or (mp.isinf(width) and mp.isinf(upper - lower)):
            reason = "refinement no longer tightens the bracket (limit of the pld method here)"
            break
    return Certificate(claim, config, d, lower, upper, lo_i, hi_i, verdict, steps, reason, seconds,
                       time.perf_counter() - start, table)


def exact_is_cheap(config: Config) -> bool:
    """Cheap exact routes: finite pairs with at most EXACT_MAX_COUNTS count vectors C(t·E + m − 1, m − 1) (m atoms),
    F13 compositions, continuous pairs with t·E ≤ 2."""
    n = config.steps * config.epochs
    if isinstance(config.mechanism, FinitePair):
        atoms = len(config.mechanism.symbolic_probabilities()[0])
        return math.comb(n + atoms - 1, atoms - 1) <= EXACT_MAX_COUNTS
    always = config.k == config.steps if config.scheme == "allocation" else config.rate == 1
    if isinstance(config.mechanism, Gaussian) and always:
        return True
    return n <= 2 and (config.scheme == "poisson" or config.k in (1, config.steps))


def _exact_step(config: Config, claim: Claim, direction: str) -> Step | None:
    t0 = time.perf_counter()
    query = exact_accountant.epsilon if claim.quantity == "epsilon" else exact_accountant.delta
    try:
        b = query(config, claim.at, direction, EXACT_DIGITS)
    except UnsupportedRequest:
        return None
    kind = "quadrature" if b.error_kind == "quadrature" or any(
        isinstance(v, type(b)) and v.error_kind == "quadrature" for v in b.details.values()) else "exact"
    lo = b.lower - abs(b.lower) * EXACT_WIDEN
    hi = b.upper + abs(b.upper) * EXACT_WIDEN
    if claim.quantity == "delta":
        lo, hi = max(lo, mp.mpf(0)), min(hi, mp.mpf(1))
    return Step("exact", {"digits": EXACT_DIGITS}, lo, hi, time.perf_counter() - t0, kind,
                {"widening": f"relative {mp.nstr(EXACT_WIDEN, 3)} (printed digits"
                 + (", estimated quadrature error)" if kind == "quadrature" else ")")})


def settings_for(claim: Claim, loss_step: float) -> Settings:
    """PLD settings of one step: the tail kept far below the δ that matters (target or claim)."""
    scale = float(claim.at if claim.quantity == "epsilon" else claim.value)
    tail = 1e-15 if scale <= 0 else max(min(1e-15, 1e-3 * scale), 1e-300)
    return Settings(loss_step=loss_step, tail=tail)


def _pld_step(config: Config, claim: Claim, direction: str, loss_step: float, eps_hint, progress):
    settings = settings_for(claim, loss_step)
    small = float(claim.at if claim.quantity == "epsilon" else claim.value)
    floor = small if 0 < small < pld_accountant.TINY_DELTA else None
    eps_max = abs(float(claim.at)) if claim.quantity == "delta" else (eps_hint or 0.0)
    table = pld_accountant.plds(config, settings, epsilon_max=eps_max, progress=progress, delta_floor=floor)
    dirs = ("remove", "add") if direction == "both" else (direction,)
    per = {d: _evaluate(table, d, claim) for d in dirs}
    if claim.quantity == "epsilon" and "window_loss" in table:
        top = max(hi for _, hi in per.values())
        if math.isfinite(top) and top > table["window_loss"]:  # answer beyond the resolved window: widen it
            eps_max = 1.25 * top + 0.01
            table = pld_accountant.plds(config, settings, epsilon_max=eps_max, progress=progress, delta_floor=floor)
            per = {d: _evaluate(table, d, claim) for d in dirs}
    lo = max(v[0] for v in per.values())
    hi = max(v[1] for v in per.values())
    if claim.quantity == "epsilon" and math.isfinite(hi):
        eps_hint = max(eps_max, 1.25 * hi + 0.01)
    budget = {
        d: {"truncated": {b: table[d, b].truncated for b in ("lower", "upper")},
            "float_error": {b: table[d, b].float_error for b in ("lower", "upper")},
            "evaluation_rounding": {b: float_error.eta(table[d, b]) for b in ("lower", "upper")}}
        for d in dirs}
    budget["notes"] = list(table["notes"])
    step = Step("pld", {"loss_step": loss_step, "tail": settings.tail}, mp.mpf(lo), mp.mpf(hi), 0.0, "bound", budget)
    return step, table, eps_hint


def _evaluate(table: dict, d: str, claim: Claim) -> tuple[float, float]:
    low, high = table[d, "lower"], table[d, "upper"]
    if claim.quantity == "epsilon":
        return float_error.epsilon_lower(low, claim.at), float_error.epsilon_upper(high, claim.at)
    return float_error.delta_lower(low, claim.at), float_error.delta_upper(high, claim.at)


def profile_table(config: Config, claim: Claim) -> dict:
    """A PLD table at the schedule's first settings (for plotting a profile the exact method did not need)."""
    return pld_accountant.plds(config, settings_for(claim, LOSS_STEPS[0]), epsilon_max=2 * abs(float(claim.value)))
