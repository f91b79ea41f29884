"""I15 (formulas.md §13.3; F7 (ii), F15): the Gaussian PLD is self-dual — L_{Q,P} = D(L_{P,Q}) has the law of L_{P,Q},
N(μ, 2μ), μ = 1/(2σ²), and E[e^{−L}] = 1.

(The general identities D(L_{P,Q}) = L_{Q,P} and D(D(L)) = L on finite pairs are asserted in
tests/properties/test_prop_exact_identities.py and tests/numeric/pld/test_pld.py; this file covers the Gaussian part.)

Production code under test: the Gaussian loss law `numeric.pld.loss_law.loss_law(Gaussian(σ))` (the four tail functions
every numeric route reads), `numeric.pld.discretize.discretize_pair` in the remove and add directions, and the exact
layer's `api.delta` in both directions. References: N(μ, 2μ) written out in mpmath; the dual's defining relation
f_D(l) = f_L(−l)e^{l} checked on the production law's densities by finite differences of its CDFs; the remove
results as the reference for the add results (self-duality says they coincide).

Bugs it catches: ℓ under Q centred at +μ (or scaled by σ² instead of 1/σ²), an add direction that reads ℓ under Q
without negating it, a discretization whose add PLD differs from its remove PLD for a symmetric pair.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc import Config, Gaussian, api
from verialloc.numeric.pld.discretize import discretize_pair

SIGMAS = [Fraction(1, 2), Fraction(1), Fraction(3)]


@pytest.mark.parametrize("sigma", SIGMAS)
def test_remove_and_add_loss_laws_are_both_n_mu_2mu(sigma):
    """L→ = ℓ under P and L← = −ℓ under Q: P(L→ > y) = sf_p(y), P(L← > y) = cdf_q(−y) (continuous law), both equal
    to the N(μ, 2μ) tail (mpmath) within the law's stated accuracy; E_P[e^{−ℓ}] = Q(P > 0) = 1 (F7 (i))."""
    law = Gaussian(sigma).loss_law()
    with mp.workdps(30):
        mu = 1 / (2 * (mp.mpf(sigma.numerator) / sigma.denominator) ** 2)
        sd = mp.sqrt(2 * mu)
        ys = np.linspace(float(mu - 8 * sd), float(mu + 8 * sd), 41)
        for y in ys:
            ref = 1 - mp.ncdf((mp.mpf(y) - mu) / sd)
            tol = float(law.eval_rtol(np.array([y]))[0]) * float(ref) + law.eval_abs
            assert abs(float(law.sf_p(y)) - float(ref)) <= tol, (y, law.sf_p(y), ref)
            assert abs(float(law.cdf_q(-y)) - float(ref)) <= tol, (y, law.cdf_q(-y), ref)
        # E_P[e^{−ℓ}] by quadrature over the production law's density (central differences of cdf_p)
        h = 1e-5
        density = lambda y: (float(law.cdf_p(float(y) + h)) - float(law.cdf_p(float(y) - h))) / (2 * h)  # noqa: E731
        tilt = mp.quad(lambda y: density(y) * mp.exp(-y), [mu - 12 * sd, mu, mu + 12 * sd])
        assert abs(tilt - 1) <= 1e-6, tilt


@pytest.mark.parametrize("sigma", SIGMAS)
def test_dual_relation_on_the_production_densities(sigma):
    """F7: f_{D(L)}(l) = f_L(−l)·e^{l}; for L = L_{P,Q} the dual is L_{Q,P} (density of −ℓ under Q at l, i.e. the density
    of ℓ under Q at −l), and self-duality makes it f_L(l): f_L(l) = f_L(−l)e^{l} on a grid (densities from the
    production CDFs by central differences)."""
    law = Gaussian(sigma).loss_law()
    h = 1e-4  # truncation error ~h²z²/6 relative; differences taken on the smaller tail (no cancellation)

    def density(cdf, sf, y):
        if cdf(y) <= sf(y):
            return (cdf(y + h) - cdf(y - h)) / (2 * h)
        return (sf(y - h) - sf(y + h)) / (2 * h)

    f_p = lambda y: density(law.cdf_p, law.sf_p, y)  # noqa: E731
    f_q = lambda y: density(law.cdf_q, law.sf_q, y)  # noqa: E731
    mu = law.mu
    for l in np.linspace(-3 * mu - 1, 3 * mu + 1, 25):
        dual = f_p(-l) * np.exp(l)
        assert abs(dual - f_p(l)) <= 1e-5 * f_p(l), (l, dual, f_p(l))
        assert abs(f_q(-l) - f_p(l)) <= 1e-5 * f_p(l), (l, f_q(-l), f_p(l))  # L_{Q,P} = −ℓ under Q


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("bound", ["upper", "lower"])
def test_discretized_remove_and_add_plds_coincide(sigma, bound):
    """discretize_pair(law, "add") = discretize_pair(law, "remove") (same grid, masses within 1e-13): the add PLD of the
    Gaussian pair is its remove PLD (self-duality), and both are realizations."""
    law = Gaussian(sigma).loss_law()
    rem = discretize_pair(law, "remove", 1e-2, 1e-12, bound)
    add = discretize_pair(law, "add", 1e-2, 1e-12, bound)
    assert rem.losses.shape == add.losses.shape and np.array_equal(rem.losses, add.losses)
    assert np.max(np.abs(rem.masses - add.masses)) <= 1e-13
    assert abs(rem.inf_mass - add.inf_mass) <= 1e-15
    if bound == "upper":
        for pld in (rem, add):
            pld.validate_realization()


def test_exact_layer_profiles_agree_in_both_directions():
    """The exact layer's single-step Gaussian δ(ε) is the same in both directions (F13, I4), to 25 digits."""
    for sigma in SIGMAS:
        for eps in (Fraction(-1), Fraction(0), Fraction(1, 3), Fraction(2)):
            config = Config(Gaussian(sigma), steps=1)
            rem = api.delta(config, eps, direction="remove", digits=25)
            add = api.delta(config, eps, direction="add", digits=25)
            assert abs(rem.upper - add.upper) <= mp.mpf(10) ** -24 * rem.upper
