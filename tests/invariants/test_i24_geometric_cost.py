"""I24 (formulas.md §13.3; F52, F53 Alg. 1–3, 6; [003] Thm 4.6 (3), Fig. 3): the cost of Alg. 1/2 scales ∼ α^{−2}
and polylogarithmically in t.

Thm 4.6 (3): runtime O((IQR_{β/t}/α)² log³ t) — the grid has n0 = ⌈IQR_{β'}/α'⌉ + 1 points with α' = α/(2⌈log2 t⌉ + 1),
β' = β/t (Alg. 6), it never grows (Alg. 5), and there are at most 2⌈log2 t⌉ pairwise O(n0²) convolutions (Alg. 3).
Wall time is not asserted (timed assertions are flaky under load); the deterministic cost drivers that verialloc
reports are: `GeometricReport.grid_size` (n0) and `.convolutions`.

Production code under test: `numeric.pld.allocation.geometric.allocation_pld_geometric` (its report). References: n0 from the
Gaussian PLD's quantiles N(μ, 2μ) at β/t in mpmath (F15, Alg. 6: q(1 − β') − q(β') over α'), and the number of
convolutions of exponentiation by squaring written out here: remove (Alg. 1) the (t − 1)-fold self-convolution plus
one, add (Alg. 2) the t-fold, each (bit length − 1) squarings + (popcount − 1) products.

Bugs it catches: α' without the 2⌈log2 t⌉ + 1 levels (the tightness guarantee is lost) or β' without /t, a grid that
grows with t, a self-convolution linear in t or squaring only in the odd branch (E14), a grid not ∝ 1/α.
"""

import math

import mpmath as mp
import pytest

from verialloc import Gaussian
from verialloc.numeric.pld.allocation.geometric import allocation_pld_geometric

BETA = 1e-9


def reference_grid(sigma, t: int, alpha: float) -> int:
    """⌈(q(1 − β/t) − q(β/t))/α'⌉ + 1 for L ~ N(μ, 2μ), μ = 1/(2σ²), α' = α/(2⌈log2 t⌉ + 1)."""
    with mp.workdps(30):
        mu = mp.mpf(1) / (2 * mp.mpf(sigma) ** 2)
        z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(BETA) / t - 1)  # Φ^{−1}(1 − β/t)
        levels = 2 * math.ceil(math.log2(t)) + 1 if t > 1 else 1
        return int(mp.ceil(2 * z * mp.sqrt(2 * mu) / (mp.mpf(alpha) / levels))) + 1


def squarings_and_products(n: int) -> int:
    """Pairwise convolutions of the n-fold sum by binary exponentiation (final squaring skipped)."""
    return (n.bit_length() - 1) + (bin(n).count("1") - 1)


@pytest.mark.parametrize("sigma", [1, 2])
@pytest.mark.parametrize("t", [2, 3, 13, 64, 1000])
def test_grid_size_and_convolutions_follow_theorem_4_6(sigma, t):
    """n0 = the Alg. 6 grid over [q(β/t), q(1 − β/t)] at α' (within one point: the quantile search stops at adjacent
    floats), identical for remove and add; convolutions = the binary-exponentiation count ≤ 2⌈log2 t⌉."""
    alpha = 0.4
    _, rem = allocation_pld_geometric(Gaussian(sigma), t, "remove", "upper", alpha=alpha, beta=BETA)
    _, add = allocation_pld_geometric(Gaussian(sigma), t, "add", "upper", alpha=alpha, beta=BETA)
    n0 = reference_grid(sigma, t, alpha)
    for rep in (rem, add):
        assert abs(rep.grid_size - n0) <= 1, (rep.direction, rep.grid_size, n0)
        assert rep.convolutions <= 2 * math.ceil(math.log2(t))
    assert rem.convolutions == squarings_and_products(t - 1) + 1
    assert add.convolutions == squarings_and_products(t)


def test_work_scales_like_alpha_to_the_minus_two_and_polylog_in_t():
    """Work proxy W = n0²·(convolutions): halving α multiplies W by 4 (within grid rounding); from t = 2 to 1000
    W / (levels²·ln(t/β)·⌈log2 t⌉) stays within a factor 3 (Thm 4.6 (3): O(log³ t · log(t/β)/α²) for the Gaussian)."""

    def work(t, alpha):
        _, rep = allocation_pld_geometric(Gaussian(2), t, "remove", "upper", alpha=alpha, beta=BETA)
        return rep.grid_size**2 * rep.convolutions

    for t in (3, 13, 64):
        ratio = work(t, 0.2) / work(t, 0.4)
        assert 3.8 <= ratio <= 4.2, (t, ratio)
    scaled = []
    for t in (2, 13, 64, 1000):
        levels = 2 * math.ceil(math.log2(t)) + 1
        scaled.append(work(t, 0.4) / (levels**2 * math.log(t / BETA) * math.ceil(math.log2(t))))
    assert max(scaled) <= 3 * min(scaled), scaled
