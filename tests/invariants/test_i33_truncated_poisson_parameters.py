"""I33 (formulas.md §13.4; F34, F35, F27): the truncated-Poisson bound's parameters and its soundness at moderate t.

F34: δ_{A_{t,k}}(ε) ≤ δ_{P_{t,η}}(ε) + tδ0 + δ with γ = min{h(ε0)·sqrt((2k/t) ln(k/δ)), 1} (h = cosh as printed,
sinh also valid, E8) and η = min{k/(t(1 − γ)), 1}; so γ ∈ [0, 1], η ∈ [k/t, 1], and tη/k → 1 as t → ∞ for fixed
k, ε0, δ. verialloc searches the rate instead (`numeric.analytic.truncated_poisson.additive_terms`): for each η on a
grid it sets γ = 1 − k/(tη) and charges the β that F35(b) gives for that γ.

Production code under test: `truncated_poisson.additive_terms` (η, additive term n·(m·δ0 + β), ε0) and
`truncated_poisson.delta`. References: F34 re-evaluated here in mpmath from its printed form, with δ0 the
single-step profile written out here (randomized response: (e^a − e^{ε0})_+/(1 + e^a); Gaussian: F13); the exact
k-subset allocation profile of the exact layer (count vectors, 30 digits) for soundness at t = 100.

Bugs it catches: a rate below k/t or above 1, γ taken from the wrong block size (t for m = t/k), the factor 2 or
the square of h(ε0) lost in β = exp(−mγ²/(2h²)) (then F34's rate for that β exceeds the rate used: unsound), an
additive term that does not vanish as t grows (no convergence of tη/k to 1), an unsound bound at t = 100.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options, truncated_poisson

DPS = 40
OPTIONS = Options(eta_points=12, eta_span=64.0)


def single_delta(mech, eps0) -> mp.mpf:
    """δ0 = max over directions of the single-step profile at ε0 (both pairs are symmetric), written out here."""
    e0 = mp.mpf(eps0)
    if isinstance(mech, RandomizedResponse):
        a = mp.mpf(mech.eps0.numerator) / mech.eps0.denominator
        return max(mp.mpf(0), (mp.exp(a) - mp.exp(e0)) / (1 + mp.exp(a)))
    s = mp.mpf(mech.sigma.numerator) / mech.sigma.denominator
    return mp.ncdf(1 / (2 * s) - e0 * s) - mp.exp(e0) * mp.ncdf(-1 / (2 * s) - e0 * s)


#: configurations where F34 is informative (additive terms well below 1 on part of the rate grid)
CONFIGS = [
    Config(RandomizedResponse(Fraction(1, 2)), steps=1000),
    Config(RandomizedResponse(1), steps=4000, k=4),
    Config(Gaussian(5), steps=100_000),
    Config(Gaussian(10), steps=20_000, k=2),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.mechanism!r}-t{c.steps}-k{c.k}")
def test_rates_lie_in_k_over_t_to_one_and_each_beta_admits_its_rate(config):
    """η ∈ [k/t, 1], γ = 1 − k/(tη) ∈ [0, 1); and for the β inside each additive term, F34's own rate
    min{1/(m(1 − h(ε0)·sqrt((2/m) ln(1/β)))), 1} (m = t/k) is at most the η used (sound) and equal to it up to the
    documented 1e−9 inflation of β (h = cosh)."""
    t, k = config.steps, config.k
    m, n = t // k, k
    checked = 0
    with mp.workdps(DPS):
        for eta, extra, eps0 in truncated_poisson.additive_terms(config, OPTIONS):
            assert mp.mpf(k) / t * (1 - mp.mpf(10) ** -12) <= eta <= 1, (eta, k, t)
            if eta >= 1:
                assert extra == 0
                continue
            gamma = 1 - 1 / (m * mp.mpf(eta))
            assert 0 <= gamma < 1
            beta = mp.mpf(extra) / n - m * single_delta(config.mechanism, eps0)
            if not (mp.mpf(10) ** -280 < beta < mp.mpf(1) / 2 and beta > mp.mpf(extra) / n / 1000):
                continue  # saturated terms, underflow, or β hidden under m·δ0 (its difference is then rounding)
            g_f34 = mp.cosh(eps0) * mp.sqrt(2 * mp.log(1 / beta) / m)
            eta_f34 = min(1 / (m * (1 - g_f34)), mp.mpf(1)) if g_f34 < 1 else mp.mpf(1)
            assert eta_f34 <= eta * (1 + mp.mpf(10) ** -12), (eta, float(eta_f34), extra, eps0)
            assert eta_f34 >= eta * (1 - mp.mpf(10) ** -6), (eta, float(eta_f34), extra, eps0)
            checked += 1
    assert checked >= 2


def best_rate(t: int, target: float) -> float:
    """The least t·η over the rate grid whose additive term is ≤ target (randomized response ε0 = 1/2, k = 1)."""
    terms = truncated_poisson.additive_terms(Config(RandomizedResponse(Fraction(1, 2)), steps=t), OPTIONS)
    return min(t * eta for eta, extra, _ in terms if extra <= target)


def test_t_eta_over_k_tends_to_one():
    """tη/k → 1 for fixed k = 1, ε0 = 1/2 (pure DP: δ0 = 0), δ = 1e−6: the least admissible tη on the grid is
    non-increasing in t, below 1.01 at t = 10^6, and within the grid's spacing (factor e on tη − 1) of F34's
    1/(1 − γ), γ = cosh(ε0)·sqrt((2/t) ln(1/δ)) evaluated here."""
    target = 1e-6
    previous = None
    for t in (10**2, 10**3, 10**4, 10**5, 10**6):
        c = best_rate(t, target)
        with mp.workdps(DPS):
            gamma = mp.cosh(mp.mpf(1) / 2) * mp.sqrt(2 * mp.log(1 / mp.mpf(target)) / t)
            c_f34 = 1 / (1 - gamma)
        assert c - 1 <= 3 * (c_f34 - 1), (t, c, float(c_f34))
        if previous is not None:
            assert c <= previous, (t, c, previous)
        previous = c
    assert previous <= 1.01


FAST = Options(pld=Settings(loss_step=1e-3, tail=1e-14), eta_points=6)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_bound_is_above_the_exact_profile_at_moderate_t(k, direction):
    """F34 (k = 2: F27 blocks, union bound) ≥ the exact k-subset allocation profile, randomized response ε0 = 1/2,
    t = 100 (count-vector enumeration of the exact layer)."""
    config = Config(RandomizedResponse(Fraction(1, 2)), steps=100, k=k)
    for eps in (0.05, 0.2, 0.6):
        value = truncated_poisson.delta(config, eps, direction, FAST).value
        exact = api.delta(config, Fraction(repr(eps)), direction=direction, digits=30)
        assert value >= exact.upper, (eps, value, exact)
