"""I31 (formulas.md §13.4; F37, F31, F12; [004] Lemma D.4, erratum E1): the identities inside the decomposition bound.

For the conditioned Poisson mixture P⁺ = γ→ Σ_{k≥1} B_{t,λ}(k) A_{t,k} (F31), exactly for any pair and λ ∈ (0, 1]:
    H_{e^ε}(P⁺‖Q^t) = γ→ · H_{e^{ε→}}(P_{t,λ}‖Q^t),      H_{e^ε}(Q^t‖P⁺) = γ← · H_{e^{ε←}}(Q^t‖P_{t,λ}),
γ→ = 1/(1 − (1 − λ)^t), γ← = 1 + e^ε(γ→ − 1), ε→ = ln(1 + (e^ε − 1)/γ→), ε← = −ln(1 − (1 − e^{−ε})/γ→);
at t = 1 (P⁺ = P) the remove bound is an equality with the single-step profile.

Production code under test: `numeric.analytic.decomposition.delta` — γ · (sound upper PLD bound of the Poisson profile
at the shifted ε), i.e. the right-hand sides. Reference: the left-hand sides, H of P⁺ against Q^t, summed here in
exact rationals over all output sequences (`testing.brute_force.allocation` for every k, mixed with the binomial
weights), e^ε to 45 digits. Since the right-hand side is an identity, the production value must match it from
above (sound: ≥ the reference) and closely: the Poisson PLD's loss grid Δ = 1e−3 moves each of its t losses up by
at most Δ, and a PLD whose losses rise by at most s has δ(ε) ≤ δ_exact(ε) + (e^s − 1), so value ≤ reference +
γ·(e^{tΔ} − 1) (a fixed relative slack is not enough: a random seed gave +20 % at δ = 2e−4).

Bugs it catches: the add direction answered with the remove factor γ→ or the remove shift ε→ (v1's form, E1), a
wrong γ→ (e.g. 1/λ, or (1 − λ)^{t−1}), a shift ε′ = ln(1 + (e^ε − 1)γ) (factor inverted), a Poisson ingredient at
the wrong rate or direction.
"""

import math
from fractions import Fraction

import mpmath as mp
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options, decomposition
from verialloc.testing import brute_force as bf
from verialloc.testing.strategies import probability_pairs

#: the Poisson ingredient's grid: loss step 1e-3 keeps every case well under a second
GRID = Settings(loss_step=1e-3, tail=1e-15)
TIGHT_REL, TIGHT_ABS = 1e-4, 1e-12
pairs = probability_pairs(max_atoms=3, max_weight=4).filter(lambda pq: any(x > 0 and y > 0 for x, y in zip(*pq)))
epsilons = st.sampled_from([Fraction(0), Fraction(1, 8), Fraction(1, 2), Fraction(1), Fraction(7, 4), Fraction(3)])


def gamma_remove(t: int, lam: Fraction) -> Fraction:
    """γ→ = 1/(1 − (1 − λ)^t) (F37), exactly."""
    return 1 / (1 - (1 - lam) ** t)


def conditioned_poisson(p, q, t: int, lam: Fraction) -> tuple[dict, dict]:
    """(P⁺, Q^t) over output sequences, exactly: P⁺ = γ→ Σ_{k=1..t} B_{t,λ}(k) A_{t,k} (F31)."""
    gamma = gamma_remove(t, lam)
    plus: dict = {}
    q_t = None
    for k in range(1, t + 1):
        weight = gamma * math.comb(t, k) * lam**k * (1 - lam) ** (t - k)
        a, q_t = bf.allocation(p, q, t, k)
        for y, m in a.items():
            plus[y] = plus.get(y, 0) + weight * m
    return plus, q_t


def kappa(eps: Fraction) -> Fraction:
    """e^ε as a rational correct to 45 digits (the reference's only rounding)."""
    with mp.workdps(60):
        return Fraction(mp.nstr(mp.exp(mp.mpf(eps.numerator) / eps.denominator), 45))


def check(p, q, t: int, lam: Fraction, eps: Fraction, direction: str) -> None:
    plus, q_t = conditioned_poisson(p, q, t, lam)
    k = kappa(eps)
    ref = float(bf.hockey_stick(plus, q_t, k) if direction == "remove" else bf.hockey_stick(q_t, plus, k))
    options = Options(pld=GRID, rate=float(lam))
    value = decomposition.delta(Config(DiscretePair(p, q), steps=t), float(eps), direction, options).value
    what = (p, q, t, lam, eps, direction, value, ref)
    assert value >= ref * (1 - 1e-12), what  # sound: the Poisson ingredient is an upper bound
    gamma = gamma_remove(t, lam)
    factor = gamma if direction == "remove" else 1 + k * (gamma - 1)
    grid = float(factor) * math.expm1(t * GRID.loss_step)
    assert value <= ref * (1 + TIGHT_REL) + grid + TIGHT_ABS, what  # Lemma D.4 is an identity: only the grid's slack


@given(pairs, st.integers(1, 3), st.integers(1, 4), epsilons, st.sampled_from(["remove", "add"]))
@settings(max_examples=25)
def test_decomposition_value_is_h_of_the_conditioned_poisson_mixture_F37_I31(pq, t, denominator, eps, direction):
    """Lemma D.4 (both directions, E1) on random pairs with zero masses, t ≤ 3, λ ∈ {1/t, 1/2, …}."""
    p, q = pq
    lam = Fraction(1, t) if denominator == 4 else Fraction(1, denominator)
    check(p, q, t, lam, eps, direction)


def test_remove_bound_is_an_equality_at_one_step():
    """t = 1: P⁺ = P, so the remove bound equals the exact single-step profile H_{e^ε}(P‖Q), for λ = 1 and λ = 1/2
    (then γ→ = 2 and the Poisson step is F12 (b))."""
    p, q = (
        [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6), Fraction(0)],
        [Fraction(1, 6), Fraction(1, 3), Fraction(1, 4), Fraction(1, 4)],
    )
    for lam in (Fraction(1), Fraction(1, 2)):
        for eps in (Fraction(0), Fraction(1, 4), Fraction(1)):
            value = decomposition.delta(
                Config(DiscretePair(p, q), steps=1), float(eps), "remove", Options(pld=GRID, rate=float(lam))
            ).value
            exact = float(bf.hockey_stick(*bf.single(p, q), kappa(eps)))
            assert exact * (1 - 1e-12) <= value <= exact * (1 + TIGHT_REL) + TIGHT_ABS, (lam, eps, value, exact)
