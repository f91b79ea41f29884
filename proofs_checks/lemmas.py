"""Checks of the identities the code relies on: F12, F14, F18, F28/I29, F31/I30, F37/I31, I3, I26, I27.

Symbolic (sympy) where the statement is symbolic, exact Fraction enumeration on small finite pairs otherwise.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as Fr

import sympy as sp

from . import check
from ._enum import F, allocation, hockey, poisson, scheme_hockey

_PAIRS = [
    (F("1/2", "1/3", "1/6", "0"), F("1/6", "1/3", "1/4", "1/4")),
    (F("3/4", "1/4"), F("1/4", "3/4")),
    (F("1/10", "2/5", "1/2"), F("1/2", "1/2", "0")),
]


@check(
    "F12",
    "advanced joint convexity (a), (b), (c) of [000] Lemma B.1 / [004] Claim D.3: integrand identities "
    "(symbolic) and exact hockey-stick values on finite pairs",
    "symbolic",
)
def check_f12():
    q, p0, p1, eta, a, kap, lam = sp.symbols("q p0 p1 eta alpha kappa lambda", positive=True)
    a1 = 1 + (a - 1) / eta
    eta1 = a / a1
    lhs = (1 - eta) * q + eta * p0 - a * ((1 - eta) * q + eta * p1)
    assert sp.simplify(lhs - eta * (p0 - a1 * ((1 - eta1) * q + eta1 * p1))) == 0  # (a), pointwise, η > 0
    assert sp.simplify((1 - lam) * q + lam * p0 - kap * q - lam * (p0 - (1 + (kap - 1) / lam) * q)) == 0  # (b)
    beta = 1 - kap + kap * lam
    assert sp.simplify(p0 - kap * ((1 - lam) * p0 + lam * q) - beta * (p0 - kap * lam / (1 - kap * (1 - lam)) * q)) == 0
    for p, qq in _PAIRS:  # (b), (c) exactly, including κ > 1/(1−λ) for (c)
        for lam_v in (Fr(1, 4), Fr(1, 2), Fr(1)):
            mix = [(1 - lam_v) * y + lam_v * x for x, y in zip(p, qq)]
            add_mix = [(1 - lam_v) * x + lam_v * y for x, y in zip(p, qq)]
            for k in (1 - lam_v, Fr(1), Fr(3, 2), Fr(3)):
                assert hockey(mix, qq, k) == lam_v * hockey(p, qq, 1 + (k - 1) / lam_v)
                b = 1 - k + k * lam_v
                expected = b * hockey(p, qq, k * lam_v / (1 - k * (1 - lam_v))) if b > 0 else 0
                assert hockey(p, add_mix, k) == expected, (p, lam_v, k)


@check("I3", "H_κ(P‖Q) = 1 − κ + κ·H_{1/κ}(Q‖P) for κ > 0 (finite pairs with zeros; allocation pair t=3)", "exact")
def check_i3():
    pairs = list(_PAIRS) + [tuple(zip(*allocation(*_PAIRS[0], 3).values()))]
    for p, q in pairs:
        for k in (Fr(1, 3), Fr(1), Fr(3, 2), Fr(4)):
            assert hockey(p, q, k) == 1 - k + k * hockey(q, p, 1 / k), k
        assert hockey(p, q, 1) == hockey(q, p, 1)  # δ→(0) = δ←(0) = TV


@check(
    "F28/I29",
    "posterior λ_{v^i} = 1/(t + Σ_{j≤i}(e^{ℓ_j} − 1)) equals Bayes' rule (symbolic, i ≤ 3); "
    "the posterior scheme T_t(R;*) equals A_t(R;*) (exact, t = 3)",
    "symbolic",
)
def check_f28():
    t = sp.Symbol("t", positive=True)
    for i in range(4):
        r = sp.symbols(f"r1:{i + 1}", positive=True)  # likelihood ratios P(y_j)/Q(y_j) of the prefix
        qs = sp.symbols(f"q1:{i + 1}", positive=True)
        base = sp.Mul(*qs)
        # prior 1/t per step; the prefix's likelihood is base·r_j if I = j ≤ i, base if I > i (all prefix steps Q)
        evidence = (sum((base * r[j] for j in range(i)), sp.Integer(0)) + (t - i) * base) / t
        posterior = (base / t) / evidence
        assert sp.simplify(posterior - 1 / (t + sum((x - 1 for x in r), sp.Integer(0)))) == 0
    p, q, n = F("1/2", "1/3", "1/6"), F("1/6", "1/3", "1/2"), 3
    alloc = allocation(p, q, n)
    for seq, (mass, _) in alloc.items():
        prob, ratios = Fr(1), []
        for y in seq:
            lam = 1 / (n + sum((x - 1 for x in ratios), Fr(0)))
            prob *= lam * p[y] + (1 - lam) * q[y]
            ratios.append(p[y] / q[y])
        assert prob == mass, seq


@check(
    "F31/I30",
    "Poisson decomposition P_{t,λ}(R;*) = Σ_k B_{t,λ}(k) A_{t,k}(R;*) (A_{t,0} = Q^t) and "
    "P = (1 − 1/γ→)Q^t + (1/γ→)P⁺, exactly over all sequences (t = 3, λ = 1/3)",
    "exact",
)
def check_f31():
    p, q, t, lam = F("1/2", "1/3", "1/6"), F("1/6", "1/3", "1/2"), 3, Fr(1, 3)
    weights = [math.comb(t, k) * lam**k * (1 - lam) ** (t - k) for k in range(t + 1)]
    assert sum(weights) == 1
    pois = poisson(p, q, t, lam)
    parts = [{s: m[1] for s, m in pois.items()}] + [
        {s: m[0] for s, m in allocation(p, q, t, k).items()} for k in range(1, t + 1)
    ]
    gamma = 1 / (1 - (1 - lam) ** t)
    for seq, (mass, qmass) in pois.items():
        assert mass == sum(w * part[seq] for w, part in zip(weights, parts)), seq
        plus = gamma * sum(w * part[seq] for w, part in zip(weights[1:], parts[1:]))
        assert mass == (1 - 1 / gamma) * qmass + plus / gamma


@check(
    "F37/I31",
    "Lemma D.4 identities H(P⁺‖Q^t) = γ→H_{κ→}(P‖Q^t), H(Q^t‖P⁺) = γ←H_{κ←}(Q^t‖P) exactly; "
    "decomposition bound ≥ exact (t = 3), equality at t = 1 (remove)",
    "exact",
)
def check_f37():
    for p, q in _PAIRS[:2]:
        for t, lam in ((1, Fr(1, 2)), (3, Fr(1, 3)), (3, Fr(4, 5))):
            pois = poisson(p, q, t, lam)
            gamma = 1 / (1 - (1 - lam) ** t)
            weights = [math.comb(t, k) * lam**k * (1 - lam) ** (t - k) for k in range(1, t + 1)]
            allocs = [allocation(p, q, t, k) for k in range(1, t + 1)]
            plus = {s: (gamma * sum(w * a[s][0] for w, a in zip(weights, allocs)), m[1]) for s, m in pois.items()}
            for kappa in (Fr(1), Fr(3, 2), Fr(3)):
                k_rem, k_add = 1 + (kappa - 1) / gamma, 1 / (1 - (1 - 1 / kappa) / gamma)
                g_add = 1 + kappa * (gamma - 1)
                assert scheme_hockey(plus, kappa, "remove") == gamma * scheme_hockey(pois, k_rem, "remove")
                assert scheme_hockey(plus, kappa, "add") == g_add * scheme_hockey(pois, k_add, "add")
                rem = scheme_hockey(allocs[0], kappa, "remove")
                bound = gamma * scheme_hockey(pois, k_rem, "remove")
                assert rem <= bound and (t > 1 or rem == bound)
                assert scheme_hockey(allocs[0], kappa, "add") <= g_add * scheme_hockey(pois, k_add, "add")


@check(
    "F18",
    "CKS conversion: δ-form (1/(α−1))e^{(α−1)(ρ−ε)}(1−1/α)^α = δ ⇔ [001] ε-form "
    "ε = ρ + (ln(1/δ) + (α−1)ln(1−1/α) − ln α)/(α−1) (symbolic)",
    "symbolic",
)
def check_f18():
    a, rho, d = sp.symbols("alpha rho delta", positive=True)
    eps = rho + (sp.log(1 / d) + (a - 1) * sp.log(1 - 1 / a) - sp.log(a)) / (a - 1)
    delta_form = sp.exp((a - 1) * (rho - eps)) * (1 - 1 / a) ** a / (a - 1)
    assert sp.simplify(sp.expand_log(sp.log(delta_form) - sp.log(d), force=True)) == 0


@check(
    "F14",
    "Gaussian helper integral ∫e^{k(2x−1)/(2σ²)} N(x;0,σ²)dx = e^{(k²−k)/(2σ²)} (symbolic), so D_p = e^{p(p−1)/(2σ²)}",
    "symbolic",
)
def check_f14():
    x = sp.Symbol("x", real=True)
    s, k = sp.Symbol("sigma", positive=True), sp.Symbol("k", positive=True)
    integrand = sp.exp(sp.expand(k * (2 * x - 1) / (2 * s**2) - x**2 / (2 * s**2))) / sp.sqrt(2 * sp.pi * s**2)
    value = sp.integrate(integrand, (x, -sp.oo, sp.oo), conds="none")
    assert sp.simplify(sp.log(value) - (k**2 - k) / (2 * s**2)) == 0


@check(
    "I27",
    "F39 at t = 1 is α/(2σ²) (α = 2..6) and R₂(P̄_t‖Q^t) = ln(1 + (e^{1/σ²} − 1)/t) from the partition "
    "form (symbolic t, σ)",
    "symbolic",
)
def check_i27():
    s, t = sp.Symbol("sigma", positive=True), sp.Symbol("t", positive=True, integer=True)

    def f39(steps, alpha):
        total = sp.Integer(0)
        for part in sp.utilities.iterables.partitions(alpha):
            parts = [v for v, c in part.items() for _ in range(c)]
            coef = sp.ff(steps, len(parts)) / sp.Mul(*[sp.factorial(c) for c in part.values()])
            coef *= sp.factorial(alpha) / sp.Mul(*[sp.factorial(v) for v in parts])
            total += coef * sp.exp(sum(v * v for v in parts) / (2 * s**2))
        return -sp.Rational(alpha, alpha - 1) * (1 / (2 * s**2) + sp.log(steps)) + sp.log(total) / (alpha - 1)

    for alpha in range(2, 7):
        assert sp.simplify(sp.expand_log(f39(1, alpha), force=True) - alpha / (2 * s**2)) == 0
    r2 = f39(t, 2)
    assert sp.simplify(sp.exp(r2) - (1 + (sp.exp(1 / s**2) - 1) / t)) == 0


@check("I26", "Σ_{Π∈Π_t(α)} binom(t;C(Π))·binom(α;Π) = t^α for t ≤ 6, α ≤ 8 (including α > t)", "exact")
def check_i26():
    for t, alpha in itertools.product(range(1, 7), range(1, 9)):
        total = 0
        for part in sp.utilities.iterables.partitions(alpha, m=t):
            parts = [v for v, c in part.items() for _ in range(c)]
            count = math.perm(t, len(parts)) // math.prod(math.factorial(c) for c in part.values())
            total += count * math.factorial(alpha) // math.prod(math.factorial(v) for v in parts)
        assert total == t**alpha, (t, alpha)
