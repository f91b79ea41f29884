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

    For Poisson the rate defaults to k/steps; for allocation `rate` must be left unset.
    """

    mechanism: Mechanism
    scheme: str = "allocation"
    steps: int = 1
    k: int = 1
    epochs: int = 1
    rate: Fraction | None = None

    def __post_init__(self):
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidParameter(
                "mechanism", self.mechanism, "must be a verialloc mechanism (Gaussian, Laplace, ...)"
            )
        if self.scheme not in SCHEMES:
            raise InvalidParameter("scheme", self.scheme, "must be one of " + "|".join(SCHEMES))
        steps = integer("steps", self.steps, lo=1)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "k", integer("k", self.k, lo=1, hi=steps))
        object.__setattr__(self, "epochs", integer("epochs", self.epochs, lo=1))
        if self.scheme == "allocation" and self.rate is not None:
            raise InvalidParameter("rate", self.rate, "applies only to scheme=poisson (allocation has no rate)")
        if self.scheme == "poisson":
            lam = Fraction(self.k, steps) if self.rate is None else check_rate("rate", self.rate)
            object.__setattr__(self, "rate", lam)

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
