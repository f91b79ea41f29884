"""The allocation PLDs read off the t-fold sum (F7, F24): remove ln(S/t) under P̄_t, add −ln(S/t) under Q^t, with
the float error absorbed in the safe direction; lower PLDs get back the outcomes beyond float64 (`_extreme_atoms`).
"""

from __future__ import annotations

import math

import numpy as np

from ....errors import InternalError
from ..pld import PLD
from .exp_grid import GridLaw
from .squaring import _Node

_U = np.finfo(float).eps / 2


def read_pld(node: _Node, law: GridLaw, t: int, direction: str, bound: str, relative: bool) -> PLD:
    """PLD of the discretized allocation pair (F7, F24): remove ln(S/t) under P̄_t, add −ln(S/t) under Q^t.

    upper: the top bin is Q-mass at the window top plus P-mass at +inf carrying its excess moment; cut mass is
    Q-mass at S = 0 plus P-mass at +inf carrying its moment (limits of mean-preserving spreads: the pair
    dominates). The relative float error is absorbed: masses × (1 + 2·rel), then the surplus over total 1 is
    removed from the lowest losses (the survival function stays above the exact one: stochastic domination).
    lower: remove keeps the top bin's Q-mass at the window top (its P̄-mass moved down, its excess P̄-weight
    dropped, so E[e^{−L}] ≤ 1 stays exact), add drops the top bin; cut mass is dropped; masses × (1 − 2·rel)
    (entrywise below the exact ones).
    float_error: the absolute convolution part + the single-step W1 estimate (Lipschitz 1 for remove, window/t
    for add over the window's ε range) + the rounding of one δ evaluation. `relative` (tail-accurate mode): the
    losses are moved outward by their rounding (upper: up, lower: down), after which each term of a δ evaluation
    has a relative error κ; that rounding is absorbed — all masses × (1 ± κ), the upper trimmed to total 1 + κ
    (it then dominates (1 + κ) times the exact PLD), so no absolute term remains for it.
    """
    h, o = law.h, law.offset
    idx = np.arange(node.lo, node.hi + 1, dtype=float)
    q = node.arr
    positive = (idx > 0) | (o > 0)
    ratio = o + idx[positive] * (h / t)  # S/t with S = t·o + idx·h
    if o == 0:
        logs = np.log(idx[positive]) + math.log(h / t)
    elif 0.5 <= o <= 2:  # o − 1 is exact (Sterbenz): losses far below one stay apart (ratio steps h/t below 1 ulp
        logs = np.log1p((o - 1.0) + idx[positive] * (h / t))  # round to one float: randomized response, ε0 = 1e-12)
    else:
        logs = np.log(ratio)
    q_pos = q[positive]
    zero_mass = float(q[~positive].sum())
    window_ratio = o + node.hi * h / t
    dropped_moment = node.dropped_moment + t * o * node.dropped  # E[S; cut] from E[S − t·o; cut]
    scale = 1 + 2 * node.rel if bound == "upper" else max(0.0, 1 - 2 * node.rel)
    if direction == "remove":
        masses = q_pos * ratio
        if bound == "upper":
            truncated = (node.top_excess + dropped_moment) / t * scale
            inf_mass = law.singular + truncated
        else:
            masses[-1] = window_ratio * float(q[-1])
            truncated = (node.top_excess + dropped_moment) / t
            inf_mass = law.singular
        float_error = window_ratio * (node.err + node.rel * node.dropped) + node.err_moment / t + law.w1_error
        losses = logs
    else:
        masses = q_pos[::-1].copy()
        if bound == "upper":
            truncated = node.dropped * scale
            inf_mass = zero_mass * scale + truncated
        else:
            masses[0] = 0.0
            inf_mass = zero_mass * scale
            truncated = node.dropped + float(q[-1])
        float_error = node.err + max(1.0, window_ratio) * law.w1_error
        losses = -logs[::-1]
    masses = masses * scale
    # evaluating δ(ε) = Σ m(1 − e^{ε−l}) + inf_mass itself: non-negative terms, pairwise summation
    kappa = (math.log2(masses.size + 1) + 6) * _U
    if relative:  # losses (log of a rounded ratio) moved outward by their rounding, masses (q·ratio) by 4u more
        sign = 1.0 if bound == "upper" else -1.0
        losses = losses + sign * 8 * _U * (1 + np.abs(losses) + abs(math.log(h / t)))
        kappa += 4 * _U
        masses, inf_mass = masses * (1 + sign * kappa), inf_mass * (1 + sign * kappa)
    if bound == "upper":
        masses, inf_mass = _trim(masses, inf_mass, 1 + kappa if relative else 1.0)
    if not relative:
        float_error += kappa * (float(masses.sum()) + inf_mass)
    if bound == "lower":
        losses, masses = _extreme_atoms(losses, masses, law, t, direction, kappa)
    return PLD(losses, masses, inf_mass=inf_mass, truncated=truncated, float_error=float_error, bound=bound)


def _extreme_atoms(
    losses: np.ndarray, masses: np.ndarray, law: GridLaw, t: int, direction: str, kappa: float
) -> tuple[np.ndarray, np.ndarray]:
    """Lower PLDs: the single-step outcomes `contract` left out because e^ℓ is beyond float64 (GridLaw.high /
    low) come back as atoms at losses no larger than their true ones (F2, F24; a LOWER bound only).

    The lower law is a sub-pair without those outcomes D (every hockey-stick term is ≥ 0, so the outcomes of the
    t-fold pair with a coordinate in D only add to δ). remove: under the component of P̄_t whose own step
    falls in D at an atom of loss v, ln(S/t) ≥ ln(e^v/t) = v − ln t, a P-mass p_v (in δ = E_P̄[(1 − e^{ε−L})_+],
    non-decreasing in L). add: when all t steps fall in D's low part (Q-mass w^t), S/t ≤ max e^ℓ ≤ e^{low_top},
    so −ln(S/t) ≥ −low_top. Losses are rounded down and masses lowered by their rounding (`kappa`).
    """
    if direction == "remove" and law.high_masses.size:
        extra = law.high_losses - math.log(t)
        extra_m = law.high_masses
    elif direction == "add" and law.low_mass > 0 and math.isfinite(law.low_top):
        extra = np.array([-law.low_top])
        extra_m = np.array([law.low_mass**t])
    else:
        return losses, masses
    extra = extra - 8 * _U * (1.0 + np.abs(extra) + math.log(t))
    extra_m = extra_m * (1.0 - kappa - 8 * _U)
    keep = extra_m > 0
    if not np.any(keep):
        return losses, masses
    uniq, index = np.unique(np.concatenate([losses, extra[keep]]), return_inverse=True)
    return uniq, np.bincount(index, weights=np.concatenate([masses, extra_m[keep]]), minlength=uniq.size)


def _trim(masses: np.ndarray, inf_mass: float, total: float) -> tuple[np.ndarray, float]:
    """Remove the surplus over `total` from the lowest losses (keeps the survival function ≥ the exact one).

    Computed from the top: the highest losses (and the +inf atom) are kept while their sum stays ≤ total and the
    next lower entry gets the rest, so the kept mass is `total` even when the surplus dwarfs it (directed error
    bounds of 1e14 in the tail-accurate mode once made a prefix cumsum round the whole PLD away: an upper PLD
    with no mass and ε = −inf; found by verialloc fuzz --seed 7)."""
    if not (np.all(np.isfinite(masses)) and math.isfinite(inf_mass)):
        raise InternalError("allocation: non-finite masses in an upper PLD")
    if math.fsum(masses) + inf_mass <= total:
        return masses, inf_mass
    if inf_mass >= total:
        return np.zeros_like(masses), total
    suffix = np.cumsum(masses[::-1])[::-1] + inf_mass  # suffix[j] = Σ_{i ≥ j} m_i + inf (small terms first)
    j = int(np.searchsorted(-suffix, -total, side="left"))  # first index with suffix[j] ≤ total
    out = masses.copy()
    out[:j] = 0.0
    if j > 0:
        kept = math.fsum(out[j:]) + inf_mass
        out[j - 1] = max(total - kept, 0.0)
    return out, inf_mass
