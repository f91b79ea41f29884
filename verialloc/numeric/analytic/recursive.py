"""Recursive bound, F36 ([004] Thm 4.2, App. B.5, Claim B.10). UPPER, remove and add; erratum E7.

For ε, ε′ > 0 with η = e^{2ε′}/t ≤ 1 and τ = 1/(e^{ε′}(e^{ε′} − 1)):
    δ→_A(ε) ≤ δ→_{P_{t,η}}(ε) + f·τ·δ←_A(ε′),     δ←_A(ε) ≤ δ←_{P_{t,η}}(ε) + f·τ·e^{2ε′}·δ←_A(ε′),
both using the ADD profile of the allocation at ε′. f = 2 by default: the proof derives 2/(tη − √(tη)) = 2τ
and then writes τ (E7); f = 1 (the printed statement) is also valid by the one-sided tail bound of E7, opt-in.
δ←_A(ε′) is bootstrapped by the minimum of the other add bounds (F37 add, F42, F34) on one allocation A_m.
n = k·E copies of A_m (F27, epochs): the tail term is an event probability, union-bounded over the copies
(as in the proof of [004] Lemma C.2); Poisson with n·m steps at rate η. ε′ runs over ½ ln(mη) for η on the
shared rate grid (so the Poisson PLDs are those of F34). Valid for ε > 0 and m ≥ 2.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ...config import Config
from ...errors import UnsupportedRequest
from . import decomposition, direct_add, truncated_poisson
from .base import BoundValue, Options, not_applicable
from .poisson_profile import blocks, eta_grid, poisson_delta, up

NAME = "recursive"


def delta(config: Config, epsilon: float, direction: str, options: Options = Options()) -> BoundValue:
    """UPPER bound on δ(ε) in `direction` by F36, minimized over ε′ on the grid."""
    if not epsilon > 0:
        not_applicable("epsilon", epsilon, "the recursive bound (F36) needs epsilon > 0")
    m, n = blocks(config)
    if m < 2:
        not_applicable("steps/k", m, "the recursive bound (F36) needs at least 2 steps per allocation (e^{2ε'} ≤ m)")
    best = None
    for eta, eps_prime, extra in tail_terms(config, direction, options):
        value = up(
            float(poisson_delta(config.mechanism, n * m, eta, direction, epsilon, options.poisson_settings(eta)))
            + extra
        )
        if best is None or value < best.value:
            best = BoundValue(min(value, 1.0), {"eta": eta, "eps_prime": eps_prime, "additive": extra})
    return best


@lru_cache(maxsize=64)
def tail_terms(config: Config, direction: str, options: Options) -> tuple:
    """((η, ε′, n·f·τ·w·δ←_{A_m}(ε′)), ...) with w = 1 (remove) or e^{2ε′} (add)."""
    m, n = blocks(config)
    block = Config(config.mechanism, steps=m)
    out = []
    for eta in eta_grid(m, options.eta_points, options.eta_span):
        eps_prime = 0.5 * math.log(m * eta) * (1 - 1e-12)  # rounded down: e^{2ε′}/m ≤ η (rate monotone, F29)
        if eps_prime <= 0:
            continue
        tau = 1.0 / (math.exp(eps_prime) * math.expm1(eps_prime))
        weight = 1.0 if direction == "remove" else math.exp(2 * eps_prime)
        extra = up(n * options.tau_factor * tau * weight * bootstrap_add(block, eps_prime, options))
        out.append((eta, eps_prime, extra))
    return tuple(out)


def bootstrap_add(block: Config, eps_prime: float, options: Options) -> float:
    """UPPER bound on δ←_{A_m}(ε′): the minimum of the non-recursive add bounds that apply (and 1)."""
    values = [1.0]
    for bound in (decomposition, direct_add, truncated_poisson):
        try:
            values.append(bound.delta(block, eps_prime, "add", options).value)
        except UnsupportedRequest:
            pass
    return min(values)
