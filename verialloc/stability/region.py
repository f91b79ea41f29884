"""A region of the accountant map (issue #32): σ × steps × δ values of one Gaussian configuration family, and its
cells as golden-table-style entries (the form `audit.runner.audit_one` checks an answer against).

Axis text (`axis`): a comma list ("0.6,1,2") or a log-spaced range "a:b[:n]" (n points from a to b inclusive,
default DEFAULT_POINTS; rounded to 3 significant digits, steps to integers). Every value and every cell's Config is
checked here, so a bad region is refused (InvalidParameter naming the parameter) before any work. A value given
twice (1e-5,0.00001; or two points of a range that round to the same value) is refused, not dropped: it would
otherwise be either double work or a silently shorter axis than the one asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import Config
from ..errors import InvalidParameter, UnsupportedRequest
from ..mechanisms import Gaussian

#: points of a range "a:b" without ":n"
DEFAULT_POINTS = 5
#: most cells (σ × steps × δ) of one map
MAX_CELLS = 10_000


def axis(name: str, text: str, kind: str = "float") -> tuple:
    """Values of one axis from its text: kind "sigma" (> 0), "steps" (integers >= 1) or "delta" (in (0, 1))."""
    text = str(text).strip()
    if ":" in text:
        values = _range(name, text, kind)
    else:
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            raise InvalidParameter(name, text, "must be a comma list of numbers or a range a:b[:n]") from None
    out = [_checked(name, text, v, kind) for v in values]
    twice = repeated(out)
    if twice is not None:
        how = "a range's points must stay distinct after rounding: use fewer points" if ":" in text else "give it once"
        raise InvalidParameter(name, text, f"values must be distinct: {twice:g} is given twice; {how}")
    return tuple(sorted(out))


def repeated(values):
    """The first value that occurs twice in `values` (None when all are distinct)."""
    seen = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None


def _range(name: str, text: str, kind: str) -> list[float]:
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        a, b = float(parts[0]), float(parts[1])
        n = int(parts[2]) if len(parts) == 3 else DEFAULT_POINTS
    except ValueError:
        raise InvalidParameter(name, text, "a range is a:b or a:b:n (n an integer >= 2 of log-spaced points)") from None
    if not (math.isfinite(a) and math.isfinite(b) and 0 < a < b):
        raise InvalidParameter(name, text, "a range a:b needs finite 0 < a < b")
    if n < 2 or n > MAX_CELLS:
        raise InvalidParameter(name, text, f"the number of points n must be an integer in [2, {MAX_CELLS}]")
    la, lb = math.log(a), math.log(b)
    values = [math.exp(la + (lb - la) * i / (n - 1)) for i in range(n)]
    if kind == "steps":
        return [float(round(v)) for v in values]
    return [float(f"{v:.3g}") for v in values]


def _checked(name: str, text: str, v: float, kind: str):
    if not math.isfinite(v):
        raise InvalidParameter(name, text, "values must be finite")
    if kind == "sigma" and not v > 0:
        raise InvalidParameter(name, text, "values must be > 0")
    if kind == "steps":
        if not (v >= 1 and v == int(v)):
            raise InvalidParameter(name, text, "values must be integers >= 1")
        return int(v)
    if kind == "delta" and not 0 < v < 1:
        raise InvalidParameter(name, text, "values must lie in (0, 1)")
    return v


@dataclass(frozen=True)
class Region:
    """σ values × steps values × δ values of the configurations (scheme, rate, k, epochs) shared by every cell."""

    sigmas: tuple
    steps: tuple
    deltas: tuple
    scheme: str = "allocation"
    rate: str | None = None
    k: int = 1
    epochs: int = 1

    def __post_init__(self):
        for name, values in (("sigma", self.sigmas), ("steps", self.steps), ("delta", self.deltas)):
            if not values:
                raise InvalidParameter(name, "", "needs at least one value")
            if repeated(values) is not None:
                raise InvalidParameter(name, f"{repeated(values):g}", "is given twice: the values must be distinct")
        if self.cells_count > MAX_CELLS:
            raise InvalidParameter(
                "sigma",
                f"{len(self.sigmas)} x {len(self.steps)} x {len(self.deltas)} values",
                f"a map has at most {MAX_CELLS} cells",
            )
        for s in self.sigmas:
            for t in self.steps:
                self.config(s, t)  # every Config is valid (k <= steps, the rate of a Poisson scheme...)

    @property
    def cells_count(self) -> int:
        return len(self.sigmas) * len(self.steps) * len(self.deltas)

    def spec(self, sigma: float, steps: int) -> dict:
        """The golden-table "config" spec of the cell (audit.golden.config_of reads it)."""
        out = {
            "mechanism": "gaussian",
            "sigma": repr(float(sigma)),
            "scheme": self.scheme,
            "steps": int(steps),
            "k": self.k,
            "epochs": self.epochs,
        }
        if self.rate is not None:
            out["rate"] = str(self.rate)
        return out

    def config(self, sigma: float, steps: int) -> Config:
        try:
            return Config(Gaussian(repr(float(sigma))), self.scheme, int(steps), self.k, self.epochs, self.rate)
        except (InvalidParameter, UnsupportedRequest):
            raise
        except (TypeError, ValueError) as exc:
            raise InvalidParameter("sigma", sigma, str(exc)) from None

    def pairs(self) -> list[tuple[float, int]]:
        """(σ, steps) of every column of cells sharing one certified ledger, in axis order."""
        return [(s, t) for s in self.sigmas for t in self.steps]

    def with_axes(self, sigmas=None, steps=None, deltas=None) -> "Region":
        return Region(
            tuple(self.sigmas if sigmas is None else sigmas),
            tuple(self.steps if steps is None else steps),
            tuple(self.deltas if deltas is None else deltas),
            self.scheme,
            self.rate,
            self.k,
            self.epochs,
        )

    def flags(self) -> str:
        """The region as the command-line flags that select it."""
        out = [
            "--sigma " + ",".join(f"{s:g}" for s in self.sigmas),
            "--steps " + ",".join(str(t) for t in self.steps),
            "--delta " + ",".join(f"{d:g}" for d in self.deltas),
        ]
        return " ".join(out)

    def as_dict(self) -> dict:
        return {
            "sigma": list(self.sigmas),
            "steps": list(self.steps),
            "delta": list(self.deltas),
            "scheme": self.scheme,
            "rate": self.rate,
            "k": self.k,
            "epochs": self.epochs,
        }


def cell_id(sigma: float, steps: int, delta: float) -> str:
    return f"s{sigma:g}-t{steps}-d{delta:g}"


def entry(region: Region, sigma: float, steps: int, delta: float, brackets: dict) -> dict:
    """The golden-style entry of one cell: ε at δ, with certified `brackets` {remove, add, both: [lower, upper]}."""
    return {
        "id": cell_id(sigma, steps, delta),
        "config": region.spec(sigma, steps),
        "quantity": "epsilon",
        "target": repr(float(delta)),
        "brackets": brackets,
    }
