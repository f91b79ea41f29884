"""What is accounted: a ledger, the composition of events (F21 for Rényi DP, F48 for PLDs).

An event is a `Config`: one mechanism under one sampling scheme (random allocation k-of-t, or Poisson at a rate;
a plain step is Poisson at rate 1), repeated for its `epochs`. A training run is a ledger of such events — a warm-up
phase with other noise, a change of batch size, fine-tuning after pre-training, several releases on the same data.
Composition is commutative and associative, so a ledger is a multiset: events equal but for their epochs merge
(epochs add; Poisson events equal but for their steps and epochs merge into one with all their steps), in the order
they first appear. `Config` is the one-event ledger; `Ledger.of` takes any mix of
configurations and ledgers (nested compositions flatten).

    >>> from verialloc import Config, Gaussian
    >>> warm_up = Config(Gaussian(1), scheme="poisson", steps=100, rate="0.01")
    >>> main = Config(Gaussian("1.2"), scheme="poisson", steps=1000, rate="0.01")
    >>> run = Ledger.of(warm_up, main, warm_up)
    >>> [(e.mechanism.sigma, e.steps) for e in run.events]
    [(Fraction(1, 1), 200), (Fraction(6, 5), 1000)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .config import Config
from .errors import InvalidParameter, UnsupportedRequest
from .validation import abbreviated, integer

#: distinct events a ledger holds (after merging); each is compiled on its own
MAX_EVENTS = 1000


@dataclass(frozen=True)
class Ledger:
    """The composition of `events` (Configs), merged: one entry per distinct event, its epochs the total."""

    events: tuple

    def __post_init__(self):
        if not isinstance(self.events, (tuple, list)):
            raise InvalidParameter("events", abbreviated(self.events), "must be a sequence of verialloc.Config")
        groups: dict = {}
        for event in self.events:
            if not isinstance(event, Config):
                raise InvalidParameter("event", abbreviated(event), "must be a verialloc.Config (or use Ledger.of)")
            groups.setdefault(_kind(event), []).append(event)
            if len(groups) > MAX_EVENTS:
                raise UnsupportedRequest(
                    "events",
                    f"more than {MAX_EVENTS}",
                    f"a ledger holds at most {MAX_EVENTS} distinct events (events that differ only in their "
                    "epochs, or Poisson events that differ only in their steps, merge)",
                )
        if not groups:
            raise InvalidParameter("events", "(none)", "a ledger needs at least one event")
        object.__setattr__(self, "events", tuple(_merged(group) for group in groups.values()))

    @classmethod
    def of(cls, *parts) -> "Ledger":
        """The composition of configurations and ledgers, in any mix and nesting."""
        events: list = []
        stack = list(reversed(parts))
        while stack:
            part = stack.pop()
            if isinstance(part, Ledger):
                events.extend(part.events)
            elif isinstance(part, (list, tuple)):
                stack.extend(reversed(part))
            else:
                events.append(part)
        return cls(tuple(events))

    def __add__(self, other) -> "Ledger":
        return Ledger.of(self, other)

    def times(self, n) -> "Ledger":
        """The ledger composed with itself n times (every event's epochs × n)."""
        n = integer("times", n, lo=1)
        return Ledger(tuple(replace(e, epochs=e.epochs * n) for e in self.events))

    @property
    def single(self) -> Config | None:
        """The one event of a one-event ledger, else None."""
        return self.events[0] if len(self.events) == 1 else None

    def as_dict(self) -> dict:
        """Echo of the inputs: the one event's fields, or {"events": [...]} for a composition."""
        return self.single.as_dict() if self.single is not None else {"events": [e.as_dict() for e in self.events]}


def _kind(event: Config):
    """What events must share to merge: a Poisson event's mechanism and rate (its steps and epochs are all
    independent steps), anything else but the epochs of an allocation."""
    if event.scheme == "poisson":
        return (event.mechanism, "poisson", event.rate)
    return replace(event, epochs=1)


def _merged(group: list) -> Config:
    """One event for a group of events of one kind (a lone event as it was given)."""
    if len(group) == 1:
        return group[0]
    first = group[0]
    if first.scheme == "poisson":
        return replace(first, steps=sum(e.steps * e.epochs for e in group), epochs=1)
    return replace(first, epochs=sum(e.epochs for e in group))


def ledger_of(accounted) -> Ledger:
    """A Ledger from a Config, a Ledger, or a sequence of them; InvalidParameter otherwise."""
    if isinstance(accounted, Ledger):
        return accounted
    if isinstance(accounted, Config):
        return Ledger((accounted,))
    if isinstance(accounted, (list, tuple)):
        return Ledger.of(*accounted)
    raise InvalidParameter("config", abbreviated(accounted), "must be a verialloc.Config or a verialloc.Ledger")
