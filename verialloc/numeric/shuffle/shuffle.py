"""Shuffle Gaussian mechanism of Liew–Takahashi [001] in float64: RDP, subsampled and check-in variants.

* `shuffle_gaussian_rdp` — [001] Thm 1 (F56) by its own Algorithm 1 (F58): integer partitions of λ and the
  unique counts κ of (k_1, …, k_n) (zeros included), with the corrections of erratum E21 (exponent Σk²/(2σ²),
  result ln(Sum)/(λ − 1)). Evaluated in the stable weighted form of F38 (weights summing to 1, expm1/log1p),
  so that values near 0 (n = 6·10⁴) keep full relative precision. Per E20 it is the **remove-direction**
  RDP R_λ(M(D′)‖M(D)) = the remove RDP of 1-out-of-n allocation (F40); the add direction is not covered.
* `gaussian_rdp` — Corollary 1 (F57): the unshuffled bound λ/(2σ²) (upper).
* `subsampled_shuffle_rdp` — Thm 2 (F59), upper, m of n users sampled without replacement.
* `checkin_shuffle_rdp` — eq. (17) (F60), upper; `checkin_shuffle_rdp_conjectural` — Thm 3, valid only
  if Conjecture 1 holds (never a proven bound).
* `epsilon_from_rdp`, `shuffle_epsilon` — conversion F18 in the form of [001] eq. (4) (erratum E23: 0 < δ < 1)
  over integer orders 2..λ_max (λ_max = 30 in [001] Table 1), upper.
* `clones_baseline_delta` — the Table 1 baseline (F61) as printed: only its δ accounting and applicability
  condition (its ε is printed as an O(·) only).

Float64 throughout (this module never imports the exact layer); values carry about 1e-13 relative rounding,
absorbed by `ROUNDING` in the returned upper brackets.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import binom

from ...errors import InvalidParameter, UnsupportedRequest
from ...result import Bracket
from ...validation import as_float, integer, open_unit, positive, rate as check_rate
from ..rdp.rdp_conversion import epsilon_f18

METHOD = "shuffle-rdp"
#: largest number of partitions of λ enumerated (λ = 60 has 966,467)
MAX_PARTITIONS = 1_000_000
#: relative inflation of float64 upper bounds returned as brackets (covers the rounding of the sums)
ROUNDING = 1e-12
#: [001] Table 1 evaluates integer orders up to 30
DEFAULT_MAX_ORDER = 30


@lru_cache(maxsize=64)
def _partition_table(lam: int):
    """Arrays over all partitions of λ: (number of parts, Σ p², ln λ! − Σ ln p! − Σ_j ln c_j!).

    GetPartition + GetUniqueCount of [001] Alg. 1 (F58): c_j are the multiplicities of the distinct
    non-zero parts; the multiplicity of the zeros, n − |Π|, is applied per n in `_log_weights`.
    """
    if _count_partitions(lam) > MAX_PARTITIONS:
        raise UnsupportedRequest("order", lam, f"more than {MAX_PARTITIONS} partitions of the order")
    parts, squares, log_coef = [], [], []
    log_fact = gammaln(np.arange(lam + 2, dtype=float) + 1)

    def walk(remaining, largest, count, sq, acc):
        if remaining == 0:
            parts.append(count)
            squares.append(sq)
            log_coef.append(log_fact[lam] - acc)
            return
        for p in range(min(largest, remaining), 0, -1):
            for c in range(1, remaining // p + 1):
                walk(remaining - p * c, p - 1, count + c, sq + c * p * p, acc + c * log_fact[p] + log_fact[c])

    walk(lam, lam, 0, 0, 0.0)
    return np.array(parts), np.array(squares, dtype=float), np.array(log_coef)


def _count_partitions(lam: int) -> int:
    ways = [1] + [0] * lam
    for part in range(1, lam + 1):
        for s in range(part, lam + 1):
            ways[s] += ways[s - part]
    return ways[lam]


def _log_weights(n: int, lam: int):
    """(ln w_Π, Σ p² of Π) for the partitions with at most n parts, w_Π = n!/((n−|Π|)! n^λ ∏c_j!)·λ!/∏p!.

    Σ_Π w_Π = 1 (the multinomial weights sum to n^λ, F57 proof); n!/(n−|Π|)!/n^{|Π|} = ∏_{i<|Π|}(1 − i/n)
    is summed with log1p so large n loses no digits (F38 stable form).
    """
    count, squares, log_coef = _partition_table(lam)
    keep = count <= n
    falling = np.concatenate(([0.0], np.cumsum(np.log1p(-np.arange(min(n, lam)) / n))))
    c = count[keep]
    return falling[c] + (c - lam) * math.log(n) + log_coef[keep], squares[keep]


def shuffle_gaussian_rdp(sigma, n, order) -> float:
    """ε(λ) of the shuffle Gaussian mechanism, [001] Thm 1 (F56) by Algorithm 1 (F58, erratum E21).

    Exact identity (remove direction, E20): (1/(λ−1))·ln(e^{−λ/(2σ²)} n^{−λ} Σ_{k_1+…+k_n=λ} binom(λ; k)
    e^{Σk_i²/(2σ²)}) = R_λ of 1-out-of-n allocation of N(1, σ²) vs N(0, σ²) (F39/F40).
    """
    s, n, lam = as_float("sigma", sigma, positive), integer("n", n), integer("order", order, lo=2)
    log_w, squares = _log_weights(n, lam)
    # Π_p D_p − 1 with D_p = e^{p(p−1)/(2σ²)}: exponent (Σp² − λ)/(2σ²) >= 0
    exponent = (squares - lam) / (2 * s * s)
    positive_terms = exponent > 0
    if not positive_terms.any():
        return 0.0
    log_sum = logsumexp(log_w[positive_terms] + _log_expm1(exponent[positive_terms]))
    return _log1p_exp(log_sum) / (lam - 1)


def _log_expm1(x):
    """ln(e^x − 1) for x > 0 without overflow (scalar or array)."""
    x = np.asarray(x, dtype=float)
    big = x > 30
    return np.where(big, x + np.log1p(-np.exp(-np.where(big, x, 30.0))), np.log(np.expm1(np.minimum(x, 30.0))))


def _log1p_exp(x: float) -> float:
    """ln(1 + e^x) without overflow."""
    return math.log1p(math.exp(x)) if x < 30 else x + math.log1p(math.exp(-x))


def gaussian_rdp(sigma, order) -> float:
    """λ/(2σ²): the unshuffled Gaussian RDP, an upper bound on `shuffle_gaussian_rdp` ([001] Cor 1, F57)."""
    s, lam = as_float("sigma", sigma, positive), integer("order", order, lo=2)
    return lam / (2 * s * s)


def subsampled_shuffle_rdp(sigma, n, m, order) -> float:
    """Upper bound on the RDP of m-of-n subsampling (without replacement) + shuffle Gaussian ([001] Thm 2, F59).

    (1/(λ−1))·ln(1 + γ² C(λ,2) min{4(e^{ε_m(2)} − 1), 2e^{ε_m(2)}} + Σ_{j=3..λ} 2γ^j C(λ,j) e^{(j−1)ε_m(j)}),
    γ = m/n, ε_m = `shuffle_gaussian_rdp` with m users (Wang et al. 2019 Thm 9 with ε(∞) = ∞; E23 brackets).
    Direction: remove, as the ε_m it is built on (E20).
    """
    s, n, lam = as_float("sigma", sigma, positive), integer("n", n), integer("order", order, lo=2)
    m = integer("m", m, lo=1, hi=n)
    return _subsampled(s, m, m / n, lam)


def _subsampled(s: float, m: int, gamma: float, lam: int) -> float:
    e2 = shuffle_gaussian_rdp(s, m, 2)
    log_gamma = math.log(gamma)
    second = min(math.log(4) + float(_log_expm1(e2)) if e2 > 0 else -math.inf, math.log(2) + e2)
    terms = [2 * log_gamma + _log_comb(lam, 2) + second]
    terms += [
        math.log(2) + j * log_gamma + _log_comb(lam, j) + (j - 1) * shuffle_gaussian_rdp(s, m, j)
        for j in range(3, lam + 1)
    ]
    return _log1p_exp(float(logsumexp(terms))) / (lam - 1)


def _log_comb(a: int, b: int) -> float:
    return float(gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1))


def checkin_shuffle_rdp(sigma, n, checkin_rate, order) -> float:
    """Upper bound on the RDP of shuffled check-in Gaussian, [001] eq. (17) (F60), remove direction (E20).

    (1/(λ−1))·ln Σ_{k=1..n} Binom(n, γ)(k)·e^{(λ−1)ε^SSG_{γ,k}(λ)} with ε^SSG = Thm 2 (F59) at k shuffled
    instances and rate γ (as printed in [001]). The printed sum starts at k = 1; the k = 0 term (nobody checks
    in: RDP 0, weight (1−γ)^n) is added here, as joint convexity of e^{(λ−1)R_λ} over the mixture in k gives it,
    which can only raise the value and keeps it >= 0. Summed as 1 + Σ_k Binom(k)·(e^{(λ−1)ε_k} − 1) so the
    binomial weights' rounding only touches the small part. Binomial terms below e^{−40} of the largest are
    not evaluated: their total weight is charged at Thm 2 with ε_k(j) replaced by j/(2σ²) (F57), which
    bounds every ε^SSG_{γ,k} (monotonicity in k would need Conjecture 1).
    """
    s, n, lam = as_float("sigma", sigma, positive), integer("n", n), integer("order", order, lo=2)
    gamma = float(check_rate("checkin_rate", checkin_rate))
    ks = np.arange(1, n + 1)
    log_pmf = binom.logpmf(ks, n, gamma)
    near = log_pmf >= log_pmf.max() - 40
    exponents = [(lam - 1) * _subsampled(s, int(k), gamma, lam) for k in ks[near]]
    terms = list(log_pmf[near] + _log_expm1(np.array(exponents)))
    if not near.all():
        worst = (lam - 1) * _subsampled_unshuffled(s, gamma, lam)
        terms.append(float(logsumexp(log_pmf[~near])) + float(_log_expm1(worst)))
    return _log1p_exp(float(logsumexp(terms))) / (lam - 1)


def _subsampled_unshuffled(s: float, gamma: float, lam: int) -> float:
    """Thm 2 (F59) with ε_m(j) replaced by its upper bound j/(2σ²) (F57): >= ε^SSG_{γ,k}(λ) for every k."""
    e2 = 2 / (2 * s * s)
    log_gamma = math.log(gamma)
    second = min(math.log(4) + float(_log_expm1(e2)), math.log(2) + e2)
    terms = [2 * log_gamma + _log_comb(lam, 2) + second]
    terms += [math.log(2) + j * log_gamma + _log_comb(lam, j) + (j - 1) * j / (2 * s * s) for j in range(3, lam + 1)]
    return _log1p_exp(float(logsumexp(terms))) / (lam - 1)


def checkin_shuffle_rdp_conjectural(sigma, n, checkin_rate, order, spread) -> float:
    """CONJECTURE-DEPENDENT value of [001] Thm 3 (eq. 18, F60): **not a proven bound** (needs Conjecture 1).

    (1/(λ−1))·ln(e^{(λ−1)ε^SSG_{γ,1}(λ) − Δ²nγ/2} + e^{(λ−1)ε^SSG_{γ,(1−Δ)nγ+1}(λ)}), Δ = spread in (0, 1) with
    (1 − Δ)nγ an integer (proof of Thm 3; intermediate lines corrected per E22).
    """
    s, n, lam = as_float("sigma", sigma, positive), integer("n", n), integer("order", order, lo=2)
    gamma, delta_ = float(check_rate("checkin_rate", checkin_rate)), as_float("spread", spread, open_unit)
    split = (1 - delta_) * n * gamma
    if abs(split - round(split)) > 1e-9:
        raise InvalidParameter("spread", spread, "must make (1 - spread)·n·checkin_rate an integer")
    k_high = int(round(split)) + 1
    if k_high > n:
        raise InvalidParameter("spread", spread, "must leave (1 - spread)·n·checkin_rate + 1 <= n")
    low = (lam - 1) * _subsampled(s, 1, gamma, lam) - delta_**2 * n * gamma / 2
    high = (lam - 1) * _subsampled(s, k_high, gamma, lam)
    return float(np.logaddexp(low, high)) / (lam - 1)


def epsilon_from_rdp(rdp_of_order, delta, max_order=DEFAULT_MAX_ORDER) -> tuple[float, int]:
    """(ε, λ*) = min over integer λ in [2, max_order] of ε(λ) + φ(λ) (F18, [001] eq. (4), rdp_conversion), upper.

    `rdp_of_order(λ)` must return an RDP upper bound (direction as the caller's RDP).
    """
    d = as_float("delta", delta, open_unit)
    top = integer("max_order", max_order, lo=2)
    lams = np.arange(2, top + 1, dtype=float)
    eps = epsilon_f18(lams, np.array([float(rdp_of_order(int(lam))) for lam in lams]), d, pad=True)
    best = int(np.argmin(eps))
    return float(eps[best]), int(lams[best])


def shuffle_epsilon(sigma, n, delta, *, compositions=1, max_order=DEFAULT_MAX_ORDER) -> Bracket:
    """Upper bound on ε of `compositions` adaptive rounds of the shuffle Gaussian at δ ([001] §5.1, Table 1).

    RDP F56/F58 × compositions (F21), then F18 over integer λ <= max_order. Remove direction (E20).
    The lower end of the bracket is 0: a conversion bound says nothing about how small ε can be.
    """
    s, n = positive("sigma", sigma), integer("n", n)
    c = integer("compositions", compositions)
    eps, lam = epsilon_from_rdp(lambda a: c * shuffle_gaussian_rdp(s, n, a), delta, max_order)
    return Bracket(
        "epsilon",
        mp.mpf(0),
        mp.mpf(eps) * (1 + ROUNDING),
        METHOD,
        "remove",
        "bound",
        {
            "order": lam,
            "rdp": c * shuffle_gaussian_rdp(s, n, lam),
            "conversion": "F18 ([001] eq. 4)",
            "max_order": int(max_order),
            "compositions": c,
        },
    )


def clones_baseline_delta(epsilon, eps0, delta0, n, delta) -> tuple[float, bool]:
    """BASELINE of [001] Table 1 (F61, clones bound of Feldman et al. 2021) as printed, δ part only.

    Returns (δ + (e^ε + 1)(1 + e^{−ε0}/2)·n·δ0, applicable) where applicable says whether
    ε0 <= ln(n/(16 ln(2/δ))) (printed "log(2δ)" and "(s^ε + 1)" — erratum E23). The ε of that bound is
    printed only as O(ε0 √(e^{ε0} ln(1/δ))/√n), so it is not computed here.
    """
    e = as_float("epsilon", epsilon, positive)
    e0, d0 = as_float("eps0", eps0, positive), as_float("delta0", delta0, open_unit)
    n, d = integer("n", n), as_float("delta", delta, open_unit)
    threshold = n / (16 * math.log(2 / d))
    applicable = threshold > 1 and e0 <= math.log(threshold)
    return d + (math.exp(e) + 1) * (1 + math.exp(-e0) / 2) * n * d0, applicable
