"""The accuracy knobs of the pld method (one frozen object: the method's options, certify's refinement steps)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InvalidParameter
from .tighten import MAX_GRID_STEP


@dataclass(frozen=True)
class Settings:
    """Accuracy knobs: loss_step Δ of the composition grid, tail β truncated per step (both tracked in the
    result), grid_step h of the allocation's exp-space grid (None: automatic)."""

    loss_step: float = 1e-4
    tail: float = 1e-15
    grid_step: float | None = None

    def __post_init__(self):  # pragma: no mutate block (validation only; Settings() runs at import in the tests)
        for name in ("loss_step", "tail"):
            value = getattr(self, name)
            if not (_number(value) and math.isfinite(value) and value > 0):
                raise InvalidParameter(name, value if _number(value) else repr(value), "must be a finite number > 0")
        if self.tail >= 1e-3:
            raise InvalidParameter("tail", self.tail, "must lie in (0, 1e-3)")
        h = self.grid_step
        if h is not None and not (_number(h) and math.isfinite(h) and 0 < h <= MAX_GRID_STEP):  # '0.1': TypeError
            if not _number(h):
                raise InvalidParameter("grid_step", repr(h), f"must be a number in (0, {MAX_GRID_STEP:g}] or None")
            raise InvalidParameter("grid_step", h, f"must lie in (0, {MAX_GRID_STEP:g}]")


def _number(value) -> bool:
    """An int or float (numpy's float64 is one), not a bool: the knobs are compared and used as floats."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
