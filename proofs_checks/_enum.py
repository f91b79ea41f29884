"""Exact (Fraction) enumeration helpers shared by the checks: finite pairs, their t-step schemes, laws
(the enumerations themselves are verialloc.testing.brute_force; this module keeps the checks' list/scheme forms).

A pair is two lists of Fractions (P, Q) over outputs 0..m−1. A t-step scheme is a dict
sequence → (mass under the first distribution, mass under the second). A loss law is a dict
likelihood ratio → mass, the ratio standing for the loss ln(ratio) (0 ↔ −inf, INF ↔ +inf), so laws
of losses are compared exactly without logarithms.
"""

from __future__ import annotations

import math
from fractions import Fraction as Fr

from verialloc.testing import brute_force

INF = math.inf


def F(*xs):
    """List of Fractions from ints/strings/Fractions."""
    return [Fr(x) for x in xs]


def hockey(a, b, kappa) -> Fr:
    """H_κ(A‖B) = Σ[A_i − κB_i]_+ over aligned masses (F2)."""
    return sum((x - kappa * y for x, y in zip(a, b) if x - kappa * y > 0), Fr(0))


def scheme_hockey(scheme: dict, kappa, direction: str = "remove") -> Fr:
    """H_κ of a scheme dict: remove H(first‖second), add H(second‖first) (F3)."""
    a, b = zip(*scheme.values())
    return hockey(a, b, kappa) if direction == "remove" else hockey(b, a, kappa)


def allocation(p, q, t: int, k: int = 1) -> dict:
    """A_{t,k}(R;*) vs R^{⊗t}(⊥) over all output sequences (F11, F23), as a scheme dict."""
    return _scheme(brute_force.allocation(p, q, t, k))


def poisson(p, q, t: int, lam) -> dict:
    """P_{t,λ}(R;*) = (λP + (1−λ)Q)^{⊗t} vs Q^{⊗t} (F46), as a scheme dict."""
    return _scheme(brute_force.poisson(p, q, t, lam))


def _scheme(pair: tuple[dict, dict]) -> dict:
    a, b = pair
    return {y: (a[y], b[y]) for y in a}


def loss_law(a, b) -> dict:
    """Law of ℓ(ω; A, B) under A as {ratio A/B: mass} (F1, F6); atoms with A = 0 carry no mass."""
    return brute_force.exp_loss_law(dict(enumerate(a)), dict(enumerate(b)))


def scheme_law(scheme: dict, direction: str = "remove") -> dict:
    """Loss law of a scheme: remove = ℓ(first, second) under first; add = ℓ(second, first) under second."""
    a, b = zip(*scheme.values())
    return loss_law(a, b) if direction == "remove" else loss_law(b, a)


dual = brute_force.exp_dual  # D(L) (F7) in ratio space: x ↦ 1/x with mass f/x; f(+inf) = 1 − E[e^{−L}]


def ccdf(law: dict, x) -> Fr:
    """Pr[value > x] for a law over (ratio or other ordered) values."""
    return sum((m for v, m in law.items() if v > x), Fr(0))


def dominates(upper: dict, lower: dict, slack=0) -> bool:
    """upper stochastically dominates lower up to `slack`: F̄_lower(x) ≤ F̄_upper(x) + slack at every x (F10)."""
    points = sorted(set(upper) | set(lower))
    total_ok = sum(lower.values()) <= sum(upper.values()) + slack  # x = −inf
    return total_ok and all(ccdf(lower, x) <= ccdf(upper, x) + slack for x in points)
