"""The separable-statistic LOWER bound of random allocation (allocation.separable), against independent references:
the exact layer (finite pairs, k of t up to t = 8, by count-vector enumeration; the Gaussian at k = 1, t = 2 by
quadrature), the closed form F13 at k = t (written out here with mpmath), and the F27 upper end of the pld route."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import ndtr

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.mechanisms import DiscretePair
from verialloc.numeric.pld import pipeline, pld_accountant
from verialloc.numeric.pld.allocation import separable
from verialloc.mechanisms.gaussian import GaussianLoss


def exact_delta(mech, t, k, eps, direction):
    return api.delta(Config(mech, steps=t, k=k), repr(eps), direction=direction, method="exact", digits=20)


def f13(sigma: float, eps: float) -> mp.mpf:
    """δ of the Gaussian mechanism with noise multiplier sigma (F13), in mpmath."""
    with mp.workdps(40):
        s, e = mp.mpf(sigma), mp.mpf(eps)
        return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def quantized_gaussian(edges):
    """N(1, 1) vs N(0, 1) observed through the bins of `edges`: a finite pair the exact layer enumerates."""
    z = np.concatenate([[-np.inf], edges, [np.inf]])
    p, q = np.diff(ndtr(z - 1.0)), np.diff(ndtr(z))
    return DiscretePair([repr(float(x)) for x in p], [repr(float(x)) for x in q])


RR = RandomizedResponse(1)
#: losses ±ln 2 and 0 (a lattice), and a pair with P-mass where Q = 0 and Q-mass where P = 0 (end-bin atoms)
LATTICE_PAIR = DiscretePair(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"])
ATOM_PAIR = DiscretePair(["1/2", "3/10", "1/5", "0"], ["1/5", "3/10", "2/5", "1/10"])
#: P-mass where Q = 0 is absent, Q-mass where P = 0 large: the −inf bin decides δ (0.024 against 0.212 when the
#: atom shared the lowest bin with the finite losses)
NEG_INF_PAIR = DiscretePair(["3/5", "0", "2/5"], ["2/5", "2/5", "1/5"])


@pytest.mark.parametrize("t,k", [(2, 1), (4, 2), (5, 3), (8, 3), (8, 8), (7, 1)])
@pytest.mark.parametrize("eps", [-0.3, 0.0, 0.5, 1.5])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_randomized_response_is_exact(t, k, eps, direction):
    """Two outputs: S determines the output count, a sufficient statistic, so the bound is the exact profile."""
    ref = exact_delta(RR, t, k, eps, direction)
    got = separable.delta_lower(RR.loss_law(), t, k, eps, direction)[direction]
    assert got <= ref.lower
    assert got >= ref.lower * (1 - 1e-9) - 1e-12


@pytest.mark.parametrize("pair", [LATTICE_PAIR, ATOM_PAIR, NEG_INF_PAIR], ids=["lattice", "atoms", "neg-inf"])
@pytest.mark.parametrize("t,k", [(3, 2), (5, 2), (7, 4)])
@pytest.mark.parametrize("eps", [-0.3, 0.2, 0.5, 0.8])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_finite_pairs_match_the_exact_profile(pair, t, k, eps, direction):
    """Sound, and exact for these pairs: the atoms at ±inf have bins of their own and the few finite losses are
    separated by the lattice, so S distinguishes the sufficient count vectors."""
    ref = exact_delta(pair, t, k, eps, direction)
    got = separable.delta_lower(pair.loss_law(), t, k, eps, direction)[direction]
    assert got <= ref.lower
    assert got >= ref.lower * (1 - 1e-9) - 1e-12


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_quantized_gaussian_k_of_t(direction):
    """A Gaussian seen through 10 bins, t = 5, k = 2 (exact k-subset enumeration): below and within 5%."""
    pair = quantized_gaussian(np.linspace(-1.0, 2.0, 9))
    for eps in (0.0, 0.4, 1.0):
        ref = exact_delta(pair, 5, 2, eps, direction)
        got = separable.delta_lower(pair.loss_law(), 5, 2, eps, direction)[direction]
        assert ref.lower * 0.95 <= got <= ref.lower, (eps, got, ref.lower)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_k1_against_quadrature(direction):
    """k = 1, t = 2: below the exact (quadrature) profile; within 1% at small ε, 5% at ε = 1 (the lattice, set
    by the bulk of the law, is coarse for the heavy tail of the ratio e^ℓ)."""
    for eps, rtol in ((0.0, 0.01), (0.3, 0.01), (1.0, 0.05)):
        ref = exact_delta(Gaussian(1), 2, 1, eps, direction)
        got = separable.delta_lower(GaussianLoss(1.0), 2, 1, eps, direction)[direction]
        assert ref.lower * (1 - rtol) <= got <= ref.lower, (eps, got, ref.lower)


@pytest.mark.parametrize("sigma,t,epochs", [(2.0, 20, 1), (1.0, 3, 2), (5.0, 200, 1)])
def test_every_step_used_matches_f13(sigma, t, epochs):
    """k = t: the allocation is the (tE)-fold Gaussian composition, F13 at σ/√(tE); the summed-loss statistic
    (p = 1) recovers it to the lattice's rounding."""
    noise = sigma / math.sqrt(t * epochs)
    for eps in (0.0, 0.5, 2.0):
        ref = f13(noise, eps)
        got = separable.delta_lower(GaussianLoss(sigma), t, t, eps, "both", epochs=epochs)
        for d in ("remove", "add"):
            assert got[d] <= ref
            assert got[d] >= ref * (1 - 1e-2) - 1e-13, (d, eps, got[d], ref)


def test_epsilon_is_certified():
    """The returned ε has δ_lower(ε) > δ (checked here) and lies below the exact ε(δ) of randomized response."""
    bound = separable.separable_bound(RR.loss_law(), 8, 3)
    for d in ("remove", "add"):
        eps = bound.epsilon(1e-3, d)
        assert bound.delta(eps, d) > 1e-3
        exact = api.epsilon(Config(RR, steps=8, k=3), "1e-3", direction=d, method="exact", digits=20)
        assert eps <= exact.lower
        assert eps >= exact.lower - 1e-6


def test_directed_single_step_laws():
    """The lower single-step masses sit below the upper ones, and their totals bracket 1."""
    single, _ = separable.single_step(GaussianLoss(0.8), 0.05)
    for side in ("p", "q"):
        lo, hi = single[side, "lower"].masses, single[side, "upper"].masses
        assert np.all(lo <= hi)
        assert math.fsum(lo) <= 1.0 <= math.fsum(hi)


@pytest.mark.parametrize("sigma,t,k,delta", [(1.5, 50, 5, 1e-6), (1.0, 200, 4, 1e-5), (2.0, 30, 3, 1e-4)])
def test_below_the_f27_upper_end(sigma, t, k, delta):
    """The pld route's F27 upper end (independent code: ⌊t/k⌋ allocation composed k times) stays above."""
    config = Config(Gaussian(sigma), steps=t, k=k)
    lower = separable.epsilon_lower(GaussianLoss(sigma), t, k, delta, "both")
    for d in ("remove", "add"):
        upper = pld_accountant.epsilon(config, delta, direction=d).upper
        assert lower[d] is not None and lower[d] <= upper


def test_accountant_bracket_at_issue_13():
    """σ = 1.5, t = 50, k = 5, δ = 1e-6 was [2.113, 2.470]: the lower end is now within 3% of the upper."""
    b = pld_accountant.epsilon(Config(Gaussian("1.5"), steps=50, k=5), 1e-6)
    assert float(b.lower) > 0.97 * float(b.upper)
    assert any("separable" in note for note in b.details["remove"].details["notes"])


@pytest.mark.parametrize("eps", [0.0, 0.05])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_randomized_response_is_exact_with_one_statistic(eps, direction):
    """t·E > SEARCH_MAX_COPIES: p = k/t alone, still the exact profile on two outputs (S is sufficient)."""
    t, k = 2500, 3
    assert t > separable.SEARCH_MAX_COPIES
    ref = exact_delta(RR, t, k, eps, direction)
    got = separable.delta_lower(RR.loss_law(), t, k, eps, direction)[direction]
    assert got <= ref.lower
    assert got >= ref.lower * (1 - 1e-7)


def test_accountant_bracket_beyond_the_old_copy_limit():
    """σ = 1, k = 4, t = 3·10⁴ (t·E was above the separable end's limit of 2·10⁴: the lower end was the k = 1
    profile, 26 % below at t = 10⁵): now within 1 % of the upper end, which stays above it."""
    b = pld_accountant.epsilon(Config(Gaussian("1"), steps=30_000, k=4), 1e-5)
    assert 0.99 * float(b.upper) < float(b.lower) <= float(b.upper)
    assert any("separable" in note for note in b.details["remove"].details["notes"])


def test_not_used_at_k1_or_k_equal_t():
    assert pipeline._separable(Config(Gaussian(1), steps=10), "both", None, None) == {}
    assert pipeline._separable(Config(Gaussian(1), steps=10, k=10), "both", None, None) == {}


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_every_finite_loss_beyond_the_float64_exponent_range(direction):
    """P = (1, 0), Q = (1e-400, 1 − 1e-400): the one finite loss is ln 10^400 ≈ 921 (> 709.8, e^ℓ overflows) and
    Q has an atom at −inf. The cut range is clamped into [−LOSS_CAP, LOSS_CAP] (this raised OverflowError); beyond
    ε = LOSS_CAP the bound offered is 0, still below the exact value."""
    pair = DiscretePair(["1", "0"], ["1e-400", "1"])
    law = pair.loss_law()
    for eps, tight in ((0.5, True), (800.0, False)):
        ref = exact_delta(pair, 5, 2, eps, direction)
        got = separable.delta_lower(law, 5, 2, eps, direction)[direction]
        assert 0 <= got <= ref.lower
        if tight:
            assert got >= ref.lower * (1 - 1e-9) - 1e-12


def exact_product_delta(p, q, epochs, eps) -> mp.mpf:
    """H_{e^ε}(p^⊗E ‖ q^⊗E) by enumerating the outcomes of the product (mpmath, 40 digits)."""
    import itertools

    with mp.workdps(40):
        p, q, kappa = [mp.mpf(x) for x in p], [mp.mpf(x) for x in q], mp.exp(mp.mpf(eps))
        total = mp.mpf(0)
        for xs in itertools.product(range(len(p)), repeat=epochs):
            a, b = mp.fprod(p[x] for x in xs), mp.fprod(q[x] for x in xs)
            total += max(a - kappa * b, 0)
        return total


@pytest.mark.parametrize("eps", [-0.5, 0.0, 0.3, 1.0, 2.5])
@pytest.mark.parametrize("epochs", [2, 3, 5])
def test_epoch_product_against_enumeration(eps, epochs):
    """epoch_product.EpochProduct: below the exact E-fold hockey stick of a pair with an atom at +inf, within the
    loss grid's rounding; an upper law missing mass (b = q − m, err = ‖m‖₁) is corrected: without the κ·E·err
    term its δ would exceed the exact one (the pair (p, b) has a larger divergence than (p, q))."""
    from verialloc.numeric.pld.allocation.epoch_product import EpochProduct

    p, q = np.array([0.5, 0.3, 0.2, 0.0]), np.array([0.2, 0.3, 0.4, 0.1])
    exact = exact_product_delta(p, q, epochs, eps)
    got = EpochProduct(p, q, 0.0, epochs, 0.0).delta(eps)
    assert got <= exact and got >= exact * (1 - 1e-3) - 1e-12, (got, exact)
    short = q - np.array([0.1, 0.0, 0.0, 0.0])
    assert float(exact_product_delta(p, short, epochs, eps)) > float(exact) + 1e-3
    assert EpochProduct(p, short, 0.1, epochs, 0.0).delta(eps) <= exact


@pytest.mark.parametrize("mech", [RR, NEG_INF_PAIR], ids=["rr", "neg-inf"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_per_epoch_statistic_matches_the_exact_profile(mech, direction):
    """Epochs composed per epoch (the route beyond SEARCH_MAX_COPIES, asked for directly at small t): below the
    exact layer's E-epoch profile (exact composition) and within 1e-3 of it (S is sufficient for these pairs)."""
    t, k, epochs = 5, 2, 3
    bound = separable.separable_bound(mech.loss_law(), t, k, epochs=epochs, per_epoch=True)
    assert bound.epochs == epochs
    for eps in (-0.3, 0.0, 0.5, 1.5):
        ref = api.delta(
            Config(mech, steps=t, k=k, epochs=epochs), repr(eps), direction=direction, method="exact", digits=20
        )
        got = bound.delta(eps, direction)
        assert ref.lower * (1 - 1e-3) <= got <= ref.lower, (eps, got, ref.lower)


@pytest.mark.parametrize("sigma,t,epochs,delta", [(1.0, 500, 10, 1e-5), (2.0, 400, 8, 1e-8)])
def test_per_epoch_route_below_the_pld_upper_end(sigma, t, epochs, delta):
    """Gaussian, k = 4, t·E > SEARCH_MAX_COPIES: the separable lower end (per epoch) stays below the pld route's
    upper end (independent code: block allocations composed) in both directions, and within 5 % of it."""
    assert t * epochs > separable.SEARCH_MAX_COPIES
    config = Config(Gaussian(repr(sigma)), steps=t, k=4, epochs=epochs)
    lower = separable.epsilon_lower(GaussianLoss(sigma), t, 4, delta, "both", epochs=epochs)
    for d in ("remove", "add"):
        upper = float(pld_accountant.epsilon(config, delta, direction=d).upper)
        assert lower[d] is not None and 0.95 * upper <= lower[d] <= upper, (d, lower[d], upper)
