"""What an accounting method is: one object per method, registered once (verialloc.registry), that every interface
reads — the API, the command line, certify, the cost model, the fuzzer, the audit.

A method declares its name, its option keywords (those `api.delta/epsilon` accept besides the query's own) and how
they become its frozen options, its command-line flags (`Flag`: each sets one keyword from its text), whether it
reports progress, the float64 range it represents (`FloatRange`, None for arbitrary precision), its cost estimate,
the cheap settings a smoke test or fuzz case uses, and its queries. Each lives beside its engine
(`exact/method.py`, `numeric/<route>/method.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

from .budget import Estimate
from .config import Config
from .errors import InvalidParameter, UnsupportedRequest
from .ledger import Ledger
from .result import Bracket
from .validation import abbreviated, to_fraction

#: the query kinds
QUERIES = ("delta", "epsilon", "rdp")


@dataclass(frozen=True)
class Flag:
    """A command-line flag of a method: `--<name>` sets the option keyword `keyword` from its text."""

    name: str
    keyword: str
    help: str


@dataclass(frozen=True)
class FloatRange:
    """What a float64 method represents: |ε| ≤ epsilon for δ queries (None: any ε, the method bounds the rest
    soundly), δ ≥ delta_min for ε queries, step and epoch counts ≤ count_max (exact integers in float64); the
    mechanism's own parameter ranges come from `Mechanism.float_limits`."""

    epsilon: float | None = 700
    delta_min: Fraction = Fraction(1, 10**300)
    count_max: int = 2**53


class Method(ABC):
    """One accounting method. Subclasses set the class attributes and implement `estimate`; the queries run in the
    method's accountant module (`accountant`: delta/epsilon/rdp(config, value, direction, digits, **options))."""

    name: str
    accountant: object
    #: option keywords of delta/epsilon (besides direction, digits, budget), and of rdp
    keywords: tuple[str, ...] = ()
    #: command-line flags, each setting one keyword (a keyword may be set by several flags of the CLI: none here)
    flags: tuple[Flag, ...] = ()
    #: whether delta/epsilon take `progress=callable(stage)`
    takes_progress: bool = False
    #: None: arbitrary precision; else the float64 range refused outside (verialloc.cost.parameter_range)
    float_range: FloatRange | None = FloatRange()
    #: advice appended to a budget refusal, by query (cheaper methods for it)
    cheaper: dict = {}
    #: the Rényi orders `rdp` answers, in words (None: no rdp queries)
    orders: str | None = None
    #: whether its brackets are bounds (False: statistical estimates, which certify and the bridges never use)
    gives_bounds: bool = True
    #: whether its accountant takes a Ledger of several events (a composition) as well as a Config
    composes_events: bool = False
    #: the methods it runs in turn, each with how much longer it runs there than at its quick settings (best)
    combines: dict = {}
    #: whether it runs no queries of its own but chooses another registered method per query (auto)
    chooses: bool = False

    def check_options(self, options: dict) -> None:
        """InvalidParameter naming a keyword the method does not take (listing the ones it does), and one whose
        value has the wrong type where the method would fail on it with a TypeError; the method checks ranges."""
        for key, value in options.items():
            if key not in self.keywords:
                takes = f"its options are {', '.join(self.keywords)}" if self.keywords else "it takes no options"
                raise InvalidParameter(
                    str(key),
                    abbreviated(value),
                    f"not an option of method {self.name}: {takes} "
                    "(besides the query's direction, method, digits, budget)",
                )
        self._check_types(options)

    def _check_types(self, options: dict) -> None:
        """Type checks of option values (overridden where a wrong type would surface as a TypeError)."""

    def options_from_flags(self, given: dict) -> dict:
        """API keywords from the texts of the method's flags ({keyword: text}); errors name the flag as typed."""
        return dict(given)

    def quick_flags(self, config: Config) -> dict:
        """{flag name: text} of cheap settings (a fuzz case, a smoke test): the method's defaults unless costly."""
        return {}

    def check_request(self, query: str, config: Config, value, options: dict, direction: str) -> None:
        """Refuse (UnsupportedRequest, naming why) a request the method cannot serve at all, decided from the
        request alone — called by the cost model before the estimate, so no budget refusal and no work comes
        first (the accountant still checks as it runs)."""

    @abstractmethod
    def estimate(self, query: str, config: Config, value, options: dict, digits: int, direction: str) -> Estimate:
        """Estimated cost of `query` at `value` with the API keywords `options` (verialloc.cost checks it)."""

    def fewer_digits(self, query: str, config: Config, value, budget, digits: int, direction: str) -> tuple:
        """(parameter, value, advice) when the working digits drive the cost (arbitrary-precision methods)."""
        return "digits", digits, "ask for fewer digits"

    def candidates(self, query: str, ledger, value, options: dict, digits: int, direction: str, budget=None) -> list:
        """[(method, options), ...]: the registered methods that answer `query`, asked in turn (each cost-checked
        before it runs); a refusal (UnsupportedRequest) of one that is not the last passes to the next. A method is
        its own one candidate; "auto" chooses (verialloc.auto_method)."""
        return [(self, options)]

    def refusal(self, refused: list):
        """The error to raise when every candidate refused: [(method, UnsupportedRequest), ...] in the order asked.
        A method that is its own candidate raises its own refusal."""
        return refused[-1][1]

    def refusal_hint(self, query: str, config: Config, value, options: dict, digits: int, fits) -> str:
        """Extra advice when even the smallest size of the driving parameter does not fit (`fits(options)`)."""
        return ""

    def delta(self, config: Config, epsilon, direction: str, digits: int, progress=None, **options) -> Bracket:
        """Bracket [lower, upper] for δ(ε) (its accountant module's `delta`)."""
        config = self._accounted(config)
        return self.accountant.delta(config, epsilon, direction, digits, **self._with_progress(options, progress))

    def epsilon(self, config: Config, delta, direction: str, digits: int, progress=None, **options) -> Bracket:
        """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
        config = self._accounted(config)
        return self.accountant.epsilon(config, delta, direction, digits, **self._with_progress(options, progress))

    def rdp(self, config: Config, alpha, digits: int) -> Bracket:
        """Rényi DP of the remove direction at order alpha."""
        return self.accountant.rdp(self._accounted(config), alpha, digits)

    def _accounted(self, accounted):
        """What the accountant is given: a Config, or a Ledger of several events to a method that composes them."""
        if not isinstance(accounted, Ledger):
            return accounted
        if accounted.single is not None:
            return accounted.single
        if not self.composes_events:
            raise UnsupportedRequest(
                "events",
                len(accounted.events),
                f"method {self.name} accounts one event (a single configuration); for a composition of events use "
                "--method pld, rdp or best",
            )
        return accounted

    def _with_progress(self, options: dict, progress) -> dict:
        return {**options, "progress": progress} if self.takes_progress and progress is not None else options

    def compile(self, ledger, options: dict) -> "Compiled":
        """The ledger in this method's representation, for any number of queries. The base form answers each
        distinct query once by the method's own queries (given the one Config of a one-event ledger, or the Ledger
        to a method that `composes_events`) and keeps the bracket; a method refuses a composition it cannot
        account."""
        self._accounted(ledger)  # a composition the method cannot account is refused here, before any query
        return Compiled(self, ledger, options)


class Compiled:
    """A ledger compiled by one method: `delta`, `epsilon` and `rdp` read it. This base form answers each distinct
    query of a one-event ledger once (by the method's own query) and keeps the bracket; methods that compose events
    or share work between queries return their own (`Method.compile`)."""

    def __init__(self, method: Method, ledger, options: dict):
        self.method, self.ledger, self.options = method, ledger, dict(options)
        self.accounted = ledger.single if ledger.single is not None else ledger
        self._answers: dict = {}
        #: set by api.compile: more queries will follow, so a method may build ahead for them (one query: False)
        self.many_queries = False

    def _memo(self, key, compute) -> Bracket:
        if key not in self._answers:
            self._answers[key] = compute()
        return self._answers[key]

    def delta(self, epsilon, direction: str = "both", digits: int = 30) -> Bracket:
        """Bracket [lower, upper] for δ(ε)."""
        return self._memo(
            ("delta", _key(epsilon), direction, digits),
            lambda: self.method.delta(self.accounted, epsilon, direction, digits, **self.options),
        )

    def epsilon(self, delta, direction: str = "both", digits: int = 30) -> Bracket:
        """Bracket [lower, upper] for ε(δ) = inf{ε : δ(ε) ≤ delta}."""
        return self._memo(
            ("epsilon", _key(delta), direction, digits),
            lambda: self.method.epsilon(self.accounted, delta, direction, digits, **self.options),
        )

    def rdp(self, alpha, digits: int = 30) -> Bracket:
        """Rényi DP of the remove direction at order alpha."""
        return self._memo(("rdp", _key(alpha), digits), lambda: self.method.rdp(self.accounted, alpha, digits))


def _key(value):
    """A query value as a cache key: its exact value when it has one (0.1 and "0.1" and 1/10 are one query)."""
    try:
        return to_fraction("value", value)
    except InvalidParameter:
        return repr(value)
