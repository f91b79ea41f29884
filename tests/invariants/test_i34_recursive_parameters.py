"""I34 (formulas.md §13.4; F36, erratum E7): the recursive bound's parameters and the tail bound behind its τ.

F36: δ→_A(ε) ≤ δ→_{P_{t,η}}(ε) + τ·δ←_A(ε′),  δ←_A(ε) ≤ δ←_{P_{t,η}}(ε) + τe^{2ε′}·δ←_A(ε′),  η = e^{2ε′}/t ≤ 1,
τ = 1/(e^{ε′}(e^{ε′} − 1)), so τe^{2ε′} = e^{ε′}/(e^{ε′} − 1); the printed τ (factor 1) is valid by the one-sided
tail bound Pr_P[ℓ > 2ε] ≤ H_{e^ε}(P‖Q)/(1 − e^{−ε}) (E7), verialloc's default charges 2τ (the proof's factor).

Production code under test: `numeric.analytic.recursive.tail_terms` (η, ε′, additive term) and
`recursive.delta`; `api.delta(..., method="exact")` for the hockey-stick side of the tail bound. References: F36's
constants written out here in mpmath (e^{2ε′}/m, e^{ε′}/(e^{ε′} − 1) for add, 1/(e^{ε′}(e^{ε′} − 1)) for remove),
the exact add profile δ←_{A_m}(ε′) of the exact layer (the bootstrapped ingredient must be at least it), the exact
tail probability Pr_P[ℓ > 2ε] (closed form for the Gaussian, rational enumeration for allocation pairs), and the
exact allocation profile at t = 100 for the bound itself.

Bugs it catches: η = e^{2ε′}/m above 1 or below e^{2ε′}/m (rate rounded the unsafe way), the add weight e^{2ε′}
dropped or applied to remove, τ with e^{ε′}(e^{ε′} + 1), the union bound over k·E copies lost, a bootstrapped
δ←(ε′) below the exact add profile, an unsound bound at t = 100.
"""

import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair, Gaussian, RandomizedResponse, api
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options, recursive
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import probability_pairs

FAST = Options(pld=Settings(loss_step=1e-3, tail=1e-14), eta_points=6)
CONFIGS = [
    Config(RandomizedResponse(Fraction(1, 2)), steps=100),
    Config(RandomizedResponse(1), steps=60, k=3),
    Config(RandomizedResponse(Fraction(3, 4)), steps=40, epochs=2),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.mechanism!r}-t{c.steps}-k{c.k}-E{c.epochs}")
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_rate_and_tail_term_follow_f36(config, direction):
    """For every (η, ε′, term) of the search: 0 < ε′, e^{2ε′}/m ≤ η ≤ 1 (m = ⌊t/k⌋); the term is n·2·τ·w·B with
    w = 1 (remove) or e^{2ε′} (add; τe^{2ε′} = e^{ε′}/(e^{ε′} − 1)), n = k·E copies, B the bootstrapped add bound,
    and B ≥ the exact add profile of A_m at ε′ (so term ≥ n·2·τ·w·δ←_exact(ε′))."""
    m, n = config.steps // config.k, config.k * config.epochs
    block = Config(config.mechanism, steps=m)
    terms = recursive.tail_terms(config, direction, FAST)
    assert terms
    for eta, eps_prime, extra in terms:
        with mp.workdps(40):
            e = mp.mpf(eps_prime)
            assert e > 0 and mp.exp(2 * e) / m <= eta <= 1, (eta, eps_prime, m)
            weight = 1 / (mp.exp(e) * mp.expm1(e)) if direction == "remove" else mp.exp(e) / mp.expm1(e)
            bootstrap = recursive.bootstrap_add(block, eps_prime, FAST)
            formula = n * 2 * weight * bootstrap
            assert formula <= extra <= formula * (1 + mp.mpf(10) ** -9), (eta, eps_prime, extra, float(formula))
            exact_add = api.delta(block, Fraction(repr(eps_prime)), direction="add", digits=20).upper
            assert extra >= n * 2 * weight * exact_add, (eps_prime, extra, exact_add)


def allocation_tail(p, q, t: int, eps: Fraction) -> Fraction:
    """Pr_{P̄_t}[ℓ > 2ε] for the allocation pair in rationals (ℓ > 2ε ⟺ P̄_t/Q^t > e^{2ε}; the threshold e^{2ε} is
    taken 1e−45 relatively low, so the tail is never under-counted)."""
    a, b = bf.allocation(p, q, t)
    with mp.workdps(60):
        k2 = Fraction(mp.nstr(mp.exp(2 * mp.mpf(eps.numerator) / eps.denominator), 50)) * (1 - Fraction(1, 10**45))
    return sum((m for y, m in a.items() if m and (not b.get(y) or m / b[y] > k2)), Fraction(0))


@given(
    probability_pairs(max_atoms=3, max_weight=4).filter(lambda pq: any(x and y for x, y in zip(*pq))),
    st.integers(1, 3),
    st.sampled_from([Fraction(1, 8), Fraction(1, 2), Fraction(1), Fraction(2)]),
)
@settings(max_examples=20)
def test_one_sided_tail_bound_behind_the_printed_tau_E7(pq, t, eps):
    """E7: Pr_P[ℓ > 2ε] ≤ H_{e^ε}(P‖Q)/(1 − e^{−ε}) for allocation pairs (remove), H from verialloc's exact layer, the
    tail probability enumerated here in rationals."""
    p, q = pq
    tail = allocation_tail(p, q, t, eps)
    h = api.delta(Config(DiscretePair(p, q), steps=t), eps, direction="remove", digits=30).upper
    with mp.workdps(40):
        bound = h / -mp.expm1(-mp.mpf(eps.numerator) / eps.denominator)
        assert mp.mpf(tail.numerator) / tail.denominator <= bound * (1 + mp.mpf(10) ** -25), (pq, t, eps, tail, bound)


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(1), Fraction(3)])
def test_one_sided_tail_bound_for_the_gaussian_E7(sigma):
    """E7 for the Gaussian pair: Pr_P[ℓ > 2ε] = Φ((μ − 2ε)/√(2μ)) (ℓ ~ N(μ, 2μ) under P, F15) ≤ F13/(1 − e^{−ε}),
    F13 from `api.delta` (exact layer)."""
    with mp.workdps(30):
        s = mp.mpf(sigma.numerator) / sigma.denominator
        mu = 1 / (2 * s**2)
        for eps in (Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)):
            e = mp.mpf(eps.numerator) / eps.denominator
            tail = mp.ncdf((mu - 2 * e) / mp.sqrt(2 * mu))
            h = api.delta(Config(Gaussian(sigma), steps=1), eps, direction="remove", digits=25).upper
            assert tail <= h / -mp.expm1(-e), (sigma, eps, tail, h)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_bound_is_above_the_exact_profile_at_moderate_t(direction):
    """F36 ≥ the exact allocation profile, randomized response ε0 = 1/2, t = 100 (exact layer, count vectors)."""
    config = CONFIGS[0]
    for eps in (0.05, 0.2, 0.6):
        value = recursive.delta(config, eps, direction, FAST).value
        assert value >= api.delta(config, Fraction(repr(eps)), direction=direction, digits=30).upper, (eps, value)
        assert math.isfinite(value) and value <= 1
