"""Exact profiles of random allocation and Poisson subsampling over a finite pair (F11, F22, F23, F31, F46).

With a finite randomizer (P, Q) on outputs 0..m−1, the likelihood ratio of t steps depends only on the
output counts n = (n_0..n_{m−1}), Σ n_j = t, so every t-step pair lives on the C(t+m−1, m−1) count
vectors instead of the m^t sequences. Atoms are labelled by their count vectors ((j, n_j), ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce

import mpmath as mp

from ..errors import InvalidParameter, UnsupportedRequest
from ..mechanisms.base import mpq
from ..validation import digits as check_digits
from ..validation import direction as check_direction
from ..validation import integer, rate as check_rate, real, to_fraction
from . import zero_decisions
from .finite_pair import (
    MAX_ATOMS,
    MAX_WORKING_DIGITS,
    FiniteLossPair,
    as_finite_pair,
    unit_closed,
    count_vectors,
    count_vectors_size,
    scaled_powers,
)

SCHEMES = ("allocation", "poisson")

#: Largest number of k-subset terms (count vectors × k-splits) an allocation pair may sum.
MAX_TERMS = 4_000_000

#: Budget of working digits × atoms per evaluation: large pairs get a lower cap (never below 4 × the first level).
MAX_DIGIT_ATOMS = 10**8


def allocation_pair(mech, steps, k=1, *, exact: bool = False) -> FiniteLossPair:
    """(P̄_{t,k}, Q^t) of random allocation A_{t,k} (F11, F22; F23 for k = 1): remove H(P̄‖Q^t), add H(Q^t‖P̄).

    Exact k-subset likelihood (no F27 reduction): the counts of t steps are those of k draws from P plus
    t − k draws from Q, so with x̃_j(c) = x_j^c/c!
        B(n) = t! ∏_j Q̃_j(n_j),   A(n) = k!(t−k)! Σ_{(k_j): Σk_j = k, k_j ≤ n_j} ∏_j P̃_j(k_j) Q̃_j(n_j − k_j),
    which equals multinom(t; n)/C(t, k) · Σ ∏_j C(n_j, k_j) P_j^{k_j} Q_j^{n_j−k_j}.
    exact=True builds the masses as Fractions (rational pairs only, see `_probabilities`).
    """
    p, q = _probabilities(mech, exact)
    t = integer("steps", steps)
    k = integer("k", k, 1, t)
    if k == t:  # every step holds the element: (P^t, Q^t), the t-fold composition — no k-subset terms to sum
        return FiniteLossPair._of(p, q)._power(t, "steps")
    # outputs with Q_j = 0 can occur only among the k steps drawn from P
    bounds = [0 if x == 0 and y == 0 else (t if y > 0 else k) for x, y in zip(p, q)]
    size = count_vectors_size(t, bounds)
    if size > MAX_ATOMS:
        raise UnsupportedRequest(
            "steps",
            t,
            f"{len(p)} outputs give {size} count vectors at steps={t}; at most {MAX_ATOMS} are supported; "
            "use --method pld (float64 bounds)",
        )
    splits = list(count_vectors(k, [k if x > 0 else 0 for x in p]))
    if size * len(splits) > MAX_TERMS:  # at k = 1 only fewer steps help: name them
        name, value = ("k", k) if k > 1 else ("steps", t)
        raise UnsupportedRequest(
            name,
            value,
            f"steps={t}, k={k} need {size} x {len(splits)} subset terms; at most {MAX_TERMS} are "
            "supported; use --method pld",
        )
    scaled_p = [scaled_powers(x, k) for x in p]
    scaled_q = [scaled_powers(y, t) for y in q]
    total = sum if exact else mp.fsum
    one = scaled_p[0][0]  # 1 in the number type of the masses (mpf, or Fraction when exact)
    split_weights = []
    for split in splits:
        w = one
        for j, c in split:
            w *= scaled_p[j][c]
        split_weights.append((split, w))
    fa, fb = math.factorial(k) * math.factorial(t - k) * one, math.factorial(t) * one
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
        mass_a = fa * total(terms)
        if mass_a or mass_b:
            a.append(mass_a)
            b.append(mass_b)
            labels.append(part)
    return FiniteLossPair._of(a, b, labels)


def poisson_pair(mech, steps, rate, *, exact: bool = False) -> FiniteLossPair:
    """(P_λ^t, Q^t) with P_λ = λP + (1−λ)Q (F11, F46): remove H(P_λ^t‖Q^t), add H(Q^t‖P_λ^t)."""
    p, q = _probabilities(mech, exact)
    t = integer("steps", steps)
    lam = check_rate("rate", rate)
    lam = lam if exact else mpq(lam)
    mixed = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
    return FiniteLossPair._of(mixed, q)._power(t, "steps")


def scheme_pair(mech, scheme: str, steps, *, k=1, epochs=1, rate=None, exact: bool = False) -> FiniteLossPair:
    """The pair of `scheme` composed over `epochs` (F8, F11): "allocation" uses k, "poisson" uses rate (k ignored).

    exact=True: masses as Fractions (rational pairs only); otherwise mpf at the current precision.
    """
    if scheme not in SCHEMES:
        raise InvalidParameter("scheme", scheme, "must be one of " + "|".join(SCHEMES))
    e = integer("epochs", epochs)
    if scheme == "allocation":
        if rate is not None:
            raise InvalidParameter("rate", rate, "applies only to scheme=poisson")
        pair = allocation_pair(mech, steps, k, exact=exact)
    else:
        if rate is None:
            raise InvalidParameter("rate", rate, "must lie in (0, 1] for scheme=poisson")
        pair = poisson_pair(mech, steps, rate, exact=exact)
    return pair.power(e)


def composition_sizes(mech, scheme: str, steps: int, *, k: int = 1, epochs: int = 1) -> tuple[int, int, int]:
    """(atoms of the scheme's pair, k-subset terms per atom (allocation; 0 for Poisson), atoms after `epochs`): what
    `scheme_pair` builds (count vectors C(t + m − 1, m − 1) for m outputs; E epochs: C(N + E − 1, E)), each capped
    just above the exact layer's limits (MAX_ATOMS, MAX_TERMS), which refuse before building. Read by the cost model
    (verialloc.cost) with the working digits of `_certified`."""
    p, q = as_finite_pair(mech).probabilities()  # their zero pattern only
    if scheme == "allocation" and k < steps:
        bounds = [0 if x == 0 and y == 0 else (steps if y > 0 else k) for x, y in zip(p, q)]
        splits = count_vectors_size(k, [k if x > 0 else 0 for x in p])
    else:  # Poisson, or allocation with k = t: the t-fold composition (`allocation_pair`)
        bounds, splits = [0 if x == 0 and y == 0 else steps for x, y in zip(p, q)], 0
    atoms = count_vectors_size(steps, bounds)
    composed = atoms if epochs == 1 else _binomial_capped(atoms + epochs - 1, epochs, MAX_ATOMS + 1)
    return atoms, splits, composed


def _binomial_capped(n: int, r: int, cap: int) -> int:
    """C(n, r), or cap when it is larger (never forming a huge integer, nor a float of n: epochs may be 10³⁰⁸).

    The partial products C(n − r + i, i), i = 1…r, increase with i and at least double while i ≤ r ≤ n/2, so the
    loop stops after at most log2(cap) + 1 rounds."""
    r = min(r, n - r)
    c = 1
    for i in range(1, r + 1):
        c = c * (n - r + i) // i
        if c > cap:
            return cap
    return c


def working_digits(steps: int, epochs: int, digits: int) -> tuple[int, int]:
    """The working digits of `_certified`'s first two evaluations (digits + guard, digits + 2·guard)."""
    guard = _guard(steps, epochs)
    return digits + guard, digits + 2 * guard


def _guard(steps: int, epochs: int) -> int:
    return 10 + 2 * len(str(steps * epochs))


def discrete_delta(mech, scheme: str, steps, epsilon, direction: str, *, k=1, epochs=1, rate=None, digits=30) -> mp.mpf:
    """δ(ε) of `scheme` over the finite pair `mech` (F2, F3): remove, add, or both (= max of the two).

    Correct to `digits` significant digits at every scale of δ (1e-300 included): evaluated at increasing
    precisions until two consecutive values agree to digits + 2 digits (`_certified`). 0 is returned only when
    it is proven exactly: δ(ε) = 0 iff ε ≥ L*, the largest privacy loss of the composed pair (F1, F2; see
    `zero_decisions.loss_bound`). A positive δ is never rounded to 0; one that needs more than the precision cap
    raises UnsupportedRequest.
    """
    return composed_delta([Part(mech, scheme, steps, k, epochs, rate)], epsilon, direction, digits)


def discrete_epsilon(mech, scheme: str, steps, delta, direction: str, *, k=1, epochs=1, rate=None, digits=30) -> mp.mpf:
    """Smallest ε with δ(ε) ≤ delta (F2, F3; see FiniteLossPair.epsilon); "both" takes the larger ε.

    mp.inf when the mass at loss +inf exceeds delta. Certified to `digits` digits like discrete_delta, at any
    scale of ε; ε = 0 is returned only when δ(0) = delta is proven exactly (`zero_decisions.epsilon_is_zero`).
    delta is rounded once at the caller's precision (the exact accountant runs at digits + 15): call this at a
    precision above `digits` or ε inverts the rounded delta.
    """
    return composed_epsilon([Part(mech, scheme, steps, k, epochs, rate)], delta, direction, digits)


def _directions(direction: str) -> tuple[str, ...]:
    d = check_direction(direction)
    return ("remove", "add") if d == "both" else (d,)


def _certified(parts: list, digits, query, *, proven_zero, zero_test, unresolved) -> list:
    """Run `query(pair)` on the composition of `parts` at growing precisions until, for every entry, two consecutive
    results agree to digits + 2 significant digits, or the entry is exactly 0 by proof.

    proven_zero(i): entry i is 0 exactly (asked once, after the first evaluation has validated the request).
    zero_test(i): asked once for an entry that keeps looking like rounding noise around 0; True only on proof.
    Two results agreeing at 0 prove nothing (the rounding floor) and never settle an entry. The next
    precision adds what the agreement so far says is missing, or doubles when there is none; beyond the cap
    (MAX_WORKING_DIGITS, lowered for large pairs by MAX_DIGIT_ATOMS) `unresolved(cap)` is raised.
    """
    n = check_digits(digits)
    guard = _guard(sum(integer("steps", p.steps) for p in parts), sum(integer("epochs", p.epochs) for p in parts))
    dps, cap = n + guard, None
    previous = prev_dps = None
    decided, tested = {}, set()
    while True:
        with mp.workdps(dps):
            pair = _product(parts)
            current = query(pair)
        if cap is None:
            cap = max(4 * (n + guard), min(MAX_WORKING_DIGITS, MAX_DIGIT_ATOMS // max(1, len(pair))))
            decided.update((i, mp.mpf(0)) for i in range(len(current)) if proven_zero(i))
        nxt = dps + guard
        if previous is not None:
            nxt = dps
            for i, (u, v) in enumerate(zip(previous, current)):
                if i in decided:
                    continue
                agreed = _agreement(u, v)
                if agreed >= n + 2:
                    decided[i] = v
                    continue
                if i not in tested and _near_zero(u, prev_dps) and _near_zero(v, dps):
                    tested.add(i)
                    if zero_test(i):
                        decided[i] = mp.mpf(0)
                        continue
                # the error shrinks like 10^-dps: add the missing digits, or double when nothing agrees yet
                more = n + 2 - int(agreed) + guard if agreed >= 1 else dps
                nxt = max(nxt, dps + max(guard, more))
        if len(decided) == len(current):
            return [decided[i] for i in range(len(current))]
        previous, prev_dps = current, dps
        if nxt > cap:
            if dps >= cap:
                raise unresolved(cap)
            nxt = cap
        dps = nxt


def _agreement(coarse: mp.mpf, fine: mp.mpf) -> mp.mpf:
    """Significant digits on which two evaluations agree: +inf when equal (and nonzero or infinite), −inf when
    either is 0 (no information: 0 is what a value below the rounding floor looks like) or only one is infinite."""
    if mp.isinf(coarse) or mp.isinf(fine):
        return mp.inf if coarse == fine else mp.ninf
    if not coarse or not fine:
        return mp.ninf
    if coarse == fine:
        return mp.inf
    return -mp.log10(abs(fine - coarse) / abs(fine))


def _near_zero(value: mp.mpf, dps: int) -> bool:
    """|value| below the square root of the rounding level of dps digits (where noise around 0 lives)."""
    return mp.isfinite(value) and abs(value) <= mp.mpf(10) ** (-(dps // 2))


def _probabilities(mech, exact: bool) -> tuple[list, list]:
    """(P, Q) as mpf at the current precision, or as Fractions (exact=True; rational pairs only)."""
    pair = as_finite_pair(mech)
    if not exact:
        return pair.probabilities()
    values = pair.exact_probabilities()
    if values is None:
        raise InvalidParameter("mechanism", pair, "exact rational masses need a pair with rational probabilities")
    return list(values[0]), list(values[1])


@dataclass(frozen=True)
class Part:
    """One event of a composition over finite pairs: the pair `mech` under `scheme`, composed over `epochs`."""

    mech: object
    scheme: str
    steps: int
    k: int = 1
    epochs: int = 1
    rate: object = None

    def pair(self, exact: bool = False) -> FiniteLossPair:
        return scheme_pair(
            self.mech, self.scheme, self.steps, k=self.k, epochs=self.epochs, rate=self.rate, exact=exact
        )


def _product(parts: list, exact: bool = False) -> FiniteLossPair:
    """The composition of the parts' scheme pairs (F6, F8: the product pair)."""
    return reduce(lambda x, y: x.compose(y), (p.pair(exact) for p in parts))


def composed_delta(parts: list, epsilon, direction: str, digits=30) -> mp.mpf:
    """δ(ε) of the composition of `parts` (Part: a finite pair under a scheme, for its epochs; F2, F3, F8), certified
    like discrete_delta; 0 only when ε ≥ the sum of the parts' largest losses (F1)."""
    eps = real("epsilon", epsilon)
    directions = _directions(direction)

    def proven_zero(i):
        return zero_decisions.vanishes(parts, eps, directions[i], digits)

    irrational = next((p.mech for p in parts if p.mech.exact_probabilities() is None), parts[0].mech)
    values = _certified(
        parts,
        digits,
        lambda pair: [pair.delta(eps, d) for d in directions],
        proven_zero=proven_zero,
        zero_test=lambda i: False,
        unresolved=lambda cap: zero_decisions.unresolved_delta(irrational, eps, digits, cap),
    )
    return max(values)


def composed_epsilon(parts: list, delta, direction: str, digits=30) -> mp.mpf:
    """Smallest ε with δ(ε) ≤ delta of the composition of `parts`, certified like discrete_epsilon."""
    target = unit_closed("delta", delta)  # rounded once, at the caller's precision (see discrete_epsilon)
    exact_target = to_fraction("delta", delta)
    directions = _directions(direction)
    values = _certified(
        parts,
        digits,
        lambda pair: [pair.epsilon(target, d) for d in directions],
        proven_zero=lambda i: False,
        zero_test=lambda i: zero_decisions.epsilon_is_zero(
            [p.mech for p in parts], lambda: _product(parts, exact=True), exact_target
        ),
        unresolved=lambda cap: UnsupportedRequest(
            "delta",
            delta,
            f"epsilon(delta) is not resolved to {digits} digits within {cap} working "
            "digits (epsilon too close to 0 to separate it from 0)",
        ),
    )
    return max(values)
