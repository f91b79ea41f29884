"""Method "best": the tightest valid bracket over the float64 methods, per direction (I11, F51-style combination).

Upper = the minimum of every valid upper bound (pld, rdp, analytic) for the request; lower = the maximum of every
valid lower bound (pld gives the only non-trivial one). The methods run in ORDER (pld first: the only non-trivial
lower end, and the fastest at most settings; analytic last: the slowest), and the run stops once the answer (for "both"
the maximum over the directions) is within `target_gap` (relative width); `target_gap=0` runs them all. A method that cannot serve the
request (UnsupportedRequest) or was not needed is skipped and the reason recorded; `details["upper_from"]` /
`["lower_from"]` name the winners. `direction="both"` is the maximum over the directions' best (F3).
"""

from __future__ import annotations

import mpmath as mp

from ...budget import Estimate, current_budget, fraction_or_none
from ...config import Config
from ...ledger import ledger_of
from ...errors import UnsupportedRequest
from ...result import Bracket, max_bracket
from ...validation import as_float, direction as check_direction, nonnegative
from ..analytic.method import METHOD as ANALYTIC
from ..pld.method import METHOD as PLD
from ..rdp.method import METHOD as RDP

METHOD = "best"
#: the combined methods (verialloc.method.Method objects) in the order they run; pld alone takes the accuracy
#: options (settings)
ORDER = (PLD, RDP, ANALYTIC)
#: default relative bracket width at which best stops asking further methods
TARGET_GAP = 1e-2


def delta(
    config: Config,
    epsilon,
    direction: str = "both",
    digits: int = 30,
    progress=None,
    target_gap: float = TARGET_GAP,
    **options,
) -> Bracket:
    """Bracket for δ(ε): min over valid uppers, max over valid lowers, per direction, stopping once the bracket is
    within `target_gap` (relative). progress(stage) is called with stages "best <method>: ..." (one per sub-method,
    and the sub-method's own stages)."""
    return _best("delta", config, epsilon, direction, digits, options, progress, target_gap)


def epsilon(
    config: Config,
    delta,
    direction: str = "both",
    digits: int = 30,
    progress=None,
    target_gap: float = TARGET_GAP,
    **options,
) -> Bracket:
    """Bracket for ε(δ): min over valid uppers, max over valid lowers, per direction (progress and target_gap as
    in delta)."""
    return _best("epsilon", config, delta, direction, digits, options, progress, target_gap)


def rdp(config: Config, alpha, digits: int = 30) -> Bracket:
    return RDP.rdp(config, alpha, digits)


def _best(
    query: str, config: Config, value, direction: str, digits: int, options: dict, progress, target_gap
) -> Bracket:
    d = check_direction(direction)
    gap = as_float("target_gap", target_gap, nonnegative)
    directions = ("remove", "add") if d == "both" else (d,)
    per_method = {}
    for method in ORDER:
        if per_method and _within(query, directions, per_method, gap):
            reason = f"not run: the bracket is already within target_gap = {gap:g}"
            per_method[method.name] = {d_: reason for d_ in directions}
            continue
        kwargs = dict(options) if method is PLD else {}
        out_of_range = _epsilon_out_of_range(method, query, value)
        if out_of_range is not None:
            per_method[method.name] = {d_: out_of_range for d_ in directions}
            continue
        over = _over_budget(method, query, config, value, directions, digits, kwargs)
        if over is not None:
            per_method[method.name] = {d_: over for d_ in directions}
            continue
        if progress is not None:
            tick = _prefixed(progress, f"best {method.name}")
            tick("start")
            kwargs["progress"] = tick
        per_method[method.name] = _answers(method, query, config, value, directions, digits, kwargs)
    combined = [_combine(query, d_, {name: answers[d_] for name, answers in per_method.items()}) for d_ in directions]
    return combined[0] if d != "both" else max_bracket(*combined)


def _within(query: str, directions: tuple, per_method: dict, gap: float) -> bool:
    """Whether the answer so far (the max over the directions, F3) has upper − lower ≤ gap·|upper|, finite ends."""
    try:
        combined = [_combine(query, d, {name: answers[d] for name, answers in per_method.items()}) for d in directions]
        b = combined[0] if len(combined) == 1 else max_bracket(*combined)
    except UnsupportedRequest:
        return False
    lower, upper = mp.mpf(b.lower), mp.mpf(b.upper)  # not float: an end of 1e-338 is not 0
    return mp.isfinite(lower) and mp.isfinite(upper) and upper - lower <= gap * abs(upper)


def _epsilon_out_of_range(method, query: str, value) -> str | None:
    """Why `method` is not run on a δ query at |ε| beyond its float64 range (`FloatRange.epsilon`: rdp and analytic
    stop at 700, pld serves any ε); best's own range is pld's."""
    limit = method.float_range.epsilon
    eps = fraction_or_none(value) if query == "delta" else None
    if limit is None or eps is None or abs(eps) <= limit:
        return None
    return f"not run: {method.name} (float64) supports epsilon in [-{limit}, {limit}]"


def _over_budget(method, query: str, config, value, directions: tuple, digits: int, kwargs: dict) -> str | None:
    """Why `method` is not run: its own estimate exceeds the running query's budget (best's estimate counts the
    methods it expects to run; one that refuses at run time, e.g. pld on a geometric grid too large, hands its part to
    the next, which must then fit on its own). None when it fits or cannot be estimated (its query says why)."""
    budget = current_budget()
    try:
        d = "both" if len(directions) == 2 else directions[0]
        events = ledger_of(config).events
        est = sum((method.estimate(query, e, value, kwargs, digits, d) for e in events), Estimate(0.0, 0.0, ""))
    except UnsupportedRequest:
        return None
    if est.fits(budget):
        return None
    return f"not run: estimated {est.describe()}, over the budget of {budget.seconds:g} s and {budget.memory / 2**30:g} GiB"


def _prefixed(progress, prefix: str):
    """progress with every stage prefixed ("best pld: <stage>")."""
    return lambda stage: progress(f"{prefix}: {stage}")


def _answers(method, query: str, config: Config, value, directions: tuple, digits: int, kwargs: dict) -> dict:
    """{direction: Bracket or the reason it is unsupported}; a "both" query is asked once when the method serves
    it (pld builds both directions from one set of PLDs). `kwargs`: the method's own keywords."""
    ask = getattr(method, query)
    if len(directions) == 2:
        try:
            both = ask(config, value, "both", digits, **kwargs)
            return {d: both.details[d] for d in directions}
        except UnsupportedRequest:
            pass  # e.g. rdp serves remove only: ask per direction
    out = {}
    for d in directions:
        try:
            out[d] = ask(config, value, d, digits, **kwargs)
        except UnsupportedRequest as exc:
            out[d] = str(exc)
    return out


def _combine(query: str, d: str, answers: dict) -> Bracket:
    results = {name: b for name, b in answers.items() if isinstance(b, Bracket)}
    skipped = {name: why for name, why in answers.items() if not isinstance(why, Bracket)}
    if not results:
        raise UnsupportedRequest(
            "method",
            METHOD,
            "no float64 method serves this request: " + "; ".join(f"{name}: {why}" for name, why in skipped.items()),
        )
    upper_from = min(results, key=lambda name: results[name].upper)
    lower_from = max(results, key=lambda name: results[name].lower)
    details = {
        "upper_from": upper_from,
        "lower_from": lower_from,
        "skipped": skipped,
        "candidates": {name: (str(b.lower), str(b.upper)) for name, b in results.items()},
    }
    for key in ("truncated", "float_error", "notes"):
        if key in results[upper_from].details:
            details[key] = results[upper_from].details[key]
    return Bracket(query, results[lower_from].lower, results[upper_from].upper, METHOD, d, "bound", details)
