"""Truncated-Poisson bound, F33–F35 ([004] Lemma 4.3, Thm 4.1, proof of Lemma C.2; [000] Thm 3.2). UPPER, both directions.

For an (ε0, δ0)-DP randomizer R and any β > 0, per direction (the proof bounds β→ and β← alike):
    δ_{A_t}(ε) ≤ δ_{P_{t,η}}(ε) + t·δ0 + β,  η = min{1/(t(1−γ)), 1},  γ = min{h(ε0)·sqrt((2/t) ln(1/β)), 1},
h = cosh as printed; h = sinh is also valid and tighter (erratum E8). n = k·E copies of A_m (F27, epochs):
union bound over the copies as in the proof of [004] Lemma C.2 — Poisson with n·m steps at rate η plus
n·(m·δ0 + β_block). Here the free parameters are searched: η on a grid (`eta_grid`), and for each η the
β = exp(−mγ²/(2h(ε0)²)), γ = 1 − 1/(mη), and ε0 minimizing the additive term, with δ0 = max over directions
of the exact single-step profile at ε0 (F2). η = 1 is the full composition (no additive term; F30).
Valid for ε > 0.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...config import Config
from .base import BoundValue, Options, not_applicable
from .poisson_profile import blocks, eta_grid, poisson_delta, single_delta, up

NAME = "truncated_poisson"
#: grid of ε0 searched for the pure-DP reduction (F35a)
EPS0_GRID = tuple(float(x) for x in np.geomspace(1e-3, 30.0, 90))


def delta(config: Config, epsilon: float, direction: str, options: Options = Options()) -> BoundValue:
    """UPPER bound on δ(ε) in `direction` by F34 (with F27 blocks), minimized over η and ε0."""
    if not epsilon > 0:
        not_applicable("epsilon", epsilon, "the truncated-Poisson bound (F34) needs epsilon > 0")
    m, n = blocks(config)
    best = None
    for eta, extra, eps0 in additive_terms(config, options):
        value = up(
            float(poisson_delta(config.mechanism, n * m, eta, direction, epsilon, options.poisson_settings(eta)))
            + extra
        )
        if best is None or value < best.value:
            best = BoundValue(min(value, 1.0), {"eta": eta, "additive": extra, "eps0": eps0})
    return best


@lru_cache(maxsize=64)
def additive_terms(config: Config, options: Options) -> tuple:
    """((η, n·(m·δ0 + β), ε0), ...) over the η grid, each additive term minimized over ε0 (F34, F35)."""
    m, n = blocks(config)
    mech = config.mechanism
    eps0 = np.array(EPS0_GRID)
    delta0 = np.array([max(single_delta(mech, e, "remove"), single_delta(mech, e, "add")) for e in EPS0_GRID])
    h = np.cosh(eps0) if options.hoeffding == "cosh" else np.sinh(eps0)
    out = []
    for eta in eta_grid(m, options.eta_points, options.eta_span):
        if eta >= 1.0:
            out.append((1.0, 0.0, None))
            continue
        gamma = 1.0 - 1.0 / (m * eta)  # η = 1/(m(1−γ)); any β with γ(β) ≤ γ gives a rate ≤ η (F29)
        beta = np.exp(-m * gamma**2 / (2.0 * h**2)) * (1 + 1e-9)
        total = n * (m * delta0 + beta)
        i = int(np.argmin(total))
        out.append((eta, up(float(total[i])), float(eps0[i])))
    return tuple(out)
