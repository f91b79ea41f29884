"""Exact profiles of random allocation and Poisson subsampling over a finite pair (F11, F22, F23, F31, F46).

With a finite randomizer (P, Q) on outputs 0..m−1, the likelihood ratio of t steps depends only on the
output counts n = (n_0..n_{m−1}), Σ n_j = t, so every t-step pair lives on the C(t+m−1, m−1) count
vectors instead of the m^t sequences. Atoms are labelled by their count vectors ((j, n_j), ...).
"""
from __future__ import annotations

import mpmath as mp

from ..errors import InvalidParameter, UnsupportedRequest
from ..mechanisms.base import mpq
from ..validation import digits as check_digits
from ..validation import direction as check_direction
from ..validation import integer, rate as check_rate, real
from .finite_pair import (
    MAX_ATOMS, FiniteLossPair, _finite, _unit_closed, count_vectors, count_vectors_size, scaled_powers,
)

SCHEMES = ("allocation", "poisson")

#: Largest number of k-subset terms (count vectors × k-splits) an allocation pair may sum.
MAX_TERMS = 4_000_000

#: Precision levels tried by the certified front ends before giving up.
_LEVELS = 4


def allocation_pair(mech, steps, k=1) -> FiniteLossPair:
    """(P̄_{t,k}, Q^t) of random allocation A_{t,k} (F11, F22; F23 for k = 1): remove H(P̄‖Q^t), add H(Q^t‖P̄).

    Exact k-subset likelihood (no F27 reduction): the counts of t steps are those of k draws from P plus
    t − k draws from Q, so with x̃_j(c) = x_j^c/c!
        B(n) = t! ∏_j Q̃_j(n_j),   A(n) = k!(t−k)! Σ_{(k_j): Σk_j = k, k_j ≤ n_j} ∏_j P̃_j(k_j) Q̃_j(n_j − k_j),
    which equals multinom(t; n)/C(t, k) · Σ ∏_j C(n_j, k_j) P_j^{k_j} Q_j^{n_j−k_j}.
    """
    p, q = _finite(mech).probabilities()
    t = integer("steps", steps)
    k = integer("k", k, 1, t)
    # outputs with Q_j = 0 can occur only among the k steps drawn from P
    bounds = [0 if x == 0 and y == 0 else (t if y > 0 else k) for x, y in zip(p, q)]
    size = count_vectors_size(t, bounds)
    if size > MAX_ATOMS:
        raise UnsupportedRequest(
            "steps", t, f"{len(p)} outputs give {size} count vectors at steps={t}; at most {MAX_ATOMS} are supported",
        )
    splits = list(count_vectors(k, [k if x > 0 else 0 for x in p]))
    if size * len(splits) > MAX_TERMS:
        raise UnsupportedRequest(
            "k", k, f"steps={t}, k={k} need {size} x {len(splits)} subset terms; at most {MAX_TERMS} are supported",
        )
    scaled_p = [scaled_powers(x, k) for x in p]
    scaled_q = [scaled_powers(y, t) for y in q]
    split_weights = []
    for split in splits:
        w = mp.mpf(1)
        for j, c in split:
            w *= scaled_p[j][c]
        split_weights.append((split, w))
    fa, fb = mp.factorial(k) * mp.factorial(t - k), mp.factorial(t)
    counts = [0] * len(p)
    a, b, labels = [], [], []
    for part in count_vectors(t, bounds):
        mass_b = fb
        for j, c in part:
            counts[j] = c
            mass_b *= scaled_q[j][c]
        terms = []
        for split, w in split_weights:
            if all(counts[j] >= c for j, c in split):
                for j, c in split:
                    counts[j] -= c
                for j, _ in part:
                    w *= scaled_q[j][counts[j]]
                for j, c in split:
                    counts[j] += c
                terms.append(w)
        for j, _ in part:
            counts[j] = 0
        mass_a = fa * mp.fsum(terms)
        if mass_a or mass_b:
            a.append(mass_a)
            b.append(mass_b)
            labels.append(part)
    return FiniteLossPair._of(a, b, labels)


def poisson_pair(mech, steps, rate) -> FiniteLossPair:
    """(P_λ^t, Q^t) with P_λ = λP + (1−λ)Q (F11, F46): remove H(P_λ^t‖Q^t), add H(Q^t‖P_λ^t)."""
    p, q = _finite(mech).probabilities()
    t = integer("steps", steps)
    lam = mpq(check_rate("rate", rate))
    mixed = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    return FiniteLossPair._of(mixed, q)._power(t, "steps")


def scheme_pair(mech, scheme: str, steps, *, k=1, epochs=1, rate=None) -> FiniteLossPair:
    """The pair of `scheme` composed over `epochs` (F8, F11): "allocation" uses k, "poisson" uses rate (k ignored)."""
    if scheme not in SCHEMES:
        raise InvalidParameter("scheme", scheme, "must be one of " + "|".join(SCHEMES))
    e = integer("epochs", epochs)
    if scheme == "allocation":
        if rate is not None:
            raise InvalidParameter("rate", rate, "applies only to scheme=poisson")
        pair = allocation_pair(mech, steps, k)
    else:
        if rate is None:
            raise InvalidParameter("rate", rate, "must lie in (0, 1] for scheme=poisson")
        pair = poisson_pair(mech, steps, rate)
    return pair.power(e)


def discrete_delta(mech, scheme: str, steps, epsilon, direction: str, *, k=1, epochs=1, rate=None, digits=30) -> mp.mpf:
    """δ(ε) of `scheme` over the finite pair `mech` (F2, F3): remove, add, or both (= max of the two).

    Correct to `digits` significant digits: evaluated at two (or more) increasing precisions until
    consecutive values agree to digits + 2 digits. A value that stays below the rounding floor at two
    consecutive precisions (an exact tie, e.g. P = Q at ε = 0) is returned as 0.
    """
    eps = real("epsilon", epsilon)
    directions = _directions(direction)
    values = _certified(mech, scheme, steps, k, epochs, rate, digits,
                        lambda pair: [pair.delta(eps, d) for d in directions])
    return max(values)


def discrete_epsilon(mech, scheme: str, steps, delta, direction: str, *, k=1, epochs=1, rate=None, digits=30) -> mp.mpf:
    """Smallest ε with δ(ε) ≤ delta (F2, F3; see FiniteLossPair.epsilon); "both" takes the larger ε.

    mp.inf when the mass at loss +inf exceeds delta. Certified to `digits` digits like discrete_delta.
    """
    target = _unit_closed("delta", delta)
    directions = _directions(direction)
    values = _certified(mech, scheme, steps, k, epochs, rate, digits,
                        lambda pair: [pair.epsilon(target, d) for d in directions])
    return max(values)


def _directions(direction: str) -> tuple[str, ...]:
    d = check_direction(direction)
    return ("remove", "add") if d == "both" else (d,)


def _certified(mech, scheme, steps, k, epochs, rate, digits, query) -> list:
    """Run `query(pair)` at precisions digits + g, digits + 2g, ... until two consecutive results agree."""
    n = check_digits(digits)
    t = integer("steps", steps)
    guard = 10 + 2 * len(str(t * integer("epochs", epochs)))
    previous = None
    for level in range(1, _LEVELS + 1):
        with mp.workdps(n + level * guard):
            current = query(scheme_pair(mech, scheme, t, k=k, epochs=epochs, rate=rate))
        if previous is not None:
            floors = (mp.mpf(10) ** -(n + (level - 2) * guard), mp.mpf(10) ** -(n + (level - 1) * guard))
            settled = [_settle(u, v, n, floors) for u, v in zip(previous, current)]
            if all(s is not None for s in settled):
                return settled
        previous = current
    raise UnsupportedRequest("digits", n, "the value did not settle to this many digits (ill-conditioned at a breakpoint)")


def _settle(coarse: mp.mpf, fine: mp.mpf, digits: int, floors: tuple) -> mp.mpf | None:
    """`fine` if it agrees with `coarse` to digits + 2 digits, 0 if both sit below their rounding floors."""
    if mp.isinf(coarse) or mp.isinf(fine):
        return fine if coarse == fine else None
    if abs(fine - coarse) <= abs(fine) * mp.mpf(10) ** -(digits + 2):
        return fine
    if abs(coarse) <= floors[0] and abs(fine) <= floors[1]:
        return mp.mpf(0)
    return None
