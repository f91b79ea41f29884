"""Exact integer-order RDP, remove direction: random allocation (F38, F40, generating function) and Poisson.

Allocation: D_α(P̄_t‖Q^t) = E_{Q^t}[((1/t) Σ_i r(ω_i))^α], r = P/Q, and R_α = ln D_α/(α − 1) (F5, F38).
Three independent forms compute D_α in any backend of `arith`: integer partitions (F38 with the
coefficients of erratum E3; E5 for the log), compositions (F40, F58) and the generating function.

Numerically every form sums non-negative terms, so the only loss is in ln D_α when D_α is close to 1
(large t): the working precision is raised until R_α has the requested significant digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import sympy as sp

from ..errors import InvalidParameter, UnsupportedRequest
from ..validation import digits as check_digits, integer, rate as check_rate
from .arith import Arith, FractionArith, MPArith, SymbolicArith
from .rdp_genfunc import allocation_moments_genfunc
from .rdp_multinomial import allocation_moment_multinomial
from .rdp_partition import allocation_moment_partition

FORMS = ("partition", "multinomial", "genfunc")
#: working digits beyond the requested ones (before the adaptive increase)
GUARD = 10
#: working precision at which an unresolved ln D_α (P = Q to that precision) is given up
MAX_WORKING_DIGITS = 10_000


def allocation_moment(moments, steps, alpha, form: str, arith: Arith):
    """D_α(P̄_t‖Q^t), remove direction, in the backend `arith` (F38/E3, F40 or the generating function).

    `moments[p]` = D_p(P‖Q) for 1 <= p <= α as backend values; moments[0] is unused (D_0 = 1).
    """
    steps, alpha, form = integer("steps", steps), integer("alpha", alpha, lo=2), _form(form)
    if len(moments) < alpha + 1:
        raise InvalidParameter("moments", f"length {len(moments)}", f"must hold D_0..D_alpha ({alpha + 1} values)")
    if form == "partition":
        return allocation_moment_partition(moments, steps, alpha, arith)
    if form == "multinomial":
        return allocation_moment_multinomial(moments, steps, alpha, arith)
    return allocation_moments_genfunc(moments, steps, alpha, arith)[alpha]


def allocation_moment_symbolic(mech, steps, alpha, form: str):
    """Exact D_α(P̄_t‖Q^t), remove direction (F38/E3, F40, generating function), from `mech.moments_symbolic`.

    A rational function of the mechanism's generator (e.g. u = exp(1/(2σ²)) for the Gaussian), a Rational
    for rational discrete pairs, sp.oo when P is not ≪ Q.
    """
    steps, alpha, form = integer("steps", steps), integer("alpha", alpha, lo=2), _form(form)
    if not mech.absolutely_continuous:
        return sp.oo
    sym = mech.moments_symbolic(alpha)
    if sym.generator is None:
        exact = [Fraction(int(v.p), int(v.q)) for v in sym.values]
        return sp.Rational(allocation_moment(exact, steps, alpha, form, FractionArith()))
    return allocation_moment(list(sym.values), steps, alpha, form, SymbolicArith())


def allocation_rdp(mech, steps, alpha, *, digits=30, form: str = "genfunc", epochs=1) -> mp.mpf:
    """R_α(P̄_t‖Q^t) × epochs, remove direction (F38/E3/E5; epochs add up exactly, F21/I16).

    Full working precision; at least `digits` correct significant digits. mp.inf when P is not ≪ Q.
    """
    steps, alpha = integer("steps", steps), integer("alpha", alpha, lo=2)
    epochs, digits, form = integer("epochs", epochs), check_digits(digits), _form(form)
    if not mech.absolutely_continuous:
        return mp.inf

    def evaluate():
        moments = mech.moments(alpha)
        return {alpha: (allocation_moment(moments, steps, alpha, form, MPArith()), moments[alpha])}

    return _rdp_from_moments(mech, evaluate, digits, alpha, epochs)[alpha]


def allocation_rdp_curve(mech, steps, alpha_max, *, digits=30, epochs=1) -> dict:
    """{α: R_α(P̄_t‖Q^t) × epochs} for α = 2..alpha_max from one generating-function pass (remove direction)."""
    steps, alpha_max = integer("steps", steps), integer("alpha_max", alpha_max, lo=2)
    epochs, digits = integer("epochs", epochs), check_digits(digits)
    if not mech.absolutely_continuous:
        return {a: mp.inf for a in range(2, alpha_max + 1)}

    def evaluate():
        moments = mech.moments(alpha_max)
        alloc = allocation_moments_genfunc(moments, steps, alpha_max, MPArith())
        return {a: (alloc[a], moments[a]) for a in range(2, alpha_max + 1)}

    return _rdp_from_moments(mech, evaluate, digits, alpha_max, epochs)


def poisson_rdp(mech, steps, rate, alpha, *, digits=30, epochs=1) -> mp.mpf:
    """steps × epochs × R_α(λP + (1−λ)Q ‖ Q), remove direction, integer α (F5, F21).

    D_α(λP + (1−λ)Q ‖ Q) = Σ_j C(α, j) λ^j (1−λ)^{α−j} D_j(P‖Q) (binomial expansion of (1 − λ + λr)^α).
    """
    steps, lam, alpha = integer("steps", steps), check_rate("rate", rate), integer("alpha", alpha, lo=2)
    epochs, digits = integer("epochs", epochs), check_digits(digits)
    if not mech.absolutely_continuous:
        return mp.inf
    num, den = lam.numerator, lam.denominator
    weights = [math.comb(alpha, j) * num**j * (den - num) ** (alpha - j) for j in range(alpha + 1)]
    arith = MPArith()

    def evaluate():
        moments = [arith.one] + mech.moments(alpha)[1:]
        d = arith.dot(moments, [arith.one] * (alpha + 1), weights) * arith.coef(1, den**alpha)
        return {alpha: (d, moments[alpha])}

    return _rdp_from_moments(mech, evaluate, digits, alpha, steps * epochs)[alpha]


def _form(form: str) -> str:
    if form not in FORMS:
        raise InvalidParameter("form", form, "must be one of " + "|".join(FORMS))
    return form


def _rdp_from_moments(mech, evaluate, digits: int, alpha_max: int, factor: int) -> dict:
    """{α: factor · ln D_α/(α − 1)} with `digits` correct significant digits (F5).

    `evaluate()` returns {α: (D_α of the composite pair, D_α(P‖Q))} at the current precision. Each D_p(P‖Q)
    carries a relative error of about (ln D_p + p)·10^-dps, and every composite moment is a non-negative
    combination of products ∏ D_p with Σ p <= α, so ln D_α has an absolute error of about
    s_α·10^-dps, s_α = ln D_α(P‖Q) + 4α (ln D is superadditive: convex with ln D_0 = 0). The precision is
    raised until s_α / ln D_α (the loss when D_α is near 1) is covered.
    """
    if mech.moments_symbolic(2).values[2] == 1:  # D_2 = 1 + χ²(P‖Q) = 1 exactly: P = Q, every D_α = 1
        return {a: mp.mpf(0) for a in range(2, alpha_max + 1)}
    dps = digits + GUARD + len(str(alpha_max))
    while True:
        with mp.workdps(dps):
            values = evaluate()
            logs, need = {}, dps
            for a, (d, single) in values.items():
                logs[a] = mp.log(d)
                scale = mp.log(single) + 4 * a
                if logs[a] <= scale * mp.mpf(10) ** (2 - dps):  # fewer than 2 digits of ln D_α resolved
                    need = max(need, 2 * dps)
                else:
                    need = max(need, digits + GUARD + int(mp.ceil(mp.log10(scale / logs[a]))))
            if need <= dps:
                return {a: factor * logs[a] / (a - 1) for a in values}
        if need > MAX_WORKING_DIGITS:
            raise UnsupportedRequest(
                "digits",
                digits,
                f"ln D_alpha is not resolved at {MAX_WORKING_DIGITS} working digits (P and Q nearly equal)",
            )
        dps = need
