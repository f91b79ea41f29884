"""I13 (formulas.md §13.2; F18, F38/F39, F19): converting RDP to (ε, δ) never goes below the exact profile, and ε from
RDP is ≥ ε from the PLD for the same pair (✔ on a Gaussian grid in formulas.md).

Production code under test:
* `api.epsilon` / `api.delta` with method "rdp" (float log-space allocation RDP curve + F18 + the F19 search) against
  method "pld"'s certified LOWER ends, Gaussian allocation (remove), σ ∈ {6/5, 2, 4}, t ∈ {10, 100, 1000};
* `api.rdp(..., method="exact")` (the exact layer's F38 at integer orders): F18 applied here, in mpmath from its
  printed form min_α e^{(α−1)(ρ_α − ε)}(1 − 1/α)^α/(α − 1), must be ≥ the exact profile (formulas.md §12.1, t = 2)
  and ≥ the pld method's lower end (t = 100).
References: the pld method's lower bracket ends (another method's opposite bound), the §12.1 table, and F18 written
out here (independent of `numeric.rdp.rdp_conversion`).

Bugs it catches: an F18 conversion that drops a term or divides ln(1/δ) by α instead of α − 1 (ε too small), an RDP
curve for the wrong number of steps (more steps ⇒ smaller allocation RDP), an exact RDP that is too small (e.g.
ln D_α/α instead of ln D_α/(α − 1)).
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, api
from verialloc.numeric.pld.pld_accountant import Settings

PLD_SETTINGS = Settings(loss_step=1e-3)
#: (σ, t, δ, ε): the grid, one ε(δ) and one δ(ε) query per point (each pld query costs about a second); at t ≤ 2
#: and δ = 1e-15 F18 is within 3.4–4.3 % of the pld lower end, the tightest points
GRID = [
    (4, 1, "1e-15", Fraction(1)),
    (4, 2, "1e-15", Fraction(1, 4)),
    (Fraction(6, 5), 10, "1e-5", Fraction(1)),
    (Fraction(6, 5), 100, "1e-9", Fraction(1, 4)),
    (2, 10, "1e-9", Fraction(1)),
    (2, 100, "1e-5", Fraction(1, 4)),
    (2, 1000, "1e-5", Fraction(1, 4)),
    (4, 10, "1e-5", Fraction(1, 4)),
    (4, 100, "1e-9", Fraction(1)),
    (4, 1000, "1e-9", Fraction(1, 4)),
]


@pytest.mark.parametrize("sigma, t, delta, eps", GRID)
def test_epsilon_from_rdp_is_at_least_epsilon_from_pld(sigma, t, delta, eps):
    """ε_rdp(δ).upper ≥ ε_pld(δ).lower and δ_rdp(ε).upper ≥ δ_pld(ε).lower (remove direction)."""
    config = Config(Gaussian(sigma), steps=t)
    rdp = api.epsilon(config, delta, direction="remove", method="rdp")
    pld = api.epsilon(config, delta, direction="remove", method="pld", settings=PLD_SETTINGS)
    assert rdp.upper >= pld.lower, (sigma, t, delta, rdp.upper, pld.lower)
    rdp = api.delta(config, eps, direction="remove", method="rdp")
    pld = api.delta(config, eps, direction="remove", method="pld", settings=PLD_SETTINGS)
    assert rdp.upper >= pld.lower, (sigma, t, eps, rdp.upper, pld.lower)


def f18_delta(config: Config, eps, orders=range(2, 41)) -> mp.mpf:
    """min over integer α of the printed F18 bound e^{(α−1)(ρ − ε)}(1 − 1/α)^α/(α − 1), ρ = the exact layer's R_α."""
    e = mp.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
    best = mp.mpf(1)
    for a in orders:
        rho = api.rdp(config, a, method="exact", digits=20).upper
        best = min(best, mp.exp((a - 1) * (rho - e)) * (1 - mp.mpf(1) / a) ** a / (a - 1))
    return best


#: formulas.md §12.1: exact remove profile of Gaussian allocation, t = 2
SECTION_12_1 = {
    (1, "1"): 0.059206501,
    (1, "2"): 0.0047457776,
    (2, "1/2"): 0.018326595,
    (2, "1"): 0.00064612837,
    (2, "2"): 2.8811863e-08,
}


@pytest.mark.parametrize("key", sorted(SECTION_12_1))
def test_f18_on_the_exact_rdp_is_above_the_exact_profile(key):
    """F18 from the exact layer's RDP (t = 2) ≥ the exact δ of §12.1."""
    sigma, eps = key
    with mp.workdps(30):
        assert f18_delta(Config(Gaussian(sigma), steps=2), eps) >= SECTION_12_1[key] * (1 + 1e-7)


def test_f18_on_the_exact_rdp_is_above_the_pld_lower_end_at_t_100():
    config = Config(Gaussian(2), steps=100)
    for eps in (Fraction(1, 4), Fraction(1, 2)):
        pld = api.delta(config, eps, direction="remove", method="pld", settings=PLD_SETTINGS)
        with mp.workdps(30):
            assert f18_delta(config, eps) >= pld.lower, (eps, pld.lower)
