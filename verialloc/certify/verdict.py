"""What is claimed and how a certified bracket decides it.

A claim is either "ε(δ) ≤ X" (target δ, claimed ε) or "δ(ε) ≤ Y" (target ε, claimed δ) for the dominating
pair of a configuration (F2, F3, F8). With a certified bracket [lower, upper] of the true value:
  certified    X ≥ upper  (the claim holds for the true value),
  refuted      X < lower  (the claim is false for the true value),
  inconclusive otherwise.
Comparisons are exact (rationals; bracket ends are binary mpf/float values, read exactly).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import mpmath as mp

from ..errors import InvalidParameter
from ..validation import open_unit, real, to_fraction

VERDICTS = ("certified", "refuted", "inconclusive")


@dataclass(frozen=True)
class Claim:
    """quantity: the claimed quantity ("epsilon" or "delta"); at: the target (δ resp. ε); value: the claim."""

    quantity: str
    at: Fraction
    value: Fraction

    @property
    def target_name(self) -> str:
        return "delta" if self.quantity == "epsilon" else "epsilon"

    def as_dict(self) -> dict:
        return {"quantity": self.quantity, self.target_name: exact_text(self.at), "claimed": exact_text(self.value)}


def exact_text(x: Fraction) -> str:
    """A terminating decimal when x has one (1e-5 → "0.00001"), else p/q."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return str(x)
    return format(Decimal(x.numerator) / Decimal(x.denominator), "f") if x.denominator < 10**20 else str(x)


def make_claim(*, delta=None, claimed_epsilon=None, epsilon=None, claimed_delta=None) -> Claim:
    """Exactly one of (delta, claimed_epsilon) or (epsilon, claimed_delta); InvalidParameter otherwise."""
    eps_pair = delta is not None or claimed_epsilon is not None
    delta_pair = epsilon is not None or claimed_delta is not None
    if eps_pair and delta_pair:
        raise InvalidParameter("claim", "both", "give either --delta with --claimed-epsilon or --epsilon with "
                               "--claimed-delta, not both")
    if eps_pair:
        if delta is None or claimed_epsilon is None:
            missing = "delta" if delta is None else "claimed-epsilon"
            raise InvalidParameter(missing, "(missing)", "--delta D (in (0, 1)) and --claimed-epsilon X (>= 0) go together")
        return Claim("epsilon", open_unit("delta", delta), _non_negative("claimed-epsilon", claimed_epsilon))
    if delta_pair:
        if epsilon is None or claimed_delta is None:
            missing = "epsilon" if epsilon is None else "claimed-delta"
            raise InvalidParameter(missing, "(missing)", "--epsilon EPS (real) and --claimed-delta Y (in [0, 1)) go together")
        value = _non_negative("claimed-delta", claimed_delta)
        if value >= 1:
            raise InvalidParameter("claimed-delta", claimed_delta, "must lie in [0, 1)")
        return Claim("delta", real("epsilon", epsilon), value)
    raise InvalidParameter("claim", "(missing)", "give --delta D --claimed-epsilon X or --epsilon EPS --claimed-delta Y")


def _non_negative(name: str, value) -> Fraction:
    x = to_fraction(name, value)
    if x < 0:
        raise InvalidParameter(name, value, "must be >= 0")
    return x


def exact_value(x) -> Fraction | float:
    """A bracket end as an exact rational (±inf kept as float infinities)."""
    x = mp.mpf(x)
    if mp.isnan(x):
        raise InvalidParameter("bracket", "nan", "a certified bracket end must be a number")
    if mp.isinf(x):
        return float(x)
    return to_fraction("bracket", x)


def decide(claim: Fraction, lower, upper) -> str:
    """certified if claim ≥ upper, refuted if claim < lower, else inconclusive (module docstring)."""
    if claim >= exact_value(upper):
        return "certified"
    if claim < exact_value(lower):
        return "refuted"
    return "inconclusive"
