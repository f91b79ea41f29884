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
from .ledger import ledger_of
from .mp_lock import serialized
from .result import Bracket
from .validation import digits as check_digits

#: the registered methods by name (verialloc.registry)
METHODS = registry.METHODS


def check_options(method: str, options: dict) -> None:
    """InvalidParameter naming a keyword `method` does not take (listing the ones it does) or a value of the wrong
    type where the method would fail on it with a TypeError; the methods check the ranges of the rest."""
    registry.method(method).check_options(options)


def _checked(query: str, accounted, method: str, value, digits, budget, options: dict, direction="both"):
    m, digits = registry.method(method), check_digits(digits)
    ledger = ledger_of(accounted)
    m.check_options(options)
    cost.check(query, ledger, method, value, options, budget, digits, direction)
    return m, ledger, digits


@serialized
def delta(
    config, epsilon, *, direction: str = "both", method: str = "exact", digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config` (a Config, or a Ledger of events)."""
    m, ledger, digits = _checked("delta", config, method, epsilon, digits, budget, options, direction)
    return m.compile(ledger, options).delta(epsilon, direction, digits)


@serialized
def epsilon(
    config, delta, *, direction: str = "both", method: str = "exact", digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    m, ledger, digits = _checked("epsilon", config, method, delta, digits, budget, options, direction)
    return m.compile(ledger, options).epsilon(delta, direction, digits)


@serialized
def rdp(config, alpha, *, method: str = "exact", digits: int = 30, budget=None) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    m, ledger, digits = _checked("rdp", config, method, alpha, digits, budget, {})
    return m.compile(ledger, {}).rdp(alpha, digits)


def compile(accounted, *, method: str = "exact", budget=None, **options) -> "Accountant":
    """The ledger (or Config) compiled once by `method`, for any number of queries: what does not depend on the
    query is built once and kept (`Method.compile`), and each query is checked by the cost model first."""
    m = registry.method(method)
    ledger = ledger_of(accounted)
    m.check_options(options)
    return Accountant(m, ledger, options, budget)


class Accountant:
    """A compiled ledger (api.compile): delta, epsilon and rdp queries, each checked by the cost model, answered
    from the method's compiled form. Calls from several threads run one at a time (verialloc.mp_lock)."""

    def __init__(self, method, ledger, options: dict, budget):
        self.method, self.ledger, self.options, self.budget = method, ledger, options, budget
        self.compiled = method.compile(ledger, options)
        self.compiled.many_queries = True

    @serialized
    def delta(self, epsilon, *, direction: str = "both", digits: int = 30) -> Bracket:
        digits = check_digits(digits)
        cost.check("delta", self.ledger, self.method.name, epsilon, self.options, self.budget, digits, direction)
        return self.compiled.delta(epsilon, direction, digits)

    @serialized
    def epsilon(self, delta, *, direction: str = "both", digits: int = 30) -> Bracket:
        digits = check_digits(digits)
        cost.check("epsilon", self.ledger, self.method.name, delta, self.options, self.budget, digits, direction)
        return self.compiled.epsilon(delta, direction, digits)

    @serialized
    def rdp(self, alpha, *, digits: int = 30) -> Bracket:
        digits = check_digits(digits)
        cost.check("rdp", self.ledger, self.method.name, alpha, {}, self.budget, digits)
        return self.compiled.rdp(alpha, digits)
