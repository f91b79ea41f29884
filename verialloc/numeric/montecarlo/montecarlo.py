"""Importance-sampled Monte Carlo estimate of δ(ε) for Gaussian 1-out-of-t allocation (F25, F24; E12).

An *estimate with a confidence interval*, not a bound: nothing here is certified.

Remove (F25 in its E_P form, footnote 11 of [000]): δ→(ε) = E_{Y~P̄_t}[(1 − e^{ε−L(Y)})_+], L = ln((1/t)Σ e^{ℓ(Y_i)}),
ℓ(y) = (2y − 1)/(2σ²) (F15, F24). Proposal g_m = (1/t)Σ_i N(m·e_i, σ²I) (the element's step shifted from 1 to m ≥ 1;
m = 1 is plain sampling of P̄_t). By symmetry the shifted step is drawn as step 1. Summand X = (P̄_t/g_m)(1 − e^{ε−L})_+.
Add (F25, derived form): δ←(ε) = E_{Y~Q^t}[(1 − e^{ε+L(Y)})_+]; proposal N(−s, σ²)^t (s ≥ 0; s = 0 plain).

Every summand is bounded by a proved constant B (`remove_log_bound`, `add_log_bound`), so the empirical-Bernstein
interval of Maurer & Pontil (2009, Thm 4) applies: it holds with probability ≥ confidence for i.i.d. draws from the
stated proposal, assuming an ideal random generator and negligible float64 rounding. A CLT interval (normal
approximation, no finite-sample guarantee; it can be [0, 0] when no sample hits the event) is reported alongside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

#: matrix entries per chunk (rows × t)
CHUNK = 4_000_000
INTERVALS = ("bernstein", "clt")


def remove_log_bound(m: float, sigma: float, eps: float) -> float:
    """ln B with X ≤ B for the remove summand under g_m (m ≥ 1).

    X = e^c (Σu_i − t e^ε)_+ / Σu_i^m with u_i = e^{ℓ_i}, c = m(m−1)/(2σ²); power means give Σu^m ≥ t^{1−m}(Σu)^m and
    max_S (S − T)/S^m = T^{1−m}(m−1)^{m−1}/m^m, so B = e^{c − ε(m−1)} (m−1)^{m−1}/m^m (B = 1 at m = 1).
    """
    c = m * (m - 1) / (2 * sigma**2)
    return c - eps * (m - 1) + special.xlogy(m - 1, m - 1) - m * math.log(m)


def add_log_bound(s: float, sigma: float, eps: float, t: int) -> float:
    """ln B with X ≤ B for the add summand under N(−s, σ²)^t (s ≥ 0).

    The summand is non-zero only if (1/t)Σe^{ℓ_i} < e^{−ε}; by Jensen Σℓ_i < −tε, i.e. Σy_i < t(1/2 − σ²ε), and the
    weight Q^t/g = exp((2sΣy_i + ts²)/(2σ²)) is increasing in Σy_i: B = exp(ts(s + 1 − 2σ²ε)/(2σ²)).
    """
    return t * s * (s + 1 - 2 * sigma**2 * eps) / (2 * sigma**2)


def bound_optimal_shift(sigma: float, eps: float) -> float:
    """The m ≥ 1 minimizing `remove_log_bound`: root of (2m−1)/(2σ²) − ε + ln((m−1)/m) (increasing in m)."""
    fn = lambda m: (2 * m - 1) / (2 * sigma**2) - eps + math.log((m - 1) / m)
    if not math.isfinite(eps) or fn(1 + 1e-12) >= 0:  # an infinite reference ε has no optimal shift: plain
        return 1.0
    hi = 2.0
    while fn(hi) <= 0:
        hi *= 2
        if not math.isfinite(fn(hi)):  # the root lies beyond float range: the largest usable shift
            return hi / 2
    return optimize.brentq(fn, 1 + 1e-12, hi, xtol=1e-12)


def candidate_shifts(direction: str, sigma: float, t: int, eps: float) -> list[float]:
    """Proposal parameters tried on the pilot: plain, bound-optimal, and the tail threshold of the sum (remove) /
    the exponential tilt matching E[e^ℓ] = e^{−ε} (add). Only finite ones: an infinite reference ε (no ε up to the
    search cap) has no tail threshold, and an infinite shift would draw inf − inf."""
    if direction == "remove":
        m_bound = bound_optimal_shift(sigma, eps)
        inner = t * math.expm1(eps) + 1  # e^{ℓ_1} + (t − 1) = t e^ε
        m_tail = sigma**2 * math.log(inner) + 0.5 if inner > 0 else 1.0
        cands = [1.0, m_bound, max(1.0, m_tail), math.sqrt(m_bound * max(1.0, m_tail))]
    else:
        cands = [0.0, max(0.0, sigma**2 * eps - 0.5), max(0.0, sigma**2 * eps)]
    return sorted({c for c in cands if math.isfinite(c)})


@dataclass(frozen=True)
class Draws:
    """Per-sample log importance weight and allocation loss L (F24) under one proposal; summands for any ε."""

    direction: str
    sigma: float
    steps: int
    shift: float
    log_weight: np.ndarray
    loss: np.ndarray

    @property
    def samples(self) -> int:
        return self.loss.size

    def log_bound(self, eps: float) -> float:
        if self.direction == "remove":
            return remove_log_bound(self.shift, self.sigma, eps)
        return add_log_bound(self.shift, self.sigma, eps, self.steps)

    def log_hits(self, eps: float) -> np.ndarray:
        """ln of the non-zero summands X_j = w_j (1 − e^{ε−L_j}) (remove, L_j > ε) or w_j (1 − e^{ε+L_j}) (add,
        L_j < −ε); draws are stored sorted so that these form a prefix."""
        if self.direction == "remove":
            k = np.searchsorted(-self.loss, -eps, side="left")
            gap = eps - self.loss[:k]
        else:
            k = np.searchsorted(self.loss, -eps, side="left")
            gap = eps + self.loss[:k]
        return self.log_weight[:k] + np.log(-np.expm1(gap))

    def moments(self, eps: float) -> tuple[float, float, int]:
        """Mean, √(unbiased sample variance) and number of non-zero summands at ε (all n draws, zeros included).

        Computed on X / max X in log space, so tiny summands (δ ≈ 1e-170) do not underflow; (inf, inf) if
        max X overflows float64."""
        lx, n = self.log_hits(eps), self.samples
        if lx.size == 0:
            return 0.0, 0.0, 0
        top = float(lx.max())
        if top > 700:
            return math.inf, math.inf, int(lx.size)
        y = np.exp(lx - top)
        ybar = float(y.sum()) / n
        var = (float(((y - ybar) ** 2).sum()) + (n - lx.size) * ybar**2) / (n - 1)
        scale = math.exp(top)
        return ybar * scale, math.sqrt(var) * scale, int(lx.size)


def draw(direction: str, sigma: float, steps: int, shift: float, samples: int, rng: np.random.Generator) -> Draws:
    """`samples` i.i.d. draws from the proposal of `direction` with parameter `shift` (vectorized, chunked)."""
    rows = max(1, CHUNK // steps)
    logw, loss = np.empty(samples), np.empty(samples)
    inv = 1 / (2 * sigma**2)
    log_t = math.log(steps)
    for start in range(0, samples, rows):
        n = min(rows, samples - start)
        y = sigma * rng.standard_normal((n, steps))
        if direction == "remove":
            y[:, 0] += shift
        else:
            y -= shift
        a = (2 * y - 1) * inv  # ℓ(y_i), F15
        top = a.max(axis=1)
        lse = top + np.log(np.exp(a - top[:, None]).sum(axis=1))
        if direction == "remove":  # ln(P̄_t/g_m) = LSE(ℓ) − LSE(mℓ) + m(m−1)/(2σ²)
            lse_m = shift * top + np.log(np.exp(shift * (a - top[:, None])).sum(axis=1))
            logw[start : start + n] = lse - lse_m + shift * (shift - 1) * inv
        else:  # ln(Q^t/g) = Σ(2sy_i + s²)/(2σ²)
            logw[start : start + n] = (2 * shift * y.sum(axis=1) + steps * shift**2) * inv
        loss[start : start + n] = lse - log_t
    order = np.argsort(-loss if direction == "remove" else loss, kind="stable")
    return Draws(direction, sigma, steps, shift, logw[order], loss[order])


def intervals(draws: Draws, eps: float, confidence: float) -> dict:
    """Point estimate and two-sided intervals at `confidence` for δ(ε) = E[X], X ∈ [0, B] i.i.d.

    bernstein: mean ± (√(2 V ln(4/a)/n) + 7 B ln(4/a)/(3(n−1))), a = 1 − confidence, V the unbiased sample variance
    (Maurer–Pontil Thm 4 on X/B and on 1 − X/B, each at a/2). clt: mean ± z_{1−a/2} √(V/n).
    """
    n, a = draws.samples, 1 - confidence
    mean, std, nonzero = draws.moments(eps)
    log_bound = draws.log_bound(eps)
    half_b = half_width(std, log_bound, n, confidence)
    half_c = float(special.ndtri(1 - a / 2)) * std / math.sqrt(n)
    if not math.isfinite(mean + half_b):  # float64 overflow of a summand or of B: nothing is known
        return {
            "estimate": mean,
            "std_error": math.inf,
            "weight_bound": math.inf,
            "bernstein": (0.0, math.inf),
            "clt": (0.0, math.inf),
            "nonzero": nonzero,
        }
    return {
        "estimate": mean,
        "std_error": std / math.sqrt(n),
        "weight_bound": math.exp(min(log_bound, 709.0)),
        "bernstein": (mean - half_b, mean + half_b),
        "clt": (mean - half_c, mean + half_c),
        "nonzero": nonzero,
    }


def half_width(std: float, log_bound: float, samples: int, confidence: float) -> float:
    """Empirical-Bernstein half-width at `samples` draws for a sample standard deviation `std` and bound e^log_bound."""
    log_term = math.log(4 / (1 - confidence))
    bound = math.exp(min(log_bound, 709.0))
    return std * math.sqrt(2 * log_term / samples) + 7 * bound * log_term / (3 * (samples - 1))


def choose_shift(
    direction: str,
    sigma: float,
    steps: int,
    eps: float,
    pilot: int,
    samples: int,
    confidence: float,
    rng: np.random.Generator,
) -> float:
    """Candidate proposal with the smallest predicted Bernstein half-width on an independent pilot sample."""
    best, best_width = None, math.inf
    for shift in candidate_shifts(direction, sigma, steps, eps):
        d = draw(direction, sigma, steps, shift, pilot, rng)
        width = half_width(d.moments(eps)[1], d.log_bound(eps), samples, confidence)
        if best is None or width < best_width:
            best, best_width = shift, width
    return best


def choose_shift_for_target(
    direction: str,
    sigma: float,
    steps: int,
    eps_refs: list[float],
    target: float,
    pilot: int,
    samples: int,
    confidence: float,
    rng: np.random.Generator,
    first_below,
):
    """For an ε(δ) query: the candidate (over the candidates of every reference ε) whose predicted upper end
    inf{ε : pilot mean + predicted Bernstein half-width ≤ target} is smallest; pilot independent of the main draws."""
    shifts = sorted({s for e in eps_refs for s in candidate_shifts(direction, sigma, steps, e)})
    best, best_eps = shifts[0], math.inf
    for shift in shifts:
        d = draw(direction, sigma, steps, shift, pilot, rng)

        def predicted_upper(e: float) -> float:
            mean, std, _ = d.moments(e)
            return mean + half_width(std, d.log_bound(e), samples, confidence)

        eps = first_below(predicted_upper, target)
        if eps < best_eps:
            best, best_eps = shift, eps
    return best
