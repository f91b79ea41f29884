"""RDP → (ε, δ) conversion (F18), the α search with its F19 stopping rule, and non-integer orders (F20).

Conversion used: Canonne–Kamath–Steinke Prop. 12 as stated in F18 (upper bound, same direction as the RDP):
    ln δ(ε) <= (α−1)(ρ_α − ε) + α ln(1 − 1/α) − ln(α − 1),
    ε(δ)    <= ρ_α + (ln(1/δ) + (α−1) ln(1 − 1/α) − ln α)/(α − 1)          (algebraically the same bound),
minimized over the orders searched. Any order gives a valid bound, so the minimum over a finite set is one too.

Orders searched: every integer 2..N (ρ_α from a float64 curve, taken at the upper end of its error budget) and the
grid 1 + i/16, i = 1..15, in (1, 2) with ρ = R_2 (see `low_order_bound`).

Orders in (1, 2). The papers say α ∈ (1, 2) cannot be computed by the partition formula (F20, [000] §4.2,
[004] §4.3). We claim only the upper bound R_α <= R_2 for α ∈ (1, 2), which is valid because
α ↦ (α − 1)R_α = ln D_α is convex (Hölder, F5) with ln D_1 = 0 when P ≪ Q, so on [1, 2] it lies below its
chord: ln D_α <= (α − 1) ln D_2. (Equivalently: R_α is non-decreasing.) No KL value is needed, and the bound
survives composition (both sides add up, F21).

Non-integer α > 2 (F20, Wang–Balle–Kasiviswanathan Cor. 10): with θ = α − ⌊α⌋,
(α−1)R_α <= (1−θ)(⌊α⌋−1)R_⌊α⌋ + θ(⌈α⌉−1)R_⌈α⌉ (the same chord argument); lower bound R_α >= R_⌊α⌋ (monotonicity).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import InvalidParameter
from ...rounding import round_up
from .log_moments import U
from .rdp_logspace import RdpCurve

#: fractional orders searched in (1, 2), bounded through R_α <= R_2
LOW_ORDERS = 1.0 + np.arange(1, 16) / 16.0


def upper_values(curve: RdpCurve) -> np.ndarray:
    """Upper bounds on R_α for α = 0..N: the float64 curve at the sound end of its error budget."""
    return curve.bounds()[1]


def orders(curve: RdpCurve) -> tuple[np.ndarray, np.ndarray]:
    """(α, upper bound on R_α) for the searched orders: the (1, 2) grid (R_α <= R_2) and integers 2..N."""
    up = upper_values(curve)
    alphas = np.concatenate([LOW_ORDERS, np.arange(2, curve.alpha_max + 1, dtype=np.float64)])
    rho = np.concatenate([np.full(LOW_ORDERS.size, up[2]), up[2:]])
    return alphas, rho


def log_delta_f18(alpha: np.ndarray, rho: np.ndarray, epsilon: float, pad: bool = False) -> np.ndarray:
    """ln of the F18 bound on δ(ε) at each order (upper bound); pad=True adds a bound on its float64 rounding
    and rounds the padded sum up (an upper-bound endpoint)."""
    parts = ((alpha - 1) * (rho - epsilon), alpha * np.log1p(-1 / alpha), -np.log(alpha - 1))
    value = parts[0] + parts[1] + parts[2]
    if not pad:
        return value
    return round_up(
        value + 8 * U * (np.abs(parts[0]) + np.abs(rho) * alpha + abs(epsilon) * alpha + 4 + np.abs(parts[2]))
    )


def epsilon_f18(alpha: np.ndarray, rho: np.ndarray, delta: float, pad: bool = False) -> np.ndarray:
    """F18 bound on ε(δ) at each order: ρ_α + φ(α), φ(α) = (ln(1/δ) + (α−1) ln(1−1/α) − ln α)/(α−1);
    pad=True adds a bound on its float64 rounding and rounds the padded sum up (an upper-bound endpoint)."""
    phi = (-math.log(delta) + (alpha - 1) * np.log1p(-1 / alpha) - np.log(alpha)) / (alpha - 1)
    value = rho + phi
    if not pad:
        return value
    return round_up(value + 8 * U * (np.abs(rho) + np.abs(phi) + (-math.log(delta) + np.log(alpha) + 2) / (alpha - 1)))


def delta_bound(curve: RdpCurve, epsilon: float) -> tuple[float, float]:
    """(ln of the upper bound on δ(ε), order achieving it) = min over the searched orders of F18, capped at
    ln 1 = 0. Returned as a logarithm so that a bound below the float64 range is not rounded to 0."""
    alphas, rho = orders(curve)
    with np.errstate(over="ignore", invalid="ignore"):
        logs = log_delta_f18(alphas, rho, epsilon, pad=True)
    logs = np.where(np.isnan(logs), np.inf, logs)  # +inf RDP
    i = int(np.argmin(logs))
    return (min(float(logs[i]), 0.0), float(alphas[i])) if np.isfinite(logs[i]) else (0.0, float("nan"))


def epsilon_bound(curve: RdpCurve, delta: float) -> tuple[float, float]:
    """(upper bound on ε(δ), order achieving it) = min over the searched orders of F18 (+inf if none is finite)."""
    alphas, rho = orders(curve)
    with np.errstate(invalid="ignore"):
        eps = epsilon_f18(alphas, rho, delta, pad=True)
    eps = np.where(np.isnan(eps), np.inf, eps)
    i = int(np.argmin(eps))
    return float(eps[i]), float(alphas[i])


def epsilon_gap(curve: RdpCurve, best_epsilon: float, delta: float, alpha_cap: int) -> float:
    """Most by which integer orders in (N, alpha_cap] could still lower `best_epsilon` (F19, quantified).

    R_α' >= R_N for α' > N (monotonicity, [000] Claim C.1), so F18 at α' is >= R_N + φ(α'); the gap is
    max(0, best − min_{N < α' <= cap}(R_N + φ(α'))). A gap of 0 is exactly the F19 stopping rule (for α' <= 1/(eδ),
    where φ >= 0, it holds as soon as R_N > best ε); unlike the plain rule it stays valid where φ < 0.
    """
    n = curve.alpha_max
    if n >= alpha_cap:
        return 0.0
    rest = np.arange(n + 1, alpha_cap + 1, dtype=np.float64)
    floor = curve.bounds()[0][n] + float(np.min(epsilon_f18(rest, np.zeros(rest.size), delta)))
    return max(0.0, best_epsilon - floor)


def delta_gap(curve: RdpCurve, best_log_delta: float, epsilon: float, alpha_cap: int) -> float:
    """Most by which integer orders in (N, alpha_cap] could lower `best_log_delta` (ln δ): F18 at α' is at least
    (α'−1)(R_N − ε) + α' ln(1 − 1/α') − ln(α' − 1) (R_α' >= R_N)."""
    n = curve.alpha_max
    if n >= alpha_cap:
        return 0.0
    rest = np.arange(n + 1, alpha_cap + 1, dtype=np.float64)
    floor = float(np.min(log_delta_f18(rest, np.full(rest.size, curve.bounds()[0][n]), epsilon)))
    return max(0.0, best_log_delta - floor)


def fractional_rdp(curve: RdpCurve, alpha: float) -> tuple[float, float]:
    """(lower, upper) bounds on R_α at a non-integer α in (1, N) from the integer curve.

    α ∈ (1, 2): [0, R_2] (chord from ln D_1 = 0, see module doc); α > 2: F20 chord above, R_⌊α⌋ below.
    Both ends include the float budget of the integer values used.
    """
    if not 1 < alpha < curve.alpha_max:
        raise InvalidParameter("alpha", alpha, f"must lie in (1, {curve.alpha_max}) for the fractional bound")
    low, up = curve.bounds()
    if alpha < 2:
        return 0.0, float(up[2])
    lo_i = int(math.floor(alpha))
    theta = alpha - lo_i
    if theta == 0:
        return float(low[lo_i]), float(up[lo_i])
    if up[lo_i] == 0 and up[lo_i + 1] == 0:  # P = Q: the chord is exactly 0
        return float(low[lo_i]), 0.0
    # θ and 1 − θ are exact (α > 2 has an ulp >= 2^-51); the chord and its division by α − 1 (exact) round 4
    # times (relative <= (1 + u)^4 − 1 < 5u, every term non-negative): margin 8u, then rounded up
    chord = (1 - theta) * (lo_i - 1) * up[lo_i] + theta * lo_i * up[lo_i + 1]
    return float(low[lo_i]), round_up(float(chord / (alpha - 1) * (1 + 8 * U)))
