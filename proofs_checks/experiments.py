"""Checks of errata in the experiments' text: E10 (variance formulas, §9.1) and E29 (FFT range example, F54)."""

from __future__ import annotations

import mpmath as mp
import sympy as sp
from sympy import stats

from . import check


@check(
    "E10",
    "[004] §5.1: the printed 'Var(p̂_A) ≈ p(1−p)/n + p/n + tσ²/n²' is Var(p̂_P) (exactly p(1−p)/n + "
    "p(1−1/t)/n + tσ²/n², sympy.stats for t = 2, 3, 10); Var(p̂_A) = p(1−p)/n + tσ²/n²",
    "symbolic",
)
def check_e10():
    p, n, sigma = sp.Symbol("p", positive=True), sp.Symbol("n", positive=True), sp.Symbol("sigma", positive=True)
    for t in (2, 3, 10):
        x, k = stats.Bernoulli("x", p), stats.Binomial("k", t, sp.Rational(1, t))  # participations ~ Bin(t, 1/t)
        per_element = sp.simplify(stats.variance(x * k))
        var_poisson = (n * per_element + t * sigma**2) / n**2  # n independent elements + total noise tσ²
        var_alloc = (n * stats.variance(x) + t * sigma**2) / n**2  # every element used exactly once
        printed = p * (1 - p) / n + p / n + t * sigma**2 / n**2
        assert sp.simplify(var_poisson - (p * (1 - p) / n + p * (1 - sp.Rational(1, t)) / n + t * sigma**2 / n**2)) == 0
        assert sp.simplify(var_poisson - printed + p / (t * n)) == 0  # = printed up to the 1 − 1/t ≈ 1 step
        assert sp.simplify(var_alloc - (p * (1 - p) / n + t * sigma**2 / n**2)) == 0
        assert sp.simplify(printed - var_alloc - p / n) == 0  # not Var(p̂_A): off by p/n


@check(
    "E29",
    "[003] §5 example (σ = 1, β = 1e-10): PLD N(1/2, 1) quantile width 12.72 (< 15 ✓) but exponent range "
    "954.6, not ≈1,250 (1,348 at β = 1e-11): an order-of-magnitude figure",
    "numeric",
)
def check_e29():
    with mp.workdps(30):

        def ranges(beta):
            z = mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(beta))  # upper β-quantile of N(0, 1)
            return 2 * z, mp.exp(mp.mpf(1) / 2 + z) - mp.exp(mp.mpf(1) / 2 - z)

        width, spread = ranges("1e-10")
        _, spread_11 = ranges("1e-11")
        assert abs(width - mp.mpf("12.7227")) < 1e-3 and width < 15
        assert abs(spread - mp.mpf("954.6")) < 0.5 and abs(spread - 1250) / 1250 > 0.2
        assert spread < 1250 < spread_11 and abs(spread_11 - 1348) < 1
