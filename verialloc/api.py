"""Python API: one entry point per query; the method is a registered object (verialloc.registry).

    >>> from verialloc import Config, Gaussian, api
    >>> b = api.delta(Config(Gaussian(1), steps=1), epsilon=1)      # exact, both directions
    >>> str(b.lower)[:10]
    '0.12693673'
    >>> from verialloc.numeric.pld.pld_accountant import Settings
    >>> fast = api.epsilon(Config(Gaussian(1), steps=1000), "1e-6", method="pld", settings=Settings(loss_step=1e-4))
    >>> fast.lower <= fast.upper
    True

Before a query runs it is checked by the cost model (verialloc.cost): parameters a float64 method cannot represent
and requests whose estimated time or memory exceeds the budget are refused (UnsupportedRequest, a
`cost.BudgetExceeded` for the budget) before any work starts. The method's keywords (`registry.METHODS[name]
.keywords`: pld and best `settings=Settings(...)`, best `target_gap=`, analytic `options=Options(...)`, mc
`samples=, seed=, confidence=, interval=, proposal=`, rdp `alpha_max=, search_tol=`; `progress=callable` where the
method reports progress) are checked by the method. Calls from several threads run one at a time
(verialloc.mp_lock: mpmath's precision is process-global). `budget=` takes seconds or a `cost.Budget` (default
600 s and 8 GiB).
"""

from __future__ import annotations

from . import cost, registry
from .config import Config
from .errors import InvalidParameter
from .mp_lock import serialized
from .result import Bracket
from .validation import abbreviated, digits as check_digits

#: the registered methods by name (verialloc.registry)
METHODS = registry.METHODS


def check_options(method: str, options: dict) -> None:
    """InvalidParameter naming a keyword `method` does not take (listing the ones it does) or a value of the wrong
    type where the method would fail on it with a TypeError; the methods check the ranges of the rest."""
    registry.method(method).check_options(options)


def _checked(query: str, config: Config, method: str, value, digits, budget, options: dict, direction="both"):
    m, digits = registry.method(method), check_digits(digits)
    if not isinstance(config, Config):
        raise InvalidParameter("config", abbreviated(config), "must be a verialloc.Config")
    m.check_options(options)
    cost.check(query, config, method, value, options, budget, digits, direction)
    return m, digits


@serialized
def delta(
    config: Config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config`."""
    m, digits = _checked("delta", config, method, epsilon, digits, budget, options, direction)
    return m.delta(config, epsilon, direction, digits, **options)


@serialized
def epsilon(
    config: Config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    m, digits = _checked("epsilon", config, method, delta, digits, budget, options, direction)
    return m.epsilon(config, delta, direction, digits, **options)


@serialized
def rdp(config: Config, alpha, *, method: str = "exact", digits: int = 30, budget=None) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    m, digits = _checked("rdp", config, method, alpha, digits, budget, {})
    return m.rdp(config, alpha, digits)
