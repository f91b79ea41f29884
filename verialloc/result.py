"""Every answer is a bracket [lower, upper] with the method, direction and error budget that produced it."""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath as mp


@dataclass(frozen=True)
class Bracket:
    """A certified (or, where `error_kind` says so, estimated) interval for a privacy quantity.

    quantity: "delta", "epsilon" or "rdp"; direction: "remove", "add" or "both" (max of the two);
    error_kind: "exact" (lower == upper up to the printed digits), "quadrature" (estimated error of
    an arbitrary-precision quadrature), "bound" (sound lower and upper bounds of an approximation whose
    discretization, truncation and float64 budgets are accounted for in `details`), "statistical" (a Monte Carlo
    confidence interval, not a bound: it misses the truth with probability up to 1 − details["confidence"];
    details["certified"] is False).
    """

    quantity: str
    lower: mp.mpf
    upper: mp.mpf
    method: str
    direction: str
    error_kind: str = "exact"
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.lower > self.upper:
            raise ValueError(f"bracket with lower {self.lower} > upper {self.upper}")

    @property
    def width(self) -> mp.mpf:
        return self.upper - self.lower

    def __str__(self) -> str:
        """One line: `epsilon in [0.138709902033, 0.139026566142] (best, both, bound)`; the exact ends are
        `lower` and `upper`, the rest `details`."""
        from .formatting import decimal  # rounded outward: the shown bracket contains the stored one

        lo, hi = decimal(self.lower, 12, "down"), decimal(self.upper, 12, "up")
        ends = decimal(self.lower, 12) if self.lower == self.upper else f"[{lo}, {hi}]"
        return f"{self.quantity} {'=' if self.lower == self.upper else 'in'} {ends} ({self.method}, {self.direction}, {self.error_kind})"

    def __repr__(self) -> str:
        """Short, without the details (a dataclass repr of a 'both' bracket with its nested ones ran to 2 KB)."""
        return f"<Bracket {self}>"


def max_bracket(a: Bracket, b: Bracket) -> Bracket:
    """Bracket of max(x, y) from brackets of x and y (direction "both" = max over directions, F3)."""
    return Bracket(
        a.quantity,
        max(a.lower, b.lower),
        max(a.upper, b.upper),
        a.method,
        "both",
        a.error_kind if a.error_kind == b.error_kind else "quadrature",
        {a.direction: a, b.direction: b},
    )
