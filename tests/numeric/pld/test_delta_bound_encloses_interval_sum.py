"""Audit of the float64 budget on the certify path against mpmath interval arithmetic (mpmath.iv).

For small PLDs the exact hockey-stick value (F2) of the stored masses is enclosed by an iv computation; the
certified float64 evaluation (PLD.delta_bound: the float budget + evaluation rounding η, directed ε) must
enclose it: delta_lower ≤ iv.a and iv.b ≤ delta_upper.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from verialloc.numeric.pld.compose import compose, self_compose
from verialloc.numeric.pld.pld import PLD
from verialloc.numeric.pld.subsample import subsample_remove

iv = mpmath.iv


@pytest.fixture(autouse=True)
def _iv_at_40_digits():
    """mpmath.iv has no workdps: set 40 digits for each test and restore the global precision after it."""
    saved, iv.dps = iv.prec, 40
    yield
    iv.prec = saved


def ivnum(x):
    """Exact interval of a float, Fraction or mpf."""
    if isinstance(x, Fraction):
        return iv.mpf(x.numerator) / x.denominator
    return iv.mpf(x if isinstance(x, mpmath.mpf) else float(x))


def one_minus_exp(x):
    """Interval of 1 − e^x for an interval x < 0; near 0 from −x − x²/2 ≤ 1 − e^x ≤ −x, since 1 − iv.exp(x) at 40
    digits is [0, 1e-41] for x = −3.6e-163 (cancellation)."""
    if x.a > -1e-5:
        return iv.mpf([(-x - x * x / 2).a, (-x).b])
    return 1 - iv.exp(x)


def iv_delta(losses, masses, inf_mass, eps):
    """Interval of Σ_{l>ε} m (1 − e^{ε−l}) + inf_mass with exact (float-valued or integer-ratio) inputs."""
    e = ivnum(eps)
    total = ivnum(inf_mass)
    for l, m in zip(losses, masses):
        if float(l) > float(eps):
            total += ivnum(m) * one_minus_exp(e - ivnum(l))
    return total


def pld_from(seed, n, step, bound):
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(np.arange(-3 * n, 3 * n), size=n, replace=False))
    raw = rng.random(n) ** 6
    masses = raw / raw.sum() * (1 - 1e-3)
    return PLD(idx * step, masses, inf_mass=1e-3 if bound != "lower" else 0.0, bound=bound)


@settings(max_examples=15)
@given(st.integers(0, 10**6), st.integers(1, 60), st.sampled_from([1e-3, 0.05, 0.7]), st.floats(-1, 3))
@example(162, 1, 1e-3, -3.560441265173203e-163)  # ε − ℓ tiny: the reference must not cancel (seed-runs seed 204)
def test_single_pld_evaluation_encloses_interval(seed, n, step, eps):
    for bound in ("upper", "lower"):
        pld = pld_from(seed, n, step, bound)
        exact = iv_delta(pld.losses, pld.masses, pld.inf_mass, Fraction(eps))
        if bound == "upper":
            assert pld.with_bound("upper").delta_bound(Fraction(eps)) >= exact.b
        else:
            assert pld.with_bound("lower").delta_bound(Fraction(eps)) <= exact.a


def exact_convolution(a_idx, a_num, b_idx, b_num):
    """Integer masses (numerators over 2^20) convolved exactly: {index: numerator over 2^40}."""
    out = {}
    for i, x in zip(a_idx, a_num):
        for j, y in zip(b_idx, b_num):
            out[i + j] = out.get(i + j, 0) + int(x) * int(y)
    return out


@settings(max_examples=6)
@given(st.integers(0, 10**6), st.sampled_from([2, 50, 400]), st.floats(0, 2))
def test_composition_budget_encloses_interval(seed, n, eps):
    check_composition(seed, n, eps)


def test_composition_fft_budget_encloses_interval():
    for seed, eps in ((0, 0.0), (1, 0.7)):
        check_composition(seed, 4000, eps)


def check_composition(seed, n, eps):
    """compose (direct for small sizes, FFT for n = 4000: n·m > DIRECT_LIMIT): masses ± float_error, evaluated with η, enclose the exact
    convolution's δ (integer arithmetic on dyadic masses)."""
    rng = np.random.default_rng(seed)
    step = 1e-2
    parts = []
    for size in (n, n // 2 + 1):
        idx = np.arange(size) - size // 3
        num = rng.integers(1, 2**20 // (2 * size), size)
        num[0] += 2**20 - num.sum()  # numerators sum to 2^20 (dyadic masses, exact in float64)
        parts.append((idx, num))
    (ai, an), (bi, bn) = parts
    a = PLD(ai * step, an / 2.0**20)
    b = PLD(bi * step, bn / 2.0**20)
    c = compose(a, b, step)
    conv = np.convolve(an.astype(np.int64), bn.astype(np.int64))  # exact: < 2^52 per entry
    losses = (np.arange(conv.size) + ai[0] + bi[0]) * step
    masses = [mpmath.mpf(int(x)) / mpmath.mpf(2) ** 40 for x in conv]
    exact = iv_delta(losses, masses, 0.0, Fraction(eps))
    e = Fraction(eps)
    assert c.with_bound("upper").delta_bound(e) >= exact.b
    assert c.with_bound("lower").delta_bound(e) <= exact.a


def test_self_composition_budget_encloses_interval():
    """4-fold self-composition of a dyadic PLD (exponentiation by squaring), no truncation (tail 0)."""
    step = 0.125
    idx = np.arange(-3, 5)
    num = np.array([1, 3, 5, 7, 9, 5, 2, 0]) * 2**14
    num[-1] = 2**20 - num[:-1].sum()
    base = PLD(idx * step, num / 2.0**20)
    composed = self_compose(base, 4, 0.0, step)
    conv = {int(i): int(x) for i, x in zip(idx, num)}
    scale = 20
    for _ in range(3):
        conv = exact_convolution(list(conv), list(conv.values()), idx, num)
        scale += 20
    for eps in (0.0, 0.3, 1.1, 2.0):
        keys = sorted(conv)
        exact = iv_delta(
            [k * step for k in keys], [mpmath.mpf(conv[k]) / mpmath.mpf(2) ** scale for k in keys], 0.0, Fraction(eps)
        )
        assert composed.with_bound("upper").delta_bound(Fraction(eps)) >= exact.b
        assert composed.with_bound("lower").delta_bound(Fraction(eps)) <= exact.a


@settings(max_examples=10)
@given(st.integers(0, 10**6), st.integers(1, 30), st.sampled_from([0.01, 0.3, 0.9]), st.floats(0, 2))
def test_one_subsampling_step_encloses_interval(seed, n, lam, eps):
    """→φ_λ (F47, E16): H_κ(→φ_λ(L)) = λ·H_κ'(L), κ' = 1 + (e^ε − 1)/λ, for ε ≥ 0 (iv on the input masses)."""
    pld = pld_from(seed, n, 0.05, "exact")
    sub = subsample_remove(pld, lam).with_bound("upper")
    e = ivnum(eps)
    eps_prime = iv.log(1 + (iv.exp(e) - 1) / lam)
    total = ivnum(pld.inf_mass)
    for l, m in zip(pld.losses, pld.masses):
        x = eps_prime - ivnum(l)
        term = one_minus_exp(x) if x.b < 0 else 1 - iv.exp(x)
        if term.b > 0:
            total += ivnum(m) * iv.mpf([max(0, term.a), term.b])
    exact = lam * total
    assert sub.delta_bound(Fraction(eps)) >= exact.b
    assert sub.with_bound("lower").delta_bound(Fraction(eps)) <= exact.a
