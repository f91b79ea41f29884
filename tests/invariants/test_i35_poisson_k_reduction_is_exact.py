"""I35, second part (formulas.md §13.4; F27 caveat (4), F46, F21): the Poisson analogue of the k-allocation reduction
is an equality — Poisson with rate k/t over t steps IS the k-fold composition of Poisson with rate k/t over t/k steps.

(The first part of I35, F27's bound ≥ the exact k-out-of-t profile for k | t, is asserted per method in
tests/numeric/analytic/test_analytic_bounds.py::test_k_and_epochs_compose_above_exact, tests/numeric/rdp/test_rdp_accountant.py::
test_k_allocation_bracket_contains_brute_force and tests/properties/test_prop_domination.py (allocation, any k).)

Production code under test: `api.delta` with method "exact" on `Config(mech, "poisson", steps=t, rate=k/t)` (the
count-vector Poisson pair over t steps) and on `Config(mech, "poisson", steps=t/k, rate=k/t, epochs=k)` (the E-fold
power of the t/k-step pair), both directions, and method "pld" on both. Reference: H_{e^ε} of the brute-force
product pair (λP + (1 − λ)Q)^{⊗t} vs Q^{⊗t} in exact rationals (`testing.brute_force.poisson`), e^ε enclosed to 45
digits.

Bugs it catches: epochs composed with the wrong multiplicity (k − 1 or k + 1 copies), a Poisson pair built for t/k
steps at rate 1/t (rate not carried to the blocks), remove/add swapped in the epoch route.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, DiscretePair, api
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.testing import brute_force as bf

PAIRS = [
    ([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]),
    ([Fraction(3, 4), Fraction(1, 4), Fraction(0)], [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]),
]
EPS = [Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(1)]


def kappa_bounds(eps: Fraction) -> tuple[Fraction, Fraction]:
    with mp.workdps(60):
        k = Fraction(mp.nstr(mp.exp(mp.mpf(eps.numerator) / eps.denominator), 50))
    return k * (1 - Fraction(1, 10**45)), k * (1 + Fraction(1, 10**45))


@pytest.mark.parametrize("pq", PAIRS, ids=["full-support", "zero-masses"])
@pytest.mark.parametrize("t, k", [(4, 2), (6, 3), (6, 2)])
def test_poisson_rate_k_over_t_equals_k_fold_composition(pq, t, k):
    p, q = pq
    mech, rate = DiscretePair(p, q), Fraction(k, t)
    whole = Config(mech, "poisson", steps=t, rate=rate)
    blocks = Config(mech, "poisson", steps=t // k, rate=rate, epochs=k)
    a, b = bf.poisson(p, q, t, rate)
    for eps in EPS:
        k_lo, k_hi = kappa_bounds(eps)
        for direction, (x, y) in (("remove", (a, b)), ("add", (b, a))):
            ref_lo, ref_hi = bf.hockey_stick(x, y, k_hi), bf.hockey_stick(x, y, k_lo)  # H non-increasing in κ
            values = [api.delta(c, eps, direction=direction, digits=30) for c in (whole, blocks)]
            with mp.workdps(40):
                lo = mp.mpf(ref_lo.numerator) / ref_lo.denominator
                hi = mp.mpf(ref_hi.numerator) / ref_hi.denominator
                for v in values:
                    assert lo * (1 - mp.mpf(10) ** -28) <= v.lower and v.upper <= hi * (1 + mp.mpf(10) ** -28), (
                        t,
                        k,
                        eps,
                        direction,
                        v,
                        float(lo),
                    )
            plds = [
                api.delta(c, eps, direction=direction, method="pld", settings=Settings(loss_step=1e-2))
                for c in (whole, blocks)
            ]
            for v in plds:
                assert v.lower <= hi * (1 + 1e-15) and v.upper >= lo * (1 - 1e-15), (t, k, eps, direction, v)
