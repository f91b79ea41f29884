"""Method "best": the tightest valid bracket over the float64 methods, per direction (I11, F51-style combination).

Upper = the minimum of every valid upper bound (pld, rdp, analytic) for the request; lower = the maximum of every
valid lower bound (pld gives the only non-trivial one). A method that cannot serve the request
(UnsupportedRequest) is skipped and the reason recorded; `details["upper_from"]`/`["lower_from"]` name the
winners. `direction="both"` is the maximum over the two directions of the per-direction best (F3).
"""
from __future__ import annotations

from ..config import Config
from ..errors import UnsupportedRequest
from ..result import Bracket, max_bracket
from ..validation import direction as check_direction
from . import accountant as pld
from . import analytic_accountant as analytic
from . import rdp_accountant as rdp_method

METHOD = "best"
#: the combined methods; pld alone takes the accuracy options (settings, progress)
COMBINED = (pld, rdp_method, analytic)


def delta(config: Config, epsilon, direction: str = "both", digits: int = 30, **options) -> Bracket:
    """Bracket for δ(ε): min over valid uppers, max over valid lowers, per direction."""
    return _best("delta", config, epsilon, direction, digits, options)


def epsilon(config: Config, delta, direction: str = "both", digits: int = 30, **options) -> Bracket:
    """Bracket for ε(δ): min over valid uppers, max over valid lowers, per direction."""
    return _best("epsilon", config, delta, direction, digits, options)


def rdp(config: Config, alpha, digits: int = 30) -> Bracket:
    return rdp_method.rdp(config, alpha, digits)


def _best(query: str, config: Config, value, direction: str, digits: int, options: dict) -> Bracket:
    d = check_direction(direction)
    if d == "both":
        return max_bracket(_best(query, config, value, "remove", digits, options),
                           _best(query, config, value, "add", digits, options))
    results, skipped = {}, {}
    for module in COMBINED:
        kwargs = options if module is pld else {}
        try:
            results[module.METHOD] = getattr(module, query)(config, value, d, digits, **kwargs)
        except UnsupportedRequest as exc:
            skipped[module.METHOD] = str(exc)
    if not results:
        raise UnsupportedRequest("method", METHOD, "no float64 method serves this request: " + "; ".join(
            f"{name}: {why}" for name, why in skipped.items()))
    upper_from = min(results, key=lambda name: results[name].upper)
    lower_from = max(results, key=lambda name: results[name].lower)
    details = {"upper_from": upper_from, "lower_from": lower_from, "skipped": skipped,
               "candidates": {name: (str(b.lower), str(b.upper)) for name, b in results.items()}}
    for key in ("truncated", "float_error", "notes"):
        if key in results[upper_from].details:
            details[key] = results[upper_from].details[key]
    return Bracket(query, results[lower_from].lower, results[upper_from].upper, METHOD, d, "bound", details)
