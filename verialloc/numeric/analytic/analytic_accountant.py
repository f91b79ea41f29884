"""Method "analytic": the minimum over the papers' analytic UPPER bounds (F34, F36, F37, F42, F43a), per direction.

δ(ε): for each direction, every bound that applies (numeric.analytic) is evaluated and the smallest wins; the
bracket is [0, min] (the lower end is the trivial bound, error_kind "bound"); details list every bound's value
or the reason it does not apply. ε(δ): bisection on that δ upper bound, returning an ε at which the bound was
verified to be ≤ δ — sound whatever the shape of the bound (the true δ(ε) is non-increasing, I1); the lower
end is the trivial ln(1 − δ) (δ(ε) ≥ 1 − e^ε, I1). "both" is the maximum over the two directions (F3).
k > 1 and epochs: the bounds that compose do so through F27 blocks; the others say they do not apply.
"""

from __future__ import annotations

from dataclasses import replace

import math

import mpmath as mp

from ...config import Config
from ...errors import UnsupportedRequest
from ...rounding import float_down, trivial_epsilon_lower
from ...result import Bracket, max_bracket
from ...validation import as_float, direction as check_direction, open_unit
from . import BOUNDS, Options
from .base import reporting

METHOD = "analytic"
#: bisection stops when the ε bracket is this narrow (relative)
EPS_RTOL = 1e-7
#: absolute tolerance of the ε bisection near ε = 0 (the returned ε is checked, so this only costs tightness)
EPS_ATOL = 1e-9
EPS_MAX = 200.0


def bounds(config: Config, epsilon, direction: str, options: Options = Options()) -> dict:
    """{bound name: float upper bound on δ(ε), or the reason (str) it does not apply}; "both" = max over directions."""
    eps = as_float("epsilon", epsilon)
    d = check_direction(direction)
    _check_scheme(config)
    if d != "both":
        return {name: (v.value if hasattr(v, "value") else v) for name, v in _evaluate(config, eps, d, options).items()}
    per = [bounds(config, eps, x, options) for x in ("remove", "add")]
    out = {}
    for name in per[0]:
        a, b = per[0][name], per[1][name]
        out[name] = max(a, b) if not isinstance(a, str) and not isinstance(b, str) else (a if isinstance(a, str) else b)
    return out


def delta(
    config: Config, epsilon, direction: str = "both", digits: int = 30, options: Options = Options(), progress=None
) -> Bracket:
    """Bracket [0, min over analytic bounds] for δ(ε). progress(stage): called per bound (and per Poisson PLD
    a bound builds), stages "<direction> eps=<ε>: <bound>[: <ingredient>]"."""
    eps = as_float("epsilon", epsilon)
    d = check_direction(direction)
    _check_scheme(config)

    def one(dir_: str) -> Bracket:
        results = _evaluate(config, eps, dir_, options, progress)
        name, value = _best(results, eps, dir_)
        return Bracket("delta", mp.mpf(0), mp.mpf(value), METHOD, dir_, "bound", _details(results, name))

    return one(d) if d != "both" else max_bracket(one("remove"), one("add"))


def epsilon(
    config: Config, delta, direction: str = "both", digits: int = 30, options: Options = Options(), progress=None
) -> Bracket:
    """Bracket [ln(1 − δ), ε_hi] for ε(δ), with min-bound(ε_hi) ≤ δ verified (progress: as in delta, for every
    ε the bisection evaluates)."""
    target = as_float("delta", delta, open_unit)
    exact = open_unit("delta", delta)  # the ends come from δ itself, not its nearest float (either side of it)
    d = check_direction(direction)
    _check_scheme(config)
    copies = config.steps * config.k * config.epochs  # Poisson steps composed by the ingredients

    def lowered(tail: float) -> float:
        return max(min(tail, 1e-3 * target / copies), 1e-300)

    options = (
        replace(options, tail=lowered(options.tail))
        if options.pld is None
        else replace(options, pld=replace(options.pld, tail=lowered(options.pld.tail)))
    )

    def one(dir_: str) -> Bracket:
        hi, name, results = _invert(config, float_down(exact), dir_, options, progress)
        details = _details(results, name)
        details["delta_at_epsilon"] = results[name].value
        return Bracket("epsilon", mp.mpf(trivial_epsilon_lower(exact)), mp.mpf(hi), METHOD, dir_, "bound", details)

    return one(d) if d != "both" else max_bracket(one("remove"), one("add"))


def rdp(config: Config, alpha, digits: int = 30):
    raise UnsupportedRequest("method", METHOD, "analytic answers delta and epsilon queries; use --method exact for rdp")


def _check_scheme(config: Config) -> None:
    if config.scheme != "allocation":
        raise UnsupportedRequest("scheme", config.scheme, "the analytic bounds are for random allocation")


def _evaluate(config: Config, eps: float, direction: str, options: Options, progress=None) -> dict:
    out = {}
    for bound in BOUNDS:
        stage = f"{direction} eps={eps:.6g}: {bound.NAME}"
        tick = None if progress is None else (lambda s, stage=stage: progress(f"{stage}: {s}"))
        if progress is not None:
            progress(stage)
        try:
            with reporting(tick):
                out[bound.NAME] = bound.delta(config, eps, direction, options)
        except UnsupportedRequest as err:
            out[bound.NAME] = f"not applicable: {err}"
    return out


def _best(results: dict, eps: float, direction: str) -> tuple[str, float]:
    values = {n: v.value for n, v in results.items() if not isinstance(v, str)}
    if not values:
        reasons = "; ".join(f"{n}: {r}" for n, r in results.items())
        raise UnsupportedRequest("epsilon", eps, f"no analytic bound applies ({direction}): {reasons}")
    name = min(values, key=values.get)
    return name, values[name]


def _details(results: dict, winner: str) -> dict:
    per = {n: (v if isinstance(v, str) else {"value": v.value, **v.params}) for n, v in results.items()}
    return {"bounds": per, "best": winner}


def _invert(config: Config, target: float, direction: str, options: Options, progress=None):
    """Smallest ε (to EPS_RTOL) found with min-bound(ε) ≤ target; lo is kept where it was > target."""

    def upper(e):
        res = _evaluate(config, e, direction, options, progress)
        vals = {n: v.value for n, v in res.items() if not isinstance(v, str)}
        name = min(vals, key=vals.get) if vals else None
        return (vals[name] if name else math.inf), name, res

    value, name, res = upper(0.0)
    if value <= target:
        return 0.0, name, res
    if upper(EPS_MAX)[0] > target:  # decided at once (the Poisson PLDs are built by then and kept), not after
        # doubling through every ε below it
        raise UnsupportedRequest("delta", target, f"no analytic bound reaches it for epsilon <= {EPS_MAX:g}")
    lo, hi = 0.0, 1.0
    value, name, res = upper(hi)
    while value > target:
        lo, hi = hi, 2 * hi
        if hi > EPS_MAX:
            raise UnsupportedRequest("delta", target, f"no analytic bound reaches it for epsilon <= {EPS_MAX:g}")
        value, name, res = upper(hi)
    best = (hi, name, res)
    while hi - lo > max(EPS_RTOL * hi, EPS_ATOL):
        mid = 0.5 * (lo + hi)
        value, name, res = upper(mid)
        if value <= target:
            hi, best = mid, (mid, name, res)
        else:
            lo = mid
    return best
