"""Float64 vs mpmath differential tests: the same algorithm in the numeric layer (float64) and in the exact layer
(mpmath / rationals) on small inputs, with a stated float budget (u = 2^−53) — and the regions where float64
stops being trustworthy, pinned by tests that assert the breakdown (so a change of behaviour is noticed).

Budgets (n = number of atoms):
* hockey-stick sums Σ m(1 − e^{ε−l})_+ : |float − exact| ≤ 8n·u·(Σm) + 2u·δ;
* ε from a PLD (bisection on the float δ): |float − exact| ≤ 1e-12·max(1, |ε|) away from flat pieces of δ;
* log-moments ln D_α and ln(D_α − 1) (`numeric.rdp.log_moments`, input of the rdp method): within the absolute errors
  the code reports (`err_log`, `err_excess`), for orders up to 400 (710 in the breakdown test), against ln D_α computed here at 60
  digits from each pair's definition (rationals, F14 closed form, RR closed form, Laplace quadrature).
Breakdowns: (1) δ(ε) = 1 − E[min(1, e^{ε−L})] ("1 − Σ") cannot resolve δ ≲ 1e-16 (the code sums the tail
directly instead); (2) D_α itself overflows when α·max ℓ > 709.78 (e.g. α ≥ 710 for ε0 = 1 randomized response,
α ≥ 39 for the Gaussian at σ = 1): verialloc works with ln D_α (log-sum-exp), asserted there; (3) R_α = ln D_α/(α−1) from a float D_α is 0 when D_α − 1 < u (e.g. randomized
response with ε0 = 1e-9: D_2 − 1 ≈ 1e-18); (4) Gaussian loss-law tails underflow (ndtr) below ~1e-308.

Mutations checked to be killed (#16): log_moments' Gaussian ln D_j off by a relative 1e-12, its finite-pair losses
off by 1e-13, and its Gaussian value moved by 8u beyond the err_log it reports (log-moments and overflow tests).
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair, Gaussian, Laplace, RandomizedResponse, api
from verialloc.exact.discrete_profiles import allocation_pair
from verialloc.exact.finite_pair import FiniteLossPair
from verialloc.exact.gaussian_pld import gaussian_pld_sf
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.rdp.log_moments import log_moments
from verialloc.mechanisms.gaussian import GaussianLoss
from verialloc.numeric.pld.pld import PLD
from verialloc.numeric.pld.subsample import subsample_add, subsample_remove
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import (
    discrete_pairs,
    gaussians,
    laplaces,
    probability_pairs,
    randomized_responses,
    rates,
)

U = 2.0**-53


def float_pld(pair, direction="remove") -> PLD:
    """The float64 PLD of an exact FiniteLossPair (masses rounded once, losses ln a − ln b)."""
    a, b = (pair.a, pair.b) if direction == "remove" else (pair.b, pair.a)
    law: dict = {}
    inf = 0.0
    for x, y in zip(a, b):
        if x and y:
            loss = float(mp.log(x / y))
            law[loss] = law.get(loss, 0.0) + float(x)
        elif x:
            inf += float(x)
    losses = np.array(sorted(law))
    return PLD(losses, np.array([law[v] for v in losses]), inf_mass=inf)


def _pair(p, q) -> FiniteLossPair:
    with mp.workdps(40):
        return FiniteLossPair(p, q)


@given(discrete_pairs(3), st.integers(1, 3), st.integers(-8, 24).map(lambda n: n / 8))
def test_hockey_stick_float_matches_mpmath(mech, t, eps):
    """F2: PLD.delta (float64, tail sum with expm1) vs FiniteLossPair.delta (mpmath, 40 digits), both directions."""
    with mp.workdps(40):
        pair = allocation_pair(mech, t)
        for d in ("remove", "add"):
            pld = float_pld(pair, d)
            exact = pair.delta(Fraction(eps), d)
            budget = 8 * (pld.masses.size + 1) * U * pld.total_mass + 2 * U * float(exact)
            assert abs(pld.delta(eps) - float(exact)) <= budget


@given(discrete_pairs(3), st.integers(1, 3), st.integers(1, 9).map(lambda n: Fraction(n, 10)))
@settings(max_examples=15)
def test_epsilon_float_matches_mpmath(mech, t, target):
    """F2/I1: PLD.epsilon (float bisection) vs FiniteLossPair.epsilon (exact piecewise inversion)."""
    with mp.workdps(40):
        pair = allocation_pair(mech, t)
        for d in ("remove", "add"):
            exact = pair.epsilon(target, d)
            got = float_pld(pair, d).epsilon(float(target))
            if mp.isinf(exact):
                assert got == float(exact)
            else:
                assert abs(got - float(exact)) <= 1e-12 * max(1.0, abs(float(exact)))


@given(
    probability_pairs(3, 4).filter(lambda pq: any(x and y for x, y in zip(*pq))),
    rates(),
    st.integers(0, 24).map(lambda n: Fraction(n, 8)),
)
def test_subsampling_float_matches_rationals(pq, lam, kappa):
    """F47 (E16): numeric subsample_remove / subsample_add (float64) vs the exact rational law of (P_λ, Q) and
    (Q, P_λ) by enumeration, compared through H_κ: |float − exact| ≤ 16n·u."""
    p, q = pq
    mixed = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    base = {d: float_pld(_pair(p, q), d) for d in ("remove", "add")}
    eps = math.log(kappa) if kappa else -745.0
    for d, out in (
        ("remove", subsample_remove(base["remove"], float(lam))),
        ("add", subsample_add(base["add"], float(lam))),
    ):
        a, b = bf.single(mixed, q)
        exact = bf.hockey_stick(a, b, kappa) if d == "remove" else bf.hockey_stick(b, a, kappa)
        assert abs(out.delta(eps) - float(exact)) <= 16 * (out.masses.size + 2) * U


def exact_log_moment(mech, j: int):
    """ln D_j and ln(D_j − 1) (F5) at 60 digits, computed here from each pair's definition (not from verialloc):
    rational pairs by the exact rational Σ q (p/q)^j; Gaussian ln D_j = j(j−1)/(2σ²) (F14); randomized response
    q^{1−j}p^j + p^{1−j}q^j with p = e^{ε0}/(1 + e^{ε0}); Laplace by quadrature of p^j q^{1−j} (kinks at 0, 1).
    ln(D_j − 1) is −inf exactly when D_j = 1."""
    with mp.workdps(60):
        if isinstance(mech, DiscretePair):
            d = bf.moment(*bf.single(*mech.exact_probabilities()), j) if j else Fraction(1)
            excess = d - 1
            log_d = mp.log(mp.mpf(d.numerator) / d.denominator)
            log_excess = mp.log(mp.mpf(excess.numerator) / excess.denominator) if excess else -mp.inf
        elif isinstance(mech, Gaussian):
            x = mp.mpf(j * (j - 1)) / (2 * mp.mpf(mech.sigma.numerator) ** 2 / mech.sigma.denominator**2)
            log_d, log_excess = x, (mp.log(mp.expm1(x)) if x else -mp.inf)
        elif isinstance(mech, RandomizedResponse):
            e = mp.exp(mp.mpf(mech.eps0.numerator) / mech.eps0.denominator)
            p, q = e / (1 + e), 1 / (1 + e)
            d = q ** (1 - j) * p**j + p ** (1 - j) * q**j
            log_d, log_excess = mp.log(d), (mp.log(d - 1) if j > 1 else -mp.inf)
        else:  # Laplace(b): P = Lap(1, b), Q = Lap(0, b)
            b = mp.mpf(mech.scale.numerator) / mech.scale.denominator
            f = lambda x: mp.exp(-(j * abs(x - 1) + (1 - j) * abs(x)) / b) / (2 * b)  # noqa: E731
            d = mp.quad(f, [-mp.inf, 0, 1, mp.inf])
            log_d, log_excess = mp.log(d), (mp.log(d - 1) if j > 1 else -mp.inf)
    return log_d, log_excess


MOMENT_MECHANISMS = st.one_of(
    randomized_responses(),
    st.floats(1e-3, 4).map(lambda e: RandomizedResponse(Fraction(e))),
    gaussians(Fraction(1, 4)),
    laplaces(),
    discrete_pairs(3).filter(lambda m: m.absolutely_continuous),
)


@given(MOMENT_MECHANISMS, st.integers(2, 400), st.integers(0, 2**32))
@settings(max_examples=10)
def test_log_moments_match_exact_moments_within_their_reported_error_F5_F14(mech, n, seed):
    """F5, F14 on verialloc's float64 moments (`numeric.rdp.log_moments`, the input of the rdp method): for orders 0..n
    (n up to 400, past the float64 overflow of D_α itself for many pairs drawn; α = 710 in the breakdown test), |ln D_j − log_d[j]| ≤ err_log[j] and
    |ln(D_j − 1) − log_excess[j]| ≤ err_excess[j], the budgets the code reports; D_j = 1 (P = Q, j ≤ 1) must give
    log_excess = −inf exactly. Orders checked: 0, 1, 2, 3, n and a few drawn ones (Laplace: 4 orders, quadrature)."""
    lm = log_moments(mech, n)
    rng = np.random.default_rng(seed)
    orders = sorted({0, 1, 2, min(3, n), n, *map(int, rng.integers(2, n + 1, 3))})
    if isinstance(mech, Laplace):
        orders = sorted({1, 2, min(n, 5), int(rng.integers(2, min(n, 60) + 1))})
    for j in orders:
        log_d, log_excess = exact_log_moment(mech, j)
        with mp.workdps(60):
            assert abs(mp.mpf(float(lm.log_d[j])) - log_d) <= lm.err_log[j], (j, lm.log_d[j], log_d)
            if mp.isinf(log_excess):
                assert lm.log_excess[j] == -np.inf, (j, lm.log_excess[j])
            else:
                assert abs(mp.mpf(float(lm.log_excess[j])) - log_excess) <= lm.err_excess[j], (j, lm.log_excess[j])


def test_breakdown_moments_overflow_at_large_alpha():
    """Breakdown (2): float64 D_α = Σ q (p/q)^α overflows to inf while the exact value is finite (RR ε0 = 1 at
    α = 710; Gaussian σ = 1 at α = 39, where α(α−1)/2 = 741 > 709.78) — the naive computation is shown once; what is
    asserted is that verialloc's log-space route (`numeric.rdp.log_moments`) stays within its reported error of the
    exact ln D_α and that the rdp method's bracket at that order contains the exact R_α = ln D_α/(α − 1)."""
    rr, gauss = RandomizedResponse(1), Gaussian(1)
    with mp.workdps(30):
        p, q = (np.array([float(x) for x in v]) for v in rr.probabilities())
    with np.errstate(over="ignore"):
        assert math.isinf(float(np.sum(q * (p / q) ** 710))) and math.isinf(np.exp(39.0 * 38 / 2))
    for mech, alpha in ((rr, 710), (gauss, 39)):
        lm = log_moments(mech, alpha)
        log_d, _ = exact_log_moment(mech, alpha)
        assert np.isfinite(lm.log_d[alpha]) and abs(lm.log_d[alpha] - log_d) <= lm.err_log[alpha]
        bracket = api.rdp(Config(mech, steps=1), alpha, method="rdp")
        with mp.workdps(60):
            exact = log_d / (alpha - 1)
            assert bracket.lower <= exact <= bracket.upper, (mech, bracket, exact)


def test_breakdown_renyi_divergence_of_nearly_equal_pairs():
    """Breakdown (3): for ε0 = 1e-9 randomized response, D_2 − 1 ≈ 1e-18 < u: float64 gives R_2 = 0 (relative
    error 1), the exact layer resolves it (R_2 = ln D_2 ≈ 1e-18) by raising its precision."""
    mech = RandomizedResponse("1e-9")
    with mp.workdps(60):
        p, q = (np.array([float(x) for x in v]) for v in mech.probabilities())
        exact = mech.rdp(2)
    float_rdp = math.log(float(np.sum(q * (p / q) ** 2)))
    assert exact > 0 and abs(float_rdp - float(exact)) >= 0.5 * float(exact)
    resolved = api.rdp(Config(mech, steps=1), 2, digits=20).upper
    assert abs(resolved - exact) <= exact * mp.mpf(10) ** -18


def test_breakdown_one_minus_sum_cannot_resolve_tiny_delta():
    """Breakdown (1): δ(ε) = 1 − E[min(1, e^{ε−L})] in float64 has error ~u, so at δ = 1e-18·(1 − e^{−1}) it is off
    by ≥ 99 % (it returns 0 or a multiple of u); PLD.delta sums the tail directly and keeps relative accuracy 1e-14."""
    masses = np.array([0.5, 0.5 - 1e-18, 1e-18])
    pld = PLD(np.array([0.5, 1.0, 3.0]), masses).validate_realization()
    eps = 2.0
    with mp.workdps(50):
        m = [mp.mpf(0.5), mp.mpf(0.5) - mp.mpf(1e-18), mp.mpf(1e-18)]
        exact = m[2] * (1 - mp.exp(eps - 3))
    complement = 1.0 - float(np.sum(masses * np.minimum(1.0, np.exp(eps - pld.losses))))
    assert abs(complement - float(exact)) >= 0.99 * float(exact)
    assert abs(pld.delta(eps) - float(exact)) <= 1e-14 * float(exact)


def test_pld_stays_sound_at_tiny_delta_where_one_minus_sum_fails():
    """Breakdown (1) avoided end to end: the pld method inverts δ down to 1e-200 (tilted convolutions, direct tail
    sums) and its bracket contains the exact ε (Gaussian composition, F13)."""
    config = Config(Gaussian(1), "poisson", steps=4, rate=1)
    for target in ("1e-18", "1e-200"):
        b = api.epsilon(config, target, direction="remove", method="pld", settings=Settings(loss_step=1e-2, tail=1e-10))
        exact = api.epsilon(config, target, direction="remove", digits=15)
        assert b.lower <= exact.lower and exact.upper <= b.upper and mp.isfinite(b.upper)


def test_breakdown_gaussian_loss_tail_underflows():
    """Breakdown (4): GaussianLoss.sf_p (scipy ndtr, float64) matches mpmath to 1e-13 relative where the tail is
    ≥ 1e-300, and underflows to 0 beyond ~1e-308 where mpmath still resolves it (the allocation code therefore
    works with explicit tail budgets, never with tails below its float floor)."""
    sigma = 1
    law = GaussianLoss(float(sigma))
    with mp.workdps(30):
        for y in (0.0, 5.0, 20.0, 60.0):
            exact = gaussian_pld_sf(y, sigma)
            assert abs(float(law.sf_p(y)) - float(exact)) <= 1e-13 * float(exact)
        deep = gaussian_pld_sf(80.0, sigma)
    assert float(law.sf_p(80.0)) == 0.0 and 0 < deep < mp.mpf(10) ** -308
