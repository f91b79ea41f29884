"""Python API: one entry point per query; the method is a registered object (verialloc.registry).

    >>> from verialloc import Config, Gaussian, api
    >>> b = api.delta(Config(Gaussian(1), steps=1), epsilon=1)      # auto: exact here, both directions
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

from collections.abc import Iterable

from . import cost, registry
from .budget import Budget, running_under
from .errors import InvalidParameter, UnsupportedRequest, python_remedies
from .ledger import ledger_of
from .method import Method
from .mp_lock import serialized
from .result import Bracket
from .validation import abbreviated, digits as check_digits, to_fraction

#: the registered methods by name (verialloc.registry)
METHODS = registry.METHODS
#: the method used when none is named: "auto" (exact where cheap, else best)
DEFAULT = registry.DEFAULT


def check_options(method: str, options: dict) -> None:
    """InvalidParameter naming a keyword `method` does not take (listing the ones it does) or a value of the wrong
    type where the method would fail on it with a TypeError; the methods check the ranges of the rest."""
    registry.method(method).check_options(options)


def _answer(query: str, accounted, method: str, value, digits, budget, options: dict, direction="both", compiled=None):
    """The query answered by `method`'s candidates in turn (`Method.candidates`: the method itself, or auto's choice
    of exact or best), each checked by the cost model before it runs; a refusal of one that is not the last passes
    to the next. `compiled`: {method name: its compiled form} kept by an Accountant."""
    m, digits = registry.method(method), check_digits(digits)
    ledger = ledger_of(accounted)
    m.check_options(options)
    tries, refused = m.candidates(query, ledger, value, options, digits, direction, budget), []
    for chosen, opts in tries:
        try:
            cost.check(query, ledger, chosen.name, value, opts, budget, digits, direction)
            with running_under(Budget.of(budget)):
                return _ask(query, ledger, chosen, opts, value, direction, digits, compiled)
        except UnsupportedRequest as exc:
            refused.append((chosen, exc))
    raise m.refusal(refused)


def _ask(query: str, ledger, chosen, opts: dict, value, direction: str, digits: int, compiled):
    """The query of one candidate, from its compiled form (an Accountant's kept one, or a fresh one)."""
    form = chosen.compile(ledger, opts) if compiled is None else _kept(compiled, chosen, ledger, opts)
    if query == "rdp":
        return form.rdp(value, digits)
    return getattr(form, query)(value, direction, digits)


def _kept(compiled: dict, method, ledger, options: dict):
    """An Accountant's compiled form of `method`, compiled on first use and kept; more queries will follow."""
    if method.name not in compiled:
        compiled[method.name] = method.compile(ledger, options)
        compiled[method.name].many_queries = True
    return compiled[method.name]


@serialized
@python_remedies
def delta(
    config, epsilon, *, direction: str = "both", method: str = DEFAULT, digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for δ(ε) of the dominating pair of `config` (a Config, or a Ledger of events); the
    default method "auto" is the exact one where it is cheap (a few seconds by the cost model), else "best"."""
    return _answer("delta", config, method, epsilon, digits, budget, options, direction)


@serialized
@python_remedies
def epsilon(
    config, delta, *, direction: str = "both", method: str = DEFAULT, digits: int = 30, budget=None, **options
) -> Bracket:
    """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
    return _answer("epsilon", config, method, delta, digits, budget, options, direction)


@serialized
@python_remedies
def rdp(config, alpha, *, method: str = DEFAULT, digits: int = 30, budget=None) -> Bracket:
    """Rényi DP of the remove direction at order alpha."""
    return _answer("rdp", config, method, alpha, digits, budget, {}, "remove")


@python_remedies
def compile(accounted, *, method: str = DEFAULT, budget=None, **options) -> "Accountant":
    """The ledger (or Config) compiled once by `method`, for any number of queries: what does not depend on the
    query is built once and kept (`Method.compile`), and each query is checked by the cost model first ("auto":
    each query by the method it chooses for it, each method's compiled form kept)."""
    m = registry.method(method)
    ledger = ledger_of(accounted)
    m.check_options(options)
    return Accountant(m, ledger, options, budget)


class Accountant:
    """A compiled ledger (api.compile): delta, epsilon and rdp queries, each checked by the cost model, answered
    from the method's compiled form, and curves of them (epsilon_curve, delta_curve: the same queries at many
    points). Calls from several threads run one at a time (verialloc.mp_lock)."""

    def __init__(self, method, ledger, options: dict, budget):
        self.method, self.ledger, self.options, self.budget = method, ledger, options, budget
        self._compiled: dict = {}
        if type(method).candidates is Method.candidates:  # a method that is its own one candidate compiles at
            _kept(self._compiled, method, ledger, options)  # once (refusing what it cannot account)

    @property
    def compiled(self):
        """The compiled form of the method itself (a method other than auto)."""
        return self._compiled.get(self.method.name)

    @serialized
    @python_remedies
    def delta(self, epsilon, *, direction: str = "both", digits: int = 30) -> Bracket:
        return self._query("delta", epsilon, direction, digits)

    @serialized
    @python_remedies
    def epsilon(self, delta, *, direction: str = "both", digits: int = 30) -> Bracket:
        return self._query("epsilon", delta, direction, digits)

    @serialized
    @python_remedies
    def rdp(self, alpha, *, digits: int = 30) -> Bracket:
        return _answer("rdp", self.ledger, self.method.name, alpha, digits, self.budget, {}, "remove", self._compiled)

    @serialized
    @python_remedies
    def epsilon_curve(self, deltas, *, direction: str = "both", digits: int = 30) -> list[Bracket]:
        """A privacy curve: the bracket `epsilon` gives at each δ of `deltas`, in their order. They are asked from
        the smallest δ up, so that a compiled pld ledger builds at most one more table, whose tail reaches below the
        smallest δ, and reads every other point from it (each a certified inversion of its PLDs)."""
        values = points(deltas, "deltas")
        out: list = [None] * len(values)
        for i in smallest_first(values, "delta"):
            out[i] = self._query("epsilon", values[i], direction, digits)
        return out

    @serialized
    @python_remedies
    def delta_curve(self, epsilons, *, direction: str = "both", digits: int = 30) -> list[Bracket]:
        """A privacy profile: the bracket `delta` gives at each ε of `epsilons`, in their order."""
        return [self._query("delta", e, direction, digits) for e in points(epsilons, "epsilons")]

    def _query(self, query: str, value, direction: str, digits: int) -> Bracket:
        return _answer(
            query, self.ledger, self.method.name, value, digits, self.budget, self.options, direction, self._compiled
        )


def points(values, name: str) -> list:
    """The values of a curve as a list (any iterable of numbers but a string), else InvalidParameter naming `name`."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidParameter(name, abbreviated(values), "must be a list (or other iterable) of numbers")
    return list(values)


def smallest_first(values: list, name: str) -> list[int]:
    """The indices of `values` from the smallest value up (exact values: "1e-5", 1e-5 and Fraction(1, 10**5) are
    one); a value that is no number raises InvalidParameter naming `name` before any query runs."""
    exact = [to_fraction(name, v) for v in values]
    return sorted(range(len(values)), key=exact.__getitem__)
