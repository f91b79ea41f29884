"""Checks of the partition RDP of allocation (F38–F40) and its errata E3, E4, E5, E19, E21."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import sympy as sp

from . import check


def _vectors(t: int, alpha: int):
    """All (i_1..i_t) in Z_{>=0}^t with sum alpha."""
    for cut in itertools.combinations(range(alpha + t - 1), t - 1):
        edges = (-1,) + cut + (alpha + t - 1,)
        yield tuple(edges[j + 1] - edges[j] - 1 for j in range(t))


def _partition_counts(t: int, alpha: int) -> Counter:
    """How many vectors have each multiset of non-zero entries (the partition Π)."""
    return Counter(tuple(sorted((i for i in v if i), reverse=True)) for v in _vectors(t, alpha))


def _coef_t_c(t: int, part: tuple) -> int:
    """binom(t; C(Π)) = t! / ((t − |Π|)! ∏ c_j!) (F38, corrected as in E3)."""
    mult = Counter(part).values()
    return math.factorial(t) // (math.factorial(t - len(part)) * math.prod(math.factorial(c) for c in mult))


@check("E3", "binom(t;C(Π)) counts the vectors; [000]'s t!/((t−α)!∏p!) does not", "exact")
def check_e3():
    for t in range(1, 6):
        for alpha in range(1, 8):
            for part, count in _partition_counts(t, alpha).items():
                assert count == _coef_t_c(t, part), (t, alpha, part)
    # counterexample to the printed coefficient: t = 4, α = 3, Π = [1,1,1] has 4 vectors, printed 4!/(1!·1·1·1) = 24
    counts = _partition_counts(4, 3)
    printed = math.factorial(4) // (math.factorial(4 - 3) * math.prod(math.factorial(p) for p in (1, 1, 1)))
    assert counts[(1, 1, 1)] == 4 and printed == 24, "printed coefficient must differ on Π=[1,1,1], t=4, α=3"


@check("E4", "the example Π=[1,2,3,3] is a partition of 9 (not 8) with C(Π)=[1,1,2]", "exact")
def check_e4():
    part = (1, 2, 3, 3)
    assert sum(part) == 9 and sum(part) != 8
    assert sorted(Counter(part).values()) == [1, 1, 2]


def _moments_discrete(p, q, n):
    return [sum(qi * (pi / qi) ** k for pi, qi in zip(p, q) if qi) for k in range(n + 1)]


def _allocation_moment_enumerated(p, q, t, alpha) -> Fraction:
    """D_α(P̄_t‖Q^t) = Σ_ω Q^t(ω) ((1/t) Σ_i r(ω_i))^α by enumeration of all ω (F23, F24)."""
    total = Fraction(0)
    for omega in itertools.product(range(len(p)), repeat=t):
        qw = math.prod(q[i] for i in omega)
        if qw:
            total += qw * (sum(p[i] / q[i] for i in omega) / t) ** alpha
    return total


def _partition_moment(D, t, alpha) -> Fraction:
    total = Fraction(0)
    for part in sp.utilities.iterables.partitions(alpha, m=t):
        parts = tuple(k for k, c in part.items() for _ in range(c))
        coef = _coef_t_c(t, parts) * math.factorial(alpha) // math.prod(math.factorial(x) for x in parts)
        total += coef * math.prod((D[x] for x in parts), start=Fraction(1))
    return total / Fraction(t) ** alpha


@check(
    "E5",
    "D_α = t^{-α}Σ binom(t;C(Π))binom(α;Π)∏D_p (F38) matches enumeration; the printed Lemma E.1 form does not",
    "exact",
)
def check_e5():
    p, q = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]
    for t in (1, 2, 3):
        for alpha in (2, 3, 4):
            D = _moments_discrete(p, q, alpha)
            assert _partition_moment(D, t, alpha) == _allocation_moment_enumerated(p, q, t, alpha), (t, alpha)
    # printed E.1: (1/(α−1)) t^{-α} Σ ... ∏ e^{(α−1)R_p} — i.e. ∏ D_p^{(α−1)/(p−1)}, no log. Evaluate at t=2, α=3.
    t, alpha = 2, 3
    D = _moments_discrete(p, q, alpha)
    truth = sp.log(sp.Rational(_allocation_moment_enumerated(p, q, t, alpha))) / (alpha - 1)
    printed = Fraction(0)
    for part in sp.utilities.iterables.partitions(alpha, m=t):
        parts = tuple(k for k, c in part.items() for _ in range(c))
        coef = _coef_t_c(t, parts) * math.factorial(alpha) // math.prod(math.factorial(x) for x in parts)
        printed += coef * math.prod(
            (sp.Rational(D[x]) ** sp.Rational(alpha - 1, x - 1) if x > 1 else 1 for x in parts), start=sp.Integer(1)
        )
    printed = sp.Rational(1, alpha - 1) * printed / t**alpha
    assert abs(sp.N(printed - truth, 30)) > sp.Rational(1, 100)


@check("E19", "F38 holds for α > t (no α ≤ t restriction): t=2, α=5 against enumeration", "exact")
def check_e19():
    p, q = [Fraction(3, 5), Fraction(2, 5)], [Fraction(1, 5), Fraction(4, 5)]
    D = _moments_discrete(p, q, 5)
    assert _partition_moment(D, 2, 5) == _allocation_moment_enumerated(p, q, 2, 5)


@check("E21", "[001] Alg. 1 as printed (no /(2σ²), no log) differs from F40; F40 equals F39", "symbolic")
def check_e21():
    sigma = sp.Symbol("sigma", positive=True)
    n = lam = 3
    # F40 sum over compositions (k_1..k_n) of λ with multinomial weights (symbolic in σ)
    f40 = sum(
        sp.factorial(lam) / sp.prod([sp.factorial(k) for k in v]) * sp.exp(sum(k * k for k in v) / (2 * sigma**2))
        for v in _vectors(n, lam)
    )
    f40 = sp.exp(-lam / (2 * sigma**2)) / n**lam * f40
    # F39: partitions with binom(t;C(Π)) binom(α;Π) exp(Σp²/(2σ²))
    f39 = 0
    for part in sp.utilities.iterables.partitions(lam, m=n):
        parts = tuple(k for k, c in part.items() for _ in range(c))
        coef = _coef_t_c(n, parts) * math.factorial(lam) // math.prod(math.factorial(x) for x in parts)
        f39 += coef * sp.exp(sum(x * x for x in parts) / (2 * sigma**2))
    f39 = sp.exp(-lam / (2 * sigma**2)) / n**lam * f39
    assert sp.simplify(sp.expand(f40 - f39)) == 0
    # App. B.1 worked example: contributions 18 ([2,1]), 6 ([1,1,1]), 3 ([3]); total weight 27 = 3^3
    weights = Counter()
    for v in _vectors(n, lam):
        weights[tuple(sorted((k for k in v if k), reverse=True))] += math.factorial(lam) // math.prod(
            math.factorial(k) for k in v
        )
    assert weights == {(2, 1): 18, (1, 1, 1): 6, (3,): 3} and sum(weights.values()) == 27
    # printed Alg. 1 line 7: exponent Σk² (no /(2σ²)) and no (1/(λ−1)) ln: not equal to the RDP at σ = 2
    printed = (
        sp.exp(-lam)
        / n**lam
        * sum(
            sp.factorial(lam) / sp.prod([sp.factorial(k) for k in v]) * sp.exp(sum(k * k for k in v))
            for v in _vectors(n, lam)
        )
    )
    correct = sp.log(f40) / (lam - 1)
    assert abs(sp.N((printed - correct).subs(sigma, 2), 30)) > 1
