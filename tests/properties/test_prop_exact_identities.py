"""Exact identities, proved on each drawn instance in rational arithmetic by brute-force enumeration of output
sequences (`verialloc.testing.brute_force`, independent of verialloc.exact). Losses are kept in exp-space
(x = e^ℓ = A/B ∈ ℚ ∪ {∞}), so ψ_t (F26), φ_λ (F47), duals (F7) and H_κ at rational κ are exact rationals.
"""
import math
from fractions import Fraction

from hypothesis import given, strategies as st

from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import probability_pairs, rates

pairs = probability_pairs(max_atoms=3, max_weight=4)
KAPPAS = st.integers(0, 40).map(lambda n: Fraction(n, 8))
INF = math.inf


def law_sum(x: dict, y: dict) -> dict:
    """Law of X + Y for independent exp-space values (∞ absorbs)."""
    return bf.exp_convolve(x, y, lambda u, v: u + v)


def scaled(law: dict, c) -> dict:
    return {(x * c if x != INF else INF): m for x, m in law.items()}


def ratio_under_q(p, q) -> dict:
    """Law of e^{ℓ(ω; P, Q)} = P/Q under Q, ω with Q > 0; value 0 where P = 0 (= e^{−D(L)}, F26)."""
    law: dict = {}
    for x, y in zip(p, q):
        if y:
            law[x / y] = law.get(x / y, 0) + y
    return law


@given(pairs, st.integers(1, 3))
def test_allocation_pld_is_psi_of_the_single_step_pld_F26_I18(pq, t):
    """I18 (F26, [003] Thm 4.4): e^{L(P̄_t, Q^t)} = (1/t)(e^{L} + Σ_{i<t} e^{−D(L)_i}) in law, with
    L = L_{P,Q} and e^{−D(L)} ~ P/Q under Q (an atom of D(L) at +∞ is the value 0); and the add direction
    e^{−L(Q^t, P̄_t)} = (1/t)Σ_i e^{−L_i}, L_i ~ L_{Q,P}. t = 1 is the identity."""
    p, q = pq
    a, b = bf.allocation(p, q, t)
    single = bf.exp_loss_law(*bf.single(p, q))
    under_q = ratio_under_q(p, q)
    total = single
    for _ in range(t - 1):
        total = law_sum(total, under_q)
    assert bf.exp_loss_law(a, b) == scaled(total, Fraction(1, t))
    # add: law of e^{−ℓ(Q^t, P̄_t)} = P̄_t/Q^t under Q^t; e^{−L_{Q,P}} = P/Q under Q, again
    add_total = under_q
    for _ in range(t - 1):
        add_total = law_sum(add_total, under_q)
    assert ratio_under_q(list(a.values()), list(b.values())) == scaled(add_total, Fraction(1, t))


@given(pairs, st.integers(1, 3), KAPPAS)
def test_expectation_formula_equals_the_profile_F25_I25(pq, t, kappa):
    """I25 (F25, with the P(Q = 0) term of F2): H_κ(P̄_t‖Q^t) = E_{Q^t}[(mean r − κ)_+] + P̄_t(Q^t = 0) and
    H_κ(Q^t‖P̄_t) = E_{Q^t}[(1 − κ·mean r)_+] (r = P/Q per step), = H_κ of ψ_t's law."""
    p, q = pq
    a, b = bf.allocation(p, q, t)
    remove = sum(max(a[y] - kappa * b[y], 0) for y in b if b[y]) + sum(a[y] for y in a if not b[y])
    add = sum(max(b[y] - kappa * a[y], 0) for y in b)
    assert bf.hockey_stick(a, b, kappa) == remove
    assert bf.hockey_stick(b, a, kappa) == add
    assert bf.exp_hockey_stick(bf.exp_loss_law(a, b), kappa) == remove


@given(pairs, rates(), KAPPAS)
def test_subsampled_pld_is_phi_of_the_single_step_pld_F47_I17(pq, lam, kappa):
    """I17 (F47, E16): L(P_λ, Q) = →φ_λ(L_{P,Q}): w.p. λ g(L), w.p. 1−λ g(−D(L)), e^{g(x)} = 1 + λ(e^x − 1), the
    −∞ atom of −D(L) (mass 1 − E[e^{−L}] = Q(P = 0)) landing at ln(1−λ) (the mass Alg. 8 drops); add:
    e^{−L(Q, P_λ)} = 1 + λ(e^{−L_{Q,P}} − 1). Total mass 1 both ways; λ = 1 is the identity."""
    p, q = pq
    mixed = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    g = lambda x: INF if x == INF else 1 + lam * (x - 1)  # noqa: E731
    expected: dict = {}
    for x, m in bf.exp_loss_law(*bf.single(p, q)).items():
        expected[g(x)] = expected.get(g(x), 0) + lam * m
    for x, m in ratio_under_q(p, q).items():  # e^{−D(L)} under Q, x = 0 is the −∞ atom
        if lam < 1:
            expected[g(x)] = expected.get(g(x), 0) + (1 - lam) * m
    expected = {x: m for x, m in expected.items() if m}
    assert bf.exp_loss_law(*bf.single(mixed, q)) == expected
    assert sum(expected.values()) == 1
    add = {}
    for x, m in ratio_under_q(p, q).items():
        add[g(x)] = add.get(g(x), 0) + m
    assert ratio_under_q(mixed, q) == add
    if lam == 1:
        assert expected == bf.exp_loss_law(*bf.single(p, q))
    assert bf.exp_hockey_stick(expected, kappa) == bf.hockey_stick(*bf.single(mixed, q), kappa)


@given(pairs, st.integers(1, 3), rates())
def test_poisson_decomposition_and_conditioned_poisson_F31_I30(pq, t, lam):
    """I30 (F31): P_{t,λ}(*) = Σ_k B_{t,λ}(k) A_{t,k}(*) (A_{t,0} = Q^t), weights summing to 1; and the conditioned
    form P_{t,λ}(*) = (1 − 1/γ)Q^t + (1/γ)P⁺ with γ = 1/(1 − (1−λ)^t), P⁺ = γ Σ_{k≥1} B(k) A_{t,k}(*)."""
    p, q = pq
    weights = [math.comb(t, k) * lam**k * (1 - lam) ** (t - k) for k in range(t + 1)]
    assert sum(weights) == 1
    allocations = [bf.allocation(p, q, t, k) for k in range(t + 1)]
    poisson_a, q_t = bf.poisson(p, q, t, lam)
    assert bf.mixture(weights, allocations) == poisson_a
    gamma = 1 / (1 - (1 - lam) ** t)
    plus = {y: gamma * m for y, m in bf.mixture(weights[1:], allocations[1:]).items()}
    assert {y: (1 - 1 / gamma) * q_t[y] + plus[y] / gamma for y in q_t} == poisson_a
    assert sum(plus.values()) == 1


@given(pairs, st.integers(1, 3), st.integers(1, 40).map(lambda n: Fraction(n, 8)))
def test_reversal_identity_on_scheme_pairs_I3(pq, t, kappa):
    """I3 (F2): H_κ(P‖Q) = 1 − κ + κ H_{1/κ}(Q‖P) for the allocation and Poisson pairs; TV at κ = 1 is symmetric."""
    for a, b in (bf.allocation(*pq, t), bf.poisson(*pq, t, Fraction(1, 2))):
        assert bf.hockey_stick(a, b, kappa) == 1 - kappa + kappa * bf.hockey_stick(b, a, 1 / kappa)
        assert bf.hockey_stick(a, b, 1) == bf.hockey_stick(b, a, 1)


@given(pairs, st.integers(1, 2))
def test_dual_of_the_pair_pld_is_the_reversed_pld_and_an_involution_F7_I14_I15(pq, t):
    """I14, I15 (F7, Claims A.1/A.2): E[e^{−L_{P,Q}}] = Q(P > 0) for the allocation pair; D(L_{P,Q}) = L_{Q,P}
    (atoms at +∞ included) and D(D(L)) = L, exactly."""
    a, b = bf.allocation(*pq, t)
    law = bf.exp_loss_law(a, b)
    assert sum(m / x for x, m in law.items() if x != INF) == sum(b[y] for y in b if a[y])
    reversed_law = bf.exp_loss_law(b, a)
    assert bf.exp_dual(law) == reversed_law
    assert bf.exp_dual(reversed_law) == law
