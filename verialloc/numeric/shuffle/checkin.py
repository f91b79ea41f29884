"""Random check-ins appendix of Balle et al. 2020 ([002]) as comparators: all functions are UPPER bounds.

Adjacency is replacement of one record ("at index 1"); the (ε, δ)-closeness of F63 is symmetric, so every ε
holds for both orders of the pair (remove and add alike). Local randomizers are ε0-DP (pure) unless a δ0 is
given (Lemma A.3, F67). Float64 closed forms; main-text theorems are reconstructed from the proofs (§8).
"""

from __future__ import annotations

import math

from ...errors import InvalidParameter
from ...validation import as_float, integer, open_unit, positive, to_fraction


def biased_sampling_ratio(eps0, q) -> float:
    """Lemma A.1 (F64): Pr[A(d_k) ∈ S] / Pr[A(BiasedSampling_q(D, k)) ∈ S] <= e^{ε0}/(1 + q(e^{ε0} − 1)).

    Equals e^{ε0} at q = 0 and 1 at q = 1 (I39); q in [0, 1].
    """
    e0, q = _eps0(eps0), _unit_closed("q", q)
    return 1 / (q + (1 - q) * math.exp(-e0))


def advanced_composition(epsilons, delta) -> float:
    """Heterogeneous advanced composition (F65, Kairouz et al. 2015, [002] eq. 2), upper bound.

    Adaptive composition of ε_i-DP mechanisms is (ε, δ)-DP with
    ε = Σ ε_i (e^{ε_i} − 1)/(e^{ε_i} + 1) + √(2 ln(1/δ) Σ ε_i²)   [(e^x − 1)/(e^x + 1) = tanh(x/2)].
    """
    eps = [as_float(f"epsilons[{i}]", e, positive) for i, e in enumerate(_nonempty(epsilons))]
    d = as_float("delta", delta, open_unit)
    return math.fsum(e * math.tanh(e / 2) for e in eps) + math.sqrt(2 * -math.log(d) * math.fsum(e * e for e in eps))


def decreasing_composition(a, b, k, delta) -> float:
    """Lemma A.2 (F66): k steps with ε_i <= ln(1 + a/(k − b(i−1))) compose to (ε, δ)-DP,
    ε = a²/(2k(1−b)) + √(2a² ln(1/δ)/(k(1−b))); a > 0, b in (0, 1). Upper bound on F65 of those ε_i (I37).
    """
    a, b = as_float("a", a, positive), as_float("b", b, open_unit)
    k, d = integer("k", k), as_float("delta", delta, open_unit)
    scale = k * (1 - b)
    return a * a / (2 * scale) + math.sqrt(2 * a * a * -math.log(d) / scale)


def replacement_step_epsilons(eps0, m, w_max=1) -> list[float]:
    """Per-step ε_i of Thm A.4's proof (F68): ln(1 + w_max e^{ε0}(e^{ε0} − 1)/(i − 1 + e^{ε0}(m − i + 1))), i = 1..m.

    From Lemma A.1 with q = (m − i + 1)/m and advanced joint convexity of overlapping mixtures.
    """
    e0, m, w = _eps0(eps0), integer("m", m), _unit_closed("w_max", w_max)
    x = math.exp(e0)
    return [math.log1p(w * x * math.expm1(e0) / (i - 1 + x * (m - i + 1))) for i in range(1, m + 1)]


def replacement_epsilon(eps0, m, delta, w_max=1, *, composed=False) -> float:
    """Thm A.4 (F68): ε of A_rep (one random replacement, m steps, weights <= w_max) at δ, upper bound.

    composed=False: the printed closed form (F66 with a = w_max(e^{ε0} − 1), b = 1 − e^{−ε0}, k = m),
    ε = w²e^{ε0}(e^{ε0} − 1)²/(2m) + w(e^{ε0} − 1)√(2e^{ε0} ln(1/δ)/m).
    composed=True: F65 applied to the per-step ε_i themselves (never larger; same proof, no relaxation).
    """
    e0, m, w, d = _eps0(eps0), integer("m", m), _unit_closed("w_max", w_max), as_float("delta", delta, open_unit)
    if composed:
        return advanced_composition(replacement_step_epsilons(e0, m, w), d) if w > 0 else 0.0
    x, g = math.exp(e0), math.expm1(e0)
    return w * w * x * g * g / (2 * m) + w * g * math.sqrt(2 * x * -math.log(d) / m)


def replacement_epsilon_simple(eps0, m, delta, w_max=1) -> float:
    """The simplified Thm A.4 bound 7·w_max·ε0·√(ln(1/δ)/m), stated for ε0 <= 1 and δ <= 1/100 (F68, E25)."""
    e0, m, w, d = _eps0(eps0), integer("m", m), _unit_closed("w_max", w_max), as_float("delta", delta, open_unit)
    if e0 > 1:
        raise InvalidParameter("eps0", eps0, "must be <= 1 for the simplified bound")
    if d > 0.01:
        raise InvalidParameter("delta", delta, "must be <= 1/100 for the simplified bound (erratum E25)")
    return 7 * w * e0 * math.sqrt(-math.log(d) / m)


def pure_reduction_delta0_max(eps0, delta1) -> float:
    """Lemma A.3 (F67): largest δ0 for which an (ε0, δ0) local randomizer is δ1-close in TV to an 8ε0-DP one,
    (1 − e^{−ε0})δ1 / (4e^{ε0}(2 + ln(2/δ1)/ln(1/(1 − e^{−5ε0})))) — with e^{−5ε0} as in the statement (E24).
    """
    e0, d1 = _eps0(eps0), as_float("delta1", delta1, open_unit)
    rounds = math.log(2 / d1) / -math.log1p(-math.exp(-5 * e0))
    return -math.expm1(-e0) * d1 / (4 * math.exp(e0) * (2 + rounds))


def replacement_epsilon_approx(eps0, delta0, m, delta, delta1, w_max=1) -> tuple[float, float]:
    """Thm A.4, (ε0, δ0) case (F67 + F68): (ε′, δ′) with ε′ = the pure bound at 8ε0,
    ε′ = w²e^{8ε0}(e^{8ε0} − 1)²/(2m) + w(e^{8ε0} − 1)√(2e^{8ε0} ln(1/δ)/m), δ′ = δ + m(e^{ε′} + 1)δ1.
    Requires δ0 <= `pure_reduction_delta0_max(eps0, delta1)`.
    """
    e0, d0, d1 = _eps0(eps0), as_float("delta0", delta0, open_unit), as_float("delta1", delta1, open_unit)
    m = integer("m", m)
    limit = pure_reduction_delta0_max(e0, d1)
    if d0 > limit:
        raise InvalidParameter("delta0", delta0, f"must be <= {limit:.6g} (Lemma A.3 with this eps0 and delta1)")
    eps = replacement_epsilon(8 * e0, m, delta, w_max)
    return eps, as_float("delta", delta, open_unit) + m * (math.exp(eps) + 1) * d1


def fixed_checkin_epsilon(eps0, m, p0, delta) -> float:
    """Thm 3.2 (F69): A_fix, random check-ins into m slots with participation probability p0: Thm A.4 with
    w_max = p0 (ε = p0²e^{ε0}(e^{ε0} − 1)²/(2m) + p0(e^{ε0} − 1)√(2e^{ε0} ln(1/δ)/m); "p" in print is p0, E25)."""
    return replacement_epsilon(eps0, m, delta, _unit_closed("p0", p0))


def sliding_window_epsilon(eps0, m, delta) -> float:
    """Thm 4.3 (F70): A_sldw (user j checks into a uniform slot among j..j+m−1): Thm A.4 with w_max = 1."""
    return replacement_epsilon(eps0, m, delta, 1)


def swapping_step_epsilons(eps0, n) -> list[float]:
    """Per-step ε_i of Thm A.7's proof (F74): ln(1 + e^{2ε0}(e^{ε0} − 1)/(e^{2ε0} + (i − 1) + (n − i)e^{ε0}))."""
    e0, n = _eps0(eps0), integer("n", n)
    x = math.exp(e0)
    return [math.log1p(x * x * math.expm1(e0) / (x * x + (i - 1) + (n - i) * x)) for i in range(1, n + 1)]


def swapping_epsilon(eps0, n, delta, *, composed=False) -> float:
    """Thm A.7 / Thm 5.1 (F74): amplification by swapping (and local responses after a uniform shuffle), at δ.

    composed=False: ε = e^{3ε0}(e^{ε0} − 1)²/(2n) + e^{3ε0/2}(e^{ε0} − 1)√(2 ln(1/δ)/n) (F66 with
    a = e^{ε0}(e^{ε0} − 1), b = 1 − e^{−ε0}, k = n); composed=True: F65 on the per-step ε_i (never larger).
    """
    e0, n, d = _eps0(eps0), integer("n", n), as_float("delta", delta, open_unit)
    if composed:
        return advanced_composition(swapping_step_epsilons(e0, n), d)
    x, g = math.exp(e0), math.expm1(e0)
    return x**3 * g * g / (2 * n) + x**1.5 * g * math.sqrt(2 * -math.log(d) / n)


def fixed_bins_epsilon(eps0, loads, delta) -> float:
    """Thm A.5 (F73): A_bin with bin sizes ℓ (Σℓ_i = n), ε = ‖ℓ‖²e^{4ε0}(e^{ε0} − 1)²/(2n²) + ‖ℓ‖e^{2ε0}(e^{ε0} − 1)√(2 ln(1/δ))/n."""
    e0, d = _eps0(eps0), as_float("delta", delta, open_unit)
    sizes = [integer(f"loads[{i}]", v, lo=0) for i, v in enumerate(_nonempty(loads))]
    n = sum(sizes)
    if n == 0:
        raise InvalidParameter("loads", loads, "must hold at least one user")
    norm, x, g = math.sqrt(sum(v * v for v in sizes)), math.exp(e0), math.expm1(e0)
    return norm**2 * x**4 * g * g / (2 * n * n) + norm * x * x * g * math.sqrt(2 * -math.log(d)) / n


def _eps0(value) -> float:
    e0 = as_float("eps0", value, positive)
    if e0 > 50:
        raise InvalidParameter("eps0", value, "must lie in (0, 50]")
    return e0


def _unit_closed(name: str, value) -> float:
    x = to_fraction(name, value)
    if not 0 <= x <= 1:
        raise InvalidParameter(name, value, "must lie in [0, 1]")
    return float(x)


def _nonempty(values) -> list:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
        raise InvalidParameter("values", values, "must be a non-empty list of numbers")
    return list(values)
