"""Decomposition bound, F37 ([004] Thm 4.6; [000] Thm 4.1 remove part only — erratum E1). UPPER, k = 1, one epoch.

remove: δ→_A(ε) ≤ γ→ · δ→_{P_{t,λ}}(ε→),   γ→ = 1/(1 − (1 − λ)^t),   ε→ = ln(1 + (e^ε − 1)/γ→);
add (v2 form, E1): δ←_A(ε) ≤ γ← · δ←_{P_{t,λ}}(ε←),   γ← = 1 + e^ε(γ→ − 1),   ε← = −ln(1 − (1 − e^{−ε})/γ→).
Valid for ε ≥ 0 and λ ∈ (0, 1] (default λ = 1/t). The Poisson profile is the sound PLD upper bound
(`poisson_profile.poisson_delta`). The theorem bounds one allocation A_t: k > 1 or several epochs are not
served (the bound is not a dominating pair, so it does not compose).
"""

from __future__ import annotations

import math

import mpmath as mp

from ...config import Config
from .base import BoundValue, Options, not_applicable
from .poisson_profile import blocks, poisson_delta, up

NAME = "decomposition"


def gammas(t: int, lam: float, epsilon: float) -> tuple[float, float]:
    """(γ→, γ←) of F37, rounded up."""
    with mp.workdps(40):
        g = 1 / (-mp.expm1(t * mp.log1p(-mp.mpf(lam)))) if lam < 1 else mp.mpf(1)
        g_add = 1 + mp.exp(epsilon) * (g - 1)
        return up(float(g)), up(float(g_add))


def shifted_epsilon(gamma: float, epsilon: float, direction: str) -> float:
    """ε→ or ε← of F37 for the (rounded-up) γ→, rounded down (δ_P is non-increasing in ε)."""
    if direction == "remove":
        value = math.log1p(math.expm1(epsilon) / gamma)
    else:
        value = -math.log1p(math.expm1(-epsilon) / gamma)
    return value - abs(value) * 1e-12


def delta(config: Config, epsilon: float, direction: str, options: Options = Options()) -> BoundValue:
    """UPPER bound on δ(ε) of A_t in `direction` (remove | add) by F37 (E1: add uses γ←, ε←)."""
    m, n = blocks(config)
    if n != 1:
        not_applicable("k*epochs", n, "the decomposition bound (F37) covers one allocation (k = 1, one epoch)")
    if epsilon < 0:
        not_applicable("epsilon", epsilon, "the decomposition bound (F37) needs epsilon >= 0")
    lam = options.rate if options.rate is not None else 1.0 / m
    g_remove, g_add = gammas(m, lam, epsilon)
    shifted = shifted_epsilon(g_remove, epsilon, direction)
    factor = g_remove if direction == "remove" else g_add
    value = up(
        factor * float(poisson_delta(config.mechanism, m, lam, direction, shifted, options.poisson_settings(lam)))
    )
    return BoundValue(value, {"rate": lam, "gamma": factor, "shifted_epsilon": shifted})
