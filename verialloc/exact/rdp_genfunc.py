"""Allocation moments D_0..D_N in one pass by a generating function (derived from F38/F40).

Σ_{k_1+…+k_t=α} α!/∏k_i! ∏ D_{k_i} = α! [z^α] A(z)^t with A(z) = Σ_p D_p z^p/p!, D_0 = 1, so
D_α(P̄_t‖Q^t) = α! t^{−α} [z^α] A(z)^t (remove direction). Every coefficient below is non-negative,
so no form loses digits to cancellation.
"""

from __future__ import annotations

import math

from .arith import Arith


def allocation_moments_genfunc(moments, steps: int, alpha_max: int, arith: Arith) -> list:
    """[D_0(P̄_t‖Q^t), ..., D_N(P̄_t‖Q^t)], N = alpha_max, from `moments[p]` = D_p(P‖Q), 1 <= p <= N.

    t >= N: J.C.P. Miller's recurrence, O(N²) (all its coefficients (t+1)k − n are positive);
    t < N: binary powering of the series truncated after z^N, O(N² log t).
    """
    fact = [math.factorial(n) for n in range(alpha_max + 1)]
    a = [arith.one] + [arith.normalize(moments[p] * arith.coef(1, fact[p])) for p in range(1, alpha_max + 1)]
    b = _miller_power(a, steps, arith) if steps >= alpha_max else _binary_power(a, steps, arith)
    return [arith.normalize(b[n] * arith.coef(fact[n], steps**n)) for n in range(alpha_max + 1)]


def _miller_power(a: list, t: int, arith: Arith) -> list:
    """Coefficients of A(z)^t for a_0 = 1: b_0 = 1, b_n = (1/n) Σ_{k=1}^n ((t+1)k − n) a_k b_{n−k}."""
    b = [arith.one]
    for n in range(1, len(a)):
        s = arith.dot(a[1 : n + 1], b[::-1], [(t + 1) * k - n for k in range(1, n + 1)])
        b.append(arith.normalize(s * arith.coef(1, n)))
    return b


def _binary_power(a: list, t: int, arith: Arith) -> list:
    """Coefficients of A(z)^t truncated after z^N, by repeated squaring."""
    result, base = None, a
    while True:
        if t & 1:
            result = base if result is None else _product(result, base, arith)
        t >>= 1
        if not t:
            return result
        base = _square(base, arith)


def _product(x: list, y: list, arith: Arith) -> list:
    return [arith.dot(x[: n + 1], y[n::-1]) for n in range(len(x))]


def _square(x: list, arith: Arith) -> list:
    """c_n = 2 Σ_{k<n/2} x_k x_{n−k} + [n even] x_{n/2}²."""
    out = []
    for n in range(len(x)):
        half = n // 2
        coeffs = [2] * half + ([1] if n % 2 == 0 else [2])
        out.append(arith.dot(x[: half + 1], x[n - half : n + 1][::-1], coeffs))
    return out
