"""Method "exact": route a request to the exact / arbitrary-precision routine that can serve it.

Routes (each returns a Bracket; exact routes have lower == upper at the working precision):
* finite pairs (randomized response, discrete): count enumeration for allocation (any k, exact
  k-subset likelihood) and Poisson, epochs by exact composition;
* pairs whose compositions have a closed form (the Gaussian), every step always used (allocation k = steps,
  or Poisson rate 1): the t·E-fold composition is one such pair (F13: a Gaussian with σ/√(tE));
* continuous pairs, allocation k = 1 with t ≤ 3 or Poisson with t·E ≤ 2: quadrature with a stated
  error estimate (error_kind "quadrature");
* anything else raises UnsupportedRequest naming the parameter and the supported range.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

from ..config import Config
from ..errors import UnsupportedRequest
from ..formatting import decimal
from ..ledger import ledger_of
from ..mechanisms import ContinuousMechanism, Mechanism
from ..mechanisms.base import mpq
from ..result import Bracket, max_bracket
from ..validation import abbreviated, direction as check_direction, integer, open_unit, real
from . import discrete_profiles, quadrature
from .rdp import allocation_rdp, poisson_rdp

GUARD = 15
METHOD = "exact"
#: working digits the closed-form composition route never exceeds (F13 cancellation, see _settled_delta)
MAX_WORKING_DIGITS = 4000
#: widest quadrature answer returned (relative to δ, or to max(ε, 1)): a wider one is no answer (σ = 1/1000 at t = 2
#: gave δ = 1.22 ± 20 and ε ∈ [0, 20942]); the request is refused naming the methods that serve it
UNRESOLVED = mp.mpf("1e-3")


def delta(config, epsilon, direction: str = "both", digits: int = 30) -> Bracket:
    """Bracket for δ(ε) of the dominating pair of `config` (a Config, or a Ledger of events: `_ledger_delta`)
    (F2, F22); "both" is the max over directions (F3)."""
    eps = real("epsilon", epsilon)
    ledger = ledger_of(config)
    if ledger.single is None:
        return _per_direction(direction, lambda d: _ledger_query("delta", ledger, eps, d, digits))
    return _per_direction(direction, lambda d: _delta_one(ledger.single, eps, d, digits))


def epsilon(config, delta, direction: str = "both", digits: int = 30) -> Bracket:
    """Bracket for ε(δ) = inf{ε : δ(ε) ≤ delta}; "both" is the max over directions."""
    target = open_unit("delta", delta)
    ledger = ledger_of(config)
    if ledger.single is None:
        return _per_direction(direction, lambda d: _ledger_query("epsilon", ledger, target, d, digits))
    return _per_direction(direction, lambda d: _epsilon_one(ledger.single, target, d, digits))


def rdp(config, alpha, digits: int = 30) -> Bracket:
    """Exact Rényi DP of the remove direction at integer α (F38 for allocation, binomial expansion for Poisson); a
    Ledger's is the sum of its events' (composition, F21)."""
    a = integer("alpha", alpha, lo=2)
    values = [_event_rdp(e, a, digits) for e in ledger_of(config).events]
    with mp.workdps(digits + GUARD):  # the sum of a composition at the values' own precision, not the ambient one
        value = values[0] if len(values) == 1 else mp.fsum(values)
    return Bracket("rdp", value, value, METHOD, "remove", "exact", {"alpha": a})


def _per_direction(direction: str, one) -> Bracket:
    d = check_direction(direction)
    if d != "both":
        return one(d)
    return max_bracket(one("remove"), one("add"))


def composition(config: Config) -> Mechanism | None:
    """The whole configuration as one pair when every step uses the element (allocation k = t, or Poisson rate 1)
    and the pair's compositions have a closed form (`Mechanism.composed`: the Gaussian's σ/√(tE), F13), else None."""
    always = config.k == config.steps if config.scheme == "allocation" else config.rate == 1
    return config.mechanism.composed(config.steps * config.epochs) if always else None


def _settled_delta(pair: Mechanism, e: mp.mpf | Fraction, digits: int) -> mp.mpf:
    """The closed-form δ(ε = e) of `pair` (a `composition`) with `digits` correct significant digits at any scale.

    A rational e is formed anew at each working precision: read once (at digits + GUARD), ε = 12345678901.1 was
    off by 1e-17, which moved δ ≈ e^(−ε²/2) by a factor e^(−ε·1e-17) (9 of 12 digits right) and e^(−5e599)'s
    exponent at ε = 1e300, and two precisions agreed on the wrong value.

    The two Φ terms of F13 cancel (to about log10(σ) digits at ε = 0 for large σ, log10(εσ²) for large ε),
    so the fixed working precision could return a few digits or even 0 for a δ > 0 (every finite ε has
    δ > 0: full support). Evaluated at growing precisions until two consecutive values agree to digits + 2
    digits (never at 0); more than MAX_WORKING_DIGITS raises UnsupportedRequest naming the pair's parameter.
    """
    dps, previous = digits + GUARD, None
    while True:
        with mp.workdps(dps):
            point = mpq(e) if isinstance(e, Fraction) else e
            value = pair.delta(point)
        step = dps
        if previous is not None and value and previous:
            if value == previous:
                return value
            agreed = -mp.log10(abs(value - previous) / abs(value))
            if agreed >= digits + 2:
                return value
            if agreed >= 1:
                step = max(GUARD, digits + 2 - int(agreed) + GUARD)
        previous = value
        if dps >= MAX_WORKING_DIGITS:
            name = pair.parameter
            raise UnsupportedRequest(
                name,
                abbreviated(pair.params()[name]),
                f"delta(epsilon={mp.nstr(point, 10)}) of the {type(pair).__name__} composition is not "
                f"resolved to {digits} digits within {MAX_WORKING_DIGITS} working digits",
            )
        dps = min(dps + step, MAX_WORKING_DIGITS)


def _settled_epsilon(pair: Mechanism, target: Fraction, digits: int) -> mp.mpf | None:
    """`pair.epsilon_direct(target)` settled like `_settled_delta` (two precisions agree to digits + 2 digits), or
    None when the pair has no direct solver here."""
    dps, previous = digits + GUARD, None
    while True:
        with mp.workdps(dps):
            value = pair.epsilon_direct(target)
        if value is None:
            return None
        if previous is not None and abs(value - previous) <= mp.mpf(10) ** -(digits + 2) * abs(value):
            return value
        if dps >= MAX_WORKING_DIGITS:  # ε = μ + c·s cancels only near ε = 0, at a δ within e^(−c²/8) of 1
            raise UnsupportedRequest(
                "delta",
                abbreviated(str(target)),
                f"epsilon(delta) of the {type(pair).__name__} "
                f"composition is not resolved to {digits} digits within {MAX_WORKING_DIGITS} "
                "working digits",
            )
        previous, dps = value, min(dps + GUARD, MAX_WORKING_DIGITS)


def _delta_one(config: Config, eps: Fraction, d: str, digits: int) -> Bracket:
    mech = config.mechanism
    with mp.workdps(digits + GUARD):
        e = mp.mpf(eps.numerator) / eps.denominator
        pairs = mech.finite_pairs()
        if pairs is not None:
            return _finite_bracket(
                "delta",
                pairs,
                lambda pair: discrete_profiles.discrete_delta(
                    pair,
                    config.scheme,
                    config.steps,
                    eps,
                    d,
                    k=config.k,
                    epochs=config.epochs,
                    rate=config.rate,
                    digits=digits,
                ),
                d,
                digits,
            )
        comp = composition(config)
        if comp is not None:
            v = _settled_delta(comp, eps, digits)
            return Bracket("delta", v, v, METHOD, d, details={"route": f"{comp.name} composition (F13)"})
        value, err = _quadrature_delta(config, eps, d, digits)
        _check_resolved(config, "delta", value, err, abs(value))
        lo, hi = max(value - err, max(mp.mpf(0), -mp.expm1(e))), min(value + err, mp.mpf(1))
        return Bracket("delta", lo, hi, METHOD, d, "quadrature", {"estimate": value, "error": err})


def _epsilon_one(config: Config, target: Fraction, d: str, digits: int) -> Bracket:
    mech = config.mechanism
    with mp.workdps(digits + GUARD):
        pairs = mech.finite_pairs()
        if pairs is not None:
            return _finite_bracket(
                "epsilon",
                pairs,
                lambda pair: discrete_profiles.discrete_epsilon(
                    pair,
                    config.scheme,
                    config.steps,
                    target,
                    d,
                    k=config.k,
                    epochs=config.epochs,
                    rate=config.rate,
                    digits=digits,
                ),
                d,
                digits,
            )
        comp = composition(config)
        if comp is not None:
            v = _settled_epsilon(comp, target, digits)
            if v is None:
                v = _invert_decreasing(lambda e: _settled_delta(comp, e, digits), mpq(target))
            return Bracket("epsilon", v, v, METHOD, d, details={"route": f"{comp.name} composition (F13)"})
        lo, hi = _quadrature_epsilon(config, target, d, digits)
        _check_resolved(config, "epsilon", (lo + hi) / 2, (hi - lo) / 2, max(abs(hi), 1))
        return Bracket("epsilon", lo, hi, METHOD, d, "quadrature")


def _finite_bracket(quantity: str, pairs: tuple, value, d: str, digits: int) -> Bracket:
    """The exact value of a finite pair, or for a pair bracketed by two finite pairs (lower, upper) the bracket of
    their values, each moved outward by its stated accuracy (10^-digits relative: `digits` correct digits), so the
    bracket bounds the truth (error_kind "bound")."""
    lower, upper = pairs
    lo = value(lower)
    if upper is lower:
        return Bracket(quantity, lo, lo, METHOD, d)
    hi = value(upper)
    if quantity == "epsilon":
        lo, hi = min(lo, hi), max(lo, hi)  # ε(δ) of the lower pair is the lower end
    rel = mp.mpf(10) ** -digits
    lo, hi = lo - abs(lo) * rel, hi + abs(hi) * rel
    if quantity == "delta":
        lo, hi = max(lo, mp.mpf(0)), min(hi, mp.mpf(1))
    return Bracket(quantity, lo, hi, METHOD, d, "bound", {"route": "bracketing finite pairs"})


def _check_resolved(config: Config, quantity: str, value, err, scale) -> None:
    """UnsupportedRequest when the quadrature's estimated error exceeds UNRESOLVED × scale."""
    if err > UNRESOLVED * scale:
        tiny = quantity == "delta" and err <= UNRESOLVED  # σ = 30, ε = 1: δ = 2e-464 ± 1e-395, not small noise
        reason = "delta there is far below its absolute error" if tiny else "small noise makes its integrand too sharp"
        raise UnsupportedRequest(
            "method",
            METHOD,
            f"the quadrature did not resolve {quantity} of {abbreviated(config.mechanism)} at steps={config.steps} "
            f"(estimate {abbreviated(decimal(value, 6))} ± {abbreviated(decimal(err, 3))}): {reason}; use --method pld or best",
        )


def _quadrature_route(config: Config) -> str:
    mech = config.mechanism
    if not isinstance(mech, ContinuousMechanism):
        raise UnsupportedRequest("mechanism", mech.name, "no exact route for this mechanism")
    if config.scheme == "allocation" and config.k == 1 and config.epochs == 1 and config.steps <= 3:
        return _resolvable(config, "allocation")
    product = config.scheme == "poisson" or config.k == config.steps
    if product and config.steps * config.epochs <= 2:
        return _resolvable(config, "poisson")
    if config.scheme == "allocation" and config.k == 1 and config.epochs == 1:
        raise UnsupportedRequest(
            "steps", config.steps, f"exact {mech.name} allocation needs steps <= 3; use --method pld"
        )
    if config.scheme == "allocation" and config.k > 1 and not product:
        raise UnsupportedRequest(
            "k", config.k, f"exact {mech.name} allocation covers k = 1 or k = steps; use --method pld"
        )
    raise UnsupportedRequest(
        "epochs", config.epochs, f"exact {mech.name} {config.scheme} needs steps*epochs <= 2; use --method pld"
    )


def _resolvable(config: Config, route: str) -> str:
    """`route`, unless a parameter lies below the pair's `quadrature_limits` (the Gaussian's σ < 1/500):
    UnsupportedRequest naming it, before any work (σ = 1e-4000 took 7–40 s of 26 000-bit exponentials to report an
    unresolved estimate, or crashed printing it)."""
    mech = config.mechanism
    for name, lo in mech.quadrature_limits.items():
        value = getattr(mech, name)
        if value < lo:
            serves = mech.float_limits.get(name, (None,))[0]
            float_route = f"; --method pld serves {name} >= {float(serves):g}" if serves is not None else ""
            raise UnsupportedRequest(
                name,
                abbreviated(str(value)),
                f"the exact quadrature ({route}, steps="
                f"{config.steps}) does not resolve {name} < {float(lo):g} (small noise makes its "
                f"integrand too sharp){float_route}",
            )
    return route


def quadrature_route(config: Config) -> tuple[str, int] | None:
    """("allocation" | "poisson", steps of the quadrature) when delta/epsilon of `config` go by quadrature, else None
    (finite pairs, F13 compositions, requests the exact layer refuses); read by the cost model (verialloc.cost)."""
    if config.mechanism.finite_pairs() is not None or composition(config) is not None:
        return None
    try:
        kind = _quadrature_route(config)
    except UnsupportedRequest:
        return None
    return kind, config.steps if kind == "allocation" else config.steps * config.epochs


def _quadrature_digits(config: Config, digits: int) -> int:
    """t = 3 quadrature is capped at MAX_DIGITS_T3 digits (cost); its error estimate states what was reached."""
    return min(digits, quadrature.MAX_DIGITS_T3) if config.steps == 3 else digits


def _quadrature_delta(config: Config, eps: Fraction, d: str, digits: int):
    if _quadrature_route(config) == "allocation":
        return quadrature.allocation_delta_quadrature(
            config.mechanism, config.steps, eps, d, digits=_quadrature_digits(config, digits)
        )
    lam = config.rate if config.scheme == "poisson" else Fraction(1)
    return quadrature.poisson_delta_quadrature(
        config.mechanism, config.steps * config.epochs, lam, eps, d, digits=digits
    )


def _quadrature_epsilon(config: Config, target: Fraction, d: str, digits: int):
    if _quadrature_route(config) == "allocation":
        return quadrature.allocation_epsilon_quadrature(
            config.mechanism, config.steps, target, d, digits=_quadrature_digits(config, digits)
        )
    lam = config.rate if config.scheme == "poisson" else Fraction(1)
    return quadrature.poisson_epsilon_quadrature(
        config.mechanism, config.steps * config.epochs, lam, target, d, digits=digits
    )


def _invert_decreasing(fn, target: mp.mpf) -> mp.mpf:
    """Root of fn(ε) = target for a continuous, non-increasing profile with fn(ln(1 − target)) ≥ target (I1).

    Bisection on ln fn (relative accuracy at any scale of δ) to the working precision, relative in ε too
    (a root of size 1e-50 keeps its digits); at most 8 × prec halvings.
    """
    lo, hi = mp.log1p(-target), mp.mpf(1)
    while fn(hi) > target:
        lo, hi = hi, 2 * hi
    log_target = mp.log(target)
    tol = mp.mpf(2) ** (-mp.mp.prec + 4)
    for _ in range(8 * mp.mp.prec):
        if hi - lo <= tol * max(abs(lo), abs(hi)):
            break
        mid = (lo + hi) / 2
        value = fn(mid)
        if value > 0 and mp.log(value) > log_target:
            lo = mid
        else:
            hi = mid
    return hi


def _event_rdp(config: Config, a: int, digits: int) -> mp.mpf:
    if config.scheme == "allocation":
        if config.k != 1:
            raise UnsupportedRequest(
                "k", config.k, "the exact RDP (F38) covers k = 1; use --method rdp for the k > 1 reduction"
            )
        return allocation_rdp(config.mechanism, config.steps, a, digits=digits, epochs=config.epochs)
    return poisson_rdp(config.mechanism, config.steps, config.rate, a, digits=digits, epochs=config.epochs)


def ledger_composition(ledger) -> Mechanism | None:
    """The whole ledger as one pair when every event is a `composition` and they compose in closed form
    (`Mechanism.composed_with`: Gaussians, whose μ add, F13), else None."""
    pairs = [composition(e) for e in ledger.events]
    if any(p is None for p in pairs):
        return None
    out = pairs[0]
    for p in pairs[1:]:
        out = out.composed_with(p)
        if out is None:
            return None
    return out


def _ledger_query(quantity: str, ledger, value, d: str, digits: int) -> Bracket:
    """A composition of events: one pair in closed form (`ledger_composition`), or finite pairs composed exactly
    (discrete_profiles.composed_delta/epsilon over the events' scheme pairs, bracketing pairs bracketed); else
    UnsupportedRequest naming what the exact layer composes."""
    with mp.workdps(digits + GUARD):
        comp = ledger_composition(ledger)
        if comp is not None:
            if quantity == "delta":
                v = _settled_delta(comp, value, digits)
            else:
                v = _settled_epsilon(comp, value, digits)
                if v is None:
                    v = _invert_decreasing(lambda e: _settled_delta(comp, e, digits), mpq(value))
            return Bracket(quantity, v, v, METHOD, d, details={"route": f"{comp.name} composition of events (F13)"})
        brackets = [e.mechanism.finite_pairs() for e in ledger.events]
        if any(b is None for b in brackets):
            raise UnsupportedRequest(
                "events",
                len(ledger.events),
                "the exact layer composes events that are all finite pairs, or all Gaussian with every step "
                "holding the element (k = steps or rate 1, F13); use --method pld or best for this ledger",
            )
        sides = [
            [
                discrete_profiles.Part(b[i], e.scheme, e.steps, e.k, e.epochs, e.rate)
                for b, e in zip(brackets, ledger.events)
            ]
            for i in (0, 1)
        ]
        ask = discrete_profiles.composed_delta if quantity == "delta" else discrete_profiles.composed_epsilon
        same = all(b[0] is b[1] for b in brackets)
        pairs = (sides[0], sides[0] if same else sides[1])
        return _finite_bracket(quantity, pairs, lambda parts: ask(parts, value, d, digits), d, digits)
