"""What a query may cost and what it is estimated to cost: `Budget` (seconds and bytes one query may use),
`Estimate` (predicted seconds and bytes, and the user-controlled parameter that drives them) and `BudgetExceeded`
(the refusal, raised before any work starts). Each method estimates its own cost beside its code
(`<route>/cost.py`); verialloc.cost checks the estimate against the budget and names the nearest setting that fits.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass
from fractions import Fraction

from .errors import InvalidParameter, UnsupportedRequest

#: default per-query budget
DEFAULT_SECONDS = 600.0
DEFAULT_MEMORY = 8 * 2**30
#: fixed overhead of a query (imports excluded), seconds, and resident baseline, bytes
BASE_SECONDS = 0.05
BASE_MEMORY = 150 * 2**20


@dataclass(frozen=True)
class Budget:
    """Seconds and bytes one query may use (defaults: DEFAULT_SECONDS, DEFAULT_MEMORY)."""

    seconds: float = DEFAULT_SECONDS
    memory: float = DEFAULT_MEMORY

    @classmethod
    def of(cls, value) -> "Budget":
        """A Budget from None (default), a Budget, or a number of seconds."""
        if value is None:
            return cls()
        if isinstance(value, Budget):
            return value
        if isinstance(value, bool):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0")
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0") from None
        if not (math.isfinite(seconds) and seconds > 0):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0")
        return cls(seconds=seconds)


@dataclass(frozen=True)
class Estimate:
    """Predicted seconds and bytes, and the user-controlled parameter that drives them (`driver`)."""

    seconds: float
    memory: float
    driver: str
    value: object = None

    def __add__(self, other: "Estimate") -> "Estimate":
        big = self if self.seconds >= other.seconds else other
        return Estimate(self.seconds + other.seconds, max(self.memory, other.memory), big.driver, big.value)

    def fits(self, budget: Budget) -> bool:
        return self.seconds <= budget.seconds and self.memory <= budget.memory

    def describe(self) -> str:
        return f"about {seconds_text(self.seconds)} and {bytes_text(self.memory)}"


def small(driver: str) -> Estimate:
    """The fixed overhead alone (a request the method refuses or answers at once), driven by `driver`."""
    return Estimate(BASE_SECONDS, BASE_MEMORY, driver)


class BudgetExceeded(UnsupportedRequest):
    """The estimated time or memory of a request exceeds its budget; raised before any work starts."""

    def __init__(self, name: str, value, supported: str, estimate: Estimate, budget: Budget):
        self.estimate, self.budget = estimate, budget
        super().__init__(name, value, supported)

    def __reduce__(self):
        return type(self), (self.name, self.value, self.supported, self.estimate, self.budget)


def seconds_text(s: float) -> str:
    return f"{s:.3g} s" if s < 1e6 else f"{s:.2e} s"


def bytes_text(b: float) -> str:
    return f"{b / 2**30:.3g} GiB" if b >= 2**30 else f"{b / 2**20:.3g} MiB"


# estimates read the query's values leniently: a value the method will refuse is estimated as small, and the method
# names it (InvalidParameter) when it runs


def fraction_or_none(value):
    """The exact value of a number or number text, or None."""
    try:
        return Fraction(str(value).strip()) if isinstance(value, str) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None


def int_or_none(value):
    """The value rounded up to an integer, or None."""
    x = fraction_or_none(value)
    return None if x is None else int(x) if x.denominator == 1 else math.ceil(x)


def float_or(value, default: float) -> float:
    """The value as a float, or `default`."""
    x = fraction_or_none(value)
    try:
        return default if x is None else float(x)
    except OverflowError:
        return default


#: the budget of the query running in this context (api sets it): a method that combines others (best) asks each
#: sub-method's estimate against it before running that one
_CURRENT = contextvars.ContextVar("verialloc_budget", default=None)


@contextlib.contextmanager
def running_under(budget: Budget):
    """The block runs as a query of `budget` (current_budget)."""
    token = _CURRENT.set(budget)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_budget() -> Budget:
    """The budget of the running query (the default outside one)."""
    return _CURRENT.get() or Budget()
