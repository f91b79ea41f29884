"""Random check-ins appendix ([002], numeric/shuffle/checkin.py): each bound against exact enumeration or its stated reference."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc.errors import InvalidParameter
from verialloc.exact.finite_pair import FiniteLossPair
from verialloc.mechanisms import RandomizedResponse
from verialloc.numeric.shuffle import checkin as ci


def k_ary_rr(x: Fraction, size: int):
    """k-ary randomized response with e^{ε0} = x (rational): row d = output law of input d; ratios <= x."""
    z = x + size - 1
    return [[x / z if y == d else 1 / z for y in range(size)] for d in range(size)]


@given(
    st.integers(2, 6),
    st.integers(2, 4),
    st.integers(0, 10),
    st.lists(st.integers(0, 5), min_size=4, max_size=4),
    st.lists(st.integers(0, 3), min_size=4, max_size=4),
)
def test_biased_sampling_against_exact_enumeration(x_int, size, q_num, weights, inputs):
    """F64 (Lemma A.1) on k-ary randomized response, all output sets S, exact rationals: the likelihood ratio of
    A(d_k) to the biased-sampling mixture never exceeds e^{ε0}/(1 + q(e^{ε0} − 1)); equality when every other
    record maps to a different input (worst case)."""
    x, q = Fraction(x_int), Fraction(q_num, 10)
    rows = k_ary_rr(x, size)
    others = [d % size for d in inputs]
    weights = [w + 1 for w in weights]
    total = sum(weights)
    target = 0
    mixture = [
        q * rows[target][y] + (1 - q) * sum(Fraction(w, total) * rows[d][y] for w, d in zip(weights, others))
        for y in range(size)
    ]
    bound = x / (1 + q * (x - 1))
    worst = max(
        sum(rows[target][y] for y in s) / sum(mixture[y] for y in s)
        for r in range(1, size + 1)
        for s in itertools.combinations(range(size), r)
    )
    assert worst <= bound
    assert ci.biased_sampling_ratio(math.log(x), q) == pytest.approx(float(bound), rel=1e-14)
    if all(d != target for d in others) and size == 2:
        assert worst == bound


def test_biased_sampling_endpoints():
    """I39: e^{ε0} at q = 0, 1 at q = 1."""
    assert ci.biased_sampling_ratio(0.7, 0) == pytest.approx(math.exp(0.7), rel=1e-15)
    assert ci.biased_sampling_ratio(0.7, 1) == 1


def exact_rr_composition_delta(epsilons, epsilon, direction):
    """Exact δ(ε) of the product of randomized-response pairs (tightly dominating for ε_i-DP, Kairouz et al.)."""
    with mp.workdps(30):
        pair = FiniteLossPair.from_mechanism(RandomizedResponse(epsilons[0]))
        for e in epsilons[1:]:
            pair = pair.compose(FiniteLossPair.from_mechanism(RandomizedResponse(e)))
        return pair.delta(epsilon, direction)


@given(
    st.lists(st.sampled_from(["0.05", "0.1", "0.3", "0.5", "1", "2"]), min_size=1, max_size=7),
    st.sampled_from([1e-1, 1e-2, 1e-4, 1e-6]),
)
@settings(max_examples=20)
def test_advanced_composition_above_exact_rr_composition(epsilons, delta):
    """F65 >= the exact ε of the heterogeneous composition of randomized responses (both directions)."""
    bound = ci.advanced_composition([float(e) for e in epsilons], delta)
    for direction in ("remove", "add"):
        assert exact_rr_composition_delta(epsilons, Fraction(repr(bound)), direction) <= delta


@given(st.floats(0.01, 5), st.floats(0.01, 0.99), st.integers(1, 400), st.floats(1e-10, 0.5))
def test_decreasing_composition_bounds_f65(a, b, k, delta):
    """I37: F65 on ε_i = ln(1 + a/(k − b(i−1))) is at most the closed form of Lemma A.2 (F66)."""
    steps = [math.log1p(a / (k - b * (i - 1))) for i in range(1, k + 1)]
    assert ci.advanced_composition(steps, delta) <= ci.decreasing_composition(a, b, k, delta) * (1 + 1e-12)


@given(st.floats(0.01, 1), st.floats(0, 1), st.integers(1, 10**5), st.floats(1e-12, 0.01))
def test_replacement_closed_form_below_seven_bound(eps0, w, m, delta):
    """I38: F68 <= 7·w·ε0·√(ln(1/δ)/m) when ε0 <= 1, δ <= 1/100 (m = 1 included)."""
    assert ci.replacement_epsilon(eps0, m, delta, w) <= ci.replacement_epsilon_simple(eps0, m, delta, w) * (1 + 1e-12)


@given(st.floats(0.01, 3), st.floats(0.05, 1), st.integers(1, 5000), st.floats(1e-12, 0.3))
def test_replacement_monotone_and_composed_form_tighter(eps0, w, m, delta):
    """I38 monotonicity (increasing in ε0 and w, decreasing in m); F65 on the per-step ε_i <= the F66 closed form."""
    value = ci.replacement_epsilon(eps0, m, delta, w)
    assert ci.replacement_epsilon(eps0 * 1.1, m, delta, w) >= value
    assert ci.replacement_epsilon(eps0, m, delta, min(1, w * 1.1)) >= value
    assert ci.replacement_epsilon(eps0, m + 1, delta, w) <= value
    assert ci.replacement_epsilon(eps0, m, delta, w, composed=True) <= value * (1 + 1e-12)


def test_step_epsilons_match_their_two_printed_forms():
    """F68: ln(1 + w e^{ε0}(e^{ε0}−1)/(i−1+e^{ε0}(m−i+1))) = ln(1 + w(e^{ε0}−1)/(m − (i−1)(e^{ε0}−1)/e^{ε0}))."""
    eps0, m, w = 0.8, 50, 0.3
    alt = [
        math.log1p(w * math.expm1(eps0) / (m - (i - 1) * math.expm1(eps0) / math.exp(eps0))) for i in range(1, m + 1)
    ]
    assert ci.replacement_step_epsilons(eps0, m, w) == pytest.approx(alt, rel=1e-13)


def test_theorem_3_2_and_4_3_specializations():
    """F69 (w_max = p0) and F70 (w_max = 1) written out from the formulas of §8."""
    e0, m, p0, d = 0.5, 1000, 0.2, 1e-6
    g, x = math.expm1(e0), math.exp(e0)
    f69 = p0**2 * x * g**2 / (2 * m) + p0 * g * math.sqrt(2 * x * math.log(1 / d)) / math.sqrt(m)
    f70 = x * g**2 / (2 * m) + g * math.sqrt(2 * x * math.log(1 / d) / m)
    assert ci.fixed_checkin_epsilon(e0, m, p0, d) == pytest.approx(f69, rel=1e-14)
    assert ci.sliding_window_epsilon(e0, m, d) == pytest.approx(f70, rel=1e-14)


def swap_distributions(n: int, x: Fraction, first: int, rest: int):
    """Exact output law of A_swap (F74) with binary randomized response (e^{ε0} = x), dataset (first, rest, …, rest),
    as masses of each count h of ones (the law is exchangeable in the outputs)."""
    a, b = x / (1 + x), 1 / (1 + x)  # keep / flip

    def p(out, inp):
        return a if out == inp else b

    masses = []
    for h in range(n + 1):
        y = [1] * h + [0] * (n - h)  # one representative output with h ones; the law depends on h only
        total = Fraction(0)
        for i in range(n):  # swap record 1 with a uniform position i (i = 0: no change)
            data = [rest] * n
            data[i] = first
            prod = Fraction(1)
            for out, inp in zip(y, data):
                prod *= p(out, inp)
            total += prod / n
        masses.append(math.comb(n, h) * total)
    return masses


@pytest.mark.parametrize("first, first_other, rest", [(1, 0, 0), (0, 1, 0), (1, 0, 1), (0, 1, 1)])
def test_swapping_bound_against_exact_enumeration(first, first_other, rest):
    """F74 (Thm A.7) at n = 40, ε0 = ln(11/10) ≈ 0.095 (bound below ε0, so not trivial): exact hockey-stick
    divergence of the two swapped-RR output laws at the bound's ε is <= δ."""
    n, x, delta = 40, Fraction(11, 10), 0.05
    bound = ci.swapping_epsilon(math.log(x), n, delta)
    assert bound < math.log(x)
    with mp.workdps(30):
        pair = FiniteLossPair(
            [mp.mpf(v.numerator) / v.denominator for v in swap_distributions(n, x, first, rest)],
            [mp.mpf(v.numerator) / v.denominator for v in swap_distributions(n, x, first_other, rest)],
        )
        assert pair.delta(Fraction(repr(bound)), "remove") <= delta
        assert pair.delta(Fraction(repr(ci.swapping_epsilon(math.log(x), n, delta, composed=True))), "remove") <= delta


def test_lemma_a3_threshold_uses_negative_exponent():
    """F67 with e^{−5ε0} (E24): finite and positive for every ε0 > 0 (the printed e^{+5ε0} makes ln(1/(1 − e^{5ε0})) undefined)."""
    for e0 in (0.01, 0.5, 1, 5):
        d1 = 1e-6
        expected = (
            (1 - math.exp(-e0))
            * d1
            / (4 * math.exp(e0) * (2 + math.log(2 / d1) / math.log(1 / (1 - math.exp(-5 * e0)))))
        )
        assert ci.pure_reduction_delta0_max(e0, d1) == pytest.approx(expected, rel=1e-12)
        assert ci.pure_reduction_delta0_max(e0, d1) > 0


def test_approximate_replacement_uses_8_eps0_and_union_delta():
    """Thm A.4, (ε0, δ0) case (F68): ε′ is the pure bound at 8ε0, δ′ = δ + m(e^{ε′} + 1)δ1."""
    e0, m, d, d1 = 0.1, 10**4, 1e-6, 1e-12
    d0 = ci.pure_reduction_delta0_max(e0, d1)
    eps, dd = ci.replacement_epsilon_approx(e0, d0, m, d, d1)
    assert eps == ci.replacement_epsilon(0.8, m, d)
    assert dd == pytest.approx(d + m * (math.exp(eps) + 1) * d1, rel=1e-14)
    with pytest.raises(InvalidParameter):
        ci.replacement_epsilon_approx(e0, 2 * d0, m, d, d1)


def test_fixed_bins_balanced_loads_match_swapping_shape():
    """F73: equal loads n/m give ‖ℓ‖² = n²/m, so ε = e^{4ε0}g²/(2m) + e^{2ε0}g√(2 ln(1/δ)/m), g = e^{ε0} − 1."""
    e0, m, per, d = 0.3, 20, 50, 1e-5
    g = math.expm1(e0)
    expected = math.exp(4 * e0) * g * g / (2 * m) + math.exp(2 * e0) * g * math.sqrt(2 * math.log(1 / d) / m)
    assert ci.fixed_bins_epsilon(e0, [per] * m, d) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ci.biased_sampling_ratio(0, 0.5),
        lambda: ci.biased_sampling_ratio(1, 1.5),
        lambda: ci.biased_sampling_ratio(float("inf"), 0.5),
        lambda: ci.advanced_composition([], 0.1),
        lambda: ci.advanced_composition([0.1, -1], 0.1),
        lambda: ci.advanced_composition([0.1], 0),
        lambda: ci.decreasing_composition(1, 1, 10, 0.1),
        lambda: ci.decreasing_composition(0, 0.5, 10, 0.1),
        lambda: ci.replacement_epsilon(1, 0, 0.1),
        lambda: ci.replacement_epsilon(1, 10, 0.1, w_max=2),
        lambda: ci.replacement_epsilon_simple(2, 10, 0.001),
        lambda: ci.replacement_epsilon_simple(0.5, 10, 0.05),
        lambda: ci.swapping_epsilon(1, 10, 1),
        lambda: ci.fixed_bins_epsilon(1, [0, 0], 0.1),
        lambda: ci.fixed_bins_epsilon(1, [1.5], 0.1),
        lambda: ci.pure_reduction_delta0_max(1, 0),
    ],
)
def test_invalid_parameters(call):
    with pytest.raises(InvalidParameter):
        call()
