"""dp_accounting (0.6.0) bridge: dp_accounting events in, a verified `PrivacyAccountant` out.

`from_dp_event(event)` translates a dp_accounting event into the `Config` of the same dominating pair;
`VerifiedAccountant` is a `dp_accounting.PrivacyAccountant` that answers `get_epsilon` / `get_delta` with verialloc's
certified upper end (direction "both": the max over remove and add, F3) and gives the whole bracket on request.

Mapping (M: a mechanism event below; counts of nested SelfComposed / Composed parts multiply and add):

| dp_accounting event | verialloc |
|---|---|
| `GaussianDpEvent(s)` | `Gaussian(s)`: noise multiplier s = σ/Δ, pair N(1, s²) vs N(0, s²) (F16) |
| `LaplaceDpEvent(s)` | `Laplace(s)`: s = scale/(L1 sensitivity), pair Lap(1, s) vs Lap(0, s) |
| `RandomizedResponseDpEvent(p, k)` | `DiscretePair([1 − p + p/k, (k−1)p/k], [1/k, (k−1)/k])`, REPLACE_SPECIAL only (below) |
| M | `Config(M, scheme="poisson", rate=1, steps=1)` (every record in the one step) |
| `SelfComposedDpEvent(M, n)` | `Config(M, scheme="poisson", rate=1, steps=n)` |
| `PoissonSampledDpEvent(q, M)` | `Config(M, scheme="poisson", rate=q, steps=1)` (F11) |
| `SelfComposedDpEvent(PoissonSampledDpEvent(q, M), T)` | `Config(M, scheme="poisson", rate=q, steps=T)` |
| `RandomAllocationDpEvent(k, t, M)` | `Config(M, steps=t, k=k)`: random allocation A_{t,k} (F11) |
| `SelfComposedDpEvent(RandomAllocationDpEvent(k, t, M), E)` | `Config(M, steps=t, k=k, epochs=E)` (F21/F48) |
| `ComposedDpEvent([X, X, ...])` | as `SelfComposedDpEvent(X, len)`; `NoOpDpEvent` parts are dropped |

A Poisson step composed T·E times is Poisson with steps = T·E (the steps are independent), so every count of a
Poisson (or plain) step goes into `steps`, every count of an allocation run into `epochs`. Anything else (other
events, a sampled or allocated event that is not M, parts of a ComposedDpEvent that translate to different steps)
raises UnsupportedRequest naming the event class; out-of-range parameters raise InvalidParameter naming
`<EventClass>.<field>`.

Numbers are read exactly through their shortest decimal repr (a float 0.8 is 4/5, as everywhere in verialloc:
`validation.to_fraction`), not as the binary value of the float; the two differ by at most half an ulp.

Neighboring relations: verialloc's pair is P = R(record), Q = R(⊥) with ⊥ a special record (F8, F9). For Gaussian
and Laplace noise ⊥ is the zero record, so ADD_OR_REMOVE_ONE and REPLACE_SPECIAL give the same pair (dp_accounting
agrees). dp_accounting defines randomized response for REPLACE_ONE and REPLACE_SPECIAL only; its REPLACE_SPECIAL
pair (R(x) against the uniform R(⊥), the k − 1 other buckets merged: same likelihood ratio) is the DiscretePair
above, so a RandomizedResponseDpEvent translates under REPLACE_SPECIAL only. REPLACE_ONE is not supported.
"""

from __future__ import annotations

import math

from fractions import Fraction

import attr
import mpmath as mp
from dp_accounting import dp_event as dpe
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant, UnsupportedEventError

from .. import api, cost, registry
from ..config import Config
from ..ledger import Ledger
from ..errors import InvalidParameter, UnsupportedRequest, VeriallocError
from ..mechanisms import DiscretePair, Gaussian, Laplace, Mechanism
from ..mechanisms.base import mpq
from ..result import Bracket
from ..rounding import float_up
from ..validation import (
    abbreviated,
    as_float,
    digits as check_digits,
    integer,
    open_unit,
    positive,
    rate,
    real,
    to_fraction,
)

RELATIONS = (NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_SPECIAL)
#: fixed-size batches: dp_accounting's event for sampling without replacement (absent from older releases)
SAMPLED_WITHOUT_REPLACEMENT = tuple(getattr(dpe, n) for n in ("SampledWithoutReplacementDpEvent",) if hasattr(dpe, n))
WITHOUT_REPLACEMENT = (
    "verialloc accounts Poisson subsampling (PoissonSampledDpEvent: each record in each step independently with "
    "probability q) and random allocation (RandomAllocationDpEvent: each record in k of the t steps of an epoch, "
    "chosen uniformly — what shuffling the records into batches gives), not fixed-size batches drawn without "
    "replacement; express the run as one of those two, whichever your data loader implements"
)
MECHANISM_EVENTS = "GaussianDpEvent, LaplaceDpEvent or RandomizedResponseDpEvent"


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RandomAllocationDpEvent(dpe.DpEvent):
    """Random allocation A_{t,k} (F11): each record joins a uniformly random `num_allocations`-subset (k) of the
    `num_steps` (t) steps, and step i applies `event` (a Gaussian, Laplace or randomized-response event) to its
    records. Wrap it in a SelfComposedDpEvent for E epochs."""

    num_allocations: int
    num_steps: int
    event: dpe.DpEvent


def from_dp_event(
    event: dpe.DpEvent, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE
):
    """The dominating pair of `event` under `neighboring_relation` (mapping in the module docstring): a Config for one
    kind of event, a Ledger for a composition of different ones."""
    relation = _relation(neighboring_relation)
    ledger = Ledger.of(*_events(event, relation, 1))
    return ledger.single if ledger.single is not None else ledger


class VerifiedAccountant(PrivacyAccountant):
    """A dp_accounting PrivacyAccountant answering with verialloc's certified upper end, direction "both" (F3).

    `method` is any certified verialloc method ("pld" by default, "best", "exact", "rdp", "analytic"; not "mc", an
    estimate); `options` go to `verialloc.api` (digits, budget, settings, ...). `supports(event)` is True exactly
    when `from_dp_event` translates the ledger composed with `event`; the answer is computed from that translation
    when asked. Neighboring relations: ADD_OR_REMOVE_ONE (default) and REPLACE_SPECIAL (see the module docstring).
    """

    def __init__(
        self,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
        method: str = "pld",
        **options,
    ):
        super().__init__(_relation(neighboring_relation))
        certified = [name for name, m in registry.METHODS.items() if m.gives_bounds]
        if not isinstance(method, str) or method not in certified:
            raise InvalidParameter("method", abbreviated(method), "must be a certified method: " + "|".join(certified))
        _check_options(method, options)
        self._method, self._options = method, options
        self._compiled = None

    def compose(self, event: dpe.DpEvent, count: int = 1) -> "VerifiedAccountant":
        """dp_accounting's compose, with InvalidParameter (not TypeError) for an `event` that is no DpEvent or a
        `count` that is no integer >= 1; an event verialloc cannot translate raises dp_accounting's
        UnsupportedEventError, as the PrivacyAccountant contract says."""
        if not isinstance(event, dpe.DpEvent):
            raise InvalidParameter("event", abbreviated(event), "must be a dp_accounting DpEvent")
        count = integer("count", count, lo=1)
        error = self._maybe_compose(event, count, False)
        if error is not None:  # raised here: the base class prints repr(event), which recurses on deep nesting
            raise UnsupportedEventError(f"Unsupported event: {_short_repr(event)}. Error: [{error.error_message}]")
        return super().compose(event, count)

    def supports(self, event: dpe.DpEvent) -> bool:
        return self._maybe_compose(event, 1, False) is None

    def _maybe_compose(self, event: dpe.DpEvent, count: int, do_compose: bool):
        if do_compose:  # the base class has put the event in the ledger; queries translate the ledger
            return None
        try:
            from_dp_event(
                dpe.ComposedDpEvent([self.ledger, dpe.SelfComposedDpEvent(event, count)]), self.neighboring_relation
            )
        except VeriallocError as exc:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(exc))
        return None

    def config(self):
        """What the ledger accounts: a Config, or a Ledger when it composes different events (UnsupportedRequest
        while nothing has been composed)."""
        return from_dp_event(self.ledger, self.neighboring_relation)

    def compiled(self):
        """The ledger compiled once by the accountant's method (verialloc.api.compile), compiled anew only when the
        ledger has grown: repeated queries read it."""
        accounted = self.config()
        if self._compiled is None or self._compiled[0] != accounted:
            options = {k: v for k, v in self._options.items() if k not in ("digits", "budget")}
            self._compiled = (
                accounted,
                api.compile(accounted, method=self._method, budget=self._options.get("budget"), **options),
            )
        return self._compiled[1]

    def get_epsilon_bracket(self, target_delta) -> Bracket:
        """verialloc's bracket [lower, upper] for ε(δ) of the ledger, direction both."""
        open_unit("target_delta", target_delta)
        return self._ask("epsilon", target_delta)

    def get_delta_bracket(self, target_epsilon) -> Bracket:
        """verialloc's bracket [lower, upper] for δ(ε) of the ledger, direction both."""
        real("target_epsilon", target_epsilon)
        return self._ask("delta", target_epsilon)

    def _ask(self, query: str, value) -> Bracket:
        try:
            ask = getattr(self.compiled(), query)
            return ask(value, direction="both", digits=self._options.get("digits", 30))
        except UnsupportedRequest as exc:
            if exc.name != "direction":  # the CLI's hint (direction=remove) is no keyword of this accountant
                raise
            raise UnsupportedRequest(
                "method",
                self._method,
                f"{exc.supported.split(';')[0]}, and VerifiedAccountant "
                "answers for both directions (F3): use method='pld' (the default) or "
                "'best'",
            ) from None

    def get_epsilon(self, target_delta: float) -> float:
        """The certified upper end of ε(δ), rounded up to float64; 0 while nothing has been composed.
        `target_delta`: a number (or decimal string) >= 0. As dp_accounting's accountants: δ = 0 gives inf (an upper
        bound of ε(0) for every pair; the Gaussian's is inf) and δ >= 1 gives 0 (δ(0) <= 1 always, and the ε of
        (ε, δ)-DP is >= 0); a negative δ is refused."""
        delta = real("target_delta", target_delta)
        if delta < 0:
            raise InvalidParameter(
                "target_delta", abbreviated(target_delta), "must be >= 0 (0 gives inf, >= 1 gives 0, as dp_accounting)"
            )
        if isinstance(self.ledger, dpe.NoOpDpEvent) or delta >= 1:
            return 0.0
        if delta == 0:
            return math.inf
        return float_up(self.get_epsilon_bracket(target_delta).upper)

    def get_epsilon_curve(self, target_deltas) -> list[float]:
        """`get_epsilon` at each δ of `target_deltas`, in their order, asked from the smallest δ up: the compiled
        ledger builds at most one more table for the whole curve (as `api.Accountant.epsilon_curve`, whose brackets
        `compiled().epsilon_curve(...)` gives)."""
        deltas = api.points(target_deltas, "target_deltas")
        out = [0.0] * len(deltas)
        for i in api.smallest_first(deltas, "target_delta"):
            out[i] = self.get_epsilon(deltas[i])
        return out

    def get_delta_curve(self, target_epsilons) -> list[float]:
        """`get_delta` at each ε of `target_epsilons`, in their order."""
        return [self.get_delta(e) for e in api.points(target_epsilons, "target_epsilons")]

    def get_delta(self, target_epsilon: float) -> float:
        """The certified upper end of δ(ε), rounded up to float64; max(0, 1 − e^ε) (rounded up) while nothing has
        been composed (P = Q). `target_epsilon`: a finite number (or decimal string) within the float64 range."""
        if isinstance(self.ledger, dpe.NoOpDpEvent):  # 1 − e^ε from the exact ε: −1e-400 is no float64 −0.0
            as_float("target_epsilon", target_epsilon)  # within the float64 range, as for a composed ledger
            eps = real("target_epsilon", target_epsilon)
            if eps >= 0:
                return 0.0
            with mp.workdps(30):  # 1e-25 relative above the 30-digit value: above the truth, then rounded up
                return min(1.0, float_up(-mp.expm1(mpq(eps)) * (1 + mp.mpf(10) ** -25)))
        return min(1.0, float_up(self.get_delta_bracket(target_epsilon).upper))


def _check_options(method: str, options: dict) -> None:
    """The keywords of VerifiedAccountant(..., **options), checked when it is built, not at the first query."""
    valid = ("digits", "budget", *registry.method(method).keywords)
    for key, value in options.items():
        if key not in valid:
            why = (
                "VerifiedAccountant always answers for direction both (the max over remove and add, F3), which "
                "dp_accounting's neighboring relations need; "
                if key == "direction"
                else ""
            )
            raise InvalidParameter(
                str(key),
                abbreviated(value),
                f"not a keyword of VerifiedAccountant(method={method!r}): {why}it takes "
                f"neighboring_relation, method, {', '.join(valid)}",
            )
    if "digits" in options:
        check_digits(options["digits"])
    if "budget" in options:
        cost.Budget.of(options["budget"])
    api.check_options(method, {k: v for k, v in options.items() if k not in ("digits", "budget")})


def _relation(value) -> NeighboringRelation:
    if not isinstance(value, NeighboringRelation):
        raise InvalidParameter(
            "neighboring_relation",
            abbreviated(value),
            "must be a dp_accounting NeighboringRelation: ADD_OR_REMOVE_ONE or REPLACE_SPECIAL",
        )
    if value not in RELATIONS:
        raise UnsupportedRequest(
            "neighboring_relation",
            value.name,
            "verialloc's pairs are ADD_OR_REMOVE_ONE or REPLACE_SPECIAL (record vs special record)",
        )
    return value


def _mechanism(event, relation, where: str) -> Mechanism:
    name = type(event).__name__
    if isinstance(event, dpe.GaussianDpEvent):
        return Gaussian(positive(f"{name}.noise_multiplier", event.noise_multiplier))
    if isinstance(event, dpe.LaplaceDpEvent):
        return Laplace(positive(f"{name}.noise_multiplier", event.noise_multiplier))
    if isinstance(event, dpe.RandomizedResponseDpEvent):
        return _randomized_response(event, relation)
    if not isinstance(event, dpe.DpEvent):
        raise InvalidParameter(where, event, "must be a dp_accounting DpEvent")
    outer = ", or a PoissonSampled, RandomAllocation, SelfComposed or Composed event of one" if where == "event" else ""
    raise UnsupportedRequest(where, name, f"must be a {MECHANISM_EVENTS}{outer}")


def _randomized_response(event: dpe.RandomizedResponseDpEvent, relation) -> DiscretePair:
    """REPLACE_SPECIAL pair: R(x) = (1 − p + p/k on x, p/k elsewhere) against the uniform R(⊥), others merged."""
    name = type(event).__name__
    if relation is not NeighboringRelation.REPLACE_SPECIAL:
        raise UnsupportedRequest(
            "neighboring_relation",
            relation.name,
            f"{name} is defined by dp_accounting for REPLACE_ONE and REPLACE_SPECIAL; "
            "verialloc's pair (R(x), R(special)) is REPLACE_SPECIAL",
        )
    p = to_fraction(f"{name}.noise_parameter", event.noise_parameter)
    if not 0 <= p <= 1:
        raise InvalidParameter(f"{name}.noise_parameter", event.noise_parameter, "must lie in [0, 1]")
    k = integer(f"{name}.num_buckets", event.num_buckets, lo=1)
    stay = 1 - p + p / k
    return DiscretePair([stay, 1 - stay], [Fraction(1, k), 1 - Fraction(1, k)])


#: deepest nesting of ComposedDpEvent / SelfComposedDpEvent translated (the translation recurses; Python's stack is
#: ~1000 frames, and a bridge call itself sits some frames deep)
MAX_NESTING = 300


def _short_repr(event) -> str:
    """repr(event) cut to 200 characters; a nesting too deep for repr is named by its type."""
    try:
        return abbreviated(repr(event), 200)
    except RecursionError:
        return f"{type(event).__name__}(... nested too deep to print ...)"


def _events(event, relation, count: int, depth: int = 0) -> list:
    """The Configs of `event` composed `count` times (a list: a ComposedDpEvent's parts may differ)."""
    if not isinstance(event, dpe.DpEvent):
        raise InvalidParameter("event", event, "must be a dp_accounting DpEvent")
    if depth > MAX_NESTING:
        raise UnsupportedRequest(
            "event",
            f"nested more than {MAX_NESTING} levels deep",
            f"at most {MAX_NESTING} levels of ComposedDpEvent / SelfComposedDpEvent are translated; flatten the "
            "nesting (SelfComposedDpEvent(e, a * b) for SelfComposedDpEvent(SelfComposedDpEvent(e, a), b))",
        )
    name = type(event).__name__
    if isinstance(event, dpe.SelfComposedDpEvent):
        return _events(event.event, relation, count * integer(f"{name}.count", event.count, lo=1), depth + 1)
    if isinstance(event, dpe.ComposedDpEvent):
        if not isinstance(event.events, (list, tuple)):
            raise InvalidParameter("ComposedDpEvent.events", abbreviated(event.events), "must be a list of DpEvents")
        parts = [
            c
            for e in event.events
            if not isinstance(e, dpe.NoOpDpEvent)
            for c in _events(e, relation, count, depth + 1)
        ]
        if not parts:
            raise UnsupportedRequest("ComposedDpEvent.events", "[]", "needs at least one event with a privacy cost")
        return parts
    if isinstance(event, dpe.PoissonSampledDpEvent):
        q = rate(f"{name}.sampling_probability", event.sampling_probability)
        return [Config(_mechanism(event.event, relation, f"{name}.event"), "poisson", steps=count, rate=q)]
    if isinstance(event, RandomAllocationDpEvent):
        t = integer(f"{name}.num_steps", event.num_steps, lo=1)
        k = integer(f"{name}.num_allocations", event.num_allocations, lo=1, hi=t)
        return [Config(_mechanism(event.event, relation, f"{name}.event"), steps=t, k=k, epochs=count)]
    if isinstance(event, SAMPLED_WITHOUT_REPLACEMENT):
        raise UnsupportedRequest(name, "sampling without replacement", WITHOUT_REPLACEMENT)
    return [Config(_mechanism(event, relation, "event"), "poisson", steps=count, rate=1)]
