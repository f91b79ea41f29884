"""Exact references and one-sided comparisons shared by the property tests (not collected: no test_ prefix).

Every reference here is independent of the code under test: rational enumeration (`verialloc.testing.brute_force`)
or rigorous rational enclosures of the one transcendental step, e^ε:

* `exp_bounds(ε)` → (lo, hi), rationals with lo ≤ e^ε ≤ hi (lo = hi = 1 at ε = 0), from mpmath at 60 digits
  widened by 2^−190 relative (mpmath's exp is within 1 ulp at that precision);
* `hockey(a, b, ε)` → (lo, hi) = (H_{hi}(A‖B), H_{lo}(A‖B)), exact rationals: κ ↦ H_κ is non-increasing (F2, I1),
  so H_{e^ε} lies between them; when A = B (or any pair whose differences a − κb keep one sign over the
  enclosure) both ends are the same rational, e.g. exactly 0 for P = Q at ε ≥ 0;
* `kappa_star(a, b, δ)` → κ* = e^{ε(δ)}, a rational (or math.inf): ε(δ) = inf{ε : H_{e^ε} ≤ δ} (F2, F3) is the
  logarithm of the point where the piecewise-linear, convex κ ↦ H_κ crosses δ.

Claims (floats, mpf or Fractions) are converted to rationals exactly (`frac`), so a comparison is exact: an upper
end must be ≥ the reference's lower end, a lower end ≤ its upper end, with no slack. Only the exact method's
answers, "correct to `digits` significant digits", get that stated relative budget (`DIGITS_RTOL`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp

from verialloc.testing import brute_force as bf

INF = math.inf
#: working digits of the e^ε enclosure and its relative half-width
EXP_DPS = 60
_EXP_PAD = Fraction(1, 2**190)


def frac(x) -> Fraction | float:
    """Exact rational value of an int, Fraction, float or mpf (±inf returned as ±math.inf)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, mp.mpf) or hasattr(x, "man_exp"):
        if mp.isinf(x):
            return INF if x > 0 else -INF
        if mp.isnan(x):
            raise ValueError("NaN claim")
        sign, man, exp, _ = x._mpf_
        value = Fraction(man) * (Fraction(2) ** exp)
        return -value if sign else value
    x = float(x)
    if math.isinf(x):
        return x
    if math.isnan(x):
        raise ValueError("NaN claim")
    return Fraction(x)  # exact binary value (not the shortest decimal)


def exp_bounds(eps) -> tuple[Fraction, Fraction]:
    """Rationals lo ≤ e^ε ≤ hi (ε a rational or float)."""
    e = frac(eps)
    if e == 0:
        return Fraction(1), Fraction(1)
    with mp.workdps(EXP_DPS):
        v = frac(mp.exp(mp.mpf(e.numerator) / e.denominator))
    return v * (1 - _EXP_PAD), v * (1 + _EXP_PAD)


def hockey(a: dict, b: dict, eps) -> tuple[Fraction, Fraction]:
    """Enclosure [lo, hi] of H_{e^ε}(A‖B) (F2) in exact rationals."""
    k_lo, k_hi = exp_bounds(eps)
    return bf.hockey_stick(a, b, k_hi), bf.hockey_stick(a, b, k_lo)


def exp_hockey(law: dict, eps) -> tuple[Fraction, Fraction]:
    """Enclosure of H_{e^ε}(L) for an exp-space law {e^l: mass} (F2)."""
    k_lo, k_hi = exp_bounds(eps)
    return bf.exp_hockey_stick(law, k_hi), bf.exp_hockey_stick(law, k_lo)


def kappa_star(a: dict, b: dict, delta) -> Fraction | float:
    """κ* = e^{ε(δ)}: the least κ ≥ 0 with H_κ(A‖B) ≤ δ; math.inf when A's mass where B = 0 exceeds δ."""
    delta = frac(delta)
    keys = a.keys() | b.keys()
    at_inf = sum((a.get(y, 0) for y in keys if not b.get(y, 0)), Fraction(0))
    if at_inf > delta:
        return INF
    if bf.hockey_stick(a, b, 0) <= delta:
        return Fraction(0)
    # breakpoints r = a/b in decreasing order; H is linear between them: H(κ) = S_A − κ S_B over the atoms above κ
    groups: dict = {}
    for y in keys:
        if b.get(y, 0):
            r = Fraction(a.get(y, 0)) / b[y]
            sa, sb = groups.get(r, (Fraction(0), Fraction(0)))
            groups[r] = (sa + a.get(y, 0), sb + b[y])
    above_a, above_b = at_inf, Fraction(0)
    for r in sorted(groups, reverse=True):
        if above_a - r * above_b > delta:  # H(r) > δ: the crossing lies above r
            break
        above_a += groups[r][0]
        above_b += groups[r][1]
    return (above_a - delta) / above_b


# --- one-sided comparisons -------------------------------------------------------------------------------
#: relative budget of the exact method's answers ("correct to `digits` significant digits")
def digits_rtol(digits: int) -> Fraction:
    return Fraction(1, 10 ** (digits - 1))


def is_exact_kind(bracket) -> bool:
    return bracket.error_kind == "exact"


def delta_ends(bracket, digits: int | None = None) -> tuple[Fraction, Fraction]:
    """(lower, upper) of a δ bracket as rationals; an "exact" bracket is widened by its digits budget."""
    lo, hi = frac(bracket.lower), frac(bracket.upper)
    if digits is not None and is_exact_kind(bracket):
        lo, hi = lo * (1 - digits_rtol(digits)), hi * (1 + digits_rtol(digits))
    return lo, hi


def assert_delta_bracket(bracket, ref: tuple[Fraction, Fraction], what: str, digits: int | None = None) -> None:
    """lower ≤ H ≤ upper for the enclosure ref = (lo, hi) of H: upper ≥ lo and lower ≤ hi, exactly."""
    lo, hi = delta_ends(bracket, digits)
    assert hi >= ref[0], f"{what}: {bracket.method} upper {bracket.upper} < exact {float(ref[0])!r}"
    assert lo <= ref[1], f"{what}: {bracket.method} lower {bracket.lower} > exact {float(ref[1])!r}"


def epsilon_ends(bracket, digits: int | None = None):
    """(lower, upper) of an ε bracket as rationals (or ±inf); "exact" brackets widened by their digits budget."""
    lo, hi = frac(bracket.lower), frac(bracket.upper)
    if digits is not None and is_exact_kind(bracket):
        if lo not in (INF, -INF):
            lo = lo - abs(lo) * digits_rtol(digits)
        if hi not in (INF, -INF):
            hi = hi + abs(hi) * digits_rtol(digits)
    return lo, hi


def epsilon_at_least(claim, kappa) -> bool:
    """claim ≥ ln κ (rigorously, up to the 2^−190 enclosure of e^claim)."""
    if claim == INF or kappa == 0:
        return True
    if kappa == INF or claim == -INF:
        return False
    return exp_bounds(claim)[1] >= kappa


def epsilon_at_most(claim, kappa) -> bool:
    """claim ≤ ln κ."""
    if claim == -INF or kappa == INF:
        return True
    if kappa == 0 or claim == INF:
        return False
    return exp_bounds(claim)[0] <= kappa


def assert_epsilon_bracket(bracket, kappa, what: str, digits: int | None = None) -> None:
    """lower ≤ ε(δ) = ln κ* ≤ upper, exactly (κ* from `kappa_star`)."""
    lo, hi = epsilon_ends(bracket, digits)
    assert epsilon_at_least(hi, kappa), f"{what}: {bracket.method} upper {bracket.upper} < exact ln({kappa})"
    assert epsilon_at_most(lo, kappa), f"{what}: {bracket.method} lower {bracket.lower} > exact ln({kappa})"


# --- strategies ------------------------------------------------------------------------------------------
def epsilon_values(lo: int = -2, hi: int = 4):
    """ε for δ(ε) queries: the 1/8 grid (`strategies.epsilons`), continuous values (any float in [lo, hi] as its
    exact rational), and extremes (0, far negative, far beyond every finite loss of the small pairs)."""
    from hypothesis import strategies as st
    from verialloc.testing.strategies import epsilons

    return st.one_of(
        epsilons(Fraction(lo), Fraction(hi)),
        st.floats(lo, hi, allow_nan=False).map(Fraction),
        st.sampled_from([Fraction(0), Fraction(-4), Fraction(5), Fraction(7, 8)]),
    )


def delta_values():
    """δ ∈ (0, 1) for ε(δ) queries: decimal grid (`strategies.deltas`), continuous, dyadic and extreme values."""
    from hypothesis import strategies as st
    from verialloc.testing.strategies import deltas

    return st.one_of(
        deltas(1, 8),
        st.floats(1e-12, 0.99).map(Fraction),
        st.sampled_from([Fraction(1, 2), Fraction(7, 8), Fraction(1, 10**12), Fraction(99, 100)]),
    )


#: methods not asked per hypothesis example in the API-heavy property tests: "best" is [max lower, min upper] of
#: pld, rdp and analytic, each asked on its own (best itself is covered by test_prop_domination)
SKIP_COMBINED = ("best",)
#: rdp options for per-example queries: a fixed largest order instead of the adaptive search (up to 2 s per query)
RDP_FIXED = {"alpha_max": 64}
#: best asked to combine every method (no early stop at its default target gap): the F51 claim is about all of them
BEST_ALL = {"target_gap": 0}


def asker(fn, config, value, direction: str, digits: int = 30):
    """ask(method, **options) for conftest's `certified`: fn = api.delta or api.epsilon; rdp gets RDP_FIXED, best
    BEST_ALL."""

    def ask(method, **options):
        extra = RDP_FIXED if method == "rdp" else BEST_ALL if method == "best" else {}
        return fn(config, value, direction=direction, method=method, digits=digits, **options, **extra)

    return ask


def finite_loss(pq) -> bool:
    """The pair has an output with P > 0 and Q > 0 (float methods need one finite privacy loss)."""
    return any(x > 0 and y > 0 for x, y in zip(*pq))
