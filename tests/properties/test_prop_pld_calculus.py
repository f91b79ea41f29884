"""PLD realizations and the stochastic-domination calculus of [003] (I14, I15, I16, I19, I20; F7, F10, F48–F51).

Exact part: laws of e^L with rational values and masses (`exp_laws`), so F̄ comparisons, duals and H_κ at
rational κ are exact; a log-space shift α is the factor r = e^α. Numeric part: float64 `PLD` objects on the 1/8
grid (`pld_realizations`) through verialloc.numeric's dual, compose and subsampling.
"""
import math
from fractions import Fraction

import numpy as np
from hypothesis import given, strategies as st

from verialloc.numeric.compose import compose
from verialloc.numeric.subsample import subsample_add, subsample_remove
from verialloc.testing import brute_force as bf
from verialloc.testing.assertions import assert_same_pld, assert_stochastically_dominated, domination_slack
from verialloc.testing.strategies import exp_laws, ordered_exp_laws, pld_realizations, rates

INF = math.inf
KAPPAS = st.integers(0, 40).map(lambda n: Fraction(n, 8))
FACTORS = st.sampled_from([Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2)])


def tilt(law: dict) -> Fraction:
    """E[e^{−L}] = Σ m/x (the +∞ atom contributes 0)."""
    return sum((m / x for x, m in law.items() if x != INF), Fraction(0))


def product(x: dict, y: dict) -> dict:
    """Law of L1 + L2 (exp-space: product), independent."""
    return bf.exp_convolve(x, y, lambda u, v: INF if INF in (u, v) else u * v)


def exp_sum(x: dict, y: dict) -> dict:
    """Law of ln(e^{L1} + e^{L2}) (exp-space: sum), independent."""
    return bf.exp_convolve(x, y, lambda u, v: u + v)


def from_ccdf(points: list, ccdf) -> dict:
    """The law on `points` (sorted, possibly ending in ∞) whose F̄ just below each point is ccdf(point)."""
    law, above = {}, Fraction(0)
    for x in reversed(points):
        mass = ccdf(x) - above
        if mass:
            law[x] = mass
        above = ccdf(x)
    return law


def tail(law: dict, x) -> Fraction:
    return sum((m for w, m in law.items() if w >= x), Fraction(0))


# --- exact calculus ------------------------------------------------------------------------------------
@given(ordered_exp_laws())
def test_dominating_a_realization_is_a_realization_F7_claim_B1(vu):
    """F7 (vi), [003] Claim B.1: U ⪰ V with V a realization ⇒ E[e^{−U}] ≤ E[e^{−V}] ≤ 1."""
    v, u = vu
    assert_stochastically_dominated(v, u)
    assert tilt(u) <= tilt(v) <= 1


@given(exp_laws(realization=False), exp_laws(realization=False), FACTORS, KAPPAS)
def test_approximate_domination_bounds_the_hockey_stick_F49_I19(v, u, r, kappa):
    """I19, F49 ([003] Claim 4.2): V ⪯_(α,β) U ⇒ H_{e^ε}(V) ≤ H_{e^{ε−α}}(U) + β; α = ln r, β the least slack."""
    beta = domination_slack(v, u, factor=r)
    assert bf.exp_hockey_stick(v, kappa) <= bf.exp_hockey_stick(u, kappa / r) + beta


@given(exp_laws(3, realization=False), exp_laws(3, realization=False), exp_laws(3, realization=False),
       exp_laws(3, realization=False), FACTORS, FACTORS)
def test_shifts_and_slacks_add_under_composition_F48_I19(v1, u1, v2, u2, r1, r2):
    """I19, F48 ([003] Claim 4.3): V_i ⪯_(α_i,β_i) U_i ⇒ V1+V2 ⪯_(α1+α2, β1+β2) U1+U2 (exact)."""
    b1, b2 = domination_slack(v1, u1, factor=r1), domination_slack(v2, u2, factor=r2)
    assert_stochastically_dominated(product(v1, v2), product(u1, u2), factor=r1 * r2, slack=b1 + b2)


@given(exp_laws(3, with_inf=False, realization=False), exp_laws(3, with_inf=False, realization=False),
       exp_laws(3, with_inf=False, realization=False), exp_laws(3, with_inf=False, realization=False), FACTORS)
def test_shift_does_not_add_under_exp_convolution_F50_I19(v1, u1, v2, u2, r):
    """I19, F50 ([003] Lemma 4.5): V_i ⪯_(α,β_i) U_i ⇒ ln(e^{V1}+e^{V2}) ⪯_(α, β1+β2) ln(e^{U1}+e^{U2}) — the
    same α, not 2α."""
    b1, b2 = domination_slack(v1, u1, factor=r), domination_slack(v2, u2, factor=r)
    assert_stochastically_dominated(exp_sum(v1, v2), exp_sum(u1, u2), factor=r, slack=b1 + b2)


@given(ordered_exp_laws(), ordered_exp_laws())
def test_max_and_min_of_survival_functions_combine_bounds_F51_B3_I19(vx, wy):
    """I19, F51 ([003] Claim B.3): for V_i ⪯ X the law with F̄ = max F̄_{V_i} lies between them and X; for X ⪯ U_i
    the law with F̄ = min F̄_{U_i} lies between X and the U_i. X is built to dominate both V_i (resp. be dominated)."""
    (v1, x1), (v2, x2) = vx, wy
    points = sorted(set(v1) | set(v2) | set(x1) | set(x2))
    x_top = from_ccdf(points, lambda p: max(tail(x1, p), tail(x2, p)))  # dominates x1, x2, hence v1, v2
    v = from_ccdf(points, lambda p: max(tail(v1, p), tail(v2, p)))
    for vi in (v1, v2):
        assert_stochastically_dominated(vi, v)
    assert_stochastically_dominated(v, x_top)
    x_low = from_ccdf(points, lambda p: min(tail(v1, p), tail(v2, p)))  # dominated by v1, v2, hence x1, x2
    u = from_ccdf(points, lambda p: min(tail(x1, p), tail(x2, p)))
    for ui in (x1, x2):
        assert_stochastically_dominated(u, ui)
    assert_stochastically_dominated(x_low, u)


@given(ordered_exp_laws())
def test_dual_reverses_order_up_to_the_corrected_constant_F51_B2_3_E13_I20(vu):
    """I20, F51 B.2(3) with erratum E13: for realizations V ⪯ U, D(U) ⪯_(0,c) D(V) with c = E[e^{−V}] − E[e^{−U}]
    (≥ 0), the corrected constant; the dual itself is a realization and an involution (I15)."""
    v, u = vu
    c = tilt(v) - tilt(u)
    assert c >= 0
    assert_stochastically_dominated(bf.exp_dual(u), bf.exp_dual(v), slack=c)
    for law in (v, u):
        dual = bf.exp_dual(law)
        assert sum(dual.values()) == 1 and tilt(dual) <= 1
        if tilt(law) == 1 or INF in law:
            assert bf.exp_dual(dual) == law


@given(ordered_exp_laws(3), st.integers(1, 3), rates())
def test_add_direction_transforms_preserve_stochastic_order_F26_F47(vu, t, lam):
    """F26/F47: ←ψ_t(L) = −ln(mean e^{−L_i}) and ←φ_λ(L) = −ln(1 + λ(e^{−L} − 1)) are increasing in each L_i, so
    V ⪯ U ⇒ ←ψ_t(V) ⪯ ←ψ_t(U) and ←φ_λ(V) ⪯ ←φ_λ(U) (exact); →φ_λ does not (F51 B.2(2), tests/numeric)."""
    def psi(law):
        inv = {(0 if x == INF else 1 / x): m for x, m in law.items()}  # law of e^{−L}
        total = inv
        for _ in range(t - 1):
            total = bf.exp_convolve(total, inv, lambda a, b: a + b)
        return {(INF if s == 0 else t / s): m for s, m in total.items()}

    def phi(law):
        out = {}
        for x, m in law.items():
            y = 1 / (1 - lam) if x == INF else 1 / (1 + lam * (1 / x - 1))  # e^{←φ(L)}; L = ∞ → −ln(1−λ)
            out[y] = out.get(y, 0) + m
        return out

    v, u = vu
    assert_stochastically_dominated(psi(v), psi(u))
    if lam < 1:
        assert_stochastically_dominated(phi(v), phi(u))


# --- float64 PLD objects ---------------------------------------------------------------------------------
@given(pld_realizations())
def test_realizations_and_their_duals_I14_I15(pld):
    """I14/I15 (F7) in float64: the strategy's PLDs are realizations; D(L) is one; D(D(L)) = L; and the reversal
    identity H_κ(L) = 1 − κ + κ H_{1/κ}(D(L)) (I3) holds on the realization."""
    pld.validate_realization()
    dual = pld.dual().validate_realization()
    back = dual.dual()
    assert_same_pld(back, pld, tol=1e-12)
    for eps in (-1.0, 0.0, 0.5, 2.0):
        kappa = math.exp(eps)
        assert abs(pld.delta(eps) - (1 - kappa + kappa * dual.delta(-eps))) <= 1e-12 * max(1.0, kappa)


@given(pld_realizations(4), pld_realizations(4))
def test_composition_keeps_realizations_and_multiplies_tilts_I14_I16(a, b):
    """I14, I16 (F6, F48): the composed PLD is a realization, total mass is kept, E[e^{−(A+B)}] = E[e^{−A}]E[e^{−B}],
    and its +∞ atom is P(A = ∞ or B = ∞)."""
    c = compose(a, b, step=0.125)
    c.validate_realization()
    assert abs(c.total_mass - 1) <= 1e-12
    assert abs(c.exp_neg_mean() - a.exp_neg_mean() * b.exp_neg_mean()) <= 1e-12
    assert abs(c.inf_mass - (a.inf_mass + b.inf_mass - a.inf_mass * b.inf_mass)) <= 1e-15


@given(pld_realizations(), rates())
def test_subsampling_keeps_realizations_E16_I17(pld, lam):
    """I17 with erratum E16: →φ_λ and ←φ_λ of any realization keep total mass 1 and E[e^{−L}] ≤ 1; the remove
    transform puts (1−λ)(1 − E[e^{−L}]) at ln(1−λ) and λ·f(+∞) at +∞; the add transform moves f(+∞) to −ln(1−λ)."""
    lam_f = float(lam)
    rem, add = subsample_remove(pld, lam_f), subsample_add(pld, lam_f)
    for out in (rem, add):
        out.validate_realization()
        assert abs(out.total_mass - 1) <= 1e-12
    assert abs(rem.inf_mass - lam_f * pld.inf_mass) <= 1e-15
    if lam < 1:
        low = np.isclose(rem.losses, math.log1p(-lam_f), rtol=0, atol=1e-12)
        expected_low = (1 - lam_f) * (1 - pld.exp_neg_mean())
        if expected_low > 1e-12:
            assert abs(rem.masses[low].sum() - expected_low) <= 1e-12
        assert add.inf_mass == 0
