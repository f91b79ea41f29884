"""Shared ingredients of the analytic bounds: sound Poisson profiles, single-step profiles, blocks, the η grid.

* `poisson_delta`: an UPPER bound on δ of the Poisson scheme P_{steps,rate} (F46, F47) in one direction, from the
  sound PLD pipeline of `numeric` (exact subsampled law → dominating second-order discretization →
  composition; the `upper` PLD's `delta_bound`, float budget included). One PLD per (mechanism, steps, rate,
  direction, grid) is built and cached, then queried at any ε. The profile is non-decreasing in the rate
  (F29, I6), so a rate rounded up keeps the bound sound.
* `single_delta`: the exact single-step profile `mechanism.delta(ε, direction)` (mpmath), rounded up to float.
* `blocks`: the k > 1 / epochs structure (F27): n = k·E copies of the allocation A_m, m = ⌊t/k⌋.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np

from ...config import Config
from ...mechanisms import Mechanism
from ...rounding import float_up
from ..pld.pld_accountant import Settings
from ..pld.compose import self_compose
from ..pld.discretize import discretize_pair
from ..pld.subsample import SubsampledLoss
from .base import report

#: relative slack added to float results computed from sound ingredients (rounding of γ, ε shifts, sums)
ROUND_UP = 1e-12


def up(x: float) -> float:
    """x rounded up by a relative ROUND_UP (covers the float64 arithmetic done on top of sound ingredients)."""
    return x + abs(x) * ROUND_UP + 1e-300 if x > 0 else x


def blocks(config: Config) -> tuple[int, int]:
    """(m, n): the configuration is dominated by n = k·E composed copies of A_m, m = ⌊t/k⌋ (F27, F21/F48)."""
    return config.steps // config.k, config.k * config.epochs


def single_delta(mech: Mechanism, epsilon: float, direction: str) -> float:
    """Exact single-step δ_R(ε) (F2) in `direction`, as a float rounded up."""
    return _single_delta(mech, float(epsilon), direction)


@lru_cache(maxsize=4096)
def _single_delta(mech: Mechanism, epsilon: float, direction: str) -> float:
    with mp.workdps(30):
        value = float_up(mech.delta(mp.mpf(epsilon), direction))
    return min(1.0, up(value))


def poisson_delta(mech: Mechanism, steps: int, rate: float, direction: str, epsilon, settings: Settings):
    """UPPER bound on δ of P_{steps,rate}(R) at ε (scalar or array), `direction` remove or add (F46, F47)."""
    report(f"Poisson PLD t={int(steps)} rate={float(rate):.4g} {direction}")
    pld = _poisson_pld(mech, int(steps), float(rate), direction, settings.loss_step, settings.tail)
    return np.minimum(pld.delta_bound(epsilon), 1.0)


@lru_cache(maxsize=256)
def _poisson_pld(mech: Mechanism, steps: int, rate: float, direction: str, step: float, tail: float):
    law = mech.loss_law()
    sub = SubsampledLoss(law, rate) if rate < 1 else law
    single = discretize_pair(sub, direction, step, tail, "upper")
    return self_compose(single, steps, tail, step)


def rate_up(rate: float) -> float:
    """A float rate ≥ the given one (the Poisson profile is non-decreasing in the rate, F29)."""
    return min(1.0, math.nextafter(rate, math.inf))


def eta_grid(m: int, points: int, g_max: float = 64.0) -> list[float]:
    """Poisson rates η = (1 + g)/m for geometric g ∈ [1e-3, min(m − 1, g_max)], plus η = 1 when it is reached."""
    if m < 2:
        return [1.0]
    top = min(m - 1.0, g_max)
    gs = np.geomspace(1e-3, top, points) if top > 1e-3 else np.array([top])
    etas = sorted({min(1.0, rate_up((1.0 + float(g)) / m)) for g in gs})
    return etas
