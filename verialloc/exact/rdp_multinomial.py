"""Allocation moment by the multinomial (Liew–Takahashi) form, F40 generalised to any pair."""

from __future__ import annotations

import math

from ..errors import UnsupportedRequest
from .arith import Arith

#: largest number of compositions k_1 + ... + k_t = α the form enumerates
MAX_COMPOSITIONS = 2_000_000


def allocation_moment_multinomial(moments, steps: int, alpha: int, arith: Arith):
    """D_α(P̄_t‖Q^t) = t^{−α} Σ_{k_1+…+k_t=α} α!/(k_1!⋯k_t!) ∏_i D_{k_i}, D_0 = 1 (F40, F58; remove direction).

    `moments[p]` = D_p(P‖Q) for 1 <= p <= α in the backend `arith` (moments[0] is unused: D_0 = 1).
    A composition whose remaining entries are all zero is closed at once (its zero entries add factors D_0 = 1).
    """
    count = math.comb(alpha + steps - 1, steps - 1)
    if count > MAX_COMPOSITIONS:
        raise UnsupportedRequest(
            "steps",
            steps,
            f"the multinomial form enumerates C(alpha+steps-1, steps-1) = {count} compositions at alpha={alpha}; "
            f"at most {MAX_COMPOSITIONS} (use form='partition' or 'genfunc')",
        )
    fact = [math.factorial(n) for n in range(alpha + 1)]
    d = [arith.one] + [moments[p] for p in range(1, alpha + 1)]
    coeffs, products = [], []
    stack = [(0, alpha, 1, arith.one)]  # (entries fixed so far, α − their sum, ∏ k_i!, ∏ D_{k_i})
    while stack:
        fixed, remaining, den, product = stack.pop()
        if remaining == 0:
            coeffs.append(fact[alpha] // den)
            products.append(product)
        elif fixed == steps - 1:
            coeffs.append(fact[alpha] // (den * fact[remaining]))
            products.append(product * d[remaining])
        else:
            for k in range(remaining + 1):
                stack.append((fixed + 1, remaining - k, den * fact[k], product * d[k]))
    return arith.normalize(arith.dot(products, [arith.one] * len(products), coeffs) * arith.coef(1, steps**alpha))
