"""Allocation moment by integer partitions (F38 with the corrected coefficients of erratum E3)."""

from __future__ import annotations

import math

from ..errors import UnsupportedRequest
from .arith import Arith

#: largest number of partitions the form enumerates
MAX_PARTITIONS = 2_000_000


def count_partitions(alpha: int, max_parts: int) -> int:
    """|Π_t(α)|: partitions of α into at most t = max_parts parts (= parts of size <= t, by conjugation)."""
    ways = [1] + [0] * alpha
    for part in range(1, min(alpha, max_parts) + 1):
        for n in range(part, alpha + 1):
            ways[n] += ways[n - part]
    return ways[alpha]


def partition_terms(alpha: int, steps: int):
    """Yield (groups, coefficient) for every Π ∈ Π_t(α), t = steps (F38, erratum E3).

    groups = ((p, c), ...): the distinct parts p of Π, decreasing, with their multiplicities c, so
    C(Π) = (c, ...); coefficient = binom(t; C(Π)) · binom(α; Π) = t!/((t−|Π|)! ∏ c!) · α!/∏_{p∈Π} p!.
    """
    fact = [math.factorial(n) for n in range(alpha + 1)]

    def walk(remaining, largest, parts, den, groups):
        if remaining == 0:
            yield groups, fact[alpha] * math.perm(steps, parts) // den
            return
        for p in range(min(largest, remaining), 0, -1):
            if p * (steps - parts) < remaining:  # parts <= p can no longer reach the sum
                break
            for c in range(1, min(remaining // p, steps - parts) + 1):
                yield from walk(remaining - p * c, p - 1, parts + c, den * fact[p] ** c * fact[c], groups + ((p, c),))

    yield from walk(alpha, alpha, 0, 1, ())


def allocation_moment_partition(moments, steps: int, alpha: int, arith: Arith):
    """D_α(P̄_t‖Q^t) = t^{−α} Σ_{Π∈Π_t(α)} binom(t; C(Π)) binom(α; Π) ∏_{p∈Π} D_p (F38, E3; remove direction).

    `moments[p]` = D_p(P‖Q) for 1 <= p <= α in the backend `arith`.
    """
    count = count_partitions(alpha, steps)
    if count > MAX_PARTITIONS:
        raise UnsupportedRequest(
            "alpha",
            alpha,
            f"the partition form enumerates {count} partitions here; at most {MAX_PARTITIONS} (use form='genfunc')",
        )
    powers = {}
    coeffs, products = [], []
    for groups, coefficient in partition_terms(alpha, steps):
        product = arith.one
        for key in groups:
            if key not in powers:
                powers[key] = moments[key[0]] ** key[1]
            product = product * powers[key]
        coeffs.append(coefficient)
        products.append(product)
    return arith.normalize(arith.dot(products, [arith.one] * len(products), coeffs) * arith.coef(1, steps**alpha))
