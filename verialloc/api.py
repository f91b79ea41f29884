"""Python API: one entry point per query, dispatching on the method name.

    >>> from verialloc import Config, Gaussian, api
    >>> b = api.delta(Config(Gaussian(1), steps=1), epsilon=1)      # exact, both directions
    >>> str(b.lower)[:10]
    '0.12693673'
    >>> from verialloc.numeric.accountant import Settings
    >>> fast = api.epsilon(Config(Gaussian(1), steps=1000), "1e-6", method="pld", settings=Settings(loss_step=1e-4))
    >>> fast.lower <= fast.upper
    True
"""
from __future__ import annotations

from .config import Config
from .errors import InvalidParameter
from .exact import accountant as exact_accountant
from .numeric import accountant as pld_accountant
from .numeric import analytic_accountant, best, mc_accountant, rdp_accountant
from .result import Bracket
from .validation import digits as check_digits

#: method name -> module exposing delta(config, epsilon, direction, digits, **options), epsilon(...), rdp(...)
#: options: method-specific keywords (pld and best: settings=numeric.accountant.Settings(...), progress=callable;
#: analytic: options=numeric.analytic.Options(...); mc: samples=, seed=, confidence=, interval=, proposal=;
#: rdp: alpha_max=int|None, search_tol=float)
METHODS = {"exact": exact_accountant, "pld": pld_accountant, "rdp": rdp_accountant, "analytic": analytic_accountant,
           "mc": mc_accountant, "best": best}


def _method(name: str):
    if name not in METHODS:
        raise InvalidParameter("method", name, "must be one of " + "|".join(METHODS))
    return METHODS[name]


def delta(config: Config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30,
          **options) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config`."""
    return _method(method).delta(config, epsilon, direction, check_digits(digits), **options)


def epsilon(config: Config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30,
            **options) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    return _method(method).epsilon(config, delta, direction, check_digits(digits), **options)


def rdp(config: Config, alpha, *, method: str = "exact", digits: int = 30) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    return _method(method).rdp(config, alpha, check_digits(digits))
