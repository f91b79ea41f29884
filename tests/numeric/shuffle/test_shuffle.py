"""Shuffle Gaussian of [001] (numeric/shuffle/shuffle.py) against the exact layer, closed forms and Table 1 (§11.4, §12.4)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import example, given, settings, strategies as st

from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.rdp import allocation_rdp
from verialloc.mechanisms import Gaussian
from verialloc.numeric.shuffle import shuffle as sh

# (σ, n, λ): small and large n, n < λ (partitions with at most n parts), small σ (large exponents)
EXACT_CASES = [
    (1, 1, 2),
    (1, 2, 5),
    (1, 10, 10),
    (2, 1000, 10),
    (0.8, 3, 7),
    (0.5, 4, 12),
    (0.5, 100, 20),
    (0.1, 5, 25),
    (9.48, 60000, 2),
    (9.48, 60000, 17),
    (9.48, 60000, 30),
    (3, 10**6, 8),
]


@pytest.mark.parametrize("sigma, n, order", EXACT_CASES)
def test_rdp_equals_exact_allocation_rdp_remove(sigma, n, order):
    """F56/F58 (E21 corrected) = remove-direction RDP of 1-out-of-n allocation (E20, F39/F40), exact layer."""
    exact = allocation_rdp(Gaussian(sigma), n, order, digits=20)
    assert sh.shuffle_gaussian_rdp(sigma, n, order) == pytest.approx(float(exact), rel=1e-12, abs=0)


@pytest.mark.parametrize("sigma", [0.7, 1, 3])
def test_worked_example_of_appendix_b1(sigma):
    """[001] App. B.1 (n = λ = 3): weights 3, 18, 6 for [3], [2,1], [1,1,1]; exponent 3 for [1,1,1] (E21)."""
    u = mp.mpf(1) / (2 * mp.mpf(sigma) ** 2)
    moment = (3 * mp.exp(9 * u) + 18 * mp.exp(5 * u) + 6 * mp.exp(3 * u)) * mp.exp(-3 * u) / 27
    assert sh.shuffle_gaussian_rdp(sigma, 3, 3) == pytest.approx(float(mp.log(moment) / 2), rel=1e-13)


@given(st.floats(0.3, 20), st.integers(1, 10**6))
def test_order_two_closed_form(sigma, n):
    """I27: R_2 = ln(1 + (e^{1/σ²} − 1)/n)."""
    expected = math.log1p(math.expm1(1 / sigma**2) / n)
    assert sh.shuffle_gaussian_rdp(sigma, n, 2) == pytest.approx(expected, rel=1e-12)


@given(st.floats(0.2, 20), st.integers(1, 10**5), st.integers(2, 25))
@example(5.866561150876108, 1, 2)
def test_corollary_1_unshuffled_bound(sigma, n, order):
    """F57 ([001] Cor 1): ε(λ) <= λ/(2σ²), strictly for n >= 2 when the gap is resolvable in float64."""
    value, bound = sh.shuffle_gaussian_rdp(sigma, n, order), sh.gaussian_rdp(sigma, order)
    assert value <= bound * (1 + 1e-12)
    assert bound == pytest.approx(order / (2 * sigma**2), rel=1e-15)  # σ·σ and σ**2 may round apart (seed 246)
    if n >= 2 and sigma < 5:
        assert value < bound


# [001] Table 1 "Ours" row (§11.4): n = 60000, σ = 9.48, λ <= 30, δ = 1/n, compositions 1..7
TABLE_1_OURS = ["0.22820", "0.22820", "0.22821", "0.22821", "0.22821", "0.22822", "0.22822"]


@pytest.mark.parametrize("compositions, published", list(enumerate(TABLE_1_OURS, start=1)))
def test_reproduces_table_1_ours_row(compositions, published):
    """[001] Table 1 (F40 + F18 with integer λ in [2, 30], §12.4), to the printed five decimals."""
    result = sh.shuffle_epsilon(9.48, 60000, 1 / 60000, compositions=compositions, max_order=30)
    assert f"{float(result.upper):.5f}" == published
    assert result.direction == "remove" and result.lower == 0
    assert result.details["order"] == 30  # §12.4: the conversion term at λ = 30 dominates


@pytest.mark.parametrize("epsilon, exact_delta", [(0.5, 0.14917752), (1, 0.059206501), (2, 0.0047457776)])
def test_epsilon_sound_against_exact_two_step_profile(epsilon, exact_delta):
    """§12.1 (σ = 1, t = n = 2, remove): the F18 ε at the exact δ(ε) is never below ε (I13)."""
    assert sh.shuffle_epsilon(1, 2, exact_delta).upper >= epsilon


@given(st.floats(0.3, 10), st.floats(1e-12, 0.5))
def test_conversion_sound_for_single_gaussian(sigma, delta):
    """F18 on the exact Gaussian RDP (n = 1) gives ε with Balle–Wang δ(ε) <= δ (F13, I13)."""
    eps, _ = sh.epsilon_from_rdp(lambda a: sh.shuffle_gaussian_rdp(sigma, 1, a), delta, 40)
    assert Gaussian(sigma).delta(eps) <= delta * (1 + 1e-9)


@given(st.floats(0.5, 10), st.integers(2, 50), st.integers(2, 12), st.data())
@settings(max_examples=15)
def test_subsampled_monotone_in_rate_and_nonnegative(sigma, m, order, data):
    """I40: F59 >= 0 and non-decreasing in γ = m/n (n decreasing at fixed m)."""
    n_small = data.draw(st.integers(m, 4 * m))
    n_large = data.draw(st.integers(n_small, 8 * m))
    high, low = sh.subsampled_shuffle_rdp(sigma, n_small, m, order), sh.subsampled_shuffle_rdp(sigma, n_large, m, order)
    assert 0 <= low <= high * (1 + 1e-12)


@pytest.mark.parametrize("sigma, n, order", [(1, 3, 4), (2, 10, 6), (0.8, 5, 8)])
def test_subsampled_full_rate_upper_bounds_exact(sigma, n, order):
    """F59 at γ = 1 (m = n, no subsampling) stays above the exact shuffle RDP (upper bound, remove)."""
    exact = float(allocation_rdp(Gaussian(sigma), n, order, digits=20))
    assert sh.subsampled_shuffle_rdp(sigma, n, n, order) >= exact


def test_checkin_sum_matches_full_sum_of_eq_17():
    """F60 eq. (17) plus the k = 0 term (RDP 0): the truncated sum (far binomial terms charged at the F57 bound)
    is >= the full sum, evaluated here in 40-digit arithmetic, and equal to it up to rounding."""
    sigma, n, rate, order = 2, 300, 0.05, 6
    with mp.workdps(40):
        r = mp.mpf(rate)
        terms = [
            mp.binomial(n, k)
            * r**k
            * (1 - r) ** (n - k)
            * (mp.exp((order - 1) * mp.mpf(sh._subsampled(float(sigma), k, rate, order))) if k else 1)
            for k in range(0, n + 1)
        ]
        full = float(mp.log(mp.fsum(terms)) / (order - 1))
    value = sh.checkin_shuffle_rdp(sigma, n, rate, order)
    assert value >= full * (1 - 1e-12)  # float64 rounding only
    assert value == pytest.approx(full, rel=1e-12)


def test_conjectural_value_requires_integer_split_and_is_labelled():
    """Thm 3 (eq. 18) depends on Conjecture 1: only a labelled helper, with the integrality condition of its proof."""
    assert "CONJECTURE" in sh.checkin_shuffle_rdp_conjectural.__doc__
    assert sh.checkin_shuffle_rdp_conjectural(2, 200, 0.1, 8, 0.5) > 0
    with pytest.raises(InvalidParameter):
        sh.checkin_shuffle_rdp_conjectural(2, 200, 0.1, 8, 0.33)


def test_clones_baseline_delta_as_printed():
    """F61 (E23 reading): δ + (e^ε + 1)(1 + e^{−ε0}/2)·n·δ0, applicability ε0 <= ln(n/(16 ln(2/δ)))."""
    d, ok = sh.clones_baseline_delta(0.2, 1, 1e-12, 60000, 1e-6)
    assert d == pytest.approx(1e-6 + (math.exp(0.2) + 1) * (1 + math.exp(-1) / 2) * 60000 * 1e-12, rel=1e-14)
    assert ok
    assert not sh.clones_baseline_delta(0.2, 10, 1e-12, 60000, 1e-6)[1]


@pytest.mark.parametrize(
    "call",
    [
        lambda: sh.shuffle_gaussian_rdp(0, 10, 2),
        lambda: sh.shuffle_gaussian_rdp(-1, 10, 2),
        lambda: sh.shuffle_gaussian_rdp(float("nan"), 10, 2),
        lambda: sh.shuffle_gaussian_rdp(1, 0, 2),
        lambda: sh.shuffle_gaussian_rdp(1, 10, 1),
        lambda: sh.shuffle_gaussian_rdp(1, 10, 2.5),
        lambda: sh.subsampled_shuffle_rdp(1, 10, 11, 3),
        lambda: sh.subsampled_shuffle_rdp(1, 10, 0, 3),
        lambda: sh.checkin_shuffle_rdp(1, 10, 0, 3),
        lambda: sh.checkin_shuffle_rdp(1, 10, 1.5, 3),
        lambda: sh.shuffle_epsilon(1, 10, 0),
        lambda: sh.shuffle_epsilon(1, 10, 1),
        lambda: sh.shuffle_epsilon(1, 10, 1e-5, compositions=0),
        lambda: sh.shuffle_epsilon(1, 10, 1e-5, max_order=1),
        lambda: sh.clones_baseline_delta(0.1, 1, 0, 100, 1e-6),
    ],
)
def test_invalid_parameters(call):
    with pytest.raises(InvalidParameter):
        call()


def test_order_too_large_is_unsupported():
    with pytest.raises(UnsupportedRequest):
        sh.shuffle_gaussian_rdp(1, 10, 80)
