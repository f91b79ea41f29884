"""Python API: one entry point per query, dispatching on the method name.

    >>> from verialloc import Config, Gaussian, api
    >>> b = api.delta(Config(Gaussian(1), steps=1), epsilon=1)      # exact, both directions
    >>> str(b.lower)[:10]
    '0.12693673'
    >>> from verialloc.numeric.pld.pld_accountant import Settings
    >>> fast = api.epsilon(Config(Gaussian(1), steps=1000), "1e-6", method="pld", settings=Settings(loss_step=1e-4))
    >>> fast.lower <= fast.upper
    True

Before dispatch every query is checked by the cost model (verialloc.cost): parameters a float64 method cannot
represent and requests whose estimated time or memory exceeds the budget are refused (UnsupportedRequest, a
`cost.BudgetExceeded` for the budget) before any work starts. Calls from several threads run one at a time
(verialloc.mp_lock: mpmath's precision is process-global). `budget=` takes seconds or a `cost.Budget`
(default 600 s and 8 GiB).
"""
from __future__ import annotations

import inspect

from . import cost
from .config import Config
from .errors import InvalidParameter
from .exact import accountant as exact_accountant
from .mp_lock import serialized
from .numeric import best
from .numeric.analytic import Options as AnalyticOptions, analytic_accountant
from .numeric.montecarlo import mc_accountant
from .numeric.pld import pld_accountant
from .numeric.rdp import rdp_accountant
from .result import Bracket
from .validation import abbreviated, digits as check_digits

#: method name -> module exposing delta(config, epsilon, direction, digits, **options), epsilon(...), rdp(...)
#: options: method-specific keywords (pld and best: settings=numeric.pld.pld_accountant.Settings(...),
#: progress=callable; analytic: options=numeric.analytic.Options(...); mc: samples=, seed=, confidence=, interval=,
#: proposal=; rdp: alpha_max=int|None, search_tol=float)
METHODS = {"exact": exact_accountant, "pld": pld_accountant, "rdp": rdp_accountant, "analytic": analytic_accountant,
           "mc": mc_accountant, "best": best}
#: the keywords of delta/epsilon of the API itself (never a method option)
QUERY_KEYWORDS = ("direction", "method", "digits", "budget")


def _keywords(module) -> set:
    """Named keywords of module.delta and module.epsilon after (config, value, direction, digits)."""
    names = set()
    for query in ("delta", "epsilon"):
        params = list(inspect.signature(getattr(module, query)).parameters.values())[4:]
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names


#: method name -> the option keywords its delta/epsilon take (best passes its other keywords on to pld)
OPTIONS = {name: tuple(sorted(_keywords(module) | (_keywords(pld_accountant) if module is best else set())))
           for name, module in METHODS.items()}


def _method(name: str):
    if not isinstance(name, str) or name not in METHODS:
        raise InvalidParameter("method", abbreviated(name), "must be one of " + "|".join(METHODS))
    return METHODS[name]


def check_options(method: str, options: dict) -> None:
    """InvalidParameter naming the key for a keyword `method` does not take (listing the ones it does) and for a
    value of the wrong type where a method would fail on it with a TypeError or AttributeError (settings, options,
    progress, alpha_max); the methods check the ranges of the rest."""
    _method(method)
    valid = OPTIONS[method]
    for key, value in options.items():
        if key not in valid:
            takes = f"its options are {', '.join(valid)}" if valid else "it takes no options"
            raise InvalidParameter(str(key), abbreviated(value), f"not an option of method {method}: {takes} "
                                   f"(besides the query's {', '.join(QUERY_KEYWORDS)})")
    settings, analytic, progress = options.get("settings"), options.get("options"), options.get("progress")
    if settings is not None and not isinstance(settings, pld_accountant.Settings):
        raise InvalidParameter("settings", abbreviated(settings),
                               "must be a verialloc.numeric.pld.pld_accountant.Settings (or None)")
    if analytic is not None and not isinstance(analytic, AnalyticOptions):
        raise InvalidParameter("options", abbreviated(analytic), "must be a verialloc.numeric.analytic.Options")
    if analytic is not None and analytic.pld is not None and not isinstance(analytic.pld, pld_accountant.Settings):
        raise InvalidParameter("options.pld", abbreviated(analytic.pld),
                               "must be a verialloc.numeric.pld.pld_accountant.Settings (or None)")
    if progress is not None and not callable(progress):
        raise InvalidParameter("progress", abbreviated(progress), "must be a callable progress(stage) or None")
    alpha_max = options.get("alpha_max")
    top = rdp_accountant.MAX_ORDER
    if alpha_max is not None and (not isinstance(alpha_max, int) or isinstance(alpha_max, bool)
                                  or not 2 <= alpha_max <= top):
        raise InvalidParameter("alpha_max", abbreviated(alpha_max), f"must be an integer in [2, {top}] or None")


def _checked(query: str, config: Config, method: str, value, digits, budget, options: dict, direction="both"):
    module, digits = _method(method), check_digits(digits)
    if not isinstance(config, Config):
        raise InvalidParameter("config", abbreviated(config), "must be a verialloc.Config")
    check_options(method, options)
    cost.check(query, config, method, value, options, budget, digits, direction)
    return module, digits


@serialized
def delta(config: Config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30,
          budget=None, **options) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config`."""
    module, digits = _checked("delta", config, method, epsilon, digits, budget, options, direction)
    return module.delta(config, epsilon, direction, digits, **options)


@serialized
def epsilon(config: Config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30,
            budget=None, **options) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    module, digits = _checked("epsilon", config, method, delta, digits, budget, options, direction)
    return module.epsilon(config, delta, direction, digits, **options)


@serialized
def rdp(config: Config, alpha, *, method: str = "exact", digits: int = 30, budget=None) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    module, digits = _checked("rdp", config, method, alpha, digits, budget, {})
    return module.rdp(config, alpha, digits)
