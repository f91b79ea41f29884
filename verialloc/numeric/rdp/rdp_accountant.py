"""Method "rdp": float64 Rényi-DP accountant (F55, RDP route) — RDP curves in log space, F18 conversion.

* Allocation, remove direction: R_α of 1-out-of-t allocation (F38/E3/E5, generating function in log space);
  k > 1 by F27 with unequal blocks, k − r of ⌊t/k⌋ and r = t mod k of ⌈t/k⌉ steps, composed (F21: an upper
  bound), epochs multiply (F21).
  Add direction: the sources give no add-direction RDP of allocation (E2; F41/F42 bound δ directly), so
  direction "add" and "both" raise UnsupportedRequest pointing to the pld method.
* Poisson: remove direction R_α(λP + (1−λ)Q‖Q) by the binomial expansion; add direction R_α(Q‖λP + (1−λ)Q)
  (F46) for finite pairs by the F5 sum over atoms (continuous pairs: UnsupportedRequest); t·E compositions (F21).
* δ(ε), ε(δ): F18 minimized over the orders of `rdp_conversion` (upper bounds); the lower end of the bracket
  is the trivial bound of I1 (δ >= max(0, 1 − e^ε), ε >= ln(1 − δ)). Options: `alpha_max` fixes the largest
  integer order; default None = start at 256 and double (up to 10⁴; up to 2048 when ⌊t/k⌋ < 10⁴, where the
  binary-powering route is slower) until the F19 monotonicity argument shows
  that larger orders can improve the bound by at most `search_tol` (relative; default 1e-3, 0 = plain F19).
  The remaining possible improvement is reported in details["improvement_left"].
* Directed rounding (verialloc.rounding): every endpoint is rounded in its bound's direction — the trivial lower
  ends are enclosed and rounded down, δ = e^{ln δ} is rounded up, the F18/F20 values and the curve brackets
  are padded and rounded outwards, and the exact inputs are converted to float64 on the sound side
  (ε and δ down for the upper ends, since δ(ε) and ε(δ) are non-increasing; a fractional α down for the
  lower and up for the upper end; the Poisson rate up for upper and down for lower curves).
"""

from __future__ import annotations

import math
import numbers
from functools import lru_cache, reduce

import mpmath as mp
import numpy as np

from ...config import Config
from ...ledger import ledger_of
from ...errors import InvalidParameter, UnsupportedRequest
from ...result import Bracket, max_bracket
from ...rounding import exp_up, float_down, float_up, trivial_delta_lower, trivial_epsilon_lower
from ...validation import abbreviated, as_float, digits as check_digits, direction as check_direction, integer
from ...validation import open_unit, real, to_fraction
from .cost import DEFAULT_ALPHA_MAX, SMALL_T_CAP
from .log_moments import MAX_ORDER
from .rdp_conversion import delta_bound, delta_gap, epsilon_bound, epsilon_gap, fractional_rdp
from .rdp_logspace import RdpCurve, allocation_rdp_curve, poisson_add_rdp_curve, poisson_rdp_curve

METHOD = "rdp"
#: first largest order of the adaptive α search (DEFAULT_ALPHA_MAX); its cap when t < N (SMALL_T_CAP: the
#: binary-powering route, O(N² log t) instead of the O(N²) recurrence) — defined beside the cost model that sums
#: the search's rounds (numeric.rdp.cost)
#: the adaptive search stops once larger orders can improve the bound by at most this fraction
SEARCH_TOL = 1e-3
NO_ADD = (
    "the RDP route has a remove-direction formula only for allocation (F38, erratum E2); "
    "use direction=remove, or --method pld for add/both"
)
FLOAT_NOTE = "float64 log-space evaluation: `digits` does not apply; the bracket carries the float budget"


def rdp(config, alpha, digits: int = 30) -> Bracket:
    """Bracket for the remove-direction RDP at order α in (1, 10⁴] of a Config or a Ledger (curves add, F21).

    Integer α: the float64 value ± its error budget (k > 1: upper from the F27 reduction, lower from k = 1,
    since the allocation is non-decreasing in k, [004] Lemma D.1, and Rényi divergences respect post-processing).
    Non-integer α: F20 chord (upper) and R_⌊α⌋ (lower); α ∈ (1, 2): [0, R_2] (see rdp_conversion).
    """
    check_digits(digits)
    a = real("alpha", alpha)
    if not 1 < a <= MAX_ORDER:
        raise InvalidParameter("alpha", alpha, f"must lie in (1, {MAX_ORDER}] (float64 RDP orders)")
    events = ledger_of(config).events
    n = max(2, math.ceil(a))
    upper_curve = _curve(config, "remove", n)
    lower_curve = _sum(_lower_curve(e, n) for e in events)
    if a.denominator == 1:
        lo, hi = float(lower_curve.bounds()[0][n]), float(upper_curve.bounds()[1][n])
        route = "; ".join(
            dict.fromkeys(
                "integer order (log-space generating function)"
                if e.scheme == "allocation"
                else "integer order (binomial expansion)"
                for e in events
            )
        )
    else:
        # R_α is non-decreasing in α: evaluate the lower end at float64 α' <= α, the upper end at α'' >= α
        a_low, a_high = float_down(a), float_up(a)
        lo = fractional_rdp(lower_curve, a_low)[0] if a_low > 1 else 0.0
        hi = fractional_rdp(upper_curve, a_high)[1] if a_high < n else float(upper_curve.bounds()[1][n])
        route = (
            "alpha in (1, 2): R_alpha <= R_2 (convexity, ln D_1 = 0)" if a < 2 else "F20 chord between integer orders"
        )
    notes = [route, FLOAT_NOTE]
    if any(e.scheme == "allocation" and e.k > 1 for e in events):
        notes.append(
            "k > 1: upper (k - r) * R(floor(t/k)) + r * R(ceil(t/k)), r = t mod k (F27 with unequal blocks, "
            "F21); lower from k = 1 (monotone in k, [004] Lemma D.1)"
        )
    if len(events) > 1:
        notes.append(f"{len(events)} events: their RDP curves add (F21)")
    details = {"alpha": int(a) if a.denominator == 1 else float(a), "notes": notes}
    return Bracket("rdp", mp.mpf(min(lo, hi)), mp.mpf(hi), METHOD, "remove", "bound", details)


def delta(
    config: Config,
    epsilon,
    direction: str = "both",
    digits: int = 30,
    alpha_max: int | None = None,
    search_tol: float = SEARCH_TOL,
) -> Bracket:
    """Upper bound on δ(ε) by F18 over the searched orders; lower end trivial (I1)."""
    check_digits(digits)
    eps = real("epsilon", epsilon)
    eps_low = float_down(eps)  # δ(ε) is non-increasing in ε: the F18 upper bound at ε' <= ε bounds δ(ε)
    lower = trivial_delta_lower(eps)

    def one(d: str) -> Bracket:
        (log_value, order), n, gap = _search(
            config,
            d,
            alpha_max,
            search_tol,
            lambda c: delta_bound(c, eps_low),
            lambda c, best: math.expm1(min(delta_gap(c, best[0], eps_low, MAX_ORDER), 700.0)),
        )
        value = exp_up(log_value)  # ln δ <= log_value (rounded up), e^x rounded up
        return Bracket(
            "delta",
            min(mp.mpf(lower), value),
            value,
            METHOD,
            d,
            "bound",
            _details(order, n, gap, "lower = max(0, 1 - e^eps) is the trivial bound (I1), rounded down"),
        )

    return _per_direction(config, direction, one)


def epsilon(
    config: Config,
    delta,
    direction: str = "both",
    digits: int = 30,
    alpha_max: int | None = None,
    search_tol: float = SEARCH_TOL,
) -> Bracket:
    """Upper bound on ε(δ) by F18 over the searched orders (F19 search); lower end trivial (I1)."""
    check_digits(digits)
    target = open_unit("delta", delta)
    target_low = float_down(target)  # ε(δ) is non-increasing in δ: the F18 upper bound at δ' <= δ bounds ε(δ)
    if target_low <= 0:
        raise InvalidParameter("delta", delta, "must be at least the smallest positive float64")
    lower = trivial_epsilon_lower(target)

    def one(d: str) -> Bracket:
        (value, order), n, gap = _search(
            config,
            d,
            alpha_max,
            search_tol,
            lambda c: epsilon_bound(c, target_low),
            lambda c, best: epsilon_gap(c, best[0], target_low, MAX_ORDER) / max(abs(best[0]), 1e-300),
        )
        return Bracket(
            "epsilon",
            mp.mpf(min(lower, value)),
            mp.mpf(value),
            METHOD,
            d,
            "bound",
            _details(order, n, gap, "lower = ln(1 - delta) is the trivial bound (I1), rounded down"),
        )

    return _per_direction(config, direction, one)


def order_cap(alpha_max) -> int | None:
    """`alpha_max` as a Python int in [2, MAX_ORDER] (any integer type: numpy's too), or None (adaptive)."""
    if alpha_max is None:
        return None
    if not isinstance(alpha_max, numbers.Integral) or isinstance(alpha_max, (bool, np.bool_)):
        raise InvalidParameter("alpha_max", abbreviated(alpha_max), f"must be an integer in [2, {MAX_ORDER}] or None")
    return integer("alpha_max", int(alpha_max), 2, MAX_ORDER)


def tolerance(name: str, value) -> float:
    """`search_tol` (named `name`: the API keyword or the flag) as a float in [0, 1); 0 is plain F19."""

    def unit(n, v):
        x = to_fraction(n, v)
        if not 0 <= x < 1:
            raise InvalidParameter(n, v, "must be a number in [0, 1) (0: the plain F19 search)")
        return x

    return as_float(name, value, unit)


def _search(config, direction: str, alpha_max, search_tol, convert, relative_gap):
    """(best, largest order used, relative improvement still possible from orders up to 10⁴ (None: fixed))."""
    alpha_max, search_tol = order_cap(alpha_max), tolerance("search_tol", search_tol)
    if alpha_max is not None:
        return convert(_curve(config, direction, alpha_max)), alpha_max, None
    fast = all(e.scheme == "poisson" or e.steps // e.k >= MAX_ORDER for e in ledger_of(config).events)
    cap = MAX_ORDER if fast else SMALL_T_CAP
    n = DEFAULT_ALPHA_MAX
    while True:
        curve = _curve(config, direction, n)
        best = convert(curve)
        gap = relative_gap(curve, best) if math.isfinite(best[0]) else 0.0
        if gap <= search_tol or n >= cap:
            return best, n, gap
        n = min(2 * n, cap)


def _curve(config, direction: str, n: int, rate_side: str = "up") -> RdpCurve:
    """RDP curve α = 2..n of a Config or a Ledger in one direction: the events' curves added (F21)."""
    return _sum(_event_curve(e, direction, n, rate_side) for e in ledger_of(config).events)


def _lower_curve(config: Config, n: int) -> RdpCurve:
    """A lower curve of one configuration: allocation k > 1 by k = 1 over all t steps, E epochs ([004] Lemma D.1);
    allocation k = 1 its own curve; Poisson its curve at the rate rounded down (I6)."""
    if config.scheme == "allocation":
        if config.k == 1:
            return _event_curve(config, "remove", n)
        return allocation_rdp_curve(config.mechanism, config.steps, n).scaled(config.epochs)
    return _event_curve(config, "remove", n, "down")


def _per_direction(config, direction: str, one) -> Bracket:
    d = check_direction(direction)
    if d != "remove" and any(e.scheme == "allocation" for e in ledger_of(config).events):
        raise UnsupportedRequest("direction", d, NO_ADD)
    return one(d) if d != "both" else max_bracket(one("remove"), one("add"))


def _details(order: float, n: int, gap, lower_note: str) -> dict:
    """`improvement_left`: relative amount by which orders in (alpha_max, 10⁴] could still improve the bound
    (F19 argument; 0 = no larger order can help; None = alpha_max fixed by the caller, not examined)."""
    search = (
        "orders fixed by alpha_max"
        if gap is None
        else f"larger orders (up to {MAX_ORDER}) could improve the bound by at most {gap:.3g} (relative, F19)"
    )
    return {
        "alpha": order,
        "alpha_max": n,
        "improvement_left": gap,
        "notes": [
            f"upper bound by F18 (Canonne-Kamath-Steinke Prop. 12) at alpha={order:g}; {search}",
            lower_note,
            FLOAT_NOTE,
        ],
    }


def _sum(curves) -> RdpCurve:
    return reduce(lambda x, y: x.plus(y), curves)


@lru_cache(maxsize=128)
def _event_curve(config: Config, direction: str, n: int, rate_side: str = "up") -> RdpCurve:
    """RDP curve α = 2..n of one configuration in one direction (F21 compositions applied); kept for the queries
    that need it again (a ledger compiled once, a privacy curve).

    Poisson: the float64 rate is λ rounded up (rate_side="up", for upper bounds) or down ("down", for lower
    bounds); R_α is non-decreasing in λ in both directions (I6), so the curve bounds the one at the exact λ."""
    mech = config.mechanism
    if config.scheme == "allocation":
        if direction != "remove":
            raise UnsupportedRequest("direction", direction, NO_ADD)
        block, r = divmod(config.steps, config.k)  # F27 with unequal blocks: k − r of ⌊t/k⌋ steps, r of ⌈t/k⌉
        curve = allocation_rdp_curve(mech, block, n).scaled((config.k - r) * config.epochs)
        return curve.plus(allocation_rdp_curve(mech, block + 1, n).scaled(r * config.epochs)) if r else curve
    factor = config.steps * config.epochs
    rate = min(float_up(config.rate), 1.0) if rate_side == "up" else float_down(config.rate)
    if direction == "remove":
        return poisson_rdp_curve(mech, rate, n).scaled(factor)
    pairs = mech.finite_pairs()
    if pairs is None or pairs[0] is not pairs[1]:  # the F5 sum runs over a finite pair's atoms
        raise UnsupportedRequest(
            "direction",
            direction,
            f"Poisson add-direction RDP is computed for finite pairs only "
            f"(not {mech.name}); use direction=remove, or --method pld",
        )
    return poisson_add_rdp_curve(mech, rate, n).scaled(factor)
