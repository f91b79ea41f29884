"""Known gaps of issue #15 in certify: the fall-back ends of `PLD.epsilon_bound` (lower) (F2, I1) and the routing
rule `exact_step.exact_is_cheap`.

epsilon_lower must return an ε_lo ≤ ε(δ) of every truth dominating the lower PLD; the references are hockey-stick
curves (F2) of explicit PLDs written out here — randomized response with p = 3/4 (losses ±ln 3, P-masses 3/4 and
1/4: δ(ε) = ¾(1 − e^{ε − ln 3}) on [−ln 3, ln 3), so ε(δ) = ln(3 − 4δ) for δ < ¾, and ε(δ) = ln(1 − δ) below
−ln 3) and a lower PLD completed by the mass it dropped — solved in mpmath.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc import Config, DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.certify.exact_step import EXACT_MAX_COUNTS, EXACT_TERMS_PER_ATOM, exact_is_cheap
from verialloc.numeric.pld.pld import PLD, RETRIES

LN3 = math.log(3.0)
#: randomized response p = 3/4 as a lower PLD with no float budget (the stored floats are the exact masses)
RR = PLD(np.array([-LN3, LN3]), np.array([0.25, 0.75]), bound="lower")


def rr_epsilon(delta: Fraction) -> mp.mpf:
    """ε(δ) of the stored RR PLD (F2 solved in closed form at the float loss L = fl(ln 3)), δ ∈ (0, ¾)."""
    with mp.workdps(40):
        return mp.mpf(LN3) + mp.log(1 - mp.mpf(delta.numerator) / delta.denominator / mp.mpf("0.75"))


def test_verified_lower_epsilon_is_tight():
    """The normal path: ε_lo ≤ ε(δ) and within 1e−12 of it (the search plus one verification)."""
    delta = Fraction(1, 4)
    eps = RR.epsilon_bound(delta)
    assert rr_epsilon(delta) - mp.mpf("1e-12") <= eps <= rr_epsilon(delta)


def test_exhausted_retries_fall_back_to_a_sound_end(monkeypatch):
    """A search whose every candidate fails verification (here it always answers the last loss, where δ = 0):
    after RETRIES attempts epsilon_lower must return a sound lower end — −inf (nothing was verified), never +inf
    nor an unverified candidate. Kills `return -math.inf` → `+math.inf` at the end of the loop."""
    calls = []

    def failing_search(self, target):
        calls.append(target)
        return float(self.losses[-1])

    monkeypatch.setattr(PLD, "epsilon", failing_search)
    delta = Fraction(1, 4)
    eps = RR.epsilon_bound(delta)
    assert len(calls) == RETRIES
    assert eps <= rr_epsilon(delta)
    assert eps == -math.inf


def test_delta_next_to_one_gives_a_sound_end():
    """δ = 1 − 2^−60: the inflated target reaches 1, nothing above it can be verified; ε(δ) = ln(1 − δ) = −60 ln 2
    (I1, the region below −ln 3). Kills the `target + fe >= 1` exit returning +inf."""
    delta = 1 - Fraction(1, 2**60)
    assert RR.epsilon_bound(delta) <= -60 * math.log(2)


def test_lower_pld_with_dropped_mass_gives_a_sound_end():
    """A lower PLD that dropped mass ¼ (total ¾ < δ = 0.9): its search answers −inf. One truth dominating it puts
    the dropped mass back at loss 0 — a valid PLD (Σ m e^{−l} = ¼ + ¾e^{−1} ≤ 1) with δ(ε) = 1 − e^ε(¼ + ¾/e) for
    ε < 0, so ε(0.9) = ln(0.1/(¼ + ¾/e)) < 0: the answer must not exceed it. Kills the −inf candidate mapped to
    +inf."""
    lower = PLD(np.array([1.0]), np.array([0.75]), bound="lower", truncated=0.25)
    with mp.workdps(40):
        truth = mp.log(mp.mpf("0.1") / (mp.mpf("0.25") + mp.mpf("0.75") / mp.e))
    assert lower.epsilon_bound(Fraction(9, 10)) <= truth


def three_atoms(steps: int) -> Config:
    return Config(DiscretePair(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"]), steps=steps)


# (config, cheap?), each derived by hand from the documented rule: finite pairs by the atoms of the composed pair —
# N = C(t + m − 1, m − 1) count vectors (m outputs, all with Q > 0 here), then C(N + E − 1, E) after E epochs —
# at most EXACT_MAX_COUNTS, and N times the k-subset splits C(k + m − 1, m − 1) at most 4·EXACT_MAX_COUNTS; the
# Gaussian with k = t (allocation) or λ = 1 (Poisson) is an F13 composition; any other continuous pair only for
# t·E ≤ 2. (#14: the rule counted C(t·E + m − 1, m − 1), 601 for t = 2, E = 300, where the pair has 45 451 atoms.)
FIVE = DiscretePair(["0.3", "0.25", "0.2", "0.15", "0.1"], ["0.1", "0.15", "0.2", "0.25", "0.3"])
ROUTES = [
    (Config(RandomizedResponse(1), steps=19_999), True),  # m = 2: C(20 000, 1) = 20 000, at the limit
    (Config(RandomizedResponse(1), steps=20_000), False),  # C(20 001, 1)
    (Config(RandomizedResponse(1), steps=10_000, epochs=2), False),  # C(10 001 + 1, 2) = 50 015 001
    (Config(RandomizedResponse(1), steps=2, epochs=198), True),  # N = 3: C(200, 198) = 19 900
    (Config(RandomizedResponse(1), steps=2, epochs=199), False),  # C(201, 199) = 20 100 (t·E = 398)
    (three_atoms(198), True),  # C(200, 2) = 19 900
    (three_atoms(199), False),  # C(201, 2) = 20 100
    (Config(FIVE, steps=10, k=2), True),  # N = C(14, 4) = 1001, splits C(6, 4) = 15: 15 015 terms
    (Config(FIVE, steps=10, k=9), False),  # splits C(13, 4) = 715: 715 715 terms
    (Config(FIVE, steps=10, k=10), True),  # k = t: the t-fold composition, N = 1001, no k-subset terms
    (Config(Gaussian(1), steps=10, k=10), True),  # allocation with k = t: F13
    (Config(Gaussian(1), steps=10), False),  # k = 1 < t = 10
    (Config(Gaussian(1), "poisson", steps=10, rate=1), True),  # λ = 1: F13
    (Config(Gaussian(1), "poisson", steps=1, rate=Fraction(1, 2), epochs=5), False),  # λ < 1, t·E = 5
    (Config(Laplace(1), steps=10, k=10), False),  # not Gaussian, t·E = 10
    (Config(Laplace(1), steps=3), False),  # t·E = 3
    (Config(Laplace(1), steps=2), True),  # t·E = 2 (quadrature, F25)
    (Config(Laplace(1), steps=1, epochs=2), True),
    (Config(Laplace(1), "poisson", steps=2, rate=Fraction(1, 2)), True),  # F46, t = 2
]


@pytest.mark.parametrize(
    "config, cheap",
    ROUTES,
    ids=lambda x: (
        repr(x) if isinstance(x, bool) else f"{x.mechanism!r}-{x.scheme}-t{x.steps}-k{x.k}-E{x.epochs}-rate{x.rate}"
    ),
)
def test_exact_is_cheap_routes_by_the_documented_rule(config, cheap):
    """Routing (cost, not values): each case on one side of one clause of the rule. Kills: n = t/E, the count
    vector binomial off by one in either argument, `<=` → `<`, the allocation test inverted or misspelt
    ("XXallocationXX", "ALLOCATION"), `k == t` / `λ == 1` inverted or λ == 2, Gaussian `and` → `or`, the F13 route
    answering False, `n <= 2` → `< 2` / `<= 3`, the last clause's `and` → `or`, its inner `or` → `and`,
    `k in (1, t)` → `not in` / `(2, t)`. The scheme test of the last clause is redundant (t·E ≤ 2 forces
    k ∈ {1, t}), so its misspellings are equivalent."""
    assert EXACT_MAX_COUNTS == 20_000 and EXACT_TERMS_PER_ATOM == 4
    assert exact_is_cheap(config) is cheap
