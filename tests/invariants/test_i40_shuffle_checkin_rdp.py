"""I40 (formulas.md §13.5; F59, F60, F56/F39, [001] Thm 2, eq. 17, Conjecture 1): the subsampled-shuffle (F59) and
shuffled check-in (F60) RDP bounds.

F59: ε^SSG ≥ 0, non-decreasing in γ = m/n and in each ε^SG_m(j); F60 ≥ 0 (no monotonicity in γ is implied);
Conjecture 1 (the shuffle RDP decreases in n) is EMPIRICAL — logged here, compared with formulas.md §12.3's rows
t = 1, 2, 10, 1000 (those published values are asserted; the monotonicity beyond them is only logged).

Production code under test: `numeric.shuffle.shuffle.subsampled_shuffle_rdp` (F59), `checkin_shuffle_rdp` (F60),
`shuffle_gaussian_rdp` (F56). References: F59 evaluated here in mpmath from its printed form with ε^SG_m(j) from
the exact layer (`exact.rdp.allocation_rdp`, F39 = F56 remove, 25 digits), so independent of `numeric.shuffle`;
§12.3's table; for "non-decreasing in each ε^SG_m(j)", the production F59 is re-run with one order's ε^SG_m(j)
raised (monkeypatched), which must not lower it.

Bugs it catches: 2γ^j ↔ γ^j, C(λ, j) ↔ C(λ, j − 1), (j − 1)ε(j) ↔ jε(j), max for the min of the second-order term,
F60 summed as Σ Binom·e^{(λ−1)ε} instead of 1 + Σ Binom·(e^{(λ−1)ε} − 1) (k = 0 term), an F56 value off §12.3.
"""

import logging
import math
from functools import lru_cache

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc.exact.rdp import allocation_rdp
from verialloc.mechanisms import Gaussian
from verialloc.numeric.shuffle import shuffle as sh

log = logging.getLogger("verialloc.invariants")


@lru_cache(maxsize=None)
def eps_sg(sigma, m: int, j: int) -> mp.mpf:
    """ε^SG_m(j): the exact layer's remove RDP of 1-of-m allocation of the Gaussian (F39 = F56), 25 digits."""
    return allocation_rdp(Gaussian(sigma), m, j, digits=25)


def f59(sigma, n: int, m: int, lam: int, gamma=None) -> mp.mpf:
    """[001] Thm 2 as printed in formulas.md F59 (γ = m/n unless given), ε^SG_m(j) from the exact layer."""
    gamma = mp.mpf(m) / n if gamma is None else mp.mpf(gamma)
    eps = {j: eps_sg(sigma, m, j) for j in range(2, lam + 1)}
    total = 1 + gamma**2 * mp.binomial(lam, 2) * min(4 * (mp.exp(eps[2]) - 1), 2 * mp.exp(eps[2]))
    total += mp.fsum(2 * gamma**j * mp.binomial(lam, j) * mp.exp((j - 1) * eps[j]) for j in range(3, lam + 1))
    return mp.log(total) / (lam - 1)


@given(st.sampled_from([0.7, 1.0, 2.0, 5.0]), st.integers(1, 12), st.integers(1, 40), st.integers(2, 8))
@settings(max_examples=25)
def test_subsampled_shuffle_matches_f59_and_is_nonnegative(sigma, m, extra, lam):
    n = m + extra
    value = sh.subsampled_shuffle_rdp(sigma, n, m, lam)
    with mp.workdps(30):
        ref = f59(sigma, n, m, lam)
    assert value >= 0
    assert abs(value - ref) <= 1e-11 * ref, (sigma, n, m, lam, value, float(ref))


@pytest.mark.parametrize("j", [2, 3, 5])
def test_subsampled_shuffle_non_decreasing_in_each_eps_sg(monkeypatch, j):
    """F59 with ε^SG_m(j) raised by c ∈ {1e-3, 0.1, 1} at one order j (others unchanged) is ≥ the unraised value."""
    sigma, n, m, lam = 1.5, 40, 6, 6
    base = sh.subsampled_shuffle_rdp(sigma, n, m, lam)
    original = sh.shuffle_gaussian_rdp
    for c in (1e-3, 0.1, 1.0):
        monkeypatch.setattr(
            sh, "shuffle_gaussian_rdp", lambda s, k, order, c=c: original(s, k, order) + (c if order == j else 0.0)
        )
        raised = sh.subsampled_shuffle_rdp(sigma, n, m, lam)
        assert raised >= base, (j, c, raised, base)
        assert raised > base or j == 2 and c > 0.5, (j, c)  # strict unless the min{·} of the j = 2 term switched
    monkeypatch.setattr(sh, "shuffle_gaussian_rdp", original)


@given(st.sampled_from([0.8, 2.0, 5.0]), st.integers(2, 120), st.sampled_from([0.01, 0.1, 0.5, 0.9]), st.integers(2, 8))
@settings(max_examples=20)
def test_checkin_shuffle_rdp_is_nonnegative(sigma, n, rate, lam):
    """F60 (eq. 17 plus the k = 0 term) ≥ 0 and finite."""
    value = sh.checkin_shuffle_rdp(sigma, n, rate, lam)
    assert value >= 0 and math.isfinite(value)


@pytest.mark.parametrize("sigma, n, rate, lam", [(1.0, 8, 0.3, 4), (2.0, 12, 0.1, 5), (0.8, 6, 0.9, 3)])
def test_checkin_shuffle_rdp_matches_eq_17(sigma, n, rate, lam):
    """F60 = (1/(λ−1)) ln Σ_{k=0..n} Binom(n, γ)(k)·e^{(λ−1)ε^SSG_{γ,k}(λ)} (k = 0 term: RDP 0), every term from the
    mpmath F59 above (γ = the check-in rate), for n small enough that no binomial term is cut."""
    with mp.workdps(30):
        g = mp.mpf(rate)
        terms = [(1 - g) ** n] + [
            mp.binomial(n, k) * g**k * (1 - g) ** (n - k) * mp.exp((lam - 1) * f59(sigma, n, k, lam, gamma=rate))
            for k in range(1, n + 1)
        ]
        ref = mp.log(mp.fsum(terms)) / (lam - 1)
    assert sh.checkin_shuffle_rdp(sigma, n, rate, lam) == pytest.approx(float(ref), rel=1e-11)


#: formulas.md §12.3 (F39 = F56): rows σ = 1, 2; t = 1, 2, 10, 1000; columns α = 2, 3, 5, 10
TABLE_12_3 = {
    1: {
        1: (1, 1.5, 2.5, 5),
        2: (0.620114507, 0.9772292964, 1.834372448, 4.30699043),
        10: (0.1585650787, 0.2518374983, 0.5328320321, 2.698662641),
        1000: (0.001716807271, 0.002577731953, 0.004304801125, 0.008654920281),
    },
    2: {
        1: (0.25, 0.375, 0.625, 1.25),
        2: (0.1327922393, 0.2001489126, 0.3377224794, 0.7181867798),
        10: (0.02800666789, 0.04210478987, 0.07052005818, 0.1432619485),
        1000: (0.0002839850891, 0.0004259890687, 0.0007100199367, 0.001420231106),
    },
}
ORDERS = (2, 3, 5, 10)


@pytest.mark.parametrize("sigma", sorted(TABLE_12_3))
def test_shuffle_rdp_reproduces_section_12_3_and_logs_conjecture_1(sigma, caplog):
    """§12.3 rows asserted (9 digits); Conjecture 1 (decrease in n) LOGGED over n = 1..64 and the table's n."""
    caplog.set_level(logging.INFO, logger=log.name)
    for n, row in TABLE_12_3[sigma].items():
        for lam, ref in zip(ORDERS, row):
            assert sh.shuffle_gaussian_rdp(sigma, n, lam) == pytest.approx(ref, rel=2e-9), (n, lam)
    for lam in ORDERS:
        values = [sh.shuffle_gaussian_rdp(sigma, n, lam) for n in list(range(1, 65)) + [1000]]
        worst = max(b - a for a, b in zip(values, values[1:]))
        level = logging.INFO if worst <= 0 else logging.WARNING
        log.log(level, "Conjecture 1 (I40, E) sigma=%s order=%s: largest increase in n %.3g", sigma, lam, worst)
    assert any("Conjecture 1" in r.getMessage() for r in caplog.records)
