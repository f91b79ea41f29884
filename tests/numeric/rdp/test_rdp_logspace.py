"""Float64 log-space RDP curves (F38/E3/E5 allocation, F46 Poisson) against the exact mpmath layer (I26–I28)."""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc.errors import InvalidParameter
from verialloc.exact.rdp import allocation_rdp_curve as exact_allocation_curve, poisson_rdp
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.rdp.log_moments import log_moments
from verialloc.numeric.rdp.rdp_logspace import (
    allocation_rdp_curve,
    poisson_add_rdp_curve,
    poisson_rdp_curve,
)
from verialloc.testing.strategies import probability_pairs

REL = 1e-12

mechanisms = st.one_of(
    st.integers(5, 100).map(lambda i: Gaussian(Fraction(i, 10))),
    st.integers(5, 100).map(lambda i: Laplace(Fraction(i, 10))),
    st.integers(1, 60).map(lambda i: RandomizedResponse(Fraction(i, 20))),
    probability_pairs(max_atoms=4).map(lambda pq: DiscretePair(*pq)),
)


def assert_matches_exact(curve, exact: dict) -> None:
    """|float − exact| within the curve's own budget, and within REL relative (inf/0 exactly)."""
    lower, upper = curve.bounds()
    for a, ref in exact.items():
        value = curve.values[a]
        if mp.isinf(ref):
            assert np.isinf(value), a
            continue
        ref = float(ref)
        assert lower[a] <= ref <= upper[a], (a, value, ref, curve.rel_err[a])
        assert abs(value - ref) <= REL * ref, (a, value, ref)


@given(mechanisms, st.integers(1, 10_000), st.integers(2, 200))
@settings(max_examples=20)
def test_allocation_curve_equals_exact_genfunc(mech, steps, alpha_max):
    """Log-space R_α = exact.rdp.allocation_rdp_curve (mpmath generating function) to 1e-12 relative, every α."""
    assert_matches_exact(
        allocation_rdp_curve(mech, steps, alpha_max), exact_allocation_curve(mech, steps, alpha_max, digits=20)
    )


@given(mechanisms, st.integers(1, 40))
@settings(max_examples=15)
def test_binary_powering_path_equals_exact(mech, steps):
    """t < N takes the binary-powering excess route; same reference."""
    assert_matches_exact(allocation_rdp_curve(mech, steps, 60), exact_allocation_curve(mech, steps, 60, digits=20))


SECTION_12_3 = {  # formulas.md §12.3 (F39): (σ, t) -> {α: R_α}
    (1, 2): {2: 0.620114507, 3: 0.9772292964, 5: 1.834372448, 10: 4.30699043},
    (1, 10): {2: 0.1585650787, 3: 0.2518374983, 5: 0.5328320321, 10: 2.698662641},
    (1, 1000): {2: 0.001716807271, 3: 0.002577731953, 5: 0.004304801125, 10: 0.008654920281},
    (2, 2): {2: 0.1327922393, 3: 0.2001489126, 5: 0.3377224794, 10: 0.7181867798},
    (2, 1000): {2: 0.0002839850891, 3: 0.0004259890687, 5: 0.0007100199367, 10: 0.001420231106},
}


@pytest.mark.parametrize("key", sorted(SECTION_12_3))
def test_reference_values_section_12_3(key):
    sigma, steps = key
    curve = allocation_rdp_curve(Gaussian(sigma), steps, 10)
    for a, ref in SECTION_12_3[key].items():
        assert curve.values[a] == pytest.approx(ref, rel=1e-8)


@given(st.integers(5, 100), st.integers(1, 10_000))
@settings(max_examples=15)
def test_gaussian_invariants(sigma10, steps):
    """I28: R_α non-decreasing in α, (α−1)R_α convex, R_α <= α/(2σ²) (strict for t >= 2); I27 at α = 2."""
    sigma = sigma10 / 10
    curve = allocation_rdp_curve(Gaussian(Fraction(sigma10, 10)), steps, 150)
    lower, upper = curve.bounds()
    a = np.arange(2, 151)
    assert np.all(upper[3:] >= lower[2:-1])
    ln_d = (a - 1) * curve.values[2:]
    slack = 1e-10 * np.abs(ln_d[1:-1])
    assert np.all(ln_d[2:] - 2 * ln_d[1:-1] + ln_d[:-2] >= -slack)
    single = a / (2 * sigma**2)
    assert np.all(lower[2:] <= single * (1 + 1e-15))
    if steps >= 2:
        assert np.all(curve.values[2:] < single)
    r2 = np.log1p(np.expm1(1 / sigma**2) / steps)
    assert curve.values[2] == pytest.approx(r2, rel=1e-13)


@given(mechanisms, st.integers(1, 100).map(lambda i: Fraction(i, 100)), st.integers(2, 60))
@settings(max_examples=15)
def test_poisson_remove_equals_exact(mech, rate, alpha_max):
    """Binomial expansion of the Poisson moment (F46) = exact.rdp.poisson_rdp, within budget and 1e-12."""
    curve = poisson_rdp_curve(mech, rate, alpha_max)
    alphas = sorted({2, min(3, alpha_max), alpha_max // 2 + 1, alpha_max})
    assert_matches_exact(curve, {a: poisson_rdp(mech, 1, rate, a, digits=20) for a in alphas})


def brute_force_add_rdp(p, q, rate, alpha) -> mp.mpf:
    """R_α(Q‖λP + (1−λ)Q) by the F5 sum over atoms: D_α exactly in rationals (integer α), then its log at 40 digits
    (P = Q gives D_α = 1 exactly, so the reference is an exact 0, not ±1e−41)."""
    total = Fraction(0)
    for pi, qi in zip(p, q):
        mix = rate * pi + (1 - rate) * qi
        if qi > 0:
            if mix == 0:
                return mp.inf
            total += qi * (qi / mix) ** (alpha - 1)
    if total == 1:
        return mp.mpf(0)
    with mp.workdps(40):
        return mp.log(mp.mpf(total.numerator) / total.denominator) / (alpha - 1)


@given(probability_pairs(max_atoms=5), st.integers(1, 100).map(lambda i: Fraction(i, 100)))
def test_poisson_add_equals_brute_force(pq, rate):
    curve = poisson_add_rdp_curve(DiscretePair(*pq), rate, 40)
    lower, upper = curve.bounds()
    for a in (2, 7, 40):
        ref = brute_force_add_rdp(*pq, rate, a)
        if mp.isinf(ref):
            assert np.isinf(curve.values[a])
        else:
            assert lower[a] <= float(ref) * (1 + 1e-15) and float(ref) <= upper[a] * (1 + 1e-15) + 1e-300


def test_not_absolutely_continuous_and_identical_pairs():
    """P-mass where Q = 0: every D_α = +inf (F5); P = Q: every R_α = 0."""
    inf_curve = allocation_rdp_curve(DiscretePair(["1/2", "1/2"], [1, 0]), 5, 10)
    assert np.all(np.isinf(inf_curve.values[2:]))
    zero = allocation_rdp_curve(DiscretePair(["1/3", "2/3"], ["1/3", "2/3"]), 5, 10)
    assert np.all(zero.values == 0)


@given(mechanisms)
@settings(max_examples=15)
def test_log_moments_against_mpmath(mech):
    """ln D_j and ln(D_j − 1) (F5, F14) against the mechanism's mpmath moment at 50 digits."""
    lm = log_moments(mech, 40)
    if lm.infinite:
        assert not mech.absolutely_continuous
        return
    with mp.workdps(60):
        for j in (0, 1, 2, 3, 10, 40):
            d = mech.moment(j)
            assert abs(lm.log_d[j] - float(mp.log(d))) <= lm.err_log[j] + 1e-300
            if j >= 2 and d > 1:
                ref = float(mp.log(d - 1))
                assert abs(lm.log_excess[j] - ref) <= lm.err_excess[j] + 1e-300


@pytest.mark.parametrize(
    "kwargs",
    [
        {"steps": 0, "alpha_max": 10},
        {"steps": 10, "alpha_max": 1},
        {"steps": 10, "alpha_max": 10_001},
        {"steps": 2.5, "alpha_max": 10},
    ],
)
def test_validation(kwargs):
    with pytest.raises(InvalidParameter):
        allocation_rdp_curve(Gaussian(1), **kwargs)


def test_poisson_rate_validation():
    with pytest.raises(InvalidParameter):
        poisson_rdp_curve(Gaussian(1), 0, 10)


@pytest.mark.slow
def test_ten_thousand_orders_at_a_million_steps():
    """N = 10⁴ orders at t = 10⁶ in one pass; spot checks against the exact layer at α = 2 (I27) and 300."""
    curve = allocation_rdp_curve(Gaussian(1), 10**6, 10_000)
    assert curve.values[2] == pytest.approx(float(mp.log1p(mp.expm1(1) / 10**6)), rel=1e-13)
    exact = exact_allocation_curve(Gaussian(1), 10**6, 300, digits=20)
    assert curve.values[300] == pytest.approx(float(exact[300]), rel=1e-12)
    assert np.all(np.diff(curve.values[2:]) >= 0)


@pytest.mark.parametrize(
    "mech,steps,alpha_max",
    [
        (Gaussian(1), 10_000, 200),
        (Gaussian(7), 10_000, 200),
        (Laplace(5), 10_000, 100),
        (RandomizedResponse("1/2"), 10_000, 200),
        (DiscretePair(["1/2", "1/3", "1/6"], ["1/3", "1/3", "1/3"]), 3000, 100),
    ],
)
def test_large_steps_equal_exact(mech, steps, alpha_max):
    """Explicit large-t cases of the 1e-12 agreement (the derandomized search favours small t)."""
    assert_matches_exact(
        allocation_rdp_curve(mech, steps, alpha_max), exact_allocation_curve(mech, steps, alpha_max, digits=20)
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("which", ["x", "y"])
def test_truncated_product_error_covers_perturbed_inputs(seed, which):
    """`_conv`'s error bound propagates the inputs' own bounds: moving every log coefficient of one series by its
    declared error (ex or ey) moves the product's log coefficients by at most the returned err. Reference: the
    product of the moved series in mpmath (60 digits), not the code."""
    from verialloc.numeric.rdp.rdp_logspace import _conv

    rng = np.random.default_rng(seed)
    n = 12
    x, y = rng.normal(0, 3, n), rng.normal(0, 3, n)
    x[rng.integers(n)] = -np.inf  # a zero coefficient carries no error
    ex, ey = np.full(n, 1e-3 if which == "x" else 0.0), np.full(n, 1e-3 if which == "y" else 0.0)
    out, err = _conv(x, ex, y, ey)
    moved_x, moved_y = (x + ex, y) if which == "x" else (x, y + ey)
    with mp.workdps(60):
        for m in range(n):
            terms = [
                mp.mpf(float(moved_x[k])) + mp.mpf(float(moved_y[m - k]))
                for k in range(m + 1)
                if np.isfinite(moved_x[k]) and np.isfinite(moved_y[m - k])
            ]
            if not terms:
                assert out[m] == -np.inf
                continue
            ref = mp.log(mp.fsum(mp.exp(t) for t in terms))
            assert abs(ref - mp.mpf(float(out[m]))) <= mp.mpf(float(err[m])), (m, ref, out[m], err[m])
