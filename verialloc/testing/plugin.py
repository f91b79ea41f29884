"""pytest plugin (entry point `pytest11: verialloc`): the `verialloc_check` fixture and `--verialloc-method`.

    def test_mine(verialloc_check):
        verialloc_check(my_epsilon, Config(Gaussian(1), steps=1000), delta=1e-5, max_loose=0.05)

calls `my_epsilon(config, delta=1e-5, direction="both")` once and judges the answer by what it claims (the flags of
`verialloc audit`, audit/flags.py) against verialloc's reference bracket [lower, upper] of the truth (F3 for
"both"; `assertions.reference`: the exact layer when it serves the query, else the certified PLD bracket F55):
* claim "upper" (default): UNSAFE if below the certified lower end (optimistic: less privacy loss than certified);
  with `max_loose=x`, LOOSE if above the certified upper end by more than x·|upper|;
* claim "lower": UNSAFE if above the certified upper end; LOOSE if below the lower end by more than x·|lower|;
* claim "estimate": OUTSIDE if outside [lower − x·|lower|, upper + x·|upper|], x = `tolerance` (default 0);
* any claim: BAD RETURN if fn returned no float (None, text, a bool, a tuple, an array, NaN; a delta outside
  [0, 1]), the message saying what it returned.
Soundness is `assert_sound_upper` / `assert_sound_lower` (their call convention and messages); `rtol` (default
1e-12, at most MAX_RTOL) widens every comparison for the float64 rounding of an exact answer. The reference is
refused (`cost.BudgetExceeded`, before it starts) when its estimated time exceeds `budget` (default
REFERENCE_BUDGET seconds). An exception raised by the accountant itself propagates unchanged, with its traceback.

The plugin loads into every pytest run where verialloc is installed, so at load time it imports only pytest and
mpmath (verialloc's own modules when a test asks); references are computed once per session and query.
"""

from __future__ import annotations

import functools
import math
import numbers

import mpmath as mp
import pytest

#: reference methods of `assertions.reference` (`--verialloc-method`, `method=`)
METHODS = ("auto", "exact", "pld")
CLAIMS = ("upper", "lower", "estimate")
#: largest rtol: it absorbs the float64 rounding of an answer; looseness is max_loose= / tolerance=
MAX_RTOL = 1e-6
#: default seconds the reference of one query may take (estimated before it starts)
REFERENCE_BUDGET = 60
#: keys of configuration files (certify/config_file.py) that are no Config fields: hinted at in a config dict
FILE_KEYS = ("sigma", "scale", "eps0", "pair")
_REFERENCES = pytest.StashKey[dict]()


def pytest_addoption(parser):
    parser.getgroup("verialloc").addoption(
        "--verialloc-method",
        choices=METHODS,
        default="auto",
        help="reference of the verialloc_check fixture: auto (exact layer when it serves the query, else the "
        "certified PLD bracket), exact or pld (default auto)",
    )


@pytest.fixture
def verialloc_check(request):
    """`check_accountant` with the session's reference cache and `--verialloc-method` as default method:
    verialloc_check(fn, config, *, epsilon=None, delta=None, claim="upper", direction="both", max_loose=None, ...)."""
    cache = request.config.stash.setdefault(_REFERENCES, {})
    method = request.config.getoption("verialloc_method")

    @functools.wraps(check_accountant)
    def check(fn, config, **options):
        __tracebackhide__ = True
        return check_accountant(fn, config, **{"method": method, **options}, references=cache)

    return check


def check_accountant(
    fn,
    config,
    *,
    epsilon=None,
    delta=None,
    claim: str = "upper",
    direction: str = "both",
    method: str = "auto",
    max_loose: float | None = None,
    tolerance: float | None = None,
    rtol: float = 1e-12,
    pld_settings=None,
    references: dict | None = None,
    budget=REFERENCE_BUDGET,
    **kwargs,
):
    """Check `fn`'s answer to one query against verialloc's reference (module docstring); returns the reference
    Bracket, raises AssertionError (UNSAFE / LOOSE / OUTSIDE, or BAD RETURN when fn returns no float: None, text,
    a bool, a tuple, an array, NaN, a delta outside [0, 1]) otherwise. Bad arguments (a non-callable fn, an
    unknown config key, ...) raise InvalidParameter naming the argument before fn runs.

    Pass exactly one of `epsilon` (fn returns δ(ε)) or `delta` (fn returns ε(δ)); fn is called once as
    fn(config, epsilon=… | delta=…, direction=…, **kwargs), `direction=` passed only when fn takes it (a parameter
    of that name or **kwargs; otherwise its answer is judged against `direction`); a keyword fn does not take is
    refused (InvalidParameter naming the signature needed) before fn runs. `config`: a `verialloc.Config` or a dict of its fields.
    `method`: "auto" | "exact" | "pld", or a precomputed reference Bracket (`golden_cases()[i].reference(direction)`,
    testing.golden); `pld_settings` refines the pld reference; `references`: a dict caching
    the references across calls (the fixture's lasts the session); `budget`: seconds the reference may take.
    """
    __tracebackhide__ = True
    from ..result import Bracket
    from . import assertions

    config, quantity, value, exact = _inputs(
        fn,
        config,
        epsilon,
        delta,
        claim,
        direction,
        method,
        max_loose,
        tolerance,
        rtol,
        pld_settings,
        references,
        budget,
    )
    given = "epsilon" if quantity == "delta" else "delta"
    raw = assertions.call_accountant(fn, config, given, value, direction, kwargs)
    claimed, returned = assertions.claim_of(raw, quantity)
    if returned is not None:
        raise AssertionError(
            f"verialloc BAD RETURN: {_name(fn)} {returned} for {quantity}({given}={value}) "
            f"[direction={direction}] for {assertions.describe(config)}; it "
            f"{assertions.expected_return(quantity)}"
        )
    if isinstance(method, Bracket):  # precomputed (a golden entry, testing.golden): nothing to compute or cache
        ref = method
    else:
        key = (config, quantity, exact, direction, method, pld_settings)  # exact: a 0-d array or "1e-5" is hashable
        cache = {} if references is None else references
        if key not in cache:
            cache[key] = assertions.reference(
                config,
                epsilon=epsilon,
                delta=delta,
                direction=direction,
                method=method,
                pld_settings=pld_settings,
                budget=budget,
            )
        ref = cache[key]
    kind = "an estimate" if claim == "estimate" else f"a{'n' * (claim == 'upper')} {claim} bound"
    query = (
        f"{_name(fn)} claimed {quantity}({given}={value}) = {_claim_text(raw)} as {kind} [direction={direction}] "
        f"for {assertions.describe(config)}"
    )
    if claim == "estimate":
        _judge_estimate(claimed, ref, tolerance or 0, rtol, query)
        return ref

    @functools.wraps(fn)
    def answered(*args, **kw):
        return raw

    sound = assertions.assert_sound_upper if claim == "upper" else assertions.assert_sound_lower
    try:
        # fn's own keywords stay with fn: an atol= or digits= of fn's is no setting of the soundness check
        sound(answered, config, epsilon=epsilon, delta=delta, direction=direction, rtol=rtol, method=ref)
    except AssertionError as err:
        harm = (
            "optimistic: less privacy loss than certified"
            if claim == "upper"
            else "overstated: a lower end above the certified upper end"
        )
        raise AssertionError(f"verialloc UNSAFE ({harm}): {err}") from None
    if max_loose is not None:
        _judge_looseness(claimed, ref, claim, max_loose, query)
    return ref


def _claim_text(raw) -> str:
    """A returned number as its value reads (numpy's np.float64(0.16) as 0.16), anything else as its repr, cut."""
    from ..validation import abbreviated

    if isinstance(raw, numbers.Real) and not isinstance(raw, (bool, numbers.Integral)):
        return abbreviated(str(raw), 80)
    return abbreviated(raw, 80)


def _finite_non_negative(x) -> bool:
    """A real number (int, float, Fraction, numpy) >= 0 whose float64 value is finite; not a bool."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return False
    try:
        return math.isfinite(float(x)) and x >= 0
    except OverflowError:  # an int beyond float64
        return False


def _inputs(
    fn, config, epsilon, delta, claim, direction, method, max_loose, tolerance, rtol, pld_settings, references, budget
):
    """(Config, quantity, value, its exact Fraction) after checking the arguments, before the accountant runs:
    InvalidParameter naming the argument and what is valid."""
    from ..cost import Budget
    from ..errors import InvalidParameter
    from ..numeric.pld.pld_accountant import Settings
    from ..validation import abbreviated, direction as check_direction, open_unit, real
    from .assertions import accountant_of, quantity_of

    accountant_of(fn)
    config = _config(config)
    quantity, value = quantity_of(epsilon, delta)
    exact = real("epsilon", epsilon) if quantity == "delta" else open_unit("delta", delta)
    check_direction(direction)
    from ..result import Bracket

    if not isinstance(claim, str) or claim not in CLAIMS:
        raise InvalidParameter("claim", abbreviated(claim), "must be one of " + ", ".join(CLAIMS))
    if not isinstance(method, Bracket) and (not isinstance(method, str) or method not in METHODS):
        raise InvalidParameter(
            "method", abbreviated(method), "must be one of " + ", ".join(METHODS) + " or a precomputed Bracket"
        )
    if isinstance(method, Bracket) and (method.quantity != quantity or method.direction != direction):
        raise InvalidParameter(
            "method",
            f"a Bracket of {method.quantity} [direction={method.direction}]",
            f"a precomputed reference must be of {quantity} [direction={direction}] (GoldenCase.reference(direction))",
        )
    for name, x in (("max_loose", max_loose), ("tolerance", tolerance), ("rtol", rtol)):
        if x is not None and not _finite_non_negative(x):
            raise InvalidParameter(name, abbreviated(x), "must be a finite number >= 0")
    if rtol is None or rtol > MAX_RTOL:
        raise InvalidParameter(
            "rtol",
            abbreviated(rtol),
            f"must lie in [0, {MAX_RTOL:g}]: it absorbs the float64 "
            "rounding of an answer; looseness is max_loose= / tolerance=",
        )
    Budget.of(budget)
    if max_loose is not None and claim == "estimate":
        raise InvalidParameter(
            "max_loose", max_loose, "applies to upper and lower claims; an estimate takes tolerance="
        )
    if tolerance is not None and claim != "estimate":
        raise InvalidParameter("tolerance", tolerance, "applies to estimates; an upper or lower claim takes max_loose=")
    if pld_settings is not None and not isinstance(pld_settings, Settings):
        raise InvalidParameter(
            "pld_settings", abbreviated(pld_settings), "must be a verialloc.numeric.pld.pld_accountant.Settings or None"
        )
    if references is not None and not isinstance(references, dict):
        raise InvalidParameter("references", abbreviated(references), "must be a dict (the reference cache) or None")
    return config, quantity, value, exact


def _config(config):
    """A Config, or one built from a dict of its fields; InvalidParameter naming an unknown or missing key."""
    import dataclasses
    from collections.abc import Mapping

    from ..config import Config
    from ..errors import InvalidParameter
    from ..validation import abbreviated

    if isinstance(config, Config):
        return config
    if not isinstance(config, Mapping):
        raise InvalidParameter("config", abbreviated(config), "must be a verialloc.Config or a dict of its fields")
    fields = tuple(f.name for f in dataclasses.fields(Config))
    takes = "a config dict takes the fields of verialloc.Config: " + ", ".join(fields)
    for key, value in config.items():
        if key not in fields:
            hint = (
                f"{key} is a key of configuration files (--config); in Python the mechanism is an object, "
                "mechanism=Gaussian(sigma) | Laplace(scale) | RandomizedResponse(eps0) | DiscretePair(p, q); "
                if key in FILE_KEYS
                else ""
            )
            raise InvalidParameter(str(key), abbreviated(value), f"not a field of verialloc.Config: {hint}{takes}")
    if "mechanism" not in config:
        raise InvalidParameter(
            "mechanism", "(missing)", f"a config dict needs mechanism=Gaussian(sigma), Laplace(scale), ...; {takes}"
        )
    return Config(**config)


def _judge_looseness(claimed, ref, claim, max_loose, query):
    __tracebackhide__ = True
    end = ref.upper if claim == "upper" else ref.lower
    if not mp.isfinite(end):
        return
    with mp.workdps(40):
        gap = claimed - end if claim == "upper" else end - claimed
        if gap <= max_loose * abs(end):
            return
        side = "above the certified upper" if claim == "upper" else "below the certified lower"
        raise AssertionError(
            f"verialloc LOOSE: {query}, {_percent(gap, end)} {side} end {mp.nstr(end, 12)} "
            f"(max_loose={max_loose}); {_bracket(ref)}"
        )


def _judge_estimate(claimed, ref, tolerance, rtol, query):
    __tracebackhide__ = True
    with mp.workdps(40):
        if claimed is not None:
            low, high = _widen(ref.lower, -tolerance - rtol), _widen(ref.upper, tolerance + rtol)
            if low <= claimed <= high:
                return
            where = (
                f"{_percent(ref.lower - claimed, ref.lower)} below the certified lower end"
                if claimed < low
                else f"{_percent(claimed - ref.upper, ref.upper)} above the certified upper end"
            )
        else:
            where = "not a number"
        raise AssertionError(f"verialloc OUTSIDE: {query}: {where} (tolerance={tolerance}); {_bracket(ref)}")


def _widen(end, by):
    """end + by·|end| (an infinite end stays as it is)."""
    return end + by * abs(end) if mp.isfinite(end) else end


def _percent(part, whole) -> str:
    return "inf%" if whole == 0 else f"{mp.nstr(100 * part / abs(whole), 3)}%"


def _bracket(ref) -> str:
    return (
        f"verialloc's reference (method '{ref.method}', error_kind '{ref.error_kind}') is {ref.quantity} ∈ "
        f"[{mp.nstr(ref.lower, 12)}, {mp.nstr(ref.upper, 12)}]"
    )


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)
