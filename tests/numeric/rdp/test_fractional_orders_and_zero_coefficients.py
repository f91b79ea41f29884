"""Known gaps of issue #15 in the float64 RDP route: the F20 chord at non-integer α > 2 (`fractional_rdp`), the
binary-powering convolution with −inf (zero) coefficients (`rdp_logspace._conv`), Poisson subsampling at λ = 1
(`poisson_rdp_curve`, F46).

References are independent of the code under test: a curve with an exact zero error budget holding R_α = α (the
Gaussian σ² = 1/2, F14) and F20's chord in rationals; the exact layer's mpmath generating function (F38); F14 and
F5 in rationals for λ = 1, where the Poisson pair is the mechanism itself.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc.exact.rdp import allocation_rdp_curve as exact_allocation_curve
from verialloc.mechanisms import DiscretePair, Gaussian, RandomizedResponse
from verialloc.numeric.rdp.log_moments import U
from verialloc.numeric.rdp.rdp_conversion import fractional_rdp
from verialloc.numeric.rdp.rdp_logspace import RdpCurve, allocation_rdp_curve, poisson_rdp_curve

N = 8
#: R_α = α (Gaussian with σ² = 1/2, F14), every value exact in float64, zero error budget: bounds() are the values
LINEAR = RdpCurve(np.array([0.0, 0.0, *range(2, N + 1)], dtype=np.float64), np.zeros(N + 1))
ZERO = RdpCurve(np.zeros(N + 1), np.zeros(N + 1))  # P = Q


def chord(alpha: Fraction) -> Fraction:
    """F20 on R_j = j: ((1 − θ)(⌊α⌋ − 1)⌊α⌋ + θ⌊α⌋(⌊α⌋ + 1))/(α − 1), θ = α − ⌊α⌋."""
    lo = alpha.numerator // alpha.denominator
    theta = alpha - lo
    return ((1 - theta) * (lo - 1) * lo + theta * lo * (lo + 1)) / (alpha - 1)


@pytest.mark.parametrize("alpha", [2.5, 3.25, 4.75, 6.125, 7.5, 7.9375])
def test_f20_chord_at_non_integer_orders_is_sound_and_tight(alpha):
    """F20 for α > 2 non-integer: lower end exactly R_⌊α⌋, upper end at or above the exact chord and at most
    (1 + 8u)(1 + 5u) times it plus one ulp (the margin and rounding the code documents; < 16u relative).

    Checked to kill: `alpha < 2` → `< 3`; θ = α + ⌊α⌋; every operator and constant flip in the chord
    ((1 ± θ), (2 − θ), (⌊α⌋ ± 1/2), `/` for `*`, R_⌊α⌋−1 or R_⌊α⌋+2 for R_⌈α⌉); division by α + 1, α − 2 or
    multiplication by α − 1; margin (1 − 8u), (2 + 8u), 8/u, division by (1 + 8u)."""
    lower, upper = fractional_rdp(LINEAR, alpha)
    exact = chord(Fraction(alpha))
    assert lower == int(alpha)
    assert exact <= Fraction(upper) <= exact * (1 + 16 * Fraction(U))


@pytest.mark.parametrize("alpha", [1.0625, 1.5, 1.9375])
def test_orders_below_two_are_bounded_by_r2(alpha):
    """α ∈ (1, 2): the bracket [0, R_2] (chord from ln D_1 = 0), exactly. Kills: lower 1.0, upper R_3, `2 < α`."""
    assert fractional_rdp(LINEAR, alpha) == (0.0, 2.0)


@pytest.mark.parametrize("alpha", [2.0, 3.0, 7.0])
def test_integer_orders_return_the_exact_curve_values(alpha):
    """An integer α needs no chord: (R_α, R_α) exactly for an error-free curve. Kills: `alpha <= 2` (α = 2
    answered by [0, R_2]), `theta != 0` / `theta == 1` (the chord's margin widens an exact value)."""
    assert fractional_rdp(LINEAR, alpha) == (alpha, alpha)


@pytest.mark.parametrize("alpha", [2.5, 7.5])
def test_identical_pair_has_an_exactly_zero_bracket(alpha):
    """P = Q: R_α = 0 at every order, bracket (0, 0) — not one subnormal above. Kills: the P = Q test inverted on
    either side, compared with 1, reading R_⌊α⌋+2 (out of range at α ∈ (N − 1, N)), returning upper 1.0."""
    assert fractional_rdp(ZERO, alpha) == (0.0, 0.0)


@pytest.mark.parametrize("mech, steps", [(RandomizedResponse(Fraction(3, 2)), 3), (Gaussian(Fraction(3, 2)), 10)])
def test_binary_powering_with_zero_coefficients_is_tight(mech, steps):
    """t < N: `_conv` convolves series whose coefficients 0 and 1 are −inf (D_0 − 1 = D_1 − 1 = 0) and whose first
    rows are all −inf. The curve equals the exact generating function (F38, mpmath) within its own budget, and that
    budget is tight (relative half-width ≤ 1e−12), so an error term charged for a −inf (absent) coefficient or an
    invalid index, or a row of −inf mapped to +inf, fails. Kills: the −inf masks' fills 0 → 1 (`ex_f`, `ey_f`,
    `finite_terms`), `np.where(ok, …)` fills for −inf rows, `idx >= 0` → `> 0`."""
    curve = allocation_rdp_curve(mech, steps, 40)
    exact = exact_allocation_curve(mech, steps, 40, digits=25)
    lower, upper = curve.bounds()
    for a in range(2, 41):
        ref = float(exact[a])
        assert lower[a] <= ref <= upper[a], (a, lower[a], ref, upper[a])
        assert upper[a] - lower[a] <= 2e-12 * ref, (a, curve.rel_err[a])


def gaussian_rdp(sigma: Fraction, alpha: int) -> Fraction:
    return Fraction(alpha) / (2 * sigma * sigma)  # F14


def finite_rdp(p, q, alpha: int) -> mp.mpf:
    """F5 in rationals, log at 40 digits."""
    moment = sum(Fraction(pi) ** alpha * Fraction(qi) ** (1 - alpha) for pi, qi in zip(p, q) if pi)
    with mp.workdps(40):
        return mp.log(mp.mpf(moment.numerator) / moment.denominator) / (alpha - 1)


@pytest.mark.parametrize(
    "mech, reference",
    [
        (Gaussian(Fraction(7, 10)), lambda a: gaussian_rdp(Fraction(7, 10), a)),
        (
            DiscretePair(["1/2", "1/3", "1/6"], ["1/6", "1/3", "1/2"]),
            lambda a: finite_rdp(["1/2", "1/3", "1/6"], ["1/6", "1/3", "1/2"], a),
        ),
    ],
)
def test_poisson_at_rate_one_is_the_mechanism_itself(mech, reference):
    """F46 at λ = 1: P_1 = P, so R_α(P_1‖Q) = R_α(P‖Q) (F14 Gaussian, F5 finite pair in rationals), inside a tight
    budget (relative half-width ≤ 1e−13). Kills: `lam <= 1` / `lam < 2` in the (1 − λ)^{α−j} factor (0·(−inf) =
    NaN at j = α, log1p(−1) raising), the j = α selector inverted or set to 1 or +inf, ln(1 − λ) counted in the
    budget at λ = 1 (+inf)."""
    curve = poisson_rdp_curve(mech, 1, 30)
    lower, upper = curve.bounds()
    for a in range(2, 31):
        ref = float(reference(a))
        assert lower[a] <= ref <= upper[a], (a, lower[a], ref, upper[a])
        assert upper[a] - lower[a] <= 2e-13 * ref, (a, curve.rel_err[a])
