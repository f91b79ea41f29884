"""I10 (formulas.md §13.1; F45, [003] Fig. 7 / Chua et al.): neither Poisson(1/t) nor random allocation dominates the
other — for the Gaussian σ = 1, t = 2 their remove profiles cross.

Production code under test: `api.delta(..., method="exact")` for `Config(Gaussian(1), steps=2)` (allocation, F25 by
quadrature) and `Config(Gaussian(1), "poisson", steps=2, rate=1/2)` (F46, F12), each a certified bracket.
References: the allocation values of formulas.md §12.1 (published there to 8 digits) and the Poisson profile
computed here in mpmath from F46 — H_κ(P_λ⊗P_λ‖Q⊗Q) = E_{x1~Q}[E_{x2~Q}[(r(x1)r(x2) − κ)_+]], r = 1 − λ + λe^ℓ,
the inner expectation in closed form (log-normal call, ℓ ~ N(−μ, 2μ) under Q, μ = 1/(2σ²)).

The test asserts the crossing on verialloc's certified brackets: allocation above Poisson at ε ∈ {0, 1/4}
(bracket ends separated), Poisson above allocation at ε ∈ {1, 2}. Bugs it catches: the Poisson route answering
with the allocation pair (or the reverse), a rate slip (rate 1 = the composition N(σ/√2), which dominates
allocation everywhere), the remove/add pairs swapped in either scheme.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, api

SIGMA, T, RATE = 1, 2, Fraction(1, 2)
#: formulas.md §12.1, σ = 1, t = 2, remove direction (k = 1)
ALLOCATION_12_1 = {
    Fraction(0): 0.29776223,
    Fraction(1, 2): 0.14917752,
    Fraction(1): 0.059206501,
    Fraction(2): 0.0047457776,
}
ALLOCATION_ABOVE = [Fraction(0), Fraction(1, 4)]
POISSON_ABOVE = [Fraction(1), Fraction(2)]


def poisson_remove_reference(eps: Fraction) -> mp.mpf:
    """H_{e^ε}(P_λ^{⊗2}‖Q^{⊗2}) for the Gaussian pair, λ = 1/2 (F46), by 1-D quadrature with a closed-form inner
    expectation: for c = r(x1), E[(c(1−λ) + cλe^{ℓ2} − κ)_+] = cλΦ(d1) − KΦ(d2) with K = κ − c(1−λ) > 0
    (d2 = (ln(cλ/K) − μ)/√(2μ), d1 = d2 + √(2μ)), and cλ − K when K ≤ 0 (E_Q[e^ℓ] = 1)."""
    s, lam = mp.mpf(SIGMA), mp.mpf(RATE.numerator) / RATE.denominator
    mu = 1 / (2 * s**2)
    sd = mp.sqrt(2 * mu)
    kappa = mp.exp(mp.mpf(eps.numerator) / eps.denominator)

    def inner(x1):
        c = 1 - lam + lam * mp.exp((2 * x1 - 1) / (2 * s**2))
        a, k = c * lam, kappa - c * (1 - lam)
        if k <= 0:
            return a - k
        d2 = (mp.log(a / k) - mu) / sd
        return a * mp.ncdf(d2 + sd) - k * mp.ncdf(d2)

    cuts = {-mp.inf, mp.mpf(-2), mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), mp.mpf(2), mp.mpf(4), mp.inf}
    ratio = (kappa / (1 - lam) - (1 - lam)) / lam  # e^{ℓ(x1)} where K = 0: the inner expectation has a kink there
    if ratio > 0:
        cuts.add((2 * s**2 * mp.log(ratio) + 1) / 2)
    return mp.quad(lambda x: mp.npdf(x, 0, s) * inner(x), sorted(cuts))


def brackets(eps: Fraction, direction: str = "remove"):
    alloc = api.delta(Config(Gaussian(SIGMA), steps=T), eps, direction=direction, digits=15)
    poisson = api.delta(Config(Gaussian(SIGMA), "poisson", steps=T, rate=RATE), eps, direction=direction, digits=15)
    return alloc, poisson


@pytest.mark.parametrize("eps", ALLOCATION_ABOVE + POISSON_ABOVE)
def test_remove_profiles_of_poisson_and_allocation_cross(eps):
    """I10: lower(allocation) > upper(Poisson) at small ε and lower(Poisson) > upper(allocation) at larger ε."""
    alloc, poisson = brackets(eps)
    with mp.workdps(30):
        ref = poisson_remove_reference(eps)
    assert poisson.lower <= ref * (1 + mp.mpf(10) ** -12) and ref <= poisson.upper * (1 + mp.mpf(10) ** -12), (
        eps,
        poisson,
        ref,
    )
    if eps in ALLOCATION_12_1:
        assert alloc.upper == pytest.approx(ALLOCATION_12_1[eps], rel=2e-8)
    if eps in ALLOCATION_ABOVE:
        assert alloc.lower > poisson.upper, (eps, alloc, poisson)
    else:
        assert poisson.lower > alloc.upper, (eps, alloc, poisson)


def test_both_directions_agree_at_zero_and_neither_is_dominated_there():
    """At ε = 0 both directions of each scheme equal its TV (I3); allocation's TV exceeds Poisson's, while at ε = 2
    Poisson's remove δ exceeds allocation's: so no order holds in either sense for the remove profile."""
    a_rem, p_rem = brackets(Fraction(0), "remove")
    a_add, p_add = brackets(Fraction(0), "add")
    for x, y in ((a_rem, a_add), (p_rem, p_add)):
        assert abs(x.upper - y.upper) <= 1e-12 * x.upper
    assert a_rem.lower > p_rem.upper
    a2, p2 = brackets(Fraction(2), "remove")
    assert p2.lower > 2 * a2.upper  # not a rounding-level crossing: a factor > 2 at ε = 2
