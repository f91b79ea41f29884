"""Float64 integer-order RDP curves R_2..R_N in one pass, remove direction, in log space.

Allocation (F38/F40 with E3/E5 corrected; derivation of the generating function as in exact/rdp_genfunc):
D_n(P̄_t‖Q^t) = n!·[w^n] Ã(w)^t, Ã(w) = Σ_k D_k w^k/(k! t^k) (w = t·z).
Split Ã = e^{w/t} + G̃ with G̃ = Σ_{k>=2} (D_k − 1) w^k/(k! t^k) >= 0 and Ã^t = e^w + C̃: then
D_n − 1 = n!·c̃_n, and c̃ satisfies the Miller recurrence of the difference of two t-th powers
    n c̃_n = Σ_{k=1}^n ((t+1)k − n) [g̃_k b̃_{n−k} + c̃_{n−k}/(k! t^k)],   b̃_m = 1/m! + c̃_m,
whose terms are all non-negative for n <= t (evaluated in moment normalization X_n = n!·c̃_n, `_miller_excess`). For t < N the excess is raised to the t-th power by binary
powering of (e^{s w} + Y) factors, (e^{s1 w} + Y1)(e^{s2 w} + Y2) = e^{(s1+s2) w} + [e^{s1 w} Y2 + e^{s2 w} Y1 + Y1 Y2],
again with non-negative terms only. Working with D_n − 1 (not D_n) keeps ln D_n = log1p(D_n − 1) relatively
accurate when D_n is close to 1 (large t), where ln D_n itself is tiny.

Poisson (F46, binomial expansion as exact.rdp.poisson_rdp): D_α(λP + (1−λ)Q‖Q) − 1 = Σ_{j>=2} C(α,j) λ^j
(1−λ)^{α−j} (D_j − 1), non-negative terms (the weights sum to 1 and D_0 = D_1 = 1).

Every log-sum-exp of non-negative terms has an absolute log error at most the largest absolute log error of its
terms (the recurrence uses the sharper share-weighted mean, see `_miller_excess`) plus its own rounding (bounded
by 8u·(|largest log term| + |result| + log₂ n + 4)); these bounds are propagated term by term, giving
`rel_err[α]`, a bound on the relative error of R_α (see `RdpCurve.bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
from scipy.special import gammaln

from ...errors import InvalidParameter
from ...mechanisms import FinitePair, Mechanism
from ...rounding import round_down, round_up
from .log_moments import MAX_ORDER, U, LogMoments, log_moments


@dataclass(frozen=True)
class RdpCurve:
    """R_α for α = 0..N (`values[α]`; entries 0, 1 unused, set to 0) and its float64 error bound per order:
    |R_α − values[α]| <= rel_err[α]·values[α] + abs_err[α] (abs_err None: 0).

    `values` may hold +inf (P not ≪ Q). Scaling by a composition factor keeps `rel_err` (F21).
    """

    values: np.ndarray
    rel_err: np.ndarray
    abs_err: np.ndarray | None = None

    @property
    def alpha_max(self) -> int:
        return self.values.size - 1

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) arrays bracketing R_α (lower clipped at 0, R_α >= 0), rounded outwards: the slack is
        inflated by 8u (covering the <= 2 roundings in computing it) and values ∓ slack are rounded down / up
        (an exact difference or sum still moves by one ulp, except where the slack is 0)."""
        finite = np.isfinite(self.values)
        slack = self.rel_err * np.where(finite, self.values, 0.0) + (0.0 if self.abs_err is None else self.abs_err)
        slack = slack * (1 + 8 * U)
        exact = slack == 0
        lower = np.where(exact, self.values, round_down(self.values - slack))
        upper = np.where(exact, self.values, round_up(self.values + slack))
        return np.maximum(lower, 0.0), np.where(finite, upper, np.inf)

    def scaled(self, factor: int) -> "RdpCurve":
        """RDP of `factor` compositions (F21): values × factor (one rounding, relative <= u), so the relative
        budget becomes (rel_err + u)/(1 − u) <= (rel_err + u)(1 + 8u) with its own roundings; abs_err × factor
        rounded up."""
        abs_err = None if self.abs_err is None else round_up(self.abs_err * factor)
        return RdpCurve(self.values * factor, (self.rel_err + U) * (1 + 8 * U), abs_err)

    def plus(self, other: "RdpCurve") -> "RdpCurve":
        """RDP of the composition of the two mechanisms (F21), same orders: values added (one rounding, relative
        <= u; both >= 0), so |R − sum| <= (max rel_err + u)·sum + the abs_err's (their sum rounded up); the stored
        sum is within u of the true one, which the (1 + 8u) inflation covers."""
        if self.abs_err is None or other.abs_err is None:
            abs_err = other.abs_err if self.abs_err is None else self.abs_err
        else:
            abs_err = round_up(self.abs_err + other.abs_err)
        rel = (np.maximum(self.rel_err, other.rel_err) + U) * (1 + 8 * U)
        return RdpCurve(self.values + other.values, rel, abs_err)


def allocation_rdp_curve(mech: Mechanism, steps: int, alpha_max: int) -> RdpCurve:
    """R_α(P̄_t‖Q^t), α = 2..alpha_max (1-out-of-t allocation, remove direction; F38/E3/E5)."""
    _check(steps, alpha_max)
    lm = log_moments(mech, alpha_max)
    if lm.infinite or lm.identical:
        return _trivial(lm.infinite, alpha_max)
    log_excess, err = allocation_log_excess(lm, steps, alpha_max)
    return _curve(log_excess, err)


def poisson_rdp_curve(mech: Mechanism, rate: float, alpha_max: int) -> RdpCurve:
    """R_α(λP + (1−λ)Q‖Q), α = 2..alpha_max, one step of Poisson subsampling, remove direction (F46)."""
    _check(1, alpha_max)
    lam = float(rate)
    if not 0 < lam <= 1:
        raise InvalidParameter("rate", rate, "must lie in (0, 1]")
    lm = log_moments(mech, alpha_max)
    if lm.infinite or lm.identical:
        return _trivial(lm.infinite, alpha_max)
    log_excess = np.full(alpha_max + 1, -np.inf)
    err = np.zeros(alpha_max + 1)
    log_lam = math.log(lam)
    log_rest = math.log1p(-lam) if lam < 1 else -np.inf
    lg = gammaln(np.arange(alpha_max + 1) + 1.0)
    for a in range(2, alpha_max + 1):
        j = np.arange(2, a + 1)
        rest = (a - j) * log_rest if lam < 1 else np.where(j == a, 0.0, -np.inf)
        terms = lg[a] - lg[j] - lg[a - j] + j * log_lam + rest + lm.log_excess[j]
        log_excess[a], rho = _lse(terms)
        err[a] = (
            float(np.max(lm.err_excess[j]))
            + rho
            + 8 * U * (lg[a] + a * (abs(log_lam) + (abs(log_rest) if lam < 1 else 0)))
        )
    return _curve(log_excess, err)


def poisson_add_rdp_curve(mech: FinitePair, rate: float, alpha_max: int) -> RdpCurve:
    """R_α(Q‖λP + (1−λ)Q), α = 2..alpha_max, one Poisson step, add direction (F46), finite pairs only.

    Direct F5 sum over atoms: ln D_α = LSE_i(α ln Q_i + (1 − α) ln P_λ,i); P_λ >= (1−λ)Q, so Q ≪ P_λ for λ < 1.
    The log-sum-exp is not cancellation-free here, so its budget is absolute (~u·max|term|) on ln D_α.
    """
    _check(1, alpha_max)
    lam = float(rate)
    if not 0 < lam <= 1:
        raise InvalidParameter("rate", rate, "must lie in (0, 1]")
    with mp.workdps(40):
        p, q = mech.probabilities()
        lam_mp = mp.mpf(lam)
        pairs = [(float(mp.log(qi)), float(mp.log(lam_mp * pi + (1 - lam_mp) * qi))) for pi, qi in zip(p, q) if qi > 0]
    if any(lp == -math.inf for _, lp in pairs):  # λ = 1 and Q has mass where P has none
        return _trivial(True, alpha_max)
    log_q = np.array([a for a, _ in pairs])
    log_p = np.array([b for _, b in pairs])
    a = np.arange(alpha_max + 1, dtype=np.float64)
    terms = a[None, :] * log_q[:, None] + (1 - a[None, :]) * log_p[:, None]
    top = np.max(terms, axis=0)
    log_d = np.maximum(top + np.log(np.sum(np.exp(terms - top), axis=0)), 0.0)
    err = 16 * U * (np.max(np.abs(terms), axis=0) + math.log2(len(pairs) + 1) + 4)
    values = np.zeros(alpha_max + 1)
    values[2:] = log_d[2:] / (a[2:] - 1)
    abs_err = np.zeros(alpha_max + 1)
    abs_err[2:] = err[2:] / (a[2:] - 1)
    return RdpCurve(values, np.full(alpha_max + 1, 4 * U), abs_err)


def allocation_log_excess(lm: LogMoments, steps: int, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(ln(D_n(P̄_t‖Q^t) − 1), absolute error bound) for n = 0..n_max (−inf, 0 for n = 0, 1)."""
    if n_max <= steps:
        return _miller_excess(lm.log_excess[: n_max + 1], lm.err_excess[: n_max + 1], steps)
    n = np.arange(n_max + 1, dtype=np.float64)
    lfact = gammaln(n + 1)
    log_t = math.log(steps)
    lg = lm.log_excess[: n_max + 1] - (lfact + n * log_t)
    eg = lm.err_excess[: n_max + 1] + 8 * U * (lfact + n * log_t + _abs_finite(lm.log_excess[: n_max + 1]) + 1)
    lc, ec = _binary_power_excess(lg, eg, steps, lfact, log_t)
    return lc + lfact, ec + 8 * U * (lfact + 1)


def _miller_excess(lg, eg, t: int):
    """X_n = D_n(P̄_t‖Q^t) − 1 by the excess Miller recurrence in moment normalization (n <= t):
    X_n = Σ_{k=1}^n C(n,k) ((t+1)k − n)/(n t^k) [(D_k − 1) D^A_{n−k} + X_{n−k}],  D^A_m = 1 + X_m,
    (c̃_n = X_n/n!), all weights positive. The dominant terms have logs of size O(ln D), so the rounding of
    the tiny terms (large logs) barely matters: each sum's error is bounded by the share-weighted error of its
    terms (first order, times 1.01, valid while every term error is < 0.01) plus its own rounding.
    """
    n_max = lg.size - 1
    log_t = math.log(t)
    lx = np.full(n_max + 1, -np.inf)
    ex = np.zeros(n_max + 1)
    lda = np.zeros(n_max + 1)  # ln D^A_m
    eda = np.zeros(n_max + 1)
    eg_f = np.where(np.isfinite(lg), eg, 0.0)
    ag = _abs_finite(lg)
    ks = np.arange(1, n_max + 1, dtype=np.float64)
    for m in range(2, n_max + 1):
        k = ks[:m]
        back = slice(m - 1, None, -1)
        ratio = np.log((m - k + 1) / k)  # ln C(m, k) as a running sum: accurate for the dominant small k
        lw = np.cumsum(ratio) + np.log((t + 1) * k - m) - math.log(m) - k * log_t
        inner = np.logaddexp(lg[1 : m + 1] + lda[back], lx[back])
        x = lw + inner
        total, rho = _lse(x)
        lx[m] = total
        if total == -np.inf:
            continue
        binom_err = 2 * U * k * np.cumsum(np.abs(ratio) + 1)
        term_err = (
            np.maximum(eg_f[1 : m + 1] + eda[back], ex[back])
            + binom_err
            + 8 * U * (np.abs(lw) + k * log_t + ag[1 : m + 1] + np.abs(lda[back]) + _abs_finite(lx[back]) + 4)
        )
        share = np.exp(x - total)
        ex[m] = min(float(np.max(term_err)), 1.01 * float(np.dot(share, term_err))) + rho
        lda[m] = np.logaddexp(0.0, total)
        eda[m] = ex[m] + 4 * U * (1 + lda[m])
    return lx, ex


def _binary_power_excess(lg, eg, t: int, lfact, log_t):
    """c̃ = excess of (e^{w/t} + G̃)^t over e^w, by binary powering of (s, Y) factors (t < n_max)."""
    j = np.arange(lg.size, dtype=np.float64)

    def exp_series(log_s: float):  # ln s^j/j!, error from ln s (abs error 4u(|ln s| + 1) per unit of j)
        return j * log_s - lfact, 4 * U * (j * (abs(log_s) + 1) + lfact + 1)

    def product(f1, f2):
        (m1, y1, e1), (m2, y2, e2) = f1, f2
        x1, ex1 = exp_series(math.log(m1) - log_t)
        x2, ex2 = exp_series(math.log(m2) - log_t)
        parts = [_conv(x1, ex1, y2, e2), _conv(x2, ex2, y1, e1), _conv(y1, e1, y2, e2)]
        y = np.logaddexp(np.logaddexp(parts[0][0], parts[1][0]), parts[2][0])
        e = np.maximum(np.maximum(parts[0][1], parts[1][1]), parts[2][1]) + 4 * U * (1 + _abs_finite(y))
        return m1 + m2, y, e

    result, base, power = None, (1, lg, eg), t
    while True:
        if power & 1:
            result = base if result is None else product(result, base)
        power >>= 1
        if not power:
            return result[1], result[2]
        base = product(base, base)


def _conv(x, ex, y, ey, block: int = 256):
    """ln of the truncated product of two series given by log coefficients, with propagated error bounds.

    Rows m of the (m, k) table x_k + y_{m−k} are processed in blocks (vectorized log-sum-exp per row)."""
    n = x.size
    out = np.full(n, -np.inf)
    err = np.zeros(n)
    k = np.arange(n)
    ex_f, ey_f = np.where(np.isfinite(x), ex, 0.0), np.where(np.isfinite(y), ey, 0.0)
    for start in range(0, n, block):
        m = np.arange(start, min(start + block, n))[:, None]
        width = int(m[-1, 0]) + 1
        idx = m - k[None, :width]
        valid = idx >= 0
        safe = np.where(valid, idx, 0)
        terms = np.where(valid, x[None, :width] + y[safe], -np.inf)
        top = np.max(terms, axis=1)
        ok = np.isfinite(top)
        top_safe = np.where(ok, top, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = top_safe + np.log(np.sum(np.exp(terms - top_safe[:, None]), axis=1))
        rows = slice(start, start + m.shape[0])
        out[rows] = np.where(ok, total, -np.inf)
        finite_terms = np.where(valid, ex_f[None, :width] + ey_f[safe], 0.0)
        rho = 8 * U * (np.abs(top_safe) + np.abs(np.where(ok, total, 0.0)) + np.log2(m[:, 0] + 2) + 4)
        err[rows] = np.where(ok, np.max(finite_terms, axis=1) + rho, 0.0)
    return out, err


def _abs_finite(x: np.ndarray) -> np.ndarray:
    """|x| with −inf (a zero coefficient, carrying no error) mapped to 0."""
    return np.where(np.isfinite(x), np.abs(x), 0.0)


def _lse(x: np.ndarray) -> tuple[float, float]:
    """(ln Σ e^{x_i}, bound on its own rounding) for non-negative terms given by logs (−inf allowed)."""
    top = float(np.max(x)) if x.size else -np.inf
    if top == -np.inf:
        return -np.inf, 0.0
    total = top + math.log(float(np.sum(np.exp(x - top))))
    return total, 8 * U * (abs(top) + abs(total) + math.log2(x.size + 1) + 4)


def _curve(log_excess: np.ndarray, err: np.ndarray) -> RdpCurve:
    """R_α = log1p(D_α − 1)/(α − 1) (F5); relative error of ln D_α <= err·(1 − 1/D)/ln D + 4u (ln D >= 1 − 1/D)."""
    a = np.arange(log_excess.size, dtype=np.float64)
    log_d = np.logaddexp(0.0, log_excess)
    values = np.zeros(log_excess.size)
    values[2:] = log_d[2:] / (a[2:] - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = -np.expm1(-log_d)  # 1 − 1/D
        rel = np.where(log_d > 0, err * frac / log_d, 0.0) + 4 * U
    rel[:2] = 0.0
    return RdpCurve(values, rel)


def _trivial(infinite: bool, alpha_max: int) -> RdpCurve:
    """+inf RDP (P not ≪ Q) or 0 (P = Q) at every order."""
    values = np.full(alpha_max + 1, np.inf if infinite else 0.0)
    values[:2] = 0.0
    return RdpCurve(values, np.zeros(alpha_max + 1))


def _check(steps: int, alpha_max: int) -> None:
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise InvalidParameter("steps", steps, "must be an integer >= 1")
    if not isinstance(alpha_max, int) or isinstance(alpha_max, bool) or not 2 <= alpha_max <= MAX_ORDER:
        raise InvalidParameter("alpha_max", alpha_max, f"must be an integer in [2, {MAX_ORDER}] (float64 RDP orders)")
