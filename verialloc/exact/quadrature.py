"""Arbitrary-precision quadrature for small schemes over a continuous pair (F2, F12, F23–F25, F46).

* Random allocation, k = 1, t ∈ {1, 2, 3} (F25): with κ = e^ε and U_i = e^{ℓ(x_i)}, x_i ~ Q,
  remove δ_t(ε) = E[((1/t)ΣU_i − κ)_+], add δ_t(ε) = E[(1 − κ(1/t)ΣU_i)_+].
* Poisson subsampling, t ∈ {1, 2} (F46): remove H_κ(P_λ^t‖Q^t), add H_κ(Q^t‖P_λ^t), P_λ = λP + (1 − λ)Q;
  the single step is closed form (F12 (b), (c)).

The last coordinate is integrated in closed form with the single-step profile of the mechanism (F2, I3):
for c > 0, E[(U − c)_+] = H_c(P‖Q) and E[(c − U)_+] = c·H_{1/c}(Q‖P) (no cancellation); for c ≤ 0 they are
1 − c and 0. The other t − 1 coordinates are integrated in x against q_pdf with mpmath (t = 3: nested, over
x1 ≤ x2 by symmetry), split at the breakpoints and wherever the closed form is not smooth. Pieces next to the
point where an argument c crosses 0 (a C^∞ but non-analytic point) and the infinite tails use tanh-sinh, the
other (analytic) pieces Gauss–Legendre.

Requirements on the mechanism: P ≪ Q with E_Q[U] = 1, and ℓ monotone between consecutive breakpoints (used to
locate the kinks). Kinks of the single-step profile are assumed at c ∈ {0} ∪ {e^{ℓ(b)}: b a breakpoint} (flat
pieces of ℓ, e.g. Laplace). Gaussian and Laplace satisfy all of this.

Error estimates are *estimates of quadrature error, not proofs*: the reported error is SAFETY × (mpmath's
level-difference estimate + the discrepancy with a second discretization that cuts every outer piece once more
+ the inner estimates integrated against q), never below the rounding level 10^{-digits}·|value| of the
requested precision.

The mechanism's side (support pieces, kinks, level points, piecewise integration) is quadrature_kernel; this
module holds the schemes' integrals and the δ and ε queries.
"""

from __future__ import annotations

import mpmath as mp

from ..errors import InvalidParameter, UnsupportedRequest, VeriallocError
from ..mechanisms.base import ContinuousMechanism, mpq
from ..validation import digits as check_digits
from ..validation import direction as check_direction
from ..validation import integer, open_unit, rate as check_rate, real
from .quadrature_kernel import _EXPAND, _Kernel

ALLOCATION_STEPS = (1, 2, 3)
POISSON_STEPS = (1, 2)
#: the nested t = 3 quadrature costs seconds per δ at 10 digits and grows quickly beyond this cap
MAX_DIGITS_T3 = 12
GUARD = 5  # extra working digits (mp.quad adds 20 bits of its own)
SAFETY = 10  # inflation of the raw error estimate
_RULES = ("split", "refined")  # two discretizations; "rough" is a cheap one for the scale
_ROUGH_DPS = 10
_ROUGH_PASSES = 4
_SEARCH_ITER = 60
_WIDEN = 6


# ---------------------------------------------------------------------------------------------- input


def _mechanism(mech) -> ContinuousMechanism:
    if not isinstance(mech, ContinuousMechanism):
        raise InvalidParameter("mechanism", mech, "must be a ContinuousMechanism (densities on the real line)")
    return mech


def _steps(steps, supported: tuple, scheme: str) -> int:
    t = integer("steps", steps, lo=1)
    if t not in supported:
        listed = ", ".join(map(str, supported))
        raise UnsupportedRequest(
            "steps", t, f"{scheme} quadrature covers steps in {{{listed}}}; use the PLD or RDP methods for more steps"
        )
    return t


def _digits(value, t: int) -> int:
    d = check_digits(value)
    if t == 3 and d > MAX_DIGITS_T3:
        raise UnsupportedRequest("digits", d, f"the nested t = 3 quadrature allows digits in [5, {MAX_DIGITS_T3}]")
    return d


def _floor(value, digits: int) -> mp.mpf:
    """Rounding level of the requested precision."""
    return abs(value) * mp.mpf(10) ** (-digits)


# ------------------------------------------------------------------------------------ the integrals


class _Allocation:
    """F25 with the last coordinate in closed form: f = call (remove) or put (add) and

    remove δ_t = E[f(tκ − Σ_{i<t} U_i)]/t, add δ_t = (κ/t)·E[f(t/κ − Σ_{i<t} U_i)] (put–call form of F25).
    For t = 3 the (symmetric) integrand is integrated over x1 ≤ x2 and doubled.
    """

    def __init__(self, kernel: _Kernel, direction: str, rule: str, scale):
        self.k, self.remove, self.rule, self.scale = kernel, direction == "remove", rule, scale
        self.prec = mp.mp.prec  # mp.quad raises the precision while it evaluates; inner quadratures reset it
        self.inner_rule = "rough" if rule == "rough" else "split"

    def f(self, c) -> mp.mpf:
        return self.k.call(c) if self.remove else self.k.put(c)

    def _targets(self, s, extra=()) -> list:
        """Where s − u crosses a kink k of f (singular for k = 0)."""
        return [(s - k, k == 0) for k in self.k.kinks] + list(extra)

    def _bound(self, s, n: int) -> tuple:
        """|E[f(s − u − Σ_{n−1 more} U)]| ≤ n + u + max(0, −s) (remove), ≤ max(s, 0) (add)."""
        return (n + max(0, -s), 1) if self.remove else (max(s, 0), 0)

    def one(self, s, rule: str, start=None) -> tuple:
        """E[f(s − U) 1{x ≥ start}] over one coordinate."""
        return self.k.expect(
            lambda x, u: (self.f(s - u), 0),
            self._targets(s),
            self._bound(s, 1),
            rule,
            self.scale,
            start,
            None if self.remove else s,
        )

    def delta(self, t: int, kappa) -> tuple:
        """(δ_t, outer error estimate, inner error integrated against q) for t ∈ {2, 3}."""
        s = t * kappa if self.remove else t / kappa
        factor = mp.mpf(1) / t if self.remove else kappa / t
        if t == 2:
            v, e, inner = self.one(s, self.rule)
        else:

            def h(x, u):
                with mp.workprec(self.prec):
                    w, err, deeper = self.one(s - u, self.inner_rule, start=x)
                return 2 * w, 2 * (err + abs(deeper))

            plus = [(s - k - a, k == 0) for k in self.k.kinks for a in self.k.atoms]
            diagonal = [((s - k) / 2, k == 0) for k in self.k.kinks]  # an inner kink meets x2 = x1
            v, e, inner = self.k.expect(
                h,
                self._targets(s, plus + diagonal),
                self._bound(s, 2),
                self.rule,
                self.scale,
                None,
                None if self.remove else s,
            )
        return factor * v, factor * e, factor * abs(inner)


class _Poisson:
    """Single step H_κ(P_λ‖Q) (remove), H_κ(Q‖P_λ) (add) in closed form (F12 (b), (c)); two steps by one quadrature."""

    def __init__(self, kernel: _Kernel, lam, direction: str, rule: str, scale):
        self.k, self.lam, self.remove, self.rule, self.scale = kernel, lam, direction == "remove", rule, scale

    def single(self, kappa) -> mp.mpf:
        lam = self.lam
        if self.remove:  # λ·H_{1+(κ−1)/λ}(P‖Q), = 1 − κ for κ ≤ 1 − λ (F12 (b))
            return lam * self.k.call(1 + (kappa - 1) / lam)
        # κλ·E_Q[(c − U)_+], c = (1 − κ(1−λ))/(κλ) (F12 (c) with the roles of P, Q swapped)
        return kappa * lam * self.k.put((1 - kappa * (1 - lam)) / (kappa * lam))

    def delta(self, t: int, kappa) -> tuple:
        """t = 2 (F46): δ_2 = E_{x~Q}[a·δ_1(κ/a)] (remove) or E[δ_1^add(κa)] (add), a = 1 − λ + λU."""
        lam = self.lam
        # values of a where the call/put argument of δ_1 crosses a kink k of the closed form
        levels = [(1 - lam + lam * k, k == 0) for k in self.k.kinks]
        zero_above = None
        if self.remove:
            a_kinks = [(kappa / lv, sing) for lv, sing in levels if lv > 0]

            def h(x, u):
                a = 1 - lam + lam * u
                return (a * self.single(kappa / a) if a > 0 else mp.mpf(0)), 0

            bound = (1 - lam, lam)  # a·δ_1 ≤ a
        else:
            a_kinks = [(1 / (kappa * lv), sing) for lv, sing in levels if lv > 0]

            def h(x, u):
                return self.single(kappa * (1 - lam + lam * u)), 0

            bound = (1, 0)
            if lam < 1:  # δ_1^add(κa) = 0 once κa ≥ 1/(1 − λ)
                zero_above = (1 / (kappa * (1 - lam)) - 1 + lam) / lam
        targets = [((a - 1 + lam) / lam, sing) for a, sing in a_kinks]
        return self.k.expect(h, targets, bound, self.rule, self.scale, None, zero_above)


def _combine(make, t: int, kappa, digits: int) -> tuple:
    """(value, error estimate): both discretizations at a common scale, see the module docstring."""
    scale = _rough_scale(make, t, kappa)
    (v1, e1, i1), (v2, e2, i2) = (make(rule, scale).delta(t, kappa) for rule in _RULES)
    raw = e1 + abs(v1 - v2) + max(i1, i2)
    return v1, SAFETY * raw + _floor(v1, digits)


def _rough_scale(make, t: int, kappa):
    """1/(rough size of δ): mpmath's quadrature tolerance is absolute, so the integrand is rescaled to O(1).

    A few low-degree, low-precision passes; each rescales by the size found so far until it is resolved.
    """
    scale = mp.mpf(1)
    with mp.workdps(min(_ROUGH_DPS, mp.mp.dps)):
        for _ in range(_ROUGH_PASSES):
            v, e, inner = make("rough", scale).delta(t, kappa)
            size = abs(v) + e + inner
            if size == 0:
                break
            scale /= size
            if e + inner <= abs(v):
                break
    return scale


# ------------------------------------------------------------------------------------ the δ queries


def _alloc_eval(kernel: _Kernel, t: int, direction: str, digits: int):
    def evaluate(eps):
        if t == 1:
            v = kernel.mech.delta(eps, direction)
            return v, _floor(v, digits)
        return _combine(lambda rule, scale: _Allocation(kernel, direction, rule, scale), t, mp.exp(eps), digits)

    return evaluate


def _poisson_eval(kernel: _Kernel, t: int, lam, direction: str, digits: int):
    def evaluate(eps):
        kappa = mp.exp(eps)
        if t == 1:
            v = _Poisson(kernel, lam, direction, _RULES[0], 1).single(kappa)
            return v, _floor(v, digits)
        return _combine(lambda rule, scale: _Poisson(kernel, lam, direction, rule, scale), t, kappa, digits)

    return evaluate


def allocation_delta_quadrature(mech, steps, epsilon, direction, *, digits=30) -> tuple:
    """(δ, error estimate) of 1-of-t random allocation (k = 1), t ∈ {1, 2, 3}, by F25 (remove or add, F23).

    t = 1 is the mechanism's own profile; t = 2 a 1-D and t = 3 a nested 2-D quadrature (digits ≤ MAX_DIGITS_T3).
    The error is an estimate of quadrature error, not a proof.
    """
    mech = _mechanism(mech)
    t = _steps(steps, ALLOCATION_STEPS, "allocation")
    d = check_direction(direction, allow_both=False)
    eps = real("epsilon", epsilon)
    n = _digits(digits, t)
    with mp.workdps(n + GUARD):  # t = 1 is the mechanism's closed form, given the exact ε (kinks decided exactly)
        return _alloc_eval(_Kernel(mech), t, d, n)(eps if t == 1 else mpq(eps))


def poisson_delta_quadrature(mech, steps, rate, epsilon, direction, *, digits=30) -> tuple:
    """(δ, error estimate) of Poisson subsampling with rate λ over t ∈ {1, 2} steps (F46; single step F12 (b), (c)).

    The error is an estimate of quadrature error, not a proof (t = 1 is closed form: rounding level only).
    """
    mech = _mechanism(mech)
    t = _steps(steps, POISSON_STEPS, "Poisson")
    lam = check_rate("rate", rate)
    d = check_direction(direction, allow_both=False)
    eps = real("epsilon", epsilon)
    n = _digits(digits, t)
    with mp.workdps(n + GUARD):
        return _poisson_eval(_Kernel(mech), t, mpq(lam), d, n)(mpq(eps))


# ---------------------------------------------------------------------------------- the ε queries


def _epsilon_bracket(evaluate, target, hi_guess) -> tuple:
    """(ε_lower, ε_upper) with δ(ε_upper) + err ≤ target ≤ δ(ε_lower) − err, δ non-increasing (I1).

    Illinois on ln δ − ln target over the central values until the error estimate cannot resolve the sign,
    then both ends are widened around the root by SAFETY·(error + residual)/slope and verified.
    """
    seen = {}

    def g(x):
        v, e = seen[x] = evaluate(x)
        return (mp.log(v) - mp.log(target)) if v > 0 else mp.ninf

    lo = mp.mpf(0)
    g_lo = g(lo)
    if g_lo < 0:  # δ(0) < target: the root is negative and δ(ln(1 − target)) ≥ 1 − e^ε = target (I1)
        hi, g_hi = lo, g_lo
        lo = mp.log1p(-target)
        g_lo = g(lo)
    else:
        hi = max(hi_guess, mp.mpf(1))
        g_hi = g(hi)
        for _ in range(_EXPAND):
            if g_hi < 0:
                break
            lo, g_lo, hi = hi, g_hi, 2 * hi
            g_hi = g(hi)
        else:
            raise VeriallocError(f"no ε found with δ(ε) < {target}: the profile does not decay")
    side = 0
    for _ in range(_SEARCH_ITER):
        finite = mp.isfinite(g_lo) and mp.isfinite(g_hi)
        c = (lo * g_hi - hi * g_lo) / (g_hi - g_lo) if finite else (lo + hi) / 2
        if not lo < c < hi:
            break
        gc = g(c)
        v, e = seen[c]
        if gc == 0 or abs(v - target) <= e or hi - lo <= 4 * mp.mp.eps * (1 + abs(c)):
            break
        if gc > 0:
            lo, g_lo = c, gc
            if side == 1 and mp.isfinite(g_hi):
                g_hi /= 2
            side = 1
        else:
            hi, g_hi = c, gc
            if side == -1 and mp.isfinite(g_lo):
                g_lo /= 2
            side = -1
    return _verify(evaluate, target, seen, lo, hi)


def _verify(evaluate, target, seen: dict, lo, hi) -> tuple:
    """Widen around the best evaluated point in [lo, hi] until both ends pass their δ-check (value ± error vs
    target); checked points are reused.
    """
    root = min((x for x in seen if lo <= x <= hi), key=lambda x: abs(seen[x][0] - target))
    v0, e0 = seen[root]
    slope = abs(seen[hi][0] - seen[lo][0]) / (hi - lo)
    w = SAFETY * (e0 + abs(v0 - target)) / slope if slope else hi - lo
    w += 4 * mp.mp.eps * (1 + abs(root))

    def best():
        lower = [x for x, (v, e) in seen.items() if v - e >= target]
        upper = [x for x, (v, e) in seen.items() if v + e <= target]
        return (max(lower) if lower else None), (min(upper) if upper else None)

    for _ in range(_WIDEN):
        lower, upper = best()
        if lower is None or lower < root - w:
            seen[root - w] = evaluate(root - w)
        if upper is None or upper > root + w:
            seen[root + w] = evaluate(root + w)
        lower, upper = best()
        if lower is not None and upper is not None and lower >= root - w and upper <= root + w:
            break
        w *= 8
    if lower is None or upper is None:
        raise UnsupportedRequest(
            "method",
            "exact",
            "the quadrature error is too large to bracket ε (small noise makes its integrand too sharp, or delta "
            "lies within that error of 0 or 1): raise --digits or use --method pld or best",
        )
    return lower, upper


def allocation_epsilon_quadrature(mech, steps, delta, direction, *, digits=30) -> tuple:
    """(ε_lower, ε_upper) with δ_upper(ε_upper) ≤ delta ≤ δ_lower(ε_lower), δ_upper/lower = value ± error of
    `allocation_delta_quadrature` (k = 1, t ∈ {1, 2, 3}, F25). ε may be negative when δ(0) < delta.
    """
    mech = _mechanism(mech)
    t = _steps(steps, ALLOCATION_STEPS, "allocation")
    d = check_direction(direction, allow_both=False)
    target = open_unit("delta", delta)
    n = _digits(digits, t)
    with mp.workdps(n + GUARD):
        kernel, tgt = _Kernel(mech), mpq(target)
        guess = mp.mpf(1)
        if t > 1:  # the single-step profile lies above the allocation profile (joint convexity of H)
            guess = _epsilon_bracket(_alloc_eval(kernel, 1, d, n), tgt, guess)[1]
        return _epsilon_bracket(_alloc_eval(kernel, t, d, n), tgt, guess)


def poisson_epsilon_quadrature(mech, steps, rate, delta, direction, *, digits=30) -> tuple:
    """(ε_lower, ε_upper) for Poisson subsampling, t ∈ {1, 2} (F46, F12), verified as in
    `allocation_epsilon_quadrature`. ε may be negative when δ(0) < delta.
    """
    mech = _mechanism(mech)
    t = _steps(steps, POISSON_STEPS, "Poisson")
    lam = check_rate("rate", rate)
    d = check_direction(direction, allow_both=False)
    target = open_unit("delta", delta)
    n = _digits(digits, t)
    with mp.workdps(n + GUARD):
        kernel, tgt, lam = _Kernel(mech), mpq(target), mpq(lam)
        guess = mp.mpf(1)
        if t == 2:  # basic composition: 2·ε_1(δ/2) is an upper guess (the search checks it)
            guess = 2 * _epsilon_bracket(_poisson_eval(kernel, 1, lam, d, n), tgt / 2, guess)[1]
        return _epsilon_bracket(_poisson_eval(kernel, t, lam, d, n), tgt, guess)
