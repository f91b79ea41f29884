"""Rényi-DP invariants (remove direction, F38–F40, E2–E5): the three exact forms against brute-force sequence
enumeration in rationals, I26–I28 proved exactly on rational pairs, I16 additivity, and the Gaussian ceiling."""
from fractions import Fraction

import mpmath as mp
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair, api
from verialloc.errors import UnsupportedRequest
from verialloc.exact.arith import FractionArith
from verialloc.exact.rdp import FORMS, allocation_moment
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import gaussians, probability_pairs, rates

# absolutely continuous rational pairs (P ≪ Q, so every D_α is finite)
continuous_pairs = probability_pairs(max_atoms=3, max_weight=4).filter(
    lambda pq: all(y > 0 or x == 0 for x, y in zip(*pq)))


def single_moments(p, q, alpha: int) -> list:
    pair = bf.single(p, q)
    return [bf.moment(*pair, a) if a > 1 else Fraction(1) for a in range(alpha + 1)]


@given(continuous_pairs, st.integers(1, 3), st.integers(2, 5))
def test_partition_multinomial_genfunc_equal_brute_force_F38_F40_I26(pq, t, alpha):
    """I26 (F38 with E3/E5, F40, generating function): D_α(P̄_t‖Q^t) from each form in exact rationals equals the
    brute-force E_{Q^t}[(P̄_t/Q^t)^α] over all output sequences."""
    p, q = pq
    expected = bf.moment(*bf.allocation(p, q, t), alpha)
    moments = single_moments(p, q, alpha)
    for form in FORMS:
        assert allocation_moment(moments, t, alpha, form, FractionArith()) == expected, form


@given(continuous_pairs, st.integers(1, 6))
def test_alpha_two_closed_form_I27(pq, t):
    """I27: D_2(P̄_t‖Q^t) = 1 + (D_2(P‖Q) − 1)/t, exactly (t = 1 reduces to the single step)."""
    p, q = pq
    d2 = single_moments(p, q, 2)[2]
    assert allocation_moment(single_moments(p, q, 2), t, 2, "genfunc", FractionArith()) == 1 + (d2 - 1) / t


@given(continuous_pairs, st.integers(1, 4))
def test_rdp_non_decreasing_and_log_moment_convex_in_alpha_I28(pq, t):
    """I28 (F5, [000] Claim C.1) exactly: R_α = ln D_α/(α−1) non-decreasing ⇔ D_{α+1}^{α−1} ≥ D_α^α, and
    (α−1)R_α = ln D_α convex ⇔ D_α² ≤ D_{α−1}D_{α+1}, for α = 2..7 (D_1 = 1), allocation pair."""
    p, q = pq
    moments = single_moments(p, q, 8)
    d = [Fraction(1), Fraction(1)] + [allocation_moment(moments, t, a, "genfunc", FractionArith()) for a in range(2, 9)]
    for a in range(2, 8):
        assert d[a + 1] ** (a - 1) >= d[a] ** a
        assert d[a] ** 2 <= d[a - 1] * d[a + 1]


@given(continuous_pairs, continuous_pairs, st.integers(2, 5))
def test_moments_multiply_under_products_I16(pq1, pq2, alpha):
    """I16 (F6, F21): D_α(P1×P2‖Q1×Q2) = D_α(P1‖Q1)·D_α(P2‖Q2), so R_α adds."""
    x, y = bf.single(*pq1), bf.single(*pq2)
    assert bf.moment(*bf.product(x, y), alpha) == bf.moment(*x, alpha) * bf.moment(*y, alpha)


@given(continuous_pairs, st.integers(1, 3), rates(6), st.integers(2, 4))
@settings(max_examples=10)
def test_exact_method_rdp_matches_brute_force(pq, t, lam, alpha):
    """The exact method's api.rdp (allocation k = 1 and Poisson, epochs 2) equals the brute-force rational value
    E·ln D_α/(α−1) to 25 digits (F5, F21, F38, F46)."""
    p, q = pq
    mech = DiscretePair(p, q)
    cases = ((Config(mech, steps=t, epochs=2), bf.allocation(p, q, t)),
             (Config(mech, "poisson", steps=t, rate=lam, epochs=2), bf.poisson(p, q, t, lam)))
    for config, pair in cases:
        got = api.rdp(config, alpha, digits=30)
        with mp.workdps(40):
            want = 2 * bf.renyi(*pair, alpha)  # exactly 0 when P = Q
            assert abs(got.upper - want) <= mp.mpf(10) ** -25 * max(abs(want), mp.mpf(10) ** -30)


@given(gaussians(), st.integers(1, 50), st.integers(2, 12))
@settings(max_examples=15)
def test_gaussian_allocation_rdp_below_unamplified_I28(gauss, t, alpha):
    """I28 ([001] Cor. 1, F39): every method's allocation RDP (remove) satisfies lower ≤ α/(2σ²), with strict
    inequality for t ≥ 2 (exact method) and equality at t = 1."""
    ceiling = Fraction(alpha) / (2 * gauss.sigma**2)
    config = Config(gauss, steps=t)
    for method in api.METHODS:
        try:
            b = api.rdp(config, alpha, method=method, digits=20)
        except UnsupportedRequest:
            continue
        with mp.workdps(40):
            bound = mp.mpf(ceiling.numerator) / ceiling.denominator
            assert b.lower <= bound * (1 + mp.mpf(10) ** -18), method
            if method == "exact":
                if t == 1:
                    assert abs(b.upper - bound) <= bound * mp.mpf(10) ** -18
                else:
                    assert b.upper < bound
