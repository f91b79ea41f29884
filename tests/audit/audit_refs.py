"""Independent references for the audit tests: the Gaussian profile in closed form (F13), mpmath only."""

import mpmath as mp


def gaussian_delta(mu, eps):
    """F13 with sensitivity/σ = mu: Φ(mu/2 − ε/mu) − e^ε Φ(−mu/2 − ε/mu) (both directions agree)."""
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def gaussian_epsilon(mu, delta, dps=40):
    """ε(δ) of the Gaussian mechanism with μ = 1/σ_eff, by bisection on the decreasing F13 profile."""
    with mp.workdps(dps):
        delta, lo, hi = mp.mpf(delta), mp.mpf(0), mp.mpf(1)
        while gaussian_delta(mu, hi) > delta:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if gaussian_delta(mu, mid) > delta else (lo, mid)
        return hi
