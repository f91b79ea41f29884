"""Python API: one entry point per query, dispatching on the method name.

    >>> from verialloc import Config, Gaussian, api
    >>> b = api.delta(Config(Gaussian(1), steps=1), epsilon=1)      # exact, both directions
    >>> str(b.lower)[:10]
    '0.12693673'
"""
from __future__ import annotations

from .config import Config
from .errors import InvalidParameter
from .exact import accountant as exact_accountant
from .result import Bracket
from .validation import digits as check_digits

#: method name -> module exposing delta(config, epsilon, direction, digits), epsilon(...), rdp(config, alpha, digits)
METHODS = {"exact": exact_accountant}


def _method(name: str):
    if name not in METHODS:
        raise InvalidParameter("method", name, "must be one of " + "|".join(METHODS))
    return METHODS[name]


def delta(config: Config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config`."""
    return _method(method).delta(config, epsilon, direction, check_digits(digits))


def epsilon(config: Config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    return _method(method).epsilon(config, delta, direction, check_digits(digits))


def rdp(config: Config, alpha, *, method: str = "exact", digits: int = 30) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    return _method(method).rdp(config, alpha, check_digits(digits))
