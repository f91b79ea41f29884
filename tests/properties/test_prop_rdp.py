"""Rényi-DP invariants (remove direction, F38–F40, E2–E5, I16, I26–I28), on verialloc's RDP code.

* F38/F40/I26, I27, I28 — the exact layer's three forms (`exact.rdp.allocation_moment`, partition / multinomial /
  generating function, in `FractionArith`) against brute-force sequence enumeration (`testing.brute_force`), exactly.
* I16 — the exact layer's product and E-fold pairs (`FiniteLossPair.compose`, `power`) multiply D_α exactly, and
  every method's `api.rdp` (exact, rdp, best) for E epochs of allocation and t·E Poisson steps brackets the
  brute-force R_α of one step times the number of copies (rigorous log enclosure for integer α; fractional α
  against `brute_force.renyi` at 50 digits); P = Q gives exactly 0 on both sides.
* `api.rdp` of the exact method against brute-force rationals (25 digits), and every method's Gaussian allocation
  RDP below the unamplified α/(2σ²) ([001] Cor. 1).

Mutation checked to be killed (#16): the rdp method scaling the allocation curve by k instead of k·E (I16).
"""

import math
from fractions import Fraction

import mpmath as mp
from hypothesis import given, settings, strategies as st

from _reference import frac
from verialloc import Config, DiscretePair, api
from verialloc.errors import UnsupportedRequest
from verialloc.exact.arith import FractionArith
from verialloc.exact.discrete_profiles import allocation_pair
from verialloc.exact.rdp import FORMS, allocation_moment
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import gaussians, probability_pairs, rates

DIGITS = 30
# absolutely continuous rational pairs (P ≪ Q, so every D_α is finite)
continuous_pairs = probability_pairs(max_atoms=3, max_weight=4).filter(
    lambda pq: all(y > 0 or x == 0 for x, y in zip(*pq))
)


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


def moment_of(pair, alpha: int) -> Fraction:
    """D_α(A‖B) = Σ_{B>0} B (A/B)^α of a production FiniteLossPair with Fraction masses."""
    return sum((b * (a / b) ** alpha for a, b in zip(pair.a, pair.b) if b), Fraction(0))


def renyi_bounds(d: Fraction, alpha) -> tuple[Fraction, Fraction]:
    """Rational enclosure of R_α = ln D_α/(α − 1) for a rational D_α ≥ 1 (exactly 0 when D_α = 1)."""
    if d == 1:
        return Fraction(0), Fraction(0)
    with mp.workdps(60):
        value = mp.log(mp.mpf(d.numerator) / d.denominator) / (
            mp.mpf(Fraction(alpha).numerator) / Fraction(alpha).denominator - 1
        )
        v = frac(value)
    pad = abs(v) / 2**180 + Fraction(1, 2**400)
    return v - pad, v + pad


ORDERS = st.one_of(
    st.integers(2, 8).map(Fraction),
    st.sampled_from([Fraction(3, 2), Fraction(5, 2), Fraction(7, 8) + 3]),
    st.floats(1.01, 8).map(Fraction),
)


@given(continuous_pairs, continuous_pairs, st.integers(1, 3), rates(6), st.integers(1, 3), ORDERS)
@settings(max_examples=20)
def test_products_multiply_moments_and_every_method_adds_rdp_I16(pq1, pq2, t, lam, epochs, alpha):
    """I16 (F6, F21) on verialloc's outputs: the exact layer's product pair (`FiniteLossPair.compose`) and E-fold
    power (`power`, multisets) have D_α = the product of the factors' brute-force D_α, exactly; and every method's
    `api.rdp` bracket for E epochs of allocation (t steps) and of Poisson (t steps, rate λ) contains E·R_α resp.
    t·E·R_α of ONE brute-force step (R_α adds under composition) — integer α from rational D_α (rigorous log
    enclosure; exact answers within their digits budget), fractional α (rdp method only: F20 chord) from
    `brute_force.renyi` at 50 digits (slack 1e-45 relative)."""
    (p1, q1), (p2, q2) = pq1, pq2
    x = allocation_pair(DiscretePair(p1, q1), 1, exact=True)  # one step: the pair (P, Q) with Fraction masses
    y = allocation_pair(DiscretePair(p2, q2), 1, exact=True)
    a = int(math.ceil(alpha))
    assert moment_of(x.compose(y), a) == bf.moment(*bf.single(p1, q1), a) * bf.moment(*bf.single(p2, q2), a)
    assert moment_of(x.power(epochs), a) == bf.moment(*bf.single(p1, q1), a) ** epochs
    mech = DiscretePair(p1, q1)
    cases = (
        (Config(mech, steps=t, epochs=epochs), epochs, bf.allocation(p1, q1, t)),
        (Config(mech, "poisson", steps=t, rate=lam, epochs=epochs), t * epochs, bf.poisson(p1, q1, 1, lam)),
    )
    for config, copies, pair in cases:
        if alpha.denominator == 1:
            lo, hi = renyi_bounds(bf.moment(*pair, int(alpha)), alpha)
        else:
            with mp.workdps(60):
                v = frac(bf.renyi(*pair, alpha))
            lo, hi = v * (1 - Fraction(1, 10**45)), v * (1 + Fraction(1, 10**45))
        lo, hi = copies * lo, copies * hi
        for method in ("exact", "rdp", "best") if alpha.denominator == 1 else ("rdp", "best"):  # exact: integer α
            b = api.rdp(config, alpha, method=method, digits=DIGITS)
            b_lo, b_hi = frac(b.lower), frac(b.upper)
            if b.error_kind == "exact":
                b_lo, b_hi = b_lo * (1 - Fraction(1, 10 ** (DIGITS - 1))), b_hi * (1 + Fraction(1, 10 ** (DIGITS - 1)))
            assert b_lo <= hi and b_hi >= lo, (
                f"{method} rdp {b} vs {copies} x R_{alpha} in [{float(lo)}, {float(hi)}] {config}"
            )


@given(continuous_pairs, st.integers(1, 3), rates(6), st.integers(2, 4))
@settings(max_examples=10)
def test_exact_method_rdp_matches_brute_force(pq, t, lam, alpha):
    """The exact method's api.rdp (allocation k = 1 and Poisson, epochs 2) equals the brute-force rational value
    E·ln D_α/(α−1) to 25 digits (F5, F21, F38, F46)."""
    p, q = pq
    mech = DiscretePair(p, q)
    cases = (
        (Config(mech, steps=t, epochs=2), bf.allocation(p, q, t)),
        (Config(mech, "poisson", steps=t, rate=lam, epochs=2), bf.poisson(p, q, t, lam)),
    )
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
