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
`cost.BudgetExceeded` for the budget) before any work starts. `budget=` takes seconds or a `cost.Budget`
(default 600 s and 8 GiB).
"""
from __future__ import annotations

from . import cost
from .config import Config
from .errors import InvalidParameter
from .exact import accountant as exact_accountant
from .numeric import best
from .numeric.analytic import analytic_accountant
from .numeric.montecarlo import mc_accountant
from .numeric.pld import pld_accountant
from .numeric.rdp import rdp_accountant
from .result import Bracket
from .validation import digits as check_digits

#: method name -> module exposing delta(config, epsilon, direction, digits, **options), epsilon(...), rdp(...)
#: options: method-specific keywords (pld and best: settings=numeric.pld.pld_accountant.Settings(...),
#: progress=callable; analytic: options=numeric.analytic.Options(...); mc: samples=, seed=, confidence=, interval=,
#: proposal=; rdp: alpha_max=int|None, search_tol=float)
METHODS = {"exact": exact_accountant, "pld": pld_accountant, "rdp": rdp_accountant, "analytic": analytic_accountant,
           "mc": mc_accountant, "best": best}


def _method(name: str):
    if name not in METHODS:
        raise InvalidParameter("method", name, "must be one of " + "|".join(METHODS))
    return METHODS[name]


def _checked(query: str, config: Config, method: str, value, digits, budget, options: dict):
    module, digits = _method(method), check_digits(digits)
    if not isinstance(config, Config):
        raise InvalidParameter("config", config, "must be a verialloc.Config")
    cost.check(query, config, method, value, options, budget, digits)
    return module, digits


def delta(config: Config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30,
          budget=None, **options) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config`."""
    module, digits = _checked("delta", config, method, epsilon, digits, budget, options)
    return module.delta(config, epsilon, direction, digits, **options)


def epsilon(config: Config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30,
            budget=None, **options) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    module, digits = _checked("epsilon", config, method, delta, digits, budget, options)
    return module.epsilon(config, delta, direction, digits, **options)


def rdp(config: Config, alpha, *, method: str = "exact", digits: int = 30, budget=None) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    module, digits = _checked("rdp", config, method, alpha, digits, budget, {})
    return module.rdp(config, alpha, digits)
