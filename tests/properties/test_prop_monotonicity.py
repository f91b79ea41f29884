"""Monotonicity invariants, proved exactly (rational arithmetic, brute-force enumeration) on small instances,
and their consequences for every method's brackets where the exact layer stops.

Exact instances: H_κ at rational κ = e^ε for all κ ≥ 0 (ε ∈ ℝ), pairs from `verialloc.testing.brute_force`.
"""
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.numeric.accountant import Settings, plds
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import configs, finite_mechanisms, gaussians, probability_pairs, rates

KAPPAS = st.integers(0, 40).map(lambda n: Fraction(n, 8))  # κ = e^ε ∈ [0, 5]: ε from −∞ to ln 5
small_pairs = probability_pairs(max_atoms=3, max_weight=4)
FAST = Settings(loss_step=1e-2, tail=1e-10, grid_step=2e-2)


def both(pair, kappa):
    a, b = pair
    return bf.hockey_stick(a, b, kappa), bf.hockey_stick(b, a, kappa)


@given(small_pairs, st.integers(1, 3), st.lists(KAPPAS, min_size=3, max_size=3, unique=True))
def test_profile_bounds_monotone_and_convex_in_kappa_exactly_I1(pq, t, kappas):
    """I1 (F2): max(0, 1−κ) ≤ H_κ ≤ 1, H_0 = 1, κ ↦ H_κ non-increasing and convex; allocation pair, both
    directions, exact rationals."""
    k1, k2, k3 = sorted(kappas)
    pair = bf.allocation(*pq, t)
    for d in range(2):
        h1, h2, h3 = (both(pair, k)[d] for k in (k1, k2, k3))
        assert both(pair, 0)[d] == 1
        for k, h in ((k1, h1), (k2, h2), (k3, h3)):
            assert max(0, 1 - k) <= h <= 1
        assert h1 >= h2 >= h3
        assert h2 * (k3 - k1) <= h1 * (k3 - k2) + h3 * (k2 - k1)  # convexity on (k1, k2, k3)


@given(small_pairs, st.integers(1, 3), KAPPAS)
def test_allocation_non_decreasing_in_k_exactly_I7(pq, t, kappa):
    """I7 (F30, [004] Lemma D.1): H_κ(A_{t,k}‖Q^t) ≤ H_κ(A_{t,k+1}‖Q^t), both directions, all κ ≥ 0; and F30's
    mixture form: A_{t,k} is below the uniform mixture of A_{t,k'} over k' ≥ k."""
    pairs = [bf.allocation(*pq, t, k) for k in range(1, t + 1)]
    values = [both(pair, kappa) for pair in pairs]
    for lo, hi in zip(values, values[1:]):
        assert lo[0] <= hi[0] and lo[1] <= hi[1]
    q_t = pairs[0][1]
    weights = [Fraction(1, t)] * t
    mixed = bf.mixture(weights, pairs)
    assert values[0][0] <= bf.hockey_stick(mixed, q_t, kappa)
    assert values[0][1] <= bf.hockey_stick(q_t, mixed, kappa)


@given(small_pairs, st.integers(1, 3), rates(), rates(), KAPPAS)
def test_poisson_non_decreasing_in_rate_and_steps_exactly_I6(pq, t, l1, l2, kappa):
    """I6 (F29, F46): the Poisson profile is non-decreasing in λ and in the number of steps, both directions."""
    lo, hi = sorted((l1, l2))
    a, b = both(bf.poisson(*pq, t, lo), kappa), both(bf.poisson(*pq, t, hi), kappa)
    more = both(bf.poisson(*pq, t + 1, lo), kappa)
    for d in range(2):
        assert a[d] <= b[d] and a[d] <= more[d]


@given(small_pairs, st.integers(1, 2), KAPPAS)
def test_profile_non_decreasing_in_epochs_exactly(pq, t, kappa):
    """F8/F21 marginalization: composing one more epoch never lowers H_κ (allocation, both directions)."""
    pair = bf.allocation(*pq, t)
    one, two = both(pair, kappa), both(bf.product(pair, pair), kappa)
    assert one[0] <= two[0] and one[1] <= two[1]


@given(gaussians(), gaussians(), st.integers(1, 4), st.integers(-8, 16).map(lambda n: Fraction(n, 8)))
def test_gaussian_profiles_non_increasing_in_sigma_I5(g1, g2, t, eps):
    """I5 (F8 post-processing): exact Gaussian profiles (F13 composition with every step used; one Poisson step,
    F12) are non-increasing in σ."""
    small, large = sorted((g1, g2), key=lambda g: g.sigma)
    for make in (lambda g: Config(g, steps=t, k=t), lambda g: Config(g, "poisson", steps=1, rate=Fraction(1, t))):
        d_small = api.delta(make(small), eps, direction="both", digits=15)
        d_large = api.delta(make(large), eps, direction="both", digits=15)
        assert d_large.lower <= d_small.upper


SLOW = pytest.mark.slow  # the analytic method takes tens of seconds on Gaussian allocation at t ≥ 10
CHAINS = [  # (favourable, unfavourable) configurations: exact profile of the first ≤ that of the second
    pytest.param("sigma I5", Config(Gaussian(Fraction(6, 5)), steps=20), Config(Gaussian(1), steps=20), marks=SLOW),
    ("rate I6", Config(Gaussian(1), "poisson", steps=30, rate=Fraction(1, 30)),
     Config(Gaussian(1), "poisson", steps=30, rate=Fraction(1, 15))),
    ("steps I6", Config(RandomizedResponse(1), "poisson", steps=20, rate=Fraction(1, 10)),
     Config(RandomizedResponse(1), "poisson", steps=40, rate=Fraction(1, 10))),
    pytest.param("epochs", Config(Gaussian(2), steps=10), Config(Gaussian(2), steps=10, epochs=2), marks=SLOW),
    pytest.param("k I7", Config(Gaussian(2), steps=12, k=1), Config(Gaussian(2), steps=12, k=3), marks=SLOW),
]


@pytest.mark.parametrize("name, good, bad", CHAINS)
def test_every_method_respects_the_monotone_order(certified, name, good, bad):
    """I5, I6, I7, epochs for every certified method beyond the exact layer: lower(good) ≤ exact(good) ≤ exact(bad)
    ≤ upper(bad), so lower(good) ≤ upper(bad) must hold for every pair of methods."""
    eps = Fraction(1, 2)
    lows = certified(lambda m, **o: api.delta(good, eps, direction="both", method=m, **o))
    highs = certified(lambda m, **o: api.delta(bad, eps, direction="both", method=m, **o))
    assert lows and highs
    for m1, lo in lows.items():
        for m2, hi in highs.items():
            assert lo.lower <= hi.upper, f"{name}: {m1} lower {lo.lower} at {good} > {m2} upper {hi.upper} at {bad}"


@given(configs(finite_mechanisms(max_atoms=3), max_steps=3))
@settings(max_examples=10)
def test_pld_bounds_non_increasing_and_convex_in_e_epsilon_I1(config):
    """I1 on the pld method's own PLDs: each bound is the hockey-stick of a fixed law, so δ is non-increasing and
    convex in κ = e^ε (checked on a κ grid with float64 slack)."""
    table = plds(config, FAST, epsilon_max=3.0)
    kappas = mp.linspace(0.05, 20, 60)
    eps = [float(mp.log(k)) for k in kappas]
    for d in ("remove", "add"):
        for b in ("lower", "upper"):
            values = [table[d, b].delta(e) for e in eps]
            assert all(x >= y - 1e-15 for x, y in zip(values, values[1:]))
            for i in range(1, len(values) - 1):
                k0, k1, k2 = (float(kappas[j]) for j in (i - 1, i, i + 1))
                chord = (values[i - 1] * (k2 - k1) + values[i + 1] * (k1 - k0)) / (k2 - k0)
                assert values[i] <= chord + 1e-12
