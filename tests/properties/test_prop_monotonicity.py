"""Monotonicity invariants (I1, I5, I6, I7, epochs) asserted on verialloc's brackets.

A true profile is non-increasing and convex in κ = e^ε (I1), non-decreasing in k (I7), in the Poisson rate, the
number of steps and epochs (I6, F8), non-increasing in σ (I5). These cannot fail on one valid PLD, so each test
compares brackets from *different calls*: different ε (every call re-discretizes, e.g. the pld method's windows
follow |ε|), different configurations, different methods. If X ≤ Y holds for the true values, then for every
pair of certified methods lower(X) ≤ upper(Y) must hold; a bracket end on the wrong side of the truth, or a bug
that breaks the order (a flipped rounding, a rate or step count mixed up), makes such a pair fail.

* `test_brackets_across_epsilons_are_monotone_and_convex_I1` — random finite configurations (allocation any k,
  Poisson, epochs), three ε per draw: lower(ε_j) ≤ upper(ε_i) for ε_i < ε_j; lower(κ2) ≤ the chord of the
  uppers at κ1 < κ2 < κ3 (κ enclosed rigorously, `_reference.exp_bounds`); max(0, 1 − e^ε) ≤ upper, lower ≤ 1.
* `test_allocation_brackets_non_decreasing_in_k_I7` — lower(k) ≤ upper(k') for k < k', both directions; F30's
  mixture form on the exact layer's k-subset pairs in rationals.
* `test_poisson_brackets_non_decreasing_in_rate_steps_and_epochs_I6` — lower at (λ, t, E) ≤ upper at (λ', t, E),
  (λ, t + 1, E) and (λ, t, 2E), λ ≤ λ', both directions.
* `test_allocation_brackets_non_decreasing_in_epochs` — lower(E = 1) ≤ upper(E = 2), allocation, any k.
* `test_gaussian_profiles_non_increasing_in_sigma_I5`, `test_every_method_respects_the_monotone_order` — I5, I6,
  I7, epochs on continuous mechanisms (exact closed forms, and every method beyond the exact layer).
* `test_brackets_beyond_the_exact_layer_are_monotone_convex_and_invert_consistently_I1` — Gaussian Poisson,
  Laplace allocation and a long randomized-response Poisson configuration, where no exact value exists: the ε-grid checks above across calls, plus the δ(ε) ↔ ε(δ)
  consistency: at ε_up = upper ε(δ), every lower δ(ε_up) ≤ δ; at ε_lo = lower ε(δ), every upper δ(ε_lo) ≥ δ.

Every bracket end is compared as an exact rational (`_reference.frac`); exact-layer answers carry their stated
budget ("digits" significant digits), float methods none.

Mutations checked to be killed (#16): the pld method answering "add" from its remove PLDs (I1 on finite pairs, and
all three beyond-exact configurations through δ(ε) ↔ ε(δ)); allocation_pair's (t−k)! → (t−k−1)! (I7); the pld
Poisson rate × 0.95 (I6, beyond-exact randomized response); the pld allocation composing k instead of k·E
copies (epochs).
"""

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from _reference import SKIP_COMBINED, asker, delta_ends, epsilon_values, exp_bounds, finite_loss, frac
from verialloc import Config, DiscretePair, Gaussian, Laplace, RandomizedResponse, api
from verialloc.exact.discrete_profiles import allocation_pair
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import configs, directions, finite_mechanisms, gaussians, probability_pairs, rates

DIGITS = 30
served_pairs = probability_pairs(max_atoms=3, max_weight=4).filter(finite_loss)


def ends(bracket) -> tuple[Fraction, Fraction]:
    return delta_ends(bracket, DIGITS)


def assert_order(low: dict, high: dict, what: str) -> None:
    """True value at `low` ≤ true value at `high` ⇒ every lower end of `low` ≤ every upper end of `high`."""
    for m1, b1 in low.items():
        for m2, b2 in high.items():
            assert ends(b1)[0] <= ends(b2)[1], f"{what}: {m1} lower {b1.lower} > {m2} upper {b2.upper}"


def assert_profile_shape(table: dict, what: str) -> None:
    """table {ε: {method: δ bracket}}: non-increasing in ε, convex in κ = e^ε, within [max(0, 1 − κ), 1] (I1)."""
    grid = sorted(table)
    kappas = {e: exp_bounds(e) for e in grid}
    for e in grid:
        for m, b in table[e].items():
            lo, hi = ends(b)
            assert hi >= 1 - kappas[e][1] and lo <= 1, f"{what}: {m} at eps={e} outside [1 - e^eps, 1]: {b}"
    for i, e1 in enumerate(grid):
        for e2 in grid[i + 1 :]:
            assert_order(table[e2], table[e1], f"{what}: non-increasing, eps {e1} < {e2}")
    for i, e1 in enumerate(grid):
        for j in range(i + 1, len(grid)):
            for e3 in grid[j + 1 :]:
                e2 = grid[j]
                (k1l, k1h), (k2l, k2h), (k3l, k3h) = kappas[e1], kappas[e2], kappas[e3]
                # enclosure of w = (κ2 − κ1)/(κ3 − κ1) ∈ (0, 1): numerator low over denominator high and back; the
                # former mix (k3l − k1h below) overstated w_min when κ3 − κ2 was below the enclosures' width (ε2 = 0,
                # ε3 = 6.3e-173, seed-runs 219: a chord below the exact 0)
                w_min = max(Fraction(0), (k2l - k1h) / (k3h - k1l))
                w_max = min(Fraction(1), (k2h - k1l) / (k3l - k1h)) if k3l > k1h else Fraction(1)
                for m2, b2 in table[e2].items():
                    for m1, b1 in table[e1].items():
                        for m3, b3 in table[e3].items():
                            u1, u3 = ends(b1)[1], ends(b3)[1]
                            chord = u1 + (u3 - u1) * (w_max if u3 >= u1 else w_min)
                            assert ends(b2)[0] <= chord, (
                                f"{what}: not convex in e^eps: {m2} lower {b2.lower} at {e2} "
                                f"> chord of {m1} upper at {e1}, {m3} upper at {e3}"
                            )


def brackets(certified, config, eps, direction) -> dict:
    return certified(
        asker(api.delta, config, eps, direction, DIGITS), exclude=SKIP_COMBINED, what=f"{config} {direction} eps={eps}"
    )


@given(
    configs(finite_mechanisms(max_atoms=3), max_steps=3),
    st.lists(epsilon_values(), min_size=3, max_size=3, unique=True),
    directions(both=False),
)
@settings(max_examples=8)
@example(Config(DiscretePair([1], [1])), [Fraction(0), Fraction(6.284333095204826e-173), Fraction(-4)], "remove")
def test_brackets_across_epsilons_are_monotone_and_convex_I1(certified, config, eps3, direction):
    """I1 (F2) across calls: every method at three ε, both orders of comparison across methods."""
    table = {e: brackets(certified, config, e, direction) for e in eps3}
    assert all("exact" in t and "pld" in t for t in table.values())
    assert_profile_shape(table, f"{config} {direction}")


@given(
    st.one_of(served_pairs.map(lambda pq: DiscretePair(*pq)), finite_mechanisms(3)),
    st.integers(2, 3),
    epsilon_values(),
    directions(both=False),
)
@settings(max_examples=6)
def test_allocation_brackets_non_decreasing_in_k_I7(certified, mech, t, eps, direction):
    """I7 (F30, [004] Lemma D.1): lower(A_{t,k}) ≤ upper(A_{t,k'}) for k < k' and every pair of methods; and, for
    rational pairs, F30's mixture form H_κ(A_{t,1}‖Q^t) ≤ H_κ(Σ_k A_{t,k}/t ‖ Q^t) (both directions) on the exact
    layer's pairs at the rational κ = the lower end of the e^ε enclosure."""
    per_k = [brackets(certified, Config(mech, steps=t, k=k), eps, direction) for k in range(1, t + 1)]
    for k, low in enumerate(per_k, 1):
        for k2 in range(k + 1, t + 1):
            assert_order(low, per_k[k2 - 1], f"{mech} t={t} {direction} eps={eps}: k={k} vs k={k2}")
    if isinstance(mech, DiscretePair):
        kappa = exp_bounds(eps)[0]
        exact = [allocation_pair(mech, t, k, exact=True) for k in range(1, t + 1)]  # atoms labelled by counts
        first, q_t = dict(zip(exact[0].labels, exact[0].a)), dict(zip(exact[0].labels, exact[0].b))
        mixed = bf.mixture([Fraction(1, t)] * t, [(dict(zip(pair.labels, pair.a)), None) for pair in exact])
        assert bf.hockey_stick(first, q_t, kappa) <= bf.hockey_stick(mixed, q_t, kappa)
        assert bf.hockey_stick(q_t, first, kappa) <= bf.hockey_stick(q_t, mixed, kappa)


@given(finite_mechanisms(3), st.integers(1, 3), rates(), rates(), epsilon_values(), directions(both=False))
@settings(max_examples=8)
def test_poisson_brackets_non_decreasing_in_rate_steps_and_epochs_I6(certified, mech, t, l1, l2, eps, direction):
    """I6 (F29, F46, F8): the Poisson profile is non-decreasing in λ, in t and in the epochs, both directions."""
    lo, hi = sorted((l1, l2))
    base = brackets(certified, Config(mech, "poisson", steps=t, rate=lo), eps, direction)
    for bigger in (
        Config(mech, "poisson", steps=t, rate=hi),
        Config(mech, "poisson", steps=t + 1, rate=lo),
        Config(mech, "poisson", steps=t, rate=lo, epochs=2),
    ):
        assert_order(base, brackets(certified, bigger, eps, direction), f"{bigger} vs rate {lo}, t={t} {direction}")


@given(
    finite_mechanisms(3),
    st.integers(1, 3).flatmap(lambda t: st.tuples(st.just(t), st.integers(1, t))),
    epsilon_values(),
    directions(both=False),
)
@settings(max_examples=8)
def test_allocation_brackets_non_decreasing_in_epochs(certified, mech, tk, eps, direction):
    """F8/F21 marginalization: composing a second epoch never lowers δ: lower(E = 1) ≤ upper(E = 2), any k."""
    t, k = tk
    one = brackets(certified, Config(mech, steps=t, k=k), eps, direction)
    two = brackets(certified, Config(mech, steps=t, k=k, epochs=2), eps, direction)
    assert_order(one, two, f"{mech} t={t} k={k} {direction} eps={eps}: epochs 1 vs 2")


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
    (
        "rate I6",
        Config(Gaussian(1), "poisson", steps=30, rate=Fraction(1, 30)),
        Config(Gaussian(1), "poisson", steps=30, rate=Fraction(1, 15)),
    ),
    (
        "steps I6",
        Config(RandomizedResponse(1), "poisson", steps=20, rate=Fraction(1, 10)),
        Config(RandomizedResponse(1), "poisson", steps=40, rate=Fraction(1, 10)),
    ),
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


BEYOND = [  # no exact value: every end is checked against the other calls' ends only (the analytic method spends
    # 1-4 s on its first Gaussian allocation query: Gaussian allocation is in CHAINS' slow cases)
    Config(Gaussian(2), "poisson", steps=10, rate=Fraction(1, 5), epochs=2),
    Config(Laplace(1), steps=4),
    Config(RandomizedResponse(1), "poisson", steps=20, rate=Fraction(1, 4), epochs=2),
]
EPS_GRID = [Fraction(-1, 2), Fraction(0), Fraction(3, 5), Fraction(2)]
TARGETS = [Fraction(1, 10**4)]
NOT_PLD = tuple(m for m in api.METHODS if m != "pld")


@pytest.mark.parametrize("config", BEYOND, ids=lambda c: f"{c.mechanism!r}-{c.scheme}-t{c.steps}-k{c.k}")
def test_brackets_beyond_the_exact_layer_are_monotone_convex_and_invert_consistently_I1(certified, config):
    """I1 across calls where no exact value exists (every call of the pld method re-discretizes with its own
    window), and δ(ε) ↔ ε(δ): δ(ε*) = δ at ε* = ε(δ), δ non-increasing, so lower δ(upper ε(δ)) ≤ δ and
    upper δ(lower ε(δ)) ≥ δ for every pair of methods."""
    for d in ("remove", "add"):
        table = {e: brackets(certified, config, e, d) for e in EPS_GRID}
        assert all("pld" in t for t in table.values())
        assert_profile_shape(table, f"{config} {d}")
        for target in TARGETS:
            eps = certified(asker(api.epsilon, config, target, d), exclude=NOT_PLD)["pld"]
            up, low = frac(eps.upper), frac(eps.lower)
            if up not in (float("inf"), float("-inf")):
                for m, b in brackets(certified, config, up, d).items():
                    assert ends(b)[0] <= target, (
                        f"{config} {d}: {m} lower delta at pld's upper eps({target}) > {target}"
                    )
            if low not in (float("inf"), float("-inf")):
                for m, b in brackets(certified, config, low, d).items():
                    assert ends(b)[1] >= target, (
                        f"{config} {d}: {m} upper delta at pld's lower eps({target}) < {target}"
                    )
