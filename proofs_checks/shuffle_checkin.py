"""Checks of the shuffle-Gaussian ([001]) and random check-ins ([002]) errata: E20, E24, E25 (F40, F56, F67, F68)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as Fr

import mpmath as mp
import sympy as sp

from . import check
from ._enum import F, allocation


def _moment(a, b, alpha) -> Fr:
    """D_α(A‖B) = Σ B (A/B)^α over B > 0 (F5)."""
    return sum((y * (x / y) ** alpha for x, y in zip(a, b) if y), Fr(0))


def _compositions(n: int, lam: int):
    """All (k_1..k_n) ≥ 0 with Σ k_i = λ."""
    return (ks for ks in itertools.product(range(lam + 1), repeat=n) if sum(ks) == lam)


@check(
    "E20",
    "[001] Thm 1's sum (1/n^λ)Σ multinom·∏D_{k_i} is E_{M(D)}[(M(D')/M(D))^λ] (remove, F40); the printed "
    "order D_λ(M(D)‖M(D')) is the add moment and differs (P=(1/4,3/4), Q=(2/3,1/3), n=2, λ=2,3)",
    "exact",
)
def check_e20():
    p, q, n = F("1/4", "3/4"), F("2/3", "1/3"), 2
    a, b = zip(*allocation(p, q, n).values())  # M(D') = P̄_n, M(D) = Q^n
    for lam in (2, 3):
        moments = [_moment(p, q, k) for k in range(lam + 1)]
        f40 = (
            sum(
                (
                    Fr(math.factorial(lam), math.prod(math.factorial(k) for k in ks))
                    * math.prod(moments[k] for k in ks)
                    for ks in _compositions(n, lam)
                ),
                Fr(0),
            )
            / n**lam
        )
        assert f40 == _moment(a, b, lam) != _moment(b, a, lam), lam


@check(
    "E24",
    "[002] Lemma A.3 proof: T = ln(2/δ1)/ln(1/(1−e^{5ε0})) is not real (1 − e^{5ε0} < 0); with e^{−5ε0} "
    "T > 0 (ε0 = 1/10, δ1 = 1/100)",
    "symbolic",
)
def check_e24():
    e0, d1 = sp.Rational(1, 10), sp.Rational(1, 100)
    printed = sp.log(2 / d1) / sp.log(1 / (1 - sp.exp(5 * e0)))
    corrected = sp.log(2 / d1) / sp.log(1 / (1 - sp.exp(-5 * e0)))
    assert 1 - sp.exp(5 * e0) < 0 and sp.im(sp.N(printed)) != 0
    assert sp.N(corrected).is_real and sp.N(corrected) > 0


def _f68(eps0, w, m, delta):
    """F68 ε of [002] Thm A.4 (ε0-DP case)."""
    a = mp.exp(eps0) - 1
    return w**2 * mp.exp(eps0) * a**2 / (2 * m) + w * a * mp.sqrt(2 * mp.exp(eps0) * mp.log(1 / delta) / m)


@check(
    "E25",
    "[002] Thm A.4: ε ≤ 7w·ε0·√(ln(1/δ)/m) needs δ ≤ 1/100, not the proof's δ ≤ 1/4: at ε0 = w = m = 1, "
    "δ = 1/4 the ratio ε/(w·ε0·√(ln(1/δ)/m)) is 7.41 > 7; holds on a grid with δ ≤ 1/100; "
    "e^{ε0/2}(e^{ε0}−1) ≤ 3ε0 on [0,1]",
    "numeric",
)
def check_e25():
    ratio = _f68(1, 1, 1, mp.mpf(1) / 4) / mp.sqrt(mp.log(4))
    assert 7.40 < ratio < 7.42, ratio
    for eps0, w, m, delta in itertools.product(
        (mp.mpf("0.01"), mp.mpf("0.3"), mp.mpf(1)),
        (mp.mpf("0.1"), mp.mpf(1)),
        (1, 2, 10, 10**4),
        (mp.mpf("0.01"), mp.mpf("1e-5"), mp.mpf("1e-10")),
    ):
        assert _f68(eps0, w, m, delta) <= 7 * w * eps0 * mp.sqrt(mp.log(1 / delta) / m), (eps0, w, m, delta)
    x = sp.Symbol("x", positive=True)
    f = sp.exp(x / 2) * (sp.exp(x) - 1) - 3 * x  # f(0) = 0, f'' = e^{x/2}(9e^x − 1)/4 > 0, f(1) < 0 ⇒ f ≤ 0 on [0, 1]
    second = sp.simplify(sp.diff(f, x, 2) - (sp.Rational(9, 4) * sp.exp(3 * x / 2) - sp.exp(x / 2) / 4))
    assert f.subs(x, 0) == 0 and second == 0 and sp.N(f.subs(x, 1)) < 0
