"""Asymptotic Gaussian corollary, F43(a) ([004] Cor 4.5; [000] Cor 3.12). UPPER, both directions, one epoch.

If σ > 8·max{sqrt(ln(t/δ)), sqrt(k/t)·ln(t/δ)} then δ_{A_{t,k}(N_σ)}(ε) ≤ δ_{P_{t,2k/t}(N_σ)}(ε) + 2δ.
Its proof instantiates F34 with δ0 = δ/t and needs "h(ε0) ≤ 3ε0/2", false for the printed cosh but true for
sinh (erratum E8), which F34 also allows — so the corollary stands. Here δ is the smallest value the σ
condition admits (rounded up). Needs k | t (the proof splits [t] into k blocks), 2k/t ≤ 1 and ε > 0.
"""

from __future__ import annotations

import math

from ...config import Config
from ...mechanisms import Gaussian
from .base import BoundValue, Options, not_applicable
from .poisson_profile import poisson_delta, rate_up, up

NAME = "asymptotic"


def free_delta(sigma: float, t: int, k: int) -> float:
    """Smallest δ (rounded up) with σ > 8·max{sqrt(ln(t/δ)), sqrt(k/t)·ln(t/δ)}."""
    s = sigma / 8.0
    log_max = min(s * s, s * math.sqrt(t / k))  # ln(t/δ) must stay strictly below this
    return t * math.exp(-log_max) * (1 + 1e-9)


def delta(config: Config, epsilon: float, direction: str, options: Options = Options()) -> BoundValue:
    """UPPER bound on δ(ε) in `direction` by F43(a)."""
    mech, t, k = config.mechanism, config.steps, config.k
    if not isinstance(mech, Gaussian):
        not_applicable("mechanism", mech.name, "the asymptotic corollary (F43a) is for the Gaussian mechanism")
    if config.epochs != 1:
        not_applicable("epochs", config.epochs, "the asymptotic corollary (F43a) is stated for one epoch")
    if t % k or 2 * k > t:
        not_applicable("k", k, "the asymptotic corollary (F43a) needs k | t and 2k/t <= 1")
    if not epsilon > 0:
        not_applicable("epsilon", epsilon, "the asymptotic corollary (F43a) needs epsilon > 0")
    free = free_delta(mech.noise_multiplier, t, k)
    if 2 * free >= 1:
        not_applicable("sigma", mech.sigma, "too small for the asymptotic corollary (F43a): its additive 2δ >= 1")
    rate = rate_up(2 * k / t)
    value = up(float(poisson_delta(mech, t, rate, direction, epsilon, options.poisson_settings(rate))) + 2 * free)
    return BoundValue(min(value, 1.0), {"rate": rate, "free_delta": free})
