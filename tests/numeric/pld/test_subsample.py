"""Poisson subsampling (F46, F47, E16): exact identities on discrete pairs (I17), the Gaussian single step, F51 B.2(2)."""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc import Config, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.quadrature import poisson_delta_quadrature
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace
from verialloc.numeric.pld.discretize import atomic_pld, discretize
from verialloc.mechanisms.loss_law import FiniteLoss
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.numeric.pld.pld import PLD
from verialloc.testing.assertions import assert_same_pld
from verialloc.testing.strategies import probability_pairs as discrete_pairs
from verialloc.numeric.pld.subsample import (
    SubsampledLoss,
    subsample_add,
    subsample_remove,
    subsampled_inverse,
    subsampled_loss,
)

TOL = 1e-13


rates = st.integers(1, 100).map(lambda i: Fraction(i, 100))


def pair_pld(p, q) -> PLD:
    """L_{P,Q} by brute force at 30 digits (F6): ln P/Q under P, equal values merged, P(Q = 0) at +inf."""
    table = {}
    with mp.workdps(30):
        for x, y in zip(p, q):
            if x > 0 and y > 0:
                key = float_loss(x, y)
                table[key] = table.get(key, Fraction(0)) + x
    values = sorted(table)
    inf = sum((x for x, y in zip(p, q) if y == 0), Fraction(0))
    return PLD(np.array(values), np.array([float(table[v]) for v in values]), inf_mass=float(inf))


def mixed(p, q, lam):
    return [lam * x + (1 - lam) * y for x, y in zip(p, q)]


def floats(p):
    return np.array([float(x) for x in p])


@given(discrete_pairs(), rates)
def test_subsampling_identities_I17(pair, lam):
    p, q = pair
    p_lam = mixed(p, q, lam)
    assert_same_pld(subsample_remove(pair_pld(p, q), lam), pair_pld(p_lam, q))  # →φ_λ(L_{P,Q}) = L_{P_λ,Q}
    assert_same_pld(subsample_add(pair_pld(q, p), lam), pair_pld(q, p_lam))  # ←φ_λ(L_{Q,P}) = L_{Q,P_λ}


@given(discrete_pairs(), rates)
def test_subsampling_keeps_realizations_E16(pair, lam):
    p, q = pair
    remove, add = subsample_remove(pair_pld(p, q), lam), subsample_add(pair_pld(q, p), lam)
    for pld in (remove, add):
        pld.validate_realization()
        assert abs(pld.total_mass - 1) <= TOL
    if lam < 1:
        q_no_p = float(sum(y for x, y in zip(p, q) if x == 0))
        low = np.log1p(-float(lam))
        # the mass Alg. 8 drops: (1−λ)(1 − E[e^{−L}]) = (1−λ)Q(P=0), at ln(1−λ)
        assert float(remove.masses[remove.losses == low].sum()) == pytest.approx((1 - float(lam)) * q_no_p, abs=TOL)
        assert remove.exp_neg_mean() == pytest.approx(1.0, abs=TOL)  # Q(P_λ > 0) = 1
        # Alg. 9: f_L(+inf) = Q(P=0) sits exactly at −ln(1−λ), the largest value
        if q_no_p > 0:
            assert add.losses[-1] == -low and add.masses[-1] >= q_no_p - TOL
        assert add.inf_mass == 0


@given(discrete_pairs())
def test_rate_one_is_the_identity(pair):
    p, q = pair
    for pld in (pair_pld(p, q), pair_pld(q, p)):
        assert subsample_remove(pld, 1) is pld and subsample_add(pld, 1) is pld
        np.testing.assert_allclose(subsampled_loss(pld.losses, 1.0), pld.losses, rtol=1e-15, atol=1e-15)


def float_loss(x, y) -> float:
    with mp.workdps(30):
        return float(mp.log(mp.mpf(x.numerator) / x.denominator) - mp.log(mp.mpf(y.numerator) / y.denominator))


@given(
    discrete_pairs().filter(lambda pq: any(x > 0 and y > 0 for x, y in zip(*pq))),
    rates,
    st.sampled_from(["remove", "add"]),
)
def test_subsampled_loss_law_matches_brute_force(pair, lam, direction):
    p, q = pair
    law = SubsampledLoss(FiniteLoss(floats(p), floats(q)), lam)
    p_lam = mixed(p, q, lam)
    expected = pair_pld(p_lam, q) if direction == "remove" else pair_pld(q, p_lam)
    assert_same_pld(atomic_pld(law, direction), expected)
    # CDFs of ℓ_λ just below and above every atom, under P_λ and Q (the atoms themselves: atomic_pld above)
    values, _, _ = law.atoms()
    probes = np.concatenate([values - 1e-9, values + 1e-9])
    # loss-law contract (loss_law.LossLaw): cdf_p/cdf_q count finite losses only; Q's mass at loss −inf
    # (P_λ = 0 < Q, possible only at λ = 1) is q_neg_inf and never inside cdf_q
    for y in probes:
        below = [i for i, (x, z) in enumerate(zip(p_lam, q)) if x > 0 and z > 0 and float_loss(x, z) <= y]
        assert law.cdf_p(y) == pytest.approx(float(sum((p_lam[i] for i in below), Fraction(0))), abs=TOL)
        assert law.cdf_q(y) == pytest.approx(float(sum((q[i] for i in below), Fraction(0))), abs=TOL)
        assert law.cdf_p(y) + law.sf_p(y) + law.p_inf == pytest.approx(1.0, abs=TOL)
        assert law.cdf_q(y) + law.sf_q(y) + law.q_neg_inf == pytest.approx(1.0, abs=TOL)
    q_neg_inf = sum((z for x, z in zip(p_lam, q) if x == 0), Fraction(0))
    assert law.q_neg_inf == pytest.approx(float(q_neg_inf), abs=TOL)


def test_loss_map_and_its_inverse():
    x = np.array([-np.inf, -50.0, -1.0, -1e-9, 0.0, 1e-9, 0.5, 30.0, 800.0, np.inf])
    for lam in (1e-4, 0.3, 0.999):
        g = subsampled_loss(x, lam)
        with mp.workdps(40):
            ref = [
                mp.log(1 + lam * (mp.exp(v) - 1)) if np.isfinite(v) else (mp.log(1 - mp.mpf(lam)) if v < 0 else mp.inf)
                for v in x
            ]
        np.testing.assert_allclose(g, [float(r) for r in ref], rtol=1e-14)
        moderate = np.isfinite(x) & (x >= -1)  # below, g flattens onto ln(1−λ) and cannot be inverted in float64
        np.testing.assert_allclose(subsampled_inverse(g[moderate], lam), x[moderate], rtol=1e-6, atol=1e-12)
        with mp.workdps(40):
            y = [mp.mpf(v) for v in (0.5 * np.log1p(-lam), 1e-9, 0.5, 3.0, 500.0)]
            ref = [float(mp.log(1 + (mp.exp(v) - 1) / lam)) for v in y]
        np.testing.assert_allclose(subsampled_inverse(np.array([float(v) for v in y]), lam), ref, rtol=1e-13)
        assert subsampled_inverse(np.log1p(-lam) - 1e-3, lam) == -np.inf


@pytest.mark.parametrize("sigma,lam", [(1.0, 0.3), (0.8, 0.01), (2.0, 0.9)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_subsampled_law_brackets_the_exact_single_step(sigma, lam, direction):
    law = SubsampledLoss(GaussianLoss(sigma), lam)
    up = discretize(law, direction, 1e-3, 1e-14, "upper")
    low = discretize(law, direction, 1e-3, 1e-14, "lower")
    up.validate_realization()
    for eps in (-0.2, 0.0, 0.3, 1.0, 2.0):
        exact, err = poisson_delta_quadrature(
            Gaussian(sigma), 1, Fraction(lam).limit_denominator(1000), eps, direction, digits=12
        )
        exact, err = float(exact), float(err)
        assert low.delta(eps) - 1e-14 <= exact + err and exact - err <= up.delta(eps) + 1e-14
        assert up.delta(eps) - low.delta(eps) <= 2e-3  # about one grid step


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_transforms_of_discretized_gaussian_bracket_the_exact_single_step(direction):
    """subsample_remove/add of an upper PLD dominates (F46/F47); add, being monotone, also preserves a lower PLD."""
    sigma, lam = 1.0, 0.3
    base = GaussianLoss(sigma)
    up = discretize(base, direction, 1e-3, 1e-14, "upper")
    transform = subsample_remove if direction == "remove" else subsample_add
    sub_up = transform(up, lam)
    sub_up.validate_realization()
    sub_low = subsample_add(discretize(base, "add", 1e-3, 1e-14, "lower"), lam) if direction == "add" else None
    for eps in (-0.2, 0.0, 0.3, 1.0):
        exact, err = poisson_delta_quadrature(Gaussian(sigma), 1, Fraction(3, 10), eps, direction, digits=12)
        assert sub_up.delta(eps) >= float(exact - err) - 1e-14
        assert sub_up.delta(eps) - float(exact) <= 2e-3
        if sub_low is not None:
            assert sub_low.delta(eps) <= float(exact + err) + 1e-14


def test_remove_transform_refuses_a_lower_pld():
    low = discretize(GaussianLoss(1.0), "remove", 1e-2, 1e-10, "lower")
    with pytest.raises(UnsupportedRequest, match="bound"):
        subsample_remove(low, 0.5)


def test_counterexample_F51_B2_2_subsampling_breaks_stochastic_order():
    v = PLD(np.array([0.0]), np.array([1.0]))
    u = PLD(np.array([1.0]), np.array([1.0]))
    sv, su = subsample_remove(v, 0.5), subsample_remove(u, 0.5)
    e = np.e
    np.testing.assert_allclose(sv.losses, [0.0], atol=1e-15)
    np.testing.assert_allclose(sv.masses, [1.0])
    np.testing.assert_allclose(su.losses, [np.log(0.5), np.log((e + 1) / 2)], rtol=1e-15)
    np.testing.assert_allclose(su.masses, [(e - 1) / (2 * e), (e + 1) / (2 * e)], rtol=1e-14)
    # V ⪯ U, but →φ(U) puts mass below 0 where →φ(V) has none: no stochastic order either way
    assert su.masses[0] > 0 and su.losses[0] < sv.losses[0] < su.losses[1]


def test_laplace_subsampled_law_keeps_its_atoms():
    lam = 0.25
    law = SubsampledLoss(Laplace(1).loss_law(), lam)
    values, p, q = law.atoms()
    np.testing.assert_allclose(values, subsampled_loss(np.array([-1.0, 1.0]), lam))
    np.testing.assert_allclose(p, [lam * 0.5 * np.exp(-1) + (1 - lam) * 0.5, lam * 0.5 + (1 - lam) * 0.5 * np.exp(-1)])
    lo, hi = law.support()
    assert lo == values[0] and hi == values[1]


def test_invalid_rate_names_the_parameter():
    pld = PLD(np.array([0.0]), np.array([1.0]))
    for bad in (0, 1.5, -0.1):
        with pytest.raises(InvalidParameter, match="rate"):
            subsample_remove(pld, bad)
        with pytest.raises(InvalidParameter, match="rate"):
            SubsampledLoss(GaussianLoss(1.0), bad)


def test_rate_one_keeps_the_minus_infinity_atom():
    """F47 at λ = 1 is the identity (I17): Q's mass where P = 0 stays at loss −inf (no finite atom at ln(1 − λ)).
    Reference: the pair's own Q-mass on {P = 0}, exact. Would catch the finite atom kept at λ = 1."""
    law = (
        DiscretePair([Fraction(1, 2), Fraction(1, 2), Fraction(0)], [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)])
    ).loss_law()
    sub = SubsampledLoss(law, 1.0)
    assert law.q_neg_inf == 0.25
    assert sub.q_neg_inf == 0.25 and sub.low == -np.inf


@given(
    st.one_of(
        st.floats(1e-320, 1e-12), st.integers(17, 320).map(lambda e: 10.0**-e), st.floats(1e-12, 1.0, exclude_max=True)
    ),
    st.one_of(st.floats(700, 1e5), st.sampled_from([700.0, 701.0, 736.0, 745.2, 1e300, np.inf])),
)
@settings(max_examples=60)
def test_loss_map_beyond_700_for_tiny_rates(lam, x):
    """g_λ(x) for x > 700 against 60 digits, tiny λ included: x + log1p((1−λ)·expm1(−x)) was −inf for λ ≲ 1e-16
    (1 − λ rounds to 1), so a Poisson pld at λ = 1e-300 on a pair with a loss of 736 crossed its bounds."""
    got = float(subsampled_loss(np.array([x]), lam)[0])
    if np.isinf(x):
        assert got == np.inf
        return
    with mp.workdps(60):
        ref = mp.log(1 + mp.mpf(lam) * mp.expm1(mp.mpf(x)))
    assert got == pytest.approx(float(ref), rel=1e-13)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_tiny_rate_with_a_loss_beyond_700_brackets_the_exact_epsilon(direction):
    """λ = 1e-300, loss ln(0.5·10³²⁰) = 736: remove crossed its bounds, add's lower end exceeded the exact ε."""
    rate = "1e-300"
    mech = DiscretePair([Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 10**320), 1 - Fraction(1, 10**320)])
    config = Config(mech, scheme="poisson", steps=1, rate=rate)
    exact = api.epsilon(config, "0.1", direction=direction, method="exact", digits=15)
    got = api.epsilon(config, "0.1", direction=direction, method="pld")
    assert got.lower <= exact.upper and exact.lower <= got.upper, (float(got.lower), float(exact.lower))


@given(
    st.one_of(st.integers(1, 52).map(lambda e: 1 - 2.0**-e), st.floats(0.5, 1.0, exclude_max=True)),
    st.one_of(st.floats(-1e4, -0.1), st.sampled_from([-46.05170185988091, -36.7368005696771, -0.7])),
)
@settings(max_examples=60)
def test_loss_map_where_one_plus_lambda_expm1_cancels(lam, x):
    """λ near 1, x ≪ 0: g_λ(x) = ln((1−λ) + λe^x) to 1e-14 (through log1p(λ·expm1(x)), λ = 1 − 2⁻⁵³ at x = −46.05
    lost λe^x = 1e-20 beside 1 − λ = 1.1e-16, a loss 1e-4 off)."""
    got = float(subsampled_loss(np.array([x]), lam)[0])
    with mp.workdps(80):  # 1 − λ is exact here (λ a float in [1/2, 1))
        ref = mp.log((1 - mp.mpf(lam)) + mp.mpf(lam) * mp.exp(mp.mpf(x)))
    assert got == pytest.approx(float(ref), rel=1e-14)
