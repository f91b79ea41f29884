"""Brute-force exact references in rational arithmetic for tiny discrete pairs (independent of verialloc.exact).

Pairs are (A, B): dicts output → Fraction mass (outputs of t steps are tuples). Nothing here uses floats:
hockey-sticks are taken at rational κ = e^ε, privacy losses are kept in exp-space (x = e^ℓ = A/B, a Fraction,
or math.inf where B = 0), so every identity below is checked exactly on its instance. The one transcendental
reference, `renyi` (a logarithm), is exact where it is 0 or +inf and otherwise taken at high precision from the
exact excess D_α − 1.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp


def single(p, q) -> tuple[dict, dict]:
    """The one-step pair (P, Q) on outputs 0..m−1."""
    return dict(enumerate(map(Fraction, p))), dict(enumerate(map(Fraction, q)))


def allocation(p, q, t: int, k: int = 1) -> tuple[dict, dict]:
    """(A_{t,k}(*), Q^t) over all output sequences (F11, F22): A = mean over k-subsets I of
    Π_{i∈I} P(y_i) Π_{i∉I} Q(y_i); k = 0 gives Q^t (F11 convention)."""
    subsets = list(itertools.combinations(range(t), k))
    a, b = {}, {}
    for y in itertools.product(range(len(p)), repeat=t):
        b[y] = math.prod(Fraction(q[j]) for j in y)
        a[y] = sum(
            math.prod(Fraction(p[j]) if i in s else Fraction(q[j]) for i, j in enumerate(y)) for s in subsets
        ) / len(subsets)
    return a, b


def poisson(p, q, t: int, rate) -> tuple[dict, dict]:
    """((λP + (1−λ)Q)^t, Q^t) over all output sequences (F11, F46)."""
    lam = Fraction(rate)
    mixed = [lam * Fraction(x) + (1 - lam) * Fraction(y) for x, y in zip(p, q)]
    return product_power(single(mixed, q), t)


def product(x: tuple[dict, dict], y: tuple[dict, dict]) -> tuple[dict, dict]:
    """The product pair (A × A', B × B') (F6, F8); outputs are concatenated tuples."""
    a, b = {}, {}
    for (u, au), (v, av) in itertools.product(x[0].items(), y[0].items()):
        key = _tuple(u) + _tuple(v)
        a[key], b[key] = au * av, x[1][u] * y[1][v]
    return a, b


def product_power(pair: tuple[dict, dict], n: int) -> tuple[dict, dict]:
    """n-fold composition (A^n, B^n)."""
    out = ({(): Fraction(1)}, {(): Fraction(1)})
    for _ in range(n):
        out = product(out, pair)
    return out


def mixture(weights, pairs) -> dict:
    """Σ_i w_i A_i over the union of outputs (first components of `pairs`)."""
    out: dict = {}
    for w, (a, _) in zip(weights, pairs):
        for y, m in a.items():
            out[y] = out.get(y, 0) + w * m
    return out


def hockey_stick(a: dict, b: dict, kappa) -> Fraction:
    """H_κ(A‖B) = Σ_y [A(y) − κB(y)]_+ (F2), exact for rational κ ≥ 0."""
    kappa = Fraction(kappa)
    return sum((d for y in a.keys() | b.keys() if (d := a.get(y, 0) - kappa * b.get(y, 0)) > 0), Fraction(0))


def exp_loss_law(a: dict, b: dict) -> dict:
    """Law of e^{ℓ(y; A, B)} = A(y)/B(y) under A (F1, F6) as {x: mass}; x = math.inf where B(y) = 0."""
    law: dict = {}
    for y, m in a.items():
        if m:
            x = math.inf if b.get(y, 0) == 0 else m / b[y]
            law[x] = law.get(x, 0) + m
    return law


def moment(a: dict, b: dict, alpha: int) -> Fraction | float:
    """D_α(A‖B) = Σ_{B>0} B (A/B)^α (F5); math.inf when A has mass where B has none (α > 1)."""
    if alpha > 1 and any(m and not b.get(y, 0) for y, m in a.items()):
        return math.inf
    return sum((m * (a.get(y, 0) / m) ** alpha for y, m in b.items() if m), Fraction(0))


def renyi(a: dict, b: dict, alpha, dps: int = 50) -> mp.mpf:
    """R_α(A‖B) = ln D_α / (α − 1) (F5) for a rational order α > 1, from the exact excess D_α − 1.

    Exactly 0 when A = B on B's support and A has no mass elsewhere (D_α = 1, e.g. P = Q); +inf when A has mass
    where B has none. Otherwise the logarithm (transcendental) is taken at `dps` digits of D_α − 1:
    integer α: D_α − 1 is an exact Fraction (`moment`); non-integer α: D_α − 1 = Σ_{B>0} B·(r^α − 1 − α(r − 1))
    with r = A/B (Σ_{B>0} A = Σ B = 1 here), a sum of non-negative terms (convexity of r ↦ r^α), so no
    cancellation loses the digits even when D_α is close to 1.
    """
    alpha = Fraction(alpha)
    if not alpha > 1:
        raise ValueError(f"alpha must exceed 1, got {alpha}")
    if any(m and not b.get(y, 0) for y, m in a.items()):
        return mp.inf
    ratios = [(m, Fraction(a.get(y, 0)) / m) for y, m in b.items() if m]
    if all(r == 1 for _, r in ratios):
        return mp.mpf(0)
    if sum(Fraction(a.get(y, 0)) for y, m in b.items() if m) != sum(m for m, _ in ratios):
        raise ValueError("A and B must have the same total mass on B's support")
    with mp.workdps(dps + 20):
        if alpha.denominator == 1:
            excess = moment(a, b, int(alpha)) - 1
            log_d = mp.log1p(mp.mpf(excess.numerator) / excess.denominator)
        else:
            order = mp.mpf(alpha.numerator) / alpha.denominator
            terms = []
            for m, r in ratios:
                if r == 1:
                    continue
                rr = mp.mpf(r.numerator) / r.denominator
                power_excess = mp.expm1(order * mp.log(rr)) if r else mp.mpf(-1)  # r^α − 1
                terms.append(mp.mpf(m.numerator) / m.denominator * (power_excess - order * (rr - 1)))
            log_d = mp.log1p(mp.fsum(terms))
        value = log_d / (mp.mpf(alpha.numerator) / alpha.denominator - 1)
    return value


def exp_dual(law: dict) -> dict:
    """D(L) in exp-space (F7): f_{D(L)}(l) = f_L(−l)e^{l}, i.e. x ↦ 1/x with mass m/x; +inf gets 1 − E[e^{−L}]."""
    out = {1 / x: m / x for x, m in law.items() if x != math.inf}
    rest = 1 - sum(out.values())
    if rest:
        out[math.inf] = rest
    return out


def exp_hockey_stick(law: dict, kappa) -> Fraction:
    """H_κ(L) = E[(1 − κe^{−L})_+] (F2) for an exp-space law; the +inf atom counts in full."""
    kappa = Fraction(kappa)
    return sum((m if x == math.inf else m * (1 - kappa / x) for x, m in law.items() if x > kappa), Fraction(0))


def exp_convolve(x: dict, y: dict, combine) -> dict:
    """Law of combine(X, Y) for independent exp-space laws X, Y (combine maps two values, inf-aware)."""
    out: dict = {}
    for (u, mu), (v, mv) in itertools.product(x.items(), y.items()):
        w = combine(u, v)
        out[w] = out.get(w, 0) + mu * mv
    return out


def _tuple(y) -> tuple:
    return y if isinstance(y, tuple) else (y,)
