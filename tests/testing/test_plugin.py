"""The pytest plugin (verialloc.testing.plugin): end to end with pytester, against closed forms computed here
independently of verialloc — one Gaussian step (Balle–Wang) and composed randomized response (binomial sum)."""

import math
import re
from decimal import Decimal
from fractions import Fraction
from importlib.metadata import entry_points
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from verialloc import Config, Gaussian, InvalidParameter, RandomizedResponse, api
from verialloc.testing import check_accountant

pytest_plugins = ["pytester"]


def gaussian_delta(eps, sigma):
    """δ(ε) of one Gaussian step, sensitivity 1 (both directions): Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)."""
    return mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.exp(eps) * mp.ncdf(-1 / (2 * sigma) - eps * sigma)


def rr_delta(eps, eps0, epochs):
    """δ(ε) of `epochs` randomized-response steps (both directions): Σ_j C(E, j)[p^j q^{E−j} − e^ε q^j p^{E−j}]_+."""
    p = mp.exp(eps0) / (1 + mp.exp(eps0))
    q = 1 - p
    return mp.fsum(
        max(0, mp.binomial(epochs, j) * (p**j * q ** (epochs - j) - mp.exp(eps) * q**j * p ** (epochs - j)))
        for j in range(epochs + 1)
    )


def inverse(delta_of, target):
    """ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ target} by bisection (δ decreasing in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(50)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_of(mid) > target else (lo, mid)
    return hi


with mp.workdps(40):
    GAUSS_EPS = float(inverse(lambda e: gaussian_delta(e, 1), mp.mpf("1e-5")))  # σ = 1, δ = 1e-5: ≈ 4.3772
    RR_DELTA = float(rr_delta(mp.mpf(1) / 2, 1, 3))  # ε0 = 1, E = 3, ε = 1/2: ≈ 0.5283
    RR_EPS = float(inverse(lambda e: rr_delta(e, 1, 3), mp.mpf(1) / 10))  # ε0 = 1, E = 3, δ = 0.1


SUITE = f"""
import math
from verialloc import Config, Gaussian, RandomizedResponse

GAUSS = Config(Gaussian(1))
RR = Config(RandomizedResponse(1), epochs=3)


def scaled(factor, truth):
    def accountant(config, direction, **query):
        return factor * truth
    accountant.__qualname__ = f"times_{{factor}}"
    return accountant


def test_sound_upper(verialloc_check):
    verialloc_check(scaled(1, {GAUSS_EPS!r}), GAUSS, delta=1e-5)

def test_optimistic_upper(verialloc_check):
    verialloc_check(scaled(0.9, {GAUSS_EPS!r}), GAUSS, delta=1e-5)

def test_loose_upper_without_max_loose(verialloc_check):
    verialloc_check(scaled(1.2, {GAUSS_EPS!r}), GAUSS, delta=1e-5)

def test_loose_upper_within_max_loose(verialloc_check):
    verialloc_check(scaled(1.2, {GAUSS_EPS!r}), GAUSS, delta=1e-5, max_loose=0.25)

def test_loose_upper_beyond_max_loose(verialloc_check):
    verialloc_check(scaled(1.2, {GAUSS_EPS!r}), GAUSS, delta=1e-5, max_loose=0.1)

def test_config_as_a_dict(verialloc_check):
    verialloc_check(scaled(1, {GAUSS_EPS!r}), dict(mechanism=Gaussian(1), steps=1), delta=1e-5)

def test_sound_lower(verialloc_check):
    verialloc_check(scaled(0.9, {RR_DELTA!r}), RR, epsilon=0.5, claim="lower")

def test_overstated_lower(verialloc_check):
    verialloc_check(scaled(1.1, {RR_DELTA!r}), RR, epsilon=0.5, claim="lower")

def test_loose_lower(verialloc_check):
    verialloc_check(scaled(0.5, {RR_DELTA!r}), RR, epsilon=0.5, claim="lower", max_loose=0.2)

def test_estimate_inside_tolerance(verialloc_check):
    verialloc_check(scaled(1.001, {RR_DELTA!r}), RR, epsilon=0.5, claim="estimate", tolerance=0.01)

def test_estimate_outside(verialloc_check):
    verialloc_check(scaled(1.001, {RR_DELTA!r}), RR, epsilon=0.5, claim="estimate")

def test_nan_estimate(verialloc_check):
    verialloc_check(scaled(math.nan, 1), RR, epsilon=0.5, claim="estimate")

def test_extra_keywords_reach_the_accountant(verialloc_check):
    def shifted(config, delta, direction, shift):
        return {GAUSS_EPS!r} + shift
    verialloc_check(shifted, GAUSS, delta=1e-5, shift=0.5, max_loose=0.1)
"""


def _failures(result) -> dict:
    """{test name: its failure text} of a pytester run."""
    reports = result.reprec.getreports("pytest_runtest_logreport")
    return {r.nodeid.split("::")[-1]: r.longreprtext for r in reports if r.failed}


def test_the_entry_point_registers_the_plugin(pytestconfig):
    assert [e.value for e in entry_points(group="pytest11") if e.name == "verialloc"] == ["verialloc.testing.plugin"]
    assert pytestconfig.pluginmanager.has_plugin("verialloc")


def test_the_closed_forms_are_the_documented_values():
    assert (round(GAUSS_EPS, 4), round(RR_DELTA, 4)) == (4.3772, 0.5283)


def test_verialloc_check_end_to_end(pytester):
    pytester.makepyfile(test_plugin_suite_accountants=SUITE)  # names unique in the suite: pytester runs in process
    result = pytester.runpytest("-p", "no:cacheprovider")
    failed = _failures(result)
    assert sorted(failed) == [
        "test_estimate_outside",
        "test_extra_keywords_reach_the_accountant",
        "test_loose_lower",
        "test_loose_upper_beyond_max_loose",
        "test_nan_estimate",
        "test_optimistic_upper",
        "test_overstated_lower",
    ]
    result.assert_outcomes(passed=6, failed=7)
    unsafe = failed["test_optimistic_upper"]
    assert "verialloc UNSAFE (optimistic" in unsafe and "times_0.9 claimed epsilon(delta=1e-05) = " in unsafe
    assert f"{0.9 * GAUSS_EPS:.6f}"[:7] in unsafe and "gaussian(sigma=1) scheme=allocation, steps=1" in unsafe
    assert f"[{GAUSS_EPS:.9f}"[:10] in unsafe  # the bracket starts at the truth
    assert "verialloc LOOSE" in failed["test_loose_upper_beyond_max_loose"]
    assert "20.0% above the certified upper end" in failed["test_loose_upper_beyond_max_loose"]
    assert "verialloc UNSAFE (overstated" in failed["test_overstated_lower"]
    assert f"{RR_DELTA:.9f}"[:10] in failed["test_overstated_lower"]
    assert "50.0% below the certified lower end" in failed["test_loose_lower"]
    outside = failed["test_estimate_outside"]
    assert "verialloc OUTSIDE" in outside and "as an estimate" in outside
    assert "0.1% above the certified upper end" in outside
    assert "verialloc BAD RETURN: times_nan returned nan for delta(epsilon=0.5)" in failed["test_nan_estimate"]
    assert f"{0.5 / GAUSS_EPS * 100:.3g}% above" in failed["test_extra_keywords_reach_the_accountant"]


def test_method_option_chooses_the_pld_reference(pytester):
    pytester.makepyfile(
        test_plugin_suite_method=f"""
from verialloc import Config, RandomizedResponse

RR = Config(RandomizedResponse(1), epochs=3)

def test_sound(verialloc_check):
    assert verialloc_check(lambda config, delta, direction: {RR_EPS!r}, RR, delta=0.1).method == "pld"

def test_optimistic(verialloc_check):
    verialloc_check(lambda config, delta, direction: 0.9 * {RR_EPS!r}, RR, delta=0.1)

def test_a_call_overrides_the_option(verialloc_check):
    assert verialloc_check(lambda config, delta, direction: {RR_EPS!r}, RR, delta=0.1, method="exact").method == "exact"
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--verialloc-method", "pld")
    result.assert_outcomes(passed=2, failed=1)
    assert "method 'pld', error_kind 'bound'" in _failures(result)["test_optimistic"]


def test_the_option_is_in_the_help(pytester):
    pytester.runpytest("--help").stdout.fnmatch_lines(["*--verialloc-method*"])


@pytest.mark.parametrize(
    "options, named, valid",
    [
        (dict(delta=1e-5, claim="upperr"), "claim", "must be one of upper, lower, estimate"),
        (dict(delta=1e-5, claim=["upper"]), "claim", "must be one of upper, lower, estimate"),
        (dict(delta=1e-5, method="best"), "method", "must be one of auto, exact, pld"),
        (dict(delta=1e-5, max_loose=-0.1), "max_loose", "must be a finite number >= 0"),
        (dict(delta=1e-5, max_loose=True), "max_loose", "must be a finite number >= 0"),
        (dict(delta=1e-5, max_loose="0.1"), "max_loose", "must be a finite number >= 0"),
        (dict(delta=1e-5, claim="estimate", tolerance=math.nan), "tolerance", "must be a finite number >= 0"),
        (dict(delta=1e-5, claim="estimate", max_loose=0.1), "max_loose", "an estimate takes tolerance="),
        (dict(delta=1e-5, tolerance=0.1), "tolerance", "an upper or lower claim takes max_loose="),
        (dict(delta=1e-5, rtol=-1e-12), "rtol", "must be a finite number >= 0"),
        (dict(delta=1e-5, rtol=None), "rtol", "must lie in [0, 1e-06]"),
        (dict(delta=1e-5, rtol=10), "rtol", "must lie in [0, 1e-06]"),  # rtol=10 passed 0.1 against a certified 4.377
        (dict(delta=1e-5, budget=0), "budget", "seconds > 0"),
        (dict(delta=1e-5, pld_settings={"loss_step": 1e-3}), "pld_settings", "Settings or None"),
        (dict(delta=1e-5, references=[]), "references", "must be a dict"),
        (dict(delta=1e-5, epsilon=1), "epsilon", "pass exactly one of epsilon="),
        (dict(), "epsilon", "pass exactly one of epsilon="),
        (dict(delta=1e-5, direction="sideways"), "direction", "must be one of remove|add|both"),
        (dict(delta="0.2.1"), "delta", "finite real number"),
        (dict(delta=None, epsilon=math.nan), "epsilon", "finite real number"),
        (dict(delta=0), "delta", "open interval (0, 1)"),
        (dict(delta=True), "delta", "finite real number"),
    ],
)
def test_bad_arguments_fail_before_the_accountant_runs(options, named, valid):
    """InvalidParameter naming the argument (a ValueError; TypeError/ValueError without the name before, a raw
    TypeError from inside the accountant or the cache for some)."""

    def accountant(*args, **kwargs):
        raise AssertionError("called")

    with pytest.raises(InvalidParameter) as info:
        check_accountant(accountant, Config(Gaussian(1)), **options)
    assert info.value.name == named and str(info.value).startswith(f"{named}=") and valid in str(info.value)


def test_neither_or_both_queries_is_still_a_type_error_too():
    """Python raises TypeError for a call's conflicting arguments, and so did this: both still catch it."""
    with pytest.raises(TypeError, match="pass exactly one of epsilon="):
        check_accountant(lambda *a, **k: 1.0, Config(Gaussian(1)))


@pytest.mark.parametrize("fn", [5, None, "my_accountant", 4.38])
def test_a_non_callable_accountant_is_refused(fn):
    """verialloc_check(5, ...) raised TypeError: 'int' object is not callable."""
    with pytest.raises(InvalidParameter, match=r"^fn=.* is invalid: must be a callable accountant") as info:
        check_accountant(fn, Config(Gaussian(1)), delta=1e-5)
    assert info.value.name == "fn"


@pytest.mark.parametrize("config", ["gaussian", None, 1.0, [Gaussian(1)]])
def test_a_config_that_is_neither_config_nor_dict_is_refused(config):
    with pytest.raises(InvalidParameter, match="must be a verialloc.Config or a dict of its fields") as info:
        check_accountant(lambda *a, **k: 1.0, config, delta=1e-5)
    assert info.value.name == "config"


@pytest.mark.parametrize(
    "config, named, valid",
    [
        (dict(sigma=1, steps=1), "sigma", "sigma is a key of configuration files"),
        (dict(mechanism=Gaussian(1), sigma=1), "sigma", "mechanism=Gaussian(sigma)"),
        (dict(mechanism=Gaussian(1), eps0=1), "eps0", "RandomizedResponse(eps0)"),
        (dict(mechanism=Gaussian(1), step=3), "step", "not a field of verialloc.Config"),
        (dict(mechanism=Gaussian(1), epsilon=1), "epsilon", "mechanism, scheme, steps, k, epochs, rate"),
        ({1: 2, "mechanism": Gaussian(1)}, "1", "not a field of verialloc.Config"),
        (dict(steps=1), "mechanism", "a config dict needs mechanism="),
        (dict(mechanism="gaussian", steps=1), "mechanism", "must be a verialloc mechanism"),
        (dict(mechanism=Gaussian(1), steps=0), "steps", "integer >= 1"),
        (dict(mechanism=Gaussian(1), scheme="allocation", rate=0.5), "rate", "applies only to scheme=poisson"),
    ],
)
def test_a_config_dict_with_a_wrong_key_names_it(config, named, valid):
    """Config(**dict) raised TypeError: __init__() got an unexpected keyword argument 'sigma' (or missing 1 required
    positional argument: 'mechanism', or keywords must be strings); the accountant never runs."""

    def accountant(*args, **kwargs):
        raise AssertionError("called")

    with pytest.raises(InvalidParameter) as info:
        check_accountant(accountant, config, delta=1e-5)
    assert info.value.name == named and valid in str(info.value)
    if named != "mechanism" and "Config" in valid:
        assert "mechanism, scheme, steps, k, epochs, rate" in str(info.value)  # lists the valid keys


GAUSS_CONFIG = Config(Gaussian(1))


@pytest.mark.parametrize(
    "returned, shown",
    [
        (None, "returned None"),
        ("0.2", "returned the str '0.2'"),
        ((0.1, 0.2), "returned the tuple (0.1, 0.2)"),
        ([4.4], "returned the list [4.4]"),
        (np.array([4.4]), "returned a numpy array of shape (1,)"),
        (np.array(4.4), "returned a numpy array of shape ()"),
        (True, "returned the bool True"),
        (np.bool_(False), "returned the bool False"),
        (math.nan, "returned nan"),
        (object(), "returned the object"),
    ],
)
@pytest.mark.parametrize("claim", ["upper", "lower", "estimate"])
def test_a_return_that_is_no_float_says_what_was_returned(returned, shown, claim):
    """The message said "NaN or not a number" for None or a string; now what fn returned, and what it must."""
    with pytest.raises(AssertionError) as info:
        check_accountant(lambda config, delta, direction: returned, GAUSS_CONFIG, delta=1e-5, claim=claim)
    message = str(info.value)
    assert message.startswith("verialloc BAD RETURN: ") and shown in message and "NaN" not in message
    assert "for epsilon(delta=1e-05) [direction=both] for gaussian(sigma=1)" in message
    assert message.endswith("must return a float: epsilon(delta), a real number or +-inf")


@pytest.mark.parametrize("returned", [math.inf, -math.inf, -0.1, 1.5, 1 + 2**-52])
def test_a_delta_outside_zero_one_is_a_bad_return(returned):
    """δ = inf passed as a (vacuous) upper bound before."""
    with pytest.raises(
        AssertionError,
        match=r"BAD RETURN: .* returned .* must return a float: delta\(epsilon\) in "
        r"\[0, 1\]",
    ):
        check_accountant(lambda config, epsilon, direction: returned, GAUSS_CONFIG, epsilon=0.5)


@pytest.mark.parametrize(
    "returned",
    [
        GAUSS_EPS,
        Fraction(GAUSS_EPS),
        Decimal(repr(GAUSS_EPS)),
        np.float64(GAUSS_EPS),
        mp.mpf(GAUSS_EPS),
        np.float32(GAUSS_EPS) * 1.001,
        np.int64(5),
        5,
    ],
)
def test_numbers_of_every_kind_are_claims(returned):
    """Fraction, Decimal, numpy float32/int64 were read as "NaN or not a number" before."""
    check_accountant(lambda config, delta, direction: returned, GAUSS_CONFIG, delta=1e-5, rtol=1e-9)


def test_infinite_and_negative_epsilons_are_judged_as_claims():
    """ε(δ) may be +inf (a valid, vacuous upper bound; LOOSE under max_loose); a negative or -inf ε is a claim the
    reference judges (UNSAFE as an upper bound here, a valid if vacuous lower bound)."""
    check_accountant(lambda config, delta, direction: math.inf, GAUSS_CONFIG, delta=1e-5)
    with pytest.raises(AssertionError, match="verialloc LOOSE: .* = inf as an upper bound"):
        check_accountant(lambda config, delta, direction: math.inf, GAUSS_CONFIG, delta=1e-5, max_loose=0.1)
    for eps in (-1.0, -math.inf):
        with pytest.raises(AssertionError, match=r"verialloc UNSAFE \(optimistic.*claimed epsilon\(delta=1e-05\) = "):
            check_accountant(lambda config, delta, direction: eps, GAUSS_CONFIG, delta=1e-5)
        check_accountant(lambda config, delta, direction: eps, GAUSS_CONFIG, delta=1e-5, claim="lower")
    with pytest.raises(AssertionError, match="verialloc OUTSIDE"):
        check_accountant(lambda config, delta, direction: -1.0, GAUSS_CONFIG, delta=1e-5, claim="estimate")


def test_a_query_value_of_any_number_type_shares_one_cached_reference():
    """A 0-d numpy array as epsilon raised TypeError: unhashable type (the cache key); equal values share a key."""
    cache = {}
    for eps in (np.array(0.5), 0.5, "1/2", Fraction(1, 2)):
        check_accountant(
            lambda config, epsilon, direction: RR_DELTA,
            Config(RandomizedResponse(1), epochs=3),
            epsilon=eps,
            references=cache,
        )
    assert len(cache) == 1


def test_the_accountants_keywords_are_no_settings_of_the_check():
    """fn's own atol= went to assert_sound_upper too, widening its slack: an optimistic claim passed."""

    def accountant(config, delta, direction, atol):
        return 0.5 * GAUSS_EPS

    with pytest.raises(AssertionError, match="verialloc UNSAFE"):
        check_accountant(accountant, GAUSS_CONFIG, delta=1e-5, atol=10.0)


def test_the_fixture_reports_bad_arguments_and_returns(pytester):
    """End to end: what a user of the fixture sees for the hostile review's inputs."""
    pytester.makepyfile(
        test_plugin_suite_bad_inputs="""
import numpy as np
from verialloc import Config, Gaussian

GAUSS = Config(Gaussian(1))

def test_not_callable(verialloc_check):
    verialloc_check(5, GAUSS, delta=1e-5)

def test_wrong_config_key(verialloc_check):
    verialloc_check(lambda config, delta, direction: 4.4, dict(sigma=1, steps=1), delta=1e-5)

def test_returns_none(verialloc_check):
    verialloc_check(lambda config, delta, direction: None, GAUSS, delta=1e-5)

def test_returns_text(verialloc_check):
    verialloc_check(lambda config, delta, direction: "0.2", GAUSS, delta=1e-5)

def test_returns_an_array(verialloc_check):
    verialloc_check(lambda config, delta, direction: np.array([4.4, 4.5]), GAUSS, delta=1e-5)

def test_returns_infinite_delta(verialloc_check):
    verialloc_check(lambda config, epsilon, direction: float("inf"), GAUSS, epsilon=0.5)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=6)
    failed = _failures(result)
    assert "InvalidParameter: fn=5 is invalid: must be a callable accountant" in failed["test_not_callable"]
    assert "InvalidParameter: sigma=1 is invalid: not a field of verialloc.Config" in failed["test_wrong_config_key"]
    assert "returned None for epsilon(delta=1e-05)" in failed["test_returns_none"]
    assert "returned the str '0.2' for epsilon(delta=1e-05)" in failed["test_returns_text"]
    assert "returned a numpy array of shape (2,) ([4.4, 4.5])" in failed["test_returns_an_array"]
    assert "returned inf for delta(epsilon=0.5)" in failed["test_returns_infinite_delta"]
    for text in failed.values():
        assert "TypeError" not in text and "NaN" not in text


def test_references_are_computed_once_per_query(monkeypatch):
    calls = []

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return computed(*args, **kwargs)

    computed = api.delta
    monkeypatch.setattr(api, "delta", counted)
    cache, config = {}, Config(RandomizedResponse(1), epochs=3)
    for claim in ("upper", "estimate"):
        check_accountant(
            lambda config, epsilon, direction: RR_DELTA, config, epsilon=0.5, claim=claim, references=cache
        )
    check_accountant(
        lambda config, epsilon, direction: RR_DELTA, config, epsilon=0.5, direction="remove", references=cache
    )
    assert [c["direction"] for c in calls] == ["both", "remove"]


def _readme_fixture_example() -> str:
    """The README's python block that uses the fixture (the README's doctests skip blocks without prompts)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "verialloc_check" in b]
    return block


@pytest.mark.parametrize("factor, outcome", [(1, "passed"), (0.9, "failed")])
def test_the_readme_fixture_example_runs(pytester, factor, outcome):
    """The README example as written, with `my_epsilon` the certified upper end (passes: sound, within 5 %) or 0.9
    times it (fails: below the certified lower end, the bracket being ~0.2 % wide)."""
    truth = float(api.epsilon(Config(Gaussian(1), steps=1000), "1e-5", method="pld").upper)
    pytester.makepyfile(
        f"def my_epsilon(config, delta, direction):\n    return {factor * truth!r}\n\n" + _readme_fixture_example()
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(**{outcome: 1})


def test_assert_sound_names_bad_arguments_and_returns():
    """The checks under the fixture: a non-callable fn or a dict config raised TypeError / AttributeError, neither
    epsilon nor delta a bare TypeError; a None or "0.1" claim read "NaN or not a number" alone."""
    from verialloc.testing import assert_sound_lower, assert_sound_upper

    rr = Config(RandomizedResponse(1), epochs=3)
    with pytest.raises(InvalidParameter, match="^fn=5 is invalid"):
        assert_sound_upper(5, rr, epsilon=0.5)
    with pytest.raises(InvalidParameter, match="^config=.* must be a verialloc.Config"):
        assert_sound_upper(lambda c, **k: 0.6, dict(mechanism=RandomizedResponse(1)), epsilon=0.5)
    with pytest.raises(InvalidParameter, match="^epsilon=None, delta=None is invalid: pass exactly one") as info:
        assert_sound_lower(lambda c, **k: 0.6, rr)
    assert isinstance(info.value, TypeError)
    with pytest.raises(AssertionError, match=r"returned None for delta\(epsilon=0.5\).*must return a float"):
        assert_sound_upper(lambda c, **k: None, rr, epsilon=0.5)
    with pytest.raises(AssertionError, match=r"returned the str '0.1' for epsilon\(delta=0.1\)"):
        assert_sound_lower(lambda c, **k: "0.1", rr, delta=0.1)
    with pytest.raises(AssertionError, match=r"returned 1.5 for delta\(epsilon=0.5\).*delta\(epsilon\) in \[0, 1\]"):
        assert_sound_upper(lambda c, **k: 1.5, rr, epsilon=0.5)


def test_a_reference_beyond_the_budget_is_refused_before_it_starts():
    """The exact ε search at Gaussian t = 3 is estimated at minutes: with budget=1 it is refused at once (the
    fixture had no bound on the reference's time)."""
    from verialloc.cost import BudgetExceeded

    with pytest.raises(BudgetExceeded, match="budget"):
        check_accountant(
            lambda config, delta, direction: 1.0, Config(Gaussian(1), steps=3), delta=1e-5, method="exact", budget=1
        )


def test_huge_and_rational_values_are_judged_not_crashed():
    """An ε of 10**5000 is a (useless) valid upper bound: it passes; a δ of −1/10**400 is a BAD RETURN shown cut;
    max_loose as a Fraction is a number; these raised ValueError/OverflowError or were refused (#14)."""
    config = Config(Gaussian(1))
    check_accountant(lambda config, delta, direction: 10**5000, config, delta=1e-5)
    with pytest.raises(AssertionError, match=r"BAD RETURN: .* returned Fraction\(-1, 1000.*characters"):
        check_accountant(lambda config, epsilon, direction: -Fraction(1, 10**400), config, epsilon=1)
    check_accountant(lambda config, delta, direction: 4.5, config, delta=1e-5, max_loose=Fraction(1, 10))
    with pytest.raises(InvalidParameter, match="max_loose"):
        check_accountant(lambda config, delta, direction: 4.5, config, delta=1e-5, max_loose=10**400)


def test_an_accountant_without_direction_is_called_without_it():
    """Issue #30 item 7: `direction=` is passed only to an accountant that takes it (named, or **kwargs)."""
    seen = []

    def no_direction(config, delta):
        seen.append("called")
        return GAUSS_EPS * (1 + 1e-9)

    ref = check_accountant(no_direction, Config(Gaussian(1)), delta=1e-5)
    assert seen == ["called"] and ref.lower <= GAUSS_EPS * (1 + 1e-9)

    def keyword_only(config, *, delta, direction):
        seen.append(direction)
        return GAUSS_EPS * (1 + 1e-9)

    check_accountant(keyword_only, Config(Gaussian(1)), delta=1e-5, direction="remove")
    assert seen[-1] == "remove"


def test_an_accountant_missing_the_query_keyword_is_refused_naming_the_signature():
    def positional_only(config, target, /):
        return 1.0

    with pytest.raises(InvalidParameter, match=r"takes no keyword delta.*fn\(config, delta=\.\.\., direction=\.\.\."):
        check_accountant(positional_only, Config(Gaussian(1)), delta=1e-5)


def test_assert_sound_upper_calls_an_accountant_without_direction():
    from verialloc.testing import assert_sound_upper

    assert_sound_upper(lambda config, delta: GAUSS_EPS * (1 + 1e-9), Config(Gaussian(1)), delta=1e-5)


def test_loose_message_shows_numpy_numbers_as_numbers():
    """Issue #30 item 8: no np.float64(...) in the LOOSE message."""
    with pytest.raises(AssertionError) as info:
        check_accountant(
            lambda config, delta, direction: np.float64(GAUSS_EPS * 1.2),
            Config(Gaussian(1)),
            delta=1e-5,
            max_loose=np.float64(0.05),
        )
    assert "verialloc LOOSE" in str(info.value) and "np.float64" not in str(info.value)
