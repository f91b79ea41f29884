"""Exact single-step Gaussian quantities used by the bounds (F13, F14, F15, F41, F42).

Pair P = N(1, σ²), Q = N(0, σ²) (F16). The PLD is L ~ N(μ, 2μ) with μ = 1/(2σ²) (F15); it is self-dual, so
every PLD quantity below serves both directions. All functions work at the *current* `mpmath.mp` precision.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ..errors import InvalidParameter
from ..mechanisms.base import mpq
from ..mechanisms.gaussian import gaussian_delta
from ..validation import integer, positive, real, to_fraction

_NEWTON_STEPS = 200


def _sigma(sigma) -> mp.mpf:
    return mpq(positive("sigma", sigma))


def _point(name: str, x) -> mp.mpf:
    """A point of the extended real line: ±inf allowed, finite values read exactly."""
    if isinstance(x, (mp.mpf, float)) and mp.isinf(x):
        return mp.mpf(x)
    return mpq(real(name, x))


def gaussian_pld_params(sigma) -> tuple:
    """(μ, 2μ): mean and variance of the Gaussian PLD, μ = 1/(2σ²) (F15)."""
    mu = 1 / (2 * _sigma(sigma) ** 2)
    return mu, 2 * mu


def _standardize(x, sigma) -> mp.mpf:
    mu, var = gaussian_pld_params(sigma)
    return (_point("x", x) - mu) / mp.sqrt(var)


def gaussian_pld_sf(x, sigma) -> mp.mpf:
    """Pr[L > x] for L ~ N(μ, 2μ) (F15); both directions (self-dual PLD)."""
    return mp.ncdf(-_standardize(x, sigma))


def gaussian_pld_logsf(x, sigma) -> mp.mpf:
    """ln Pr[L > x] (F15), accurate far in the tail (mpmath has no underflow)."""
    return mp.log(gaussian_pld_sf(x, sigma))


def gaussian_pld_cdf(x, sigma) -> mp.mpf:
    """Pr[L ≤ x] (F15)."""
    return mp.ncdf(_standardize(x, sigma))


def _standard_normal_lower_quantile(p: mp.mpf) -> mp.mpf:
    """z with Φ(z) = p for 0 < p ≤ 1/2: Newton on ln Φ (concave, so monotone from the left start)."""
    z = -mp.sqrt(2 * mp.log(1 / p))  # Φ(z) ≤ e^{−z²/2}/2 < p there: left of the root
    target = mp.log(p)
    for _ in range(_NEWTON_STEPS):
        cdf = mp.ncdf(z)
        step = (mp.log(cdf) - target) * cdf / mp.npdf(z)
        z -= step
        if abs(step) <= mp.mp.eps * (1 + abs(z)):
            break
    return z


def gaussian_pld_quantile(p, sigma) -> mp.mpf:
    """x with Pr[L ≤ x] = p, p ∈ [0, 1] (F15); p = 0, 1 give ∓inf. Accurate for p near 0 and near 1."""
    pf = to_fraction("p", p)
    if not 0 <= pf <= 1:
        raise InvalidParameter("p", p, "must lie in [0, 1]")
    mu, var = gaussian_pld_params(sigma)
    if pf == 0:
        return mp.ninf
    if pf == 1:
        return mp.inf
    with mp.workprec(mp.mp.prec + 20):
        lower = pf <= 0.5
        z = _standard_normal_lower_quantile(mpq(pf if lower else 1 - pf))
        x = mu + mp.sqrt(var) * (z if lower else -z)
    return +x


def gaussian_exp_pld_moment(s, sigma) -> mp.mpf:
    """E[e^{sL}] = exp(sμ + s²μ), moments of the log-normal exp-PLD (F15).

    s = −1 gives E[e^{−L}] = 1; s = α − 1 gives D_α = exp(α(α−1)/(2σ²)) (F14).
    """
    s = mpq(real("s", s))
    mu = gaussian_pld_params(sigma)[0]
    return mp.exp(s * mu + s * s * mu)


def gaussian_rdp(alpha, sigma) -> mp.mpf:
    """R_α(N(1,σ²)‖N(0,σ²)) = α/(2σ²) for any order α > 0.

    F14 for α > 1; α = 1 is the KL divergence; α = γ ∈ (0, 1) is the R_γ used by F41.
    """
    a = positive("alpha", alpha)
    return mpq(a) / (2 * _sigma(sigma) ** 2)


def gaussian_order_normalizer(gamma, sigma) -> mp.mpf:
    """Z_γ = ∫P^γQ^{1−γ} = exp(−γ(1−γ)/(2σ²)) ∈ (0, 1] for γ ∈ [0, 1] (F41, F42).

    The source prints exp(+γ(1−γ)/(2σ²)); that sign is wrong (E6).
    """
    g = to_fraction("gamma", gamma)
    if not 0 <= g <= 1:
        raise InvalidParameter("gamma", gamma, "must lie in [0, 1]")
    return mp.exp(-mpq(g) * mpq(1 - g) / (2 * _sigma(sigma) ** 2))


def gaussian_add_epsilon_shift(steps, sigma) -> mp.mpf:
    """t·ln Z_{1/t} = −(1 − 1/t)/(2σ²) ≤ 0: the shift ε' − ε of the direct add bound (F41, F42, E6)."""
    t = integer("steps", steps, lo=1)
    return -mpq(1 - Fraction(1, t)) / (2 * _sigma(sigma) ** 2)


def gaussian_add_bound(steps, sigma, epsilon) -> mp.mpf:
    """Add-direction bound for 1-of-t allocation: δ_{N_{√t σ}}(ε − (1 − 1/t)/(2σ²)) (F42 via F13; upper bound, add)."""
    t = integer("steps", steps, lo=1)
    s = _sigma(sigma)
    eps = mpq(real("epsilon", epsilon)) + gaussian_add_epsilon_shift(t, sigma)
    return gaussian_delta(mp.sqrt(t) * s, eps)
