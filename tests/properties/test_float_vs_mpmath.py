"""Float64 vs mpmath differential tests: the same algorithm in the numeric layer (float64) and in the exact layer
(mpmath / rationals) on small inputs, with a stated float budget (u = 2^−53) — and the regions where float64
stops being trustworthy, pinned by tests that assert the breakdown (so a change of behaviour is noticed).

Budgets (n = number of atoms):
* hockey-stick sums Σ m(1 − e^{ε−l})_+ : |float − exact| ≤ 8n·u·(Σm) + 2u·δ;
* ε from a PLD (bisection on the float δ): |float − exact| ≤ 1e-12·max(1, |ε|) away from flat pieces of δ;
* moments D_α = Σ q (p/q)^α: relative error ≤ (α + 2)·n·u·4 while no term overflows.
Breakdowns: (1) δ(ε) = 1 − E[min(1, e^{ε−L})] ("1 − Σ") cannot resolve δ ≲ 1e-16 (the code sums the tail
directly instead); (2) D_α overflows when α·max ℓ > 709.78 (e.g. α ≥ 710 for ε0 = 1 randomized response, α ≥ 39
for the Gaussian at σ = 1); (3) R_α = ln D_α/(α−1) from a float D_α is 0 when D_α − 1 < u (e.g. randomized
response with ε0 = 1e-9: D_2 − 1 ≈ 1e-18); (4) Gaussian loss-law tails underflow (ndtr) below ~1e-308.
"""
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
from hypothesis import given, settings, strategies as st

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.exact.discrete_profiles import allocation_pair
from verialloc.exact.finite_pair import FiniteLossPair
from verialloc.exact.gaussian_pld import gaussian_pld_sf
from verialloc.numeric.accountant import Settings
from verialloc.numeric.loss_law import GaussianLoss
from verialloc.numeric.pld import PLD
from verialloc.numeric.subsample import subsample_add, subsample_remove
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import discrete_pairs, probability_pairs, rates

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


@given(probability_pairs(3, 4).filter(lambda pq: any(x and y for x, y in zip(*pq))), rates(),
       st.integers(0, 24).map(lambda n: Fraction(n, 8)))
def test_subsampling_float_matches_rationals(pq, lam, kappa):
    """F47 (E16): numeric subsample_remove / subsample_add (float64) vs the exact rational law of (P_λ, Q) and
    (Q, P_λ) by enumeration, compared through H_κ: |float − exact| ≤ 16n·u."""
    p, q = pq
    mixed = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    base = {d: float_pld(_pair(p, q), d) for d in ("remove", "add")}
    eps = math.log(kappa) if kappa else -745.0
    for d, out in (("remove", subsample_remove(base["remove"], float(lam))),
                   ("add", subsample_add(base["add"], float(lam)))):
        a, b = bf.single(mixed, q)
        exact = bf.hockey_stick(a, b, kappa) if d == "remove" else bf.hockey_stick(b, a, kappa)
        assert abs(out.delta(eps) - float(exact)) <= 16 * (out.masses.size + 2) * U


@given(st.integers(2, 30), st.sampled_from(["1/4", "1", "2"]))
def test_moments_float_matches_mpmath_until_overflow(alpha, eps0):
    """F5: D_α = Σ q (p/q)^α of randomized response in float64 vs RandomizedResponse.moment (mpmath)."""
    mech = RandomizedResponse(eps0)
    with mp.workdps(40):
        p, q = (np.array([float(x) for x in v]) for v in mech.probabilities())
        exact = mech.moment(alpha)
    got = float(np.sum(q * (p / q) ** alpha))
    assert abs(got - float(exact)) <= 4 * (alpha + 2) * 2 * U * float(exact)


def test_breakdown_moments_overflow_at_large_alpha():
    """Breakdown (2): float64 D_α overflows to inf while the exact value is finite (RR ε0 = 1 at α = 710;
    Gaussian σ = 1 at α = 39, where α(α−1)/2 = 741 > 709.78); log-space (logsumexp) would stay finite."""
    mech = RandomizedResponse(1)
    with mp.workdps(30):
        p, q = (np.array([float(x) for x in v]) for v in mech.probabilities())
        exact = mech.moment(710)
        gauss = Gaussian(1).moment(39)
    with np.errstate(over="ignore"):
        assert math.isinf(float(np.sum(q * (p / q) ** 710))) and mp.isfinite(exact)
        assert math.isinf(np.exp(39.0 * 38 / 2)) and mp.isfinite(gauss)
    log_d = float(np.logaddexp.reduce(np.log(q) + 710 * np.log(p / q)))
    assert abs(log_d - float(mp.log(exact))) <= 1e-12 * abs(log_d)


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
