"""What every analytic bound returns, and the common option set."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass, field

from ...errors import InvalidParameter, UnsupportedRequest
from ..pld.pld_accountant import Settings


@dataclass(frozen=True)
class BoundValue:
    """An UPPER bound `value` on δ(ε) in one direction, with the free parameters the bound chose."""

    value: float
    params: dict = field(default_factory=dict)


#: Poisson rates from which the automatic ingredient grid is coarse (1e-3)
COARSE_RATE = 0.05


@dataclass(frozen=True)
class Options:
    """Knobs of the analytic bounds.

    pld: grid of the Poisson PLDs (loss step, tail) used as the Poisson ingredient; None (default): loss step
      1e-4 below rate COARSE_RATE (the step must stay well below λ) and 1e-3 above it (large rates: wide PLDs,
      and these second-order upper PLDs are far tighter than the bounds they feed), with tail `tail`;
    tail: truncation tail of the automatic grid (epsilon() lowers it from the target δ);
    eta_points, eta_span: the rate grid searched by the truncated-Poisson (F34) and recursive (F36) bounds,
      η = (1 + g)/m for geometric g ∈ [1e-3, min(m − 1, eta_span)] (larger η: larger Poisson PLDs);
    rate: λ of the decomposition bound (F37), None = 1/m;
    hoeffding: "cosh" (the printed F34, default) or "sinh" (also valid, tighter; erratum E8);
    tau_factor: 2 (conservative, the factor the proof of Thm 4.2 derives; default) or 1 (the printed τ,
      valid by the one-sided tail bound of erratum E7).
    """

    pld: Settings | None = None
    tail: float = 1e-15
    eta_points: int = 12
    eta_span: float = 64.0
    rate: float | None = None
    hoeffding: str = "cosh"
    tau_factor: int = 2

    def poisson_settings(self, rate: float) -> Settings:
        """The grid of the Poisson ingredient at this rate (see `pld`)."""
        if self.pld is not None:
            return self.pld
        return Settings(loss_step=1e-4 if rate < COARSE_RATE else 1e-3, tail=self.tail)

    def __post_init__(self):
        if self.hoeffding not in ("cosh", "sinh"):
            raise InvalidParameter("hoeffding", self.hoeffding, "must be cosh|sinh (erratum E8)")
        if self.tau_factor not in (1, 2):
            raise InvalidParameter("tau_factor", self.tau_factor, "must be 2 (conservative) or 1 (printed τ, E7)")
        if not (isinstance(self.eta_points, int) and 2 <= self.eta_points <= 200):
            raise InvalidParameter("eta_points", self.eta_points, "must be an integer in [2, 200]")
        if not (isinstance(self.eta_span, (int, float)) and 1e-3 < self.eta_span < 1e9):
            raise InvalidParameter("eta_span", self.eta_span, "must be a number in (1e-3, 1e9)")
        if not (isinstance(self.tail, (int, float)) and 0 < self.tail < 1e-3):
            raise InvalidParameter("tail", self.tail, "must lie in (0, 1e-3)")
        if self.rate is not None and not (0 < self.rate <= 1):
            raise InvalidParameter("rate", self.rate, "must lie in (0, 1]")


def not_applicable(name: str, value, why: str):
    """Raise the error every bound uses outside its theorem's conditions."""
    raise UnsupportedRequest(name, value, why)


#: the progress callable(stage) of the analytic evaluation running in this context (None: no reporting); a
#: context variable rather than an argument so the cached helpers (lru_cache on config and options) stay keyed
#: on the mathematics only
_PROGRESS = contextvars.ContextVar("verialloc_analytic_progress", default=None)


def report(stage: str) -> None:
    """Tell the current progress reporter (if any) which stage a bound is in."""
    tick = _PROGRESS.get()
    if tick is not None:
        tick(stage)


@contextmanager
def reporting(progress):
    """Within the block, `report(stage)` calls progress(stage) (progress None: reporting off)."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)
