"""Cost model: a request is checked *before* it starts — parameters a method cannot represent, and an estimated time
or memory beyond the per-query budget, are refused naming the parameter that drives the cost and the nearest
setting that fits.

Each method estimates its own cost beside its code (`Method.estimate`: exact/cost.py, numeric/<route>/cost.py, with
the constants timed for it; docs/cli.md, "Cost model and budgets") and declares the float64 range it represents
(`Method.float_range`, with the mechanism's `float_limits`). This module is what is shared: `estimate` and `check`
by method name, the search for the nearest feasible size, and the refusal's wording (`BudgetExceeded`, an
UnsupportedRequest; `Budget`, `Estimate`: verialloc.budget).
"""

from __future__ import annotations

import decimal
import math
import sys
from fractions import Fraction

from . import registry
from .budget import (
    BASE_SECONDS,
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    Budget,
    BudgetExceeded,
    Estimate,
    bytes_text,
    fraction_or_none,
    seconds_text,
    small,
)
from .config import Config
from .errors import InvalidParameter, UnsupportedRequest
from .ledger import ledger_of

__all__ = [
    "BASE_SECONDS",
    "DEFAULT_MEMORY",
    "DEFAULT_SECONDS",
    "Budget",
    "BudgetExceeded",
    "Estimate",
    "check",
    "estimate",
    "parameter_range",
]


def estimate(
    query: str,
    config,
    method: str = "exact",
    value=None,
    options: dict | None = None,
    digits: int = 30,
    direction: str = "both",
) -> Estimate:
    """Estimated cost of `query` ("delta", "epsilon", "rdp") of `config` (a Config, or a Ledger: the sum over its
    events) by `method` (`value`: ε, δ or α; `options`: the method keywords as passed to the API; `direction`:
    remove, add or both)."""
    m, ledger = registry.method(method), ledger_of(config)
    options = options or {}
    if ledger.single is not None:
        return m.estimate(query, ledger.single, value, options, digits, direction)
    total = sum(
        (m.estimate(query, e, value, options, digits, direction) for e in ledger.events), Estimate(0.0, 0.0, "events")
    )
    return Estimate(total.seconds, total.memory, "events", len(ledger.events))


def check(
    query: str,
    config,
    method: str = "exact",
    value=None,
    options: dict | None = None,
    budget=None,
    digits: int = 30,
    direction: str = "both",
) -> Estimate:
    """Refuse (before any work) parameters a method cannot represent and requests whose estimated cost exceeds
    `budget` (a Budget, seconds, or None for the default); returns the estimate otherwise. `config`: a Config or a
    Ledger (every event is checked; the estimate is their sum)."""
    budget = Budget.of(budget)
    m, ledger = registry.method(method), ledger_of(config)
    options = options or {}
    for event in ledger.events:
        parameter_range(query, event, method, value)
        m.check_request(query, event, value, options, direction)
    est = estimate(query, ledger, method, value, options, digits, direction)
    if est.fits(budget):
        return est
    what = (
        f"estimated {est.describe()} exceeds the budget of {seconds_text(budget.seconds)} and "
        f"{bytes_text(budget.memory)}"
    )
    if not small("budget").fits(budget):  # below the fixed overhead no setting fits: the budget is the cause
        raise BudgetExceeded(
            "budget",
            f"{budget.seconds:g}",
            f"{method} {query}: {what}; every query needs at least {small('budget').describe()} (its fixed "
            "overhead): raise --budget",
            est,
            budget,
        )
    larger = _larger_budget(est, budget)
    if ledger.single is None:
        raise BudgetExceeded(
            "events",
            len(ledger.events),
            f"{method} {query} of {len(ledger.events)} events: "
            f"{what}; merge or drop events, or use another --method; {larger}",
            est,
            budget,
        )
    config = ledger.single
    name, current = est.driver, est.value
    if name == "digits":
        name, current, hint = m.fewer_digits(query, config, value, budget, digits, direction)
    else:
        hint = _nearest(query, config, m, value, options, budget, digits, name, current)
    shown = _short(Fraction(current)) if isinstance(current, int) else current
    if hint.startswith(NO_SMALLER):  # the driver is at its smallest (epochs=1): the budget is what binds
        name, shown = "budget", f"{budget.seconds:g}"
    raise BudgetExceeded(name, shown, f"{method} {query}: {what}; {hint}; {larger}", est, budget)


#: the hint when the driving parameter cannot be made smaller (a refusal then names the budget)
NO_SMALLER = "no smaller setting of the request fits"


def _larger_budget(est: Estimate, budget: Budget) -> str:
    """The smallest --budget that admits the request as it is, or why none does (memory: --budget is seconds)."""
    if est.memory > budget.memory:
        return (
            f"its memory ({bytes_text(est.memory)}) exceeds the limit of {bytes_text(budget.memory)}, which "
            "--budget (seconds) does not raise"
        )
    return f"or --budget {_round_up(est.seconds)} (the smallest budget that admits this request as it is)"


def _round_up(s: float) -> str:
    """Seconds rounded up to two significant digits, as a --budget value."""
    if not math.isfinite(s):
        return "inf"
    p = 10.0 ** (math.floor(math.log10(max(s, 1e-3))) - 1)
    return f"{math.ceil(s / p - 1e-9) * p:.10g}"


def _searchable(m, name: str) -> bool:
    """Whether the driving parameter is one the nearest-fit search can vary: the order α of an rdp query, a
    method option, or a size of the configuration."""
    return name == "alpha" or name in m.keywords or name in ("steps", "k", "epochs")


def _nearest(query, config, m, value, options, budget, digits, name, current) -> str:
    """The largest value of the driving parameter (by bisection) whose estimate fits, as advice; where even its
    smallest value does not fit, what does (a coarser loss step) or that no setting of it does."""
    if not isinstance(current, int) or current <= 1 or not _searchable(m, name):
        return NO_SMALLER + "; use another --method" + m.cheaper.get(query, "")
    lo, hi = 1, current
    fits = lambda x: _with(query, config, m, value, options, digits, name, x).fits(budget)  # noqa: E731
    if not fits(lo):
        smallest = _with(query, config, m, value, options, digits, name, lo)
        coarser = m.refusal_hint(
            query,
            config,
            value,
            options,
            digits,
            lambda trial: m.estimate(query, config, value, trial, digits, "both").fits(budget),
        )
        return (
            f"even {_label(m, name)}=1 does not fit (estimated {smallest.describe()}){coarser}; choose another --method"
        )
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return f"the nearest feasible setting is {_label(m, name)} <= {_round_down(lo)}{m.cheaper.get(query, '')}"


def _label(m, name: str) -> str:
    """A method option by its command-line flag (--alpha-max), other parameters by name (steps)."""
    flag = next((f.name for f in m.flags if f.keyword == name), None)
    return f"--{flag}" if flag else name


def _round_down(x: int) -> int:
    """x rounded down to two significant digits (a readable suggestion)."""
    if x < 100:
        return x
    p = 10 ** (len(str(x)) - 2)
    return x // p * p


def _with(query, config, m, value, options, digits, name, x) -> Estimate:
    """The estimate with the driving parameter `name` set to x: the order α (the query's value), a method option
    (mc's samples), or a size of the configuration (steps, k, epochs)."""
    if name == "alpha":
        return m.estimate(query, config, x, options, digits, "both")
    if name in m.keywords:
        return m.estimate(query, config, value, {**options, name: x}, digits, "both")
    fields = {"steps": config.steps, "k": config.k, "epochs": config.epochs}
    fields[name] = x
    if fields["k"] > fields["steps"]:
        fields["k"] = fields["steps"]
    try:
        trial = Config(config.mechanism, config.scheme, fields["steps"], fields["k"], fields["epochs"], config.rate)
    except (InvalidParameter, UnsupportedRequest):
        return Estimate(math.inf, math.inf, name, x)
    return m.estimate(query, trial, value, options, digits, "both")


def parameter_range(query: str, config: Config, method: str, value=None) -> None:
    """Refuse parameters outside what a float64 method represents (`Method.float_range`, the mechanism's
    `float_limits`), naming the parameter and the range (the exact method works in arbitrary precision and serves
    them, or refuses with its own message)."""
    span = registry.method(method).float_range
    if span is None:
        return
    for name in ("steps", "epochs"):  # float64 counts are exact integers only up to 2^53
        if getattr(config, name) > span.count_max:
            raise UnsupportedRequest(
                name,
                _short(Fraction(getattr(config, name))),
                f"--method {method} (float64) supports {name} <= 2^{span.count_max.bit_length() - 1}",
            )
    mech = config.mechanism
    for name, (lo, hi) in mech.float_limits.items():
        x = getattr(mech, name)
        if not lo <= x <= hi:
            side = "below" if x < lo else "above"
            advice = getattr(mech, "float_advice", {}).get((name, side), "use --method exact")
            raise UnsupportedRequest(
                name,
                _short(x),
                f"--method {method} (float64) supports {name} in [{float(lo):g}, {float(hi):g}]; {advice}",
            )
    if query == "delta" and value is not None and span.epsilon is not None:
        eps = fraction_or_none(value)
        if eps is not None and abs(eps) > span.epsilon:
            raise UnsupportedRequest(
                "epsilon",
                _short(eps),
                f"--method {method} (float64) supports epsilon in "
                f"[-{span.epsilon}, {span.epsilon}]; use --method exact",
            )
    if query == "epsilon" and value is not None:
        d = fraction_or_none(value)
        if d is not None and 0 < d < span.delta_min:
            raise UnsupportedRequest(
                "delta",
                _short(d),
                f"--method {method} (float64) supports delta >= {float(span.delta_min):g}; use --method exact",
            )
        if d is not None and 0 < d < 1 and float(d) == 1.0:  # 1 − δ below 2^-54: δ is 1 in float64
            raise InvalidParameter(
                "delta",
                _short_unit(d),
                f"must lie in the open interval (0, 1) also as a float64: --method {method} supports delta in "
                f"[{float(span.delta_min):g}, {math.nextafter(1.0, 0.0)!r}]; use --method exact",
            )


def _short_unit(x: Fraction) -> str:
    """A probability within 2^-54 of 1 as 1 − its complement (0.99999999999999999 as '1 - 1e-17')."""
    return f"1 - {float(1 - x):.6g}"


def _short(x: Fraction) -> str:
    """A readable form of a possibly huge or tiny exact number (1e300 as '1e+300', not 301 digits; 1e-320 as
    '1e-320', not the subnormal float's 9.99989e-321)."""
    if x.denominator == 1 and abs(x) < 10**15:
        return str(x)
    try:
        f = float(x)
    except OverflowError:
        f = math.inf
    if f == 0 or abs(f) < sys.float_info.min or not math.isfinite(f):  # beyond normal floats: decimal arithmetic
        with decimal.localcontext() as ctx:
            ctx.prec, ctx.Emax, ctx.Emin = 6, decimal.MAX_EMAX, decimal.MIN_EMIN
            d = decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)
        return f"{d.normalize():e}".replace("e+0", "e+").replace("E", "e") if x else "0"
    return f"{f:.6g}"
