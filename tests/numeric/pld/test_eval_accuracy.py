"""The loss laws' accuracy contract (LossLaw.eval_rtol / eval_abs; issue #10 item 10) against mpmath.

Every certified PLD bound rests on it: the float64 CDF/SF values of each law are within eval_rtol(y)·v + eval_abs
of the exact values for the mechanism's exact parameters. References are computed here in mpmath (60 digits) from
the exact parameters; the former flat assumption (relative 1e-13 for every value) fails for the Gaussian from
z ≈ 26 (scipy's ndtr: 2.4e-13 at z = −36.9), which `test_flat_1e13_assumption_was_wrong` pins.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import special

from verialloc.mechanisms import DiscretePair, RandomizedResponse
from verialloc.mechanisms.loss_law import FiniteLoss
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.mechanisms.laplace import LaplaceLoss
from verialloc.numeric.pld.subsample import SubsampledLoss

FUNCS = ("cdf_p", "sf_p", "cdf_q", "sf_q")


def check(law, ys, reference):
    rtol = law.eval_rtol(ys)
    for name in FUNCS:
        got = np.asarray(getattr(law, name)(ys), float)
        for y, v, r in zip(ys, got, rtol):
            ref = reference(name, y)
            assert abs(mp.mpf(float(v)) - ref) <= mp.mpf(float(r)) * ref + mp.mpf(law.eval_abs), (name, y, v, ref, r)


def gaussian_reference(sigma: Fraction):
    def ref(name, y):
        with mp.workdps(60):
            s, mu = mp.mpf(sigma.numerator) / sigma.denominator, None
            mu = 1 / (2 * s * s)
            shift = -mu if name.endswith("p") else mu
            z = (mp.mpf(float(y)) + shift) * s
            return mp.ncdf(z) if name.startswith("cdf") else mp.ncdf(-z)

    return ref


@pytest.mark.parametrize("sigma", [Fraction(3, 10), Fraction(1), Fraction(11, 20), Fraction(5)])
def test_gaussian_contract_holds_into_the_subnormal_tails(sigma):
    law = GaussianLoss(float(sigma))
    mu, s = law.mu, law.scale
    rng = np.random.default_rng(7)
    zs = np.concatenate([np.linspace(-38.4, 38.4, 400), rng.uniform(-38.4, 38.4, 400)])
    check(law, np.concatenate([zs * s + mu, zs * s - mu]), gaussian_reference(sigma))


def test_flat_1e13_assumption_was_wrong():
    """The class of the defect: scipy's ndtr at z = −36.9 is 2.4e-13 off relatively (z²·u growth)."""
    z = -36.89086
    with mp.workdps(40):
        rel = abs((mp.mpf(float(special.ndtr(z))) - mp.ncdf(z)) / mp.ncdf(z))
    assert rel > 1e-13
    law = GaussianLoss(1.0)
    assert float(law.eval_rtol(np.array([z * law.scale + law.mu]))[0]) >= float(rel)


@pytest.mark.parametrize("scale", [Fraction(1, 1000), Fraction(3, 100), Fraction(1), Fraction(7, 2)])
def test_laplace_contract_holds(scale):
    law = LaplaceLoss(float(scale))
    top = 1 / float(scale)
    ys = np.concatenate([np.linspace(-top, top, 401)[1:-1], np.random.default_rng(3).uniform(-top, top, 300)])

    def ref(name, y):
        with mp.workdps(60):
            b = mp.mpf(scale.numerator) / scale.denominator
            c = (1 + mp.mpf(float(y)) * b) / 2
            return {
                "cdf_p": mp.exp((c - 1) / b) / 2,
                "sf_p": 1 - mp.exp((c - 1) / b) / 2,
                "cdf_q": 1 - mp.exp(-c / b) / 2,
                "sf_q": mp.exp(-c / b) / 2,
            }[name]

    check(law, ys, ref)


@settings(max_examples=30)
@given(n=st.integers(1, 40), exps=st.lists(st.integers(0, 330), min_size=80, max_size=80), seed=st.integers(0, 99))
@example(n=3, exps=[45, 0, 46] + [0] * 37 + [45, 0, 234] + [0] * 37, seed=0)  # a loss of 2.5e-46 (seed-runs 206)
def test_finite_contract_holds_with_tiny_and_many_masses(n, exps, seed):
    rng = np.random.default_rng(seed)
    a = [Fraction(int(rng.integers(1, 9)), 10 ** exps[i]) for i in range(n)]
    b = [Fraction(int(rng.integers(1, 9)), 10 ** exps[40 + i]) for i in range(n)]
    p, q = [x / sum(a) for x in a], [x / sum(b) for x in b]
    law = DiscretePair(p, q).loss_law()
    values = law.atoms()[0]

    def ln_ratio(r: Fraction):
        """ln r to 80 digits relative: ln x − ln y cancels for x ≈ y (ℓ = 2.5e-46), log1p(r − 1) for r ≈ 0."""
        with mp.workdps(80):
            d = r - 1
            return (
                mp.log1p(mp.mpf(d.numerator) / d.denominator)
                if abs(d) < 1 / 2
                else mp.log(mp.mpf(r.numerator) / r.denominator)
            )

    exact = [(float(ln_ratio(x / y)), x, y) for x, y in zip(p, q)]

    def ref(name, y):
        pick = 1 if name.endswith("p") else 2
        below = name.startswith("cdf")
        total = sum((e[pick] for e in exact if (e[0] <= y) == below), Fraction(0))
        return mp.mpf(total.numerator) / total.denominator

    ys = np.concatenate([values, values - 1e-9, values + 1e-9])
    check(law, ys, ref)


@pytest.mark.parametrize("rate", [Fraction(1, 1000), Fraction(3, 10), Fraction(99, 100)])
def test_subsampled_gaussian_contract_holds(rate):
    sigma = Fraction(4, 5)
    law = SubsampledLoss(GaussianLoss(float(sigma)), float(rate))
    base = gaussian_reference(sigma)
    low = float(np.log1p(-float(rate)))
    ys = np.concatenate([low + np.logspace(-12, 0, 60), np.linspace(low + 1e-3, 30, 300)])

    def ref(name, y):
        with mp.workdps(60):
            lam = mp.mpf(rate.numerator) / rate.denominator
            x = mp.log(1 + mp.expm1(mp.mpf(float(y))) / lam)
            kind = name[:3]
            if name.endswith("q"):
                return base(kind + "_q", x)
            return lam * base(kind + "_p", x) + (1 - lam) * base(kind + "_q", x)

    check(law, ys, ref)


def test_finite_tables_are_exact_sums():
    """The prefix sums of many masses are correctly rounded (np.cumsum accumulates n·u)."""
    masses = np.full(10_000, 0.1)
    law = FiniteLoss(masses, masses[::-1].copy(), np.linspace(-1, 1, masses.size))
    assert float(law.cdf_p(np.array([1.0]))[0]) == float(sum(Fraction(0.1) for _ in range(10_000)))


@pytest.mark.parametrize("eps0", [Fraction(1, 10**26), Fraction(7, 8), Fraction(50), Fraction(1, 10**300)])
def test_randomized_response_losses_are_eps0_correctly_rounded(eps0):
    """ln P/Q = ±ε0 exactly; ln P − ln Q at 40 digits cancels for small ε0 (1e-26: 14 correct digits)."""
    values = RandomizedResponse(eps0).loss_law().atoms()[0]
    assert values.tolist() == [-float(eps0), float(eps0)]


@pytest.mark.parametrize("gap", [Fraction(1, 10**30), Fraction(3, 10**17), Fraction(1, 3), Fraction(499, 1000)])
def test_rational_losses_are_correctly_rounded_near_zero_and_far_from_it(gap):
    """P = (1/2 + g, 1/2 − g), Q = (1/2, 1/2) and the pair swapped with a far atom: each loss equals the float64
    rounding of ln P/Q computed at 100 digits from the exact rationals."""
    half = Fraction(1, 2)
    pairs = [
        ([half + gap, half - gap], [half, half]),
        ([half, half - gap, gap], [half, half, Fraction(0)]),
        ([gap * gap, 1 - gap * gap], [half, half]),
    ]
    for p, q in pairs:
        law = DiscretePair(p, q).loss_law()
        with mp.workdps(100):
            want = sorted(
                {
                    float(mp.log(mp.mpf(a.numerator) / a.denominator * b.denominator / b.numerator))
                    for a, b in zip(p, q)
                    if a and b
                }
            )
        assert law.atoms()[0].tolist() == want
