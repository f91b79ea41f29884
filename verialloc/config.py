"""An accounting configuration: mechanism, sampling scheme and its sizes (the inputs every method shares)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .errors import InvalidParameter
from .mechanisms import Mechanism
from .validation import integer, rate as check_rate

SCHEMES = ("allocation", "poisson")


@dataclass(frozen=True)
class Config:
    """`steps` t, allocations per element `k` (F11), `epochs` E (composition, F21/F48) and Poisson `rate` λ.

    Poisson needs its rate (never guessed) and keeps k = 1 (each element joins each step with probability λ; k
    belongs to allocation); allocation leaves `rate` unset. Without a scheme, a rate means Poisson (only Poisson has
    one, as in dp_accounting and opacus) and no rate means allocation.
    """

    mechanism: Mechanism
    scheme: str | None = None
    steps: int = 1
    k: int = 1
    epochs: int = 1
    rate: Fraction | None = None

    def __post_init__(self):
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidParameter(
                "mechanism", self.mechanism, "must be a verialloc mechanism (Gaussian, Laplace, ...)"
            )
        if self.scheme is None:
            object.__setattr__(self, "scheme", "allocation" if self.rate is None else "poisson")
        if self.scheme not in SCHEMES:
            raise InvalidParameter("scheme", self.scheme, "must be one of " + "|".join(SCHEMES))
        steps = integer("steps", self.steps, lo=1)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "k", integer("k", self.k, lo=1, hi=steps))
        object.__setattr__(self, "epochs", integer("epochs", self.epochs, lo=1))
        if self.scheme == "allocation" and self.rate is not None:
            raise InvalidParameter("rate", self.rate, "applies only to scheme=poisson (allocation has no rate)")
        if self.scheme == "poisson":
            if self.rate is None:
                raise InvalidParameter(
                    "rate", "(missing)", "must be given for scheme poisson: a sampling probability in (0, 1]"
                )
            if self.k != 1:
                raise InvalidParameter(
                    "k",
                    self.k,
                    "applies only to scheme allocation (each element in k of the steps); with scheme poisson an "
                    "element joins each step with probability rate: leave k at 1",
                )
            object.__setattr__(self, "rate", check_rate("rate", self.rate))

    def as_dict(self) -> dict:
        """Echo of the inputs, as strings where exactness matters."""
        out = {
            "mechanism": self.mechanism.name,
            "params": self.mechanism.params(),
            "scheme": self.scheme,
            "steps": self.steps,
            "k": self.k,
            "epochs": self.epochs,
        }
        if self.scheme == "poisson":
            out["rate"] = str(self.rate)
        return out
