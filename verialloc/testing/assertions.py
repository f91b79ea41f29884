"""Assertion helpers: soundness of any accountant against verialloc's references, and PLD comparisons.

`assert_sound_upper` / `assert_sound_lower` call an accountant `fn(config, epsilon=ε, direction=d)` (returns a
claimed δ) or `fn(config, delta=δ, direction=d)` (returns a claimed ε) and compare the claim with verialloc's
reference for the same configuration and direction (F3: remove, add, or both = the max of the two):
* the exact layer (`method="exact"`: enumeration, closed forms, quadrature) when it serves the request;
* otherwise the certified PLD bracket (`method="pld"`, F55): sound float64 lower and upper bounds.
An upper claim must be ≥ the reference's lower end, a lower claim ≤ its upper end; the check is one-sided,
so a loose but valid bound passes and only an unsound one fails.
"""

from __future__ import annotations

import inspect
import math
import numbers
from decimal import Decimal

import mpmath as mp
import numpy as np

from ..config import Config
from ..errors import InvalidParameter, UnsupportedRequest
from ..numeric.pld.pld import PLD
from ..result import Bracket
from ..validation import abbreviated, direction as check_direction


def _merge_ties(pld: PLD, atol: float) -> PLD:
    """Merge values closer than atol: exact ties among float64 log-ratios may land a few ulps apart."""
    if pld.losses.size == 0:
        return pld
    group = np.concatenate([[0], np.cumsum(np.diff(pld.losses) > atol)])
    firsts = np.flatnonzero(np.diff(np.concatenate([[-1], group])))
    return PLD(pld.losses[firsts], np.bincount(group, pld.masses), pld.inf_mass)


def _drop_negligible(pld: PLD, tol: float) -> PLD:
    """Atoms with mass ≤ tol are rounding noise (e.g. (1−λ)(1 − E[e^{−L}]) ≈ 1e-16 when E[e^{−L}] = 1)."""
    keep = pld.masses > tol
    return PLD(pld.losses[keep], pld.masses[keep], pld.inf_mass)


def assert_same_pld(a: PLD, b: PLD, tol: float = 1e-13, loss_atol: float = 1e-12) -> None:
    """Assert two PLDs are the same law: same support (within loss_atol), masses and +inf atom within tol."""
    a, b = (_drop_negligible(_merge_ties(x, loss_atol), tol) for x in (a, b))
    assert a.losses.size == b.losses.size, f"supports differ: {a.losses} vs {b.losses}"
    np.testing.assert_allclose(a.losses, b.losses, rtol=0, atol=loss_atol, err_msg="loss values differ")
    np.testing.assert_allclose(a.masses, b.masses, rtol=0, atol=tol, err_msg="masses differ")
    assert abs(a.inf_mass - b.inf_mass) <= tol, f"+inf atoms differ: {a.inf_mass} vs {b.inf_mass}"


# --- soundness of other accountants -------------------------------------------------------------------
def reference(
    config: Config,
    *,
    epsilon=None,
    delta=None,
    direction: str = "both",
    digits: int = 20,
    method: str = "auto",
    pld_settings=None,
    budget=None,
) -> Bracket:
    """verialloc's reference Bracket for δ(ε) or ε(δ): method "exact", "pld", or "auto" (exact when the exact
    layer serves the request within `budget`, else pld); a Bracket passed as `method` is returned as is
    (precomputed). `pld_settings`: a `numeric.pld.pld_accountant.Settings` for the pld method; `budget`: seconds
    (or a `cost.Budget`) a method may take, estimated before it starts (a request beyond it raises
    `cost.BudgetExceeded`)."""
    from .. import api  # late import: api imports every method module

    if isinstance(method, Bracket):
        return method
    if method not in ("auto", "exact", "pld"):
        raise InvalidParameter("method", method, "must be auto, exact, pld or a precomputed Bracket")
    quantity, value = quantity_of(epsilon, delta)
    ask = api.delta if quantity == "delta" else api.epsilon
    d = check_direction(direction)
    if method in ("auto", "exact"):
        try:
            return ask(config, value, direction=d, method="exact", digits=digits, budget=budget)
        except UnsupportedRequest:
            if method == "exact":
                raise
    options = {} if pld_settings is None else {"settings": pld_settings}
    return ask(config, value, direction=d, method="pld", digits=digits, budget=budget, **options)


def assert_sound_upper(
    fn,
    config: Config,
    *,
    epsilon=None,
    delta=None,
    direction: str = "both",
    rtol: float = 1e-12,
    atol: float = 0.0,
    digits: int = 20,
    method: str = "auto",
    pld_settings=None,
    **kwargs,
) -> Bracket:
    """Assert that `fn`'s claim is a valid **upper** bound: claim ≥ reference lower end − slack.

    Pass exactly one of `epsilon` (fn returns δ(ε)) or `delta` (fn returns ε(δ)); fn is called as
    fn(config, epsilon=…, direction=…, **kwargs). slack = rtol·|reference| + atol allows for the float64
    rounding of an otherwise exact claim. `method`: "auto" | "exact" | "pld" | a precomputed reference Bracket.
    Returns the reference Bracket.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this module's source
    return _check("upper", fn, config, epsilon, delta, direction, rtol, atol, digits, method, pld_settings, kwargs)


def assert_sound_lower(
    fn,
    config: Config,
    *,
    epsilon=None,
    delta=None,
    direction: str = "both",
    rtol: float = 1e-12,
    atol: float = 0.0,
    digits: int = 20,
    method: str = "auto",
    pld_settings=None,
    **kwargs,
) -> Bracket:
    """Assert that `fn`'s claim is a valid **lower** bound: claim ≤ reference upper end + slack (see
    `assert_sound_upper`)."""
    __tracebackhide__ = True
    return _check("lower", fn, config, epsilon, delta, direction, rtol, atol, digits, method, pld_settings, kwargs)


class QueryArguments(InvalidParameter, TypeError):
    """Neither or both of epsilon= and delta= given: an InvalidParameter, and a TypeError as Python's own errors for
    a call's missing or conflicting arguments (what was raised before)."""


def quantity_of(epsilon, delta) -> tuple[str, object]:
    if (epsilon is None) == (delta is None):
        raise QueryArguments(
            "epsilon",
            f"{epsilon}, delta={delta}",
            "pass exactly one of epsilon= (fn returns delta) or delta= (fn returns epsilon)",
        )
    return ("delta", epsilon) if epsilon is not None else ("epsilon", delta)


def accountant_of(fn):
    """fn itself, or InvalidParameter when it cannot be called (checked before anything else runs)."""
    if not callable(fn):
        raise InvalidParameter(
            "fn",
            abbreviated(fn),
            "must be a callable accountant fn(config, epsilon=... | delta=..., direction=...) returning a float",
        )
    return fn


def call_accountant(fn, config, given: str, value, direction: str, kwargs: dict):
    """fn(config, <given>=value, direction=direction, **kwargs), passing `direction=` only when fn accepts it (an
    accountant without the argument answers for its own direction and is judged against `direction`); a keyword fn
    does not accept raises InvalidParameter naming the signature it needs, before fn runs."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable without a signature: called as documented
        return fn(config, **{given: value}, direction=direction, **kwargs)
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return fn(config, **{given: value}, direction=direction, **kwargs)
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    missing = [k for k in (given, *kwargs) if k not in names]
    if missing:
        raise InvalidParameter(
            "fn",
            _name(fn),
            f"its signature {_name(fn)}{inspect.signature(fn)} takes no keyword {', '.join(missing)}: the "
            f"accountant is called as fn(config, {given}=..., direction=... (passed when fn takes it)"
            + "".join(f", {k}=..." for k in kwargs)
            + ")",
        )
    extra = {"direction": direction} if "direction" in names else {}
    return fn(config, **{given: value}, **extra, **kwargs)


def _check(claim: str, fn, config, epsilon, delta, direction, rtol, atol, digits, method, pld_settings, kwargs):
    __tracebackhide__ = True
    quantity, value = quantity_of(epsilon, delta)
    given = "epsilon" if quantity == "delta" else "delta"
    if not isinstance(config, Config):
        raise InvalidParameter("config", abbreviated(config), "must be a verialloc.Config")
    raw = call_accountant(accountant_of(fn), config, given, value, direction, kwargs)
    claimed, problem = claim_of(raw, quantity)
    if problem is not None:
        raise AssertionError(
            f"invalid {claim} bound: {_name(fn)} {problem} for {quantity}({given}={value}) "
            f"[direction={direction}] for {describe(config)}"
            f"{': NaN or not a number' * (claimed is None)}; it {expected_return(quantity)}"
        )
    ref = reference(
        config,
        epsilon=epsilon,
        delta=delta,
        direction=direction,
        digits=digits,
        method=method,
        pld_settings=pld_settings,
    )
    end = ref.lower if claim == "upper" else ref.upper
    with mp.workdps(max(digits, 15) + 30):  # the slack must not vanish in the rounding of end ± slack
        scale = abs(end) if mp.isfinite(end) else mp.mpf(0)
        slack = mp.mpf(rtol) * scale + mp.mpf(atol)
        ok = claimed >= end - slack if claim == "upper" else claimed <= end + slack
    if ok:
        return ref
    name = _name(fn)
    side = "lower end" if claim == "upper" else "upper end"
    relation = "below" if claim == "upper" else "above"
    shown = mp.nstr(claimed, 12)
    gap = f"; the claim is {relation} it by {mp.nstr(abs(claimed - end), 6)}"
    raise AssertionError(
        f"unsound {claim} bound: {name} claimed {quantity}({given}={value}) = {shown} as {'an' if claim == 'upper' else 'a'} {claim} bound "
        f"[direction={direction}] for {describe(config)}, but verialloc's reference "
        f"(method '{ref.method}', error_kind '{ref.error_kind}') is {quantity} ∈ [{mp.nstr(ref.lower, 12)}, "
        f"{mp.nstr(ref.upper, 12)}] ({_standing(ref)} {side} {mp.nstr(end, 12)}){gap}"
    )


def _standing(ref: Bracket) -> str:
    """How far a reference's end is to be trusted: "certified" for bounds, else what it is (a quadrature's error is
    estimated, not bounded)."""
    if ref.error_kind in ("exact", "bound"):
        return "certified"
    return {"quadrature": "quadrature estimate of the"}.get(ref.error_kind, f"{ref.error_kind} estimate of the")


def claim_of(raw, quantity: str):
    """(the value `fn` returned as an mpf, None) for a claim; (the mpf or None for no number, what it returned)
    otherwise.

    A claim is one real number: int, float (numpy scalars included), Fraction, Decimal or mpmath mpf; NaN is none,
    nor are None, bools, text, tuples, lists or numpy arrays. A delta must lie in [0, 1] (inf included); an epsilon
    may be any real or ±inf (ε(δ) = +inf when no ε reaches δ); the reference judges its value.
    The second item says what was returned: "returned None", "returned the str '0.2'", "returned nan", ..."""
    if raw is None:
        return None, "returned None"
    if isinstance(raw, (bool, np.bool_)):
        return None, f"returned the bool {raw}"
    if isinstance(raw, np.ndarray):
        return None, f"returned a numpy array of shape {raw.shape} ({abbreviated(raw.tolist(), 40)})"
    value = None
    if isinstance(raw, mp.mpf):
        value = raw
    elif isinstance(raw, numbers.Integral):
        value = mp.mpf(int(raw))
    elif isinstance(raw, numbers.Rational):
        value = mp.mpf(int(raw.numerator)) / int(raw.denominator)
    elif isinstance(raw, (numbers.Real, Decimal)):
        try:
            value = mp.mpf(str(raw)) if isinstance(raw, Decimal) else mp.mpf(float(raw))
        except (TypeError, ValueError, OverflowError):
            value = None
    if value is None:
        return None, f"returned the {type(raw).__name__} {abbreviated(repr(raw), 40)}"
    if mp.isnan(value):
        return None, f"returned {abbreviated(raw, 60)}"
    if quantity == "delta" and not 0 <= value <= 1:
        return value, f"returned {abbreviated(raw, 60)}"
    return value, None


def expected_return(quantity: str) -> str:
    """What an accountant must return for `quantity`."""
    return (
        "must return a float: delta(epsilon) in [0, 1]"
        if quantity == "delta"
        else "must return a float: epsilon(delta), a real number or +-inf"
    )


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def describe(config: Config) -> str:
    items = config.as_dict()
    params = ", ".join(f"{k}={v}" for k, v in items.pop("params").items())
    rest = ", ".join(f"{k}={v}" for k, v in items.items() if k != "mechanism")
    return f"{items['mechanism']}({params}) {rest}"


def domination_slack(v: dict, u: dict, *, shift=0, factor=1):
    """Smallest β ≥ 0 with V ⪯_(shift, β) U for laws {value: mass} (F10): F̄_V(x) ≤ F̄_U(x − shift) + β for all x.

    The worst x lies just below an atom a of V: β = max_a [P(V ≥ a) − P(U ≥ a − shift)]_+ (∞ − shift = ∞).
    For exp-space laws (values e^L) pass `factor` = e^shift instead: a − shift becomes a/factor. Exact when
    values, masses and shift/factor are Fractions.
    """
    worst = 0
    for a in v:
        moved = a if a == math.inf else (a - shift) / factor
        worst = max(worst, sum(m for w, m in v.items() if w >= a) - sum(m for w, m in u.items() if w >= moved))
    return worst


def assert_stochastically_dominated(v: dict, u: dict, *, shift=0, factor=1, slack=0) -> None:
    """Assert V ⪯_(shift, slack) U (F10; V ⪯ U when both are 0) for laws {value: mass}; see `domination_slack`."""
    needed = domination_slack(v, u, shift=shift, factor=factor)
    assert needed <= slack, (
        f"not stochastically dominated: V ⪯_(shift={shift}, beta) U needs beta = {needed} > {slack}\n V = {v}\n U = {u}"
    )
