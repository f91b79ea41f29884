"""Exact identities of [003]/[004] asserted on verialloc's own outputs, against independent exact references.

What each test checks, and against what:

* F26/I18 — the exact layer's allocation pair (`exact.discrete_profiles.allocation_pair`, count vectors, Fraction
  masses) has, in both directions, exactly the loss law ψ_t of the single-step PLD; ψ_t is computed here from
  the single-step exp-space laws of `testing.brute_force` (no sequence enumeration, no verialloc.exact).
* F25/I25 — every certified method's δ(ε) bracket (`api.delta`, remove and add) contains the F25 expectation
  E_{Q^t}[(mean r − e^ε)_+] + P̄_t(Q^t = 0) (resp. E_{Q^t}[(1 − e^ε mean r)_+]), summed here in rationals over all
  output sequences; e^ε is enclosed rigorously (`_reference.exp_bounds`), so the comparison has no slack.
* F47/I17 — the exact layer's one-step Poisson pair equals φ_λ of the single-step law (the (1−λ)Q(P = 0) atom at
  ln(1−λ) included, E16), and every certified method's bracket for `Config(…, "poisson", steps=1, rate=λ)`
  contains H_{e^ε} of that φ_λ law, both directions.
* F31/I30 — the exact layer's allocation pairs A_{t,k} (every k) and Poisson pair P_{t,λ} equal brute-force
  enumeration of output sequences grouped by count vector, and Σ_k B_{t,λ}(k) A_{t,k} = P_{t,λ} with the
  conditioned form (1 − 1/γ)Q^t + P⁺/γ, exactly.
* I3 — remove and add brackets of every certified method (and across methods) are consistent with
  H_κ(P‖Q) = 1 − κ + κ H_{1/κ}(Q‖P): remove(ε) at the upper end ≥ 1 − e^ε(1 − add_lower(−ε)), at the lower end
  ≤ 1 − e^ε(1 − add_upper(−ε)). A method answering one direction with the other direction's value (E1) fails it.
* F7/I14/I15 — `PLD.dual` of the pld method's exact single-step PLD (`numeric.pld.discretize.atomic_pld`) is the add-direction
  law L_{Q,P} (brute-force exp-space law), E[e^{−L}] = Q(P > 0), D(D(L)) = L: float64 against exact rationals
  within the documented hockey-stick budget |float − exact| ≤ 8(n+1)·u·Σm + 2u·δ (test_float_vs_mpmath).

Degenerate draws (P = Q, disjoint supports, zero masses) are kept: every reference is an exact rational, so an
exact 0 of the code is compared with an exact 0.

Mutations checked to be killed (#16): allocation_pair's (t−k)! → (t−k−1)! (F26, F25, F31); the pld method
answering "add" from its remove PLDs (F25, F47, I3); the pld Poisson rate × 0.95 (F47); poisson_pair composing
t − 1 steps (F31); PLD.dual without the reversal of its masses (F7).
"""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from _reference import (
    SKIP_COMBINED,
    asker,
    assert_delta_bracket,
    epsilon_values,
    exp_bounds,
    exp_hockey,
    finite_loss,
    frac,
)
from verialloc import Config, DiscretePair, api
from verialloc.exact.discrete_profiles import allocation_pair, poisson_pair
from verialloc.numeric.pld.discretize import atomic_pld
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import configs, finite_mechanisms, probability_pairs, rates

pairs = probability_pairs(max_atoms=3, max_weight=4)
#: pairs every float method serves (one finite privacy loss); P = Q, zero masses and ±inf losses still drawn
served_pairs = pairs.filter(finite_loss)
INF = math.inf
U = 2.0**-53
DIGITS = 30


def law_sum(x: dict, y: dict) -> dict:
    """Law of X + Y for independent exp-space values (∞ absorbs)."""
    return bf.exp_convolve(x, y, lambda u, v: u + v)


def scaled(law: dict, c) -> dict:
    return {(x * c if x != INF else INF): m for x, m in law.items()}


def ratio_under_q(p, q) -> dict:
    """Law of P/Q under Q over the outputs with Q > 0; value 0 where P = 0 (= e^{−D(L)}, F26)."""
    law: dict = {}
    for x, y in zip(p, q):
        if y:
            law[x / y] = law.get(x / y, 0) + y
    return law


def dicts(pair) -> tuple[dict, dict]:
    """A production FiniteLossPair as brute-force dicts {label: mass}."""
    return dict(zip(map(pair.label, range(len(pair))), pair.a)), dict(zip(map(pair.label, range(len(pair))), pair.b))


def by_counts(masses: dict) -> dict:
    """Brute-force sequence masses grouped by count vector ((j, n_j), …), the exact layer's atom labels."""
    out: dict = {}
    for y, m in masses.items():
        key = tuple(sorted(Counter(y).items()))
        out[key] = out.get(key, 0) + m
    return {k: m for k, m in out.items() if m}


def nonzero(masses: dict) -> dict:
    return {k: m for k, m in masses.items() if m}


@given(pairs, st.integers(1, 3))
def test_exact_layer_allocation_pair_is_psi_of_the_single_step_pld_F26_I18(pq, t):
    """I18 (F26, [003] Thm 4.4) on `allocation_pair(exact=True)`: e^{L(P̄_t, Q^t)} = (1/t)(e^{L} + Σ_{i<t} e^{−D(L)_i})
    in law, L = L_{P,Q}, e^{−D(L)} ~ P/Q under Q (an atom of D(L) at +∞ is the value 0, E17); add direction:
    e^{−L(Q^t, P̄_t)} = (1/t)Σ_i e^{−L_i}, L_i ~ L_{Q,P} (its +∞ atom is again the value 0). t = 1 is the identity."""
    p, q = pq
    a, b = dicts(allocation_pair(DiscretePair(p, q), t, exact=True))
    assert all(isinstance(m, Fraction) for m in (*a.values(), *b.values()))
    under_q = ratio_under_q(p, q)
    remove = bf.exp_loss_law(*bf.single(p, q))
    add = under_q
    for _ in range(t - 1):
        remove, add = law_sum(remove, under_q), law_sum(add, under_q)
    assert bf.exp_loss_law(a, b) == scaled(remove, Fraction(1, t))
    assert ratio_under_q(list(a.values()), list(b.values())) == scaled(add, Fraction(1, t))


def f25(p, q, t: int, kappa: Fraction) -> tuple[Fraction, Fraction]:
    """F25 (remove with the P(Q = 0) term of F2, add form), summed over all output sequences in rationals."""
    remove = add = Fraction(0)
    for y in itertools.product(range(len(p)), repeat=t):
        q_y = math.prod(q[j] for j in y)
        if q_y:
            mean_r = sum(p[j] / q[j] for j in y) / t
            remove += q_y * max(mean_r - kappa, 0)
            add += q_y * max(1 - kappa * mean_r, 0)
        else:  # P̄_t(y) = (1/t) Σ_i P(y_i) Π_{j≠i} Q(y_j)
            remove += sum(p[y[i]] * math.prod(q[y[j]] for j in range(t) if j != i) for i in range(t)) / t
    return remove, add


@given(served_pairs, st.integers(1, 3), epsilon_values())
@settings(max_examples=8)
def test_every_method_brackets_the_expectation_formula_F25_I25(certified, pq, t, eps):
    """I25 (F25, E12): each certified method's remove and add brackets contain the F25 expectations at e^ε."""
    p, q = pq
    k_lo, k_hi = exp_bounds(eps)
    (r_hi, a_hi), (r_lo, a_lo) = f25(p, q, t, k_lo), f25(p, q, t, k_hi)  # non-increasing in κ
    config = Config(DiscretePair(p, q), steps=t)
    for d, ref in (("remove", (r_lo, r_hi)), ("add", (a_lo, a_hi))):
        brackets = certified(
            asker(api.delta, config, eps, d, DIGITS), exclude=SKIP_COMBINED, what=f"{config} {d} {eps}"
        )
        assert "exact" in brackets and "pld" in brackets
        for bracket in brackets.values():
            assert_delta_bracket(bracket, ref, f"F25 {d} t={t} eps={eps} {pq}", digits=DIGITS)


def phi_laws(p, q, lam) -> tuple[dict, dict]:
    """(→φ_λ(L_{P,Q}), ←φ_λ(L_{Q,P})) in exp-space (F47 push-forward form): remove: w.p. λ g(L), w.p. 1−λ g(−D(L)),
    e^{g(x)} = 1 + λ(e^x − 1), the −∞ atom of −D(L) (mass Q(P = 0)) landing at 1 − λ; add: e^{−L(Q, P_λ)} =
    1 + λ(e^{−L_{Q,P}} − 1) under Q."""
    g = lambda x: INF if x == INF else 1 + lam * (x - 1)  # noqa: E731
    remove: dict = {}
    for x, m in bf.exp_loss_law(*bf.single(p, q)).items():
        remove[g(x)] = remove.get(g(x), 0) + lam * m
    for x, m in ratio_under_q(p, q).items():
        remove[g(x)] = remove.get(g(x), 0) + (1 - lam) * m
    add: dict = {}
    for x, m in ratio_under_q(p, q).items():  # law of e^{−L(Q, P_λ)} = P_λ/Q under Q
        add[g(x)] = add.get(g(x), 0) + m
    add_law = {(INF if x == 0 else 1 / x): m for x, m in add.items()}  # law of e^{L(Q, P_λ)} under Q
    return nonzero(remove), nonzero(add_law)


@given(served_pairs, rates(), epsilon_values())
@settings(max_examples=12)
def test_poisson_pair_and_every_method_follow_phi_F47_I17(certified, pq, lam, eps):
    """I17 (F47, E16): the exact layer's one-step Poisson pair has the law →φ_λ(L_{P,Q}) (remove) and ←φ_λ(L_{Q,P})
    (add), exactly; every certified method's bracket contains H_{e^ε} of these laws."""
    p, q = pq
    mech = DiscretePair(p, q)
    a, b = dicts(poisson_pair(mech, 1, lam, exact=True))
    remove, add = phi_laws(p, q, lam)
    assert bf.exp_loss_law(a, b) == remove and bf.exp_loss_law(b, a) == add
    assert sum(remove.values()) == 1 == sum(add.values())
    config = Config(mech, "poisson", steps=1, rate=lam)
    for d, law in (("remove", remove), ("add", add)):
        ref = exp_hockey(law, eps)
        brackets = certified(
            asker(api.delta, config, eps, d, DIGITS), exclude=SKIP_COMBINED, what=f"{config} {d} {eps}"
        )
        assert "exact" in brackets and "pld" in brackets
        for bracket in brackets.values():
            assert_delta_bracket(bracket, ref, f"F47 {d} lambda={lam} eps={eps} {pq}", digits=DIGITS)


@given(pairs, st.integers(1, 3), rates())
def test_exact_layer_pairs_equal_enumeration_and_the_poisson_decomposition_F11_F31_I30(pq, t, lam):
    """F11/F23/F46 and I30 (F31): `allocation_pair(t, k)` (k-subset likelihood on count vectors) equals the
    brute-force mean over k-subsets for every k, `poisson_pair` equals brute-force (λP + (1−λ)Q)^t, and
    P_{t,λ}(*) = Σ_k B_{t,λ}(k) A_{t,k}(*) (A_{t,0} = Q^t) = (1 − 1/γ)Q^t + P⁺/γ, γ = 1/(1 − (1−λ)^t),
    P⁺ = γ Σ_{k≥1} B(k) A_{t,k}(*) a probability — all on the exact layer's masses, exactly."""
    p, q = pq
    mech = DiscretePair(p, q)
    weights = [math.comb(t, k) * lam**k * (1 - lam) ** (t - k) for k in range(t + 1)]
    q_t = nonzero(by_counts(bf.allocation(p, q, t, 0)[1]))
    produced = [q_t]
    for k in range(1, t + 1):
        a, b = dicts(allocation_pair(mech, t, k, exact=True))
        want_a, want_b = bf.allocation(p, q, t, k)
        assert nonzero(a) == by_counts(want_a) and nonzero(b) == by_counts(want_b) == q_t, k
        produced.append(nonzero(a))
    pa, pb = dicts(poisson_pair(mech, t, lam, exact=True))
    want_a, want_b = bf.poisson(p, q, t, lam)
    assert nonzero(pa) == by_counts(want_a) and nonzero(pb) == q_t == by_counts(want_b)
    mixture: dict = {}
    for w, masses in zip(weights, produced):
        for y, m in masses.items():
            mixture[y] = mixture.get(y, 0) + w * m
    assert nonzero(mixture) == nonzero(pa)
    gamma = 1 / (1 - (1 - lam) ** t)
    plus: dict = {}
    for w, masses in zip(weights[1:], produced[1:]):
        for y, m in masses.items():
            plus[y] = plus.get(y, 0) + gamma * w * m
    assert sum(plus.values()) == 1
    conditioned = {y: (1 - 1 / gamma) * q_t.get(y, 0) + plus.get(y, 0) / gamma for y in q_t.keys() | plus.keys()}
    assert nonzero(conditioned) == nonzero(pa)


@given(configs(finite_mechanisms(3), max_steps=3), epsilon_values(-2, 3))
@settings(max_examples=12)
def test_remove_and_add_brackets_satisfy_the_reversal_identity_I3(certified, config, eps):
    """I3 (F2) across directions on verialloc's outputs: remove(ε) = 1 − κ(1 − add(−ε)), κ = e^ε, so for every pair
    of certified methods (m1 remove, m2 add): upper_m1 ≥ 1 − κ_hi(1 − lower_m2) and lower_m1 ≤ 1 − κ_lo(1 − upper_m2)."""
    what = f"{config} eps={eps}"
    removes = certified(asker(api.delta, config, eps, "remove", DIGITS), exclude=SKIP_COMBINED, what=what)
    adds = certified(asker(api.delta, config, -eps, "add", DIGITS), exclude=SKIP_COMBINED, what=what)
    assert "exact" in removes and "exact" in adds
    k_lo, k_hi = exp_bounds(eps)
    for m1, rem in removes.items():
        r_lo, r_hi = (frac(x) for x in (rem.lower, rem.upper))
        if rem.error_kind == "exact":
            r_lo, r_hi = r_lo * (1 - Fraction(1, 10 ** (DIGITS - 1))), r_hi * (1 + Fraction(1, 10 ** (DIGITS - 1)))
        for m2, add in adds.items():
            a_lo, a_hi = (frac(x) for x in (add.lower, add.upper))
            if add.error_kind == "exact":
                a_lo, a_hi = a_lo * (1 - Fraction(1, 10 ** (DIGITS - 1))), a_hi * (1 + Fraction(1, 10 ** (DIGITS - 1)))
            assert r_hi >= 1 - k_hi * (1 - a_lo), f"{what}: {m1} remove upper {rem.upper} < I3 with {m2} add lower"
            assert r_lo <= 1 - k_lo * (1 - a_hi), f"{what}: {m1} remove lower {rem.lower} > I3 with {m2} add upper"


@given(probability_pairs(3, 4).filter(lambda pq: any(x and y for x, y in zip(*pq))))
def test_dual_of_the_exact_single_step_pld_is_the_reversed_pld_F7_I14_I15(pq):
    """I14, I15 (F7, Claims A.1/A.2) on `PLD.dual`: for the pld method's exact PLD of L_{P,Q} (`atomic_pld`),
    E[e^{−L}] = Q(P > 0), H_{e^ε}(D(L)) = H_{e^ε}(L_{Q,P}) (brute-force exp-space law) and D(D(L)) = L, within the
    documented hockey-stick budget 8(n+1)·u·Σm + 2u·δ (the masses and losses are float64 roundings of rationals)."""
    p, q = pq
    pld = atomic_pld(DiscretePair(p, q).loss_law(), "remove")
    dual = pld.dual()
    q_p = sum((y for x, y in zip(p, q) if x), Fraction(0))
    n = pld.masses.size
    assert abs(frac(pld.exp_neg_mean()) - q_p) <= 8 * (n + 1) * Fraction(U)
    reversed_law = bf.exp_loss_law(*reversed(bf.single(p, q)))
    law = bf.exp_loss_law(*bf.single(p, q))
    for eps in (Fraction(-3, 2), Fraction(-3, 8), Fraction(0), Fraction(5, 8), Fraction(2)):
        for got, exact in ((dual, reversed_law), (dual.dual(), law)):
            lo, hi = exp_hockey(exact, eps)
            budget = 8 * (got.masses.size + 1) * Fraction(U) * frac(got.total_mass) + 2 * Fraction(U) * hi
            value = frac(got.delta(float(eps)))
            assert lo - budget <= value <= hi + budget, (eps, float(value), float(lo))
    assert np.all(np.isfinite(dual.losses)) and dual.neg_inf_mass == 0
