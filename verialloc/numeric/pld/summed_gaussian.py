"""LOWER bounds for Gaussian random allocation from one post-processing: the sum of all outputs (F8, F13).

With k of t steps per epoch and E epochs, adding up every released value maps the allocation pair to
N(kE, tEσ²) vs N(0, tEσ²): a Gaussian mechanism with noise multiplier σ_sum = σ·√t/(k·√E). Post-processing
cannot increase a hockey-stick divergence (F8), in either direction (the summed pair is symmetric, F13), so its
profile is a lower bound on the allocation's. It is tight when k = t (every step used) and, for k ≳ √t, far
tighter than the k = 1 lower bound (F30) the PLD route otherwise uses.

Float64: F13 is evaluated in log space (`log_ndtr`); its relative error is far below REL_MARGIN (1e-6), by
which every value is moved in the safe direction (δ down; ε only where δ ≥ target·(1 + REL_MARGIN)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from ...config import Config
from ...mechanisms import Gaussian

#: safety margin on the float64 evaluation of F13 (relative, on δ)
REL_MARGIN = 1e-6


def summed_sigma(config: Config) -> float | None:
    """σ_sum of the summed-output pair, or None if the configuration is not Gaussian random allocation."""
    if not isinstance(config.mechanism, Gaussian) or config.scheme != "allocation":
        return None
    return config.mechanism.noise_multiplier * math.sqrt(config.steps) / (config.k * math.sqrt(config.epochs))


def _delta(sigma: float, epsilon: float) -> float:
    """F13, Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ), as ln Φ(a) + ln(1 − e^{ε + ln Φ(b) − ln Φ(a)})."""
    la = log_ndtr(0.5 / sigma - epsilon * sigma)
    if not math.isfinite(la):  # Φ(a) below the float64 range (huge ε): 0 is a valid lower end there
        return 0.0
    gap = epsilon + log_ndtr(-0.5 / sigma - epsilon * sigma) - la
    if not gap < 0:  # nothing left after the float64 subtraction: 0 again
        return 0.0
    return float(np.exp(la + math.log(-math.expm1(gap))))


def delta_lower(config: Config, epsilon: float) -> float | None:
    """LOWER bound on δ(ε) of the configuration (both directions), or None when not applicable."""
    sigma = summed_sigma(config)
    if sigma is None:
        return None
    return max(_delta(sigma, epsilon) * (1 - REL_MARGIN), 0.0)


def epsilon_lower(config: Config, delta: float) -> float | None:
    """LOWER bound on ε(δ) (both directions): the largest ε found with δ_sum(ε) ≥ δ·(1 + REL_MARGIN)."""
    sigma = summed_sigma(config)
    if sigma is None:
        return None
    need = delta * (1 + REL_MARGIN)
    if _delta(sigma, 0.0) < need:
        return None  # the summed pair certifies nothing at ε ≥ 0; the trivial bound applies
    lo, hi = 0.0, 1.0
    while _delta(sigma, hi) >= need:
        lo, hi = hi, 2 * hi
        if hi > 1e4:
            return lo
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _delta(sigma, mid) >= need:
            lo = mid
        else:
            hi = mid
    return lo


def composed_sigma(config: Config) -> float | None:
    """σ/√(kE) of the k·E Gaussian steps an element joins, or None if the configuration is not Gaussian."""
    if not isinstance(config.mechanism, Gaussian):
        return None
    joined = config.k * config.epochs if config.scheme == "allocation" else config.steps * config.epochs
    return config.mechanism.noise_multiplier / math.sqrt(joined)


def epsilon_upper(config: Config, delta: float) -> float | None:
    """UPPER bound on ε(δ), both directions: the configuration is a post-processing of the k·E (Poisson: t·E)
    Gaussian steps that may hold the element (place their outputs at a random k-subset of the t steps, or at the
    sampled steps, and draw every other output from R(⊥); F8), which compose to one Gaussian of σ/√(kE) (F13).
    The smallest ε found with δ(ε)·(1 + REL_MARGIN) ≤ δ; None beyond float64 (δ below 1e-300)."""
    sigma = composed_sigma(config)
    if sigma is None or delta < 1e-300:
        return None
    need = delta / (1 + REL_MARGIN)
    lo, hi = 0.0, 1.0
    while _delta(sigma, hi) > need:
        lo, hi = hi, 2 * hi
        if hi > 1e300:
            return None
    if _delta(sigma, lo) <= need:
        return lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _delta(sigma, mid) > need:
            lo = mid
        else:
            hi = mid
    return hi
