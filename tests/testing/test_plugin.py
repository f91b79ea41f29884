"""The pytest plugin (verialloc.testing.plugin): end to end with pytester, against closed forms computed here
independently of verialloc — one Gaussian step (Balle–Wang) and composed randomized response (binomial sum)."""
import math
import re
from importlib.metadata import entry_points
from pathlib import Path

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.testing import check_accountant

pytest_plugins = ["pytester"]


def gaussian_delta(eps, sigma):
    """δ(ε) of one Gaussian step, sensitivity 1 (both directions): Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)."""
    return mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.exp(eps) * mp.ncdf(-1 / (2 * sigma) - eps * sigma)


def rr_delta(eps, eps0, epochs):
    """δ(ε) of `epochs` randomized-response steps (both directions): Σ_j C(E, j)[p^j q^{E−j} − e^ε q^j p^{E−j}]_+."""
    p = mp.exp(eps0) / (1 + mp.exp(eps0))
    q = 1 - p
    return mp.fsum(max(0, mp.binomial(epochs, j) * (p**j * q**(epochs - j) - mp.exp(eps) * q**j * p**(epochs - j)))
                   for j in range(epochs + 1))


def inverse(delta_of, target):
    """ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ target} by bisection (δ decreasing in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(50)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_of(mid) > target else (lo, mid)
    return hi


with mp.workdps(40):
    GAUSS_EPS = float(inverse(lambda e: gaussian_delta(e, 1), mp.mpf("1e-5")))  # σ = 1, δ = 1e-5: ≈ 4.3772
    RR_DELTA = float(rr_delta(mp.mpf(1) / 2, 1, 3))                              # ε0 = 1, E = 3, ε = 1/2: ≈ 0.5283
    RR_EPS = float(inverse(lambda e: rr_delta(e, 1, 3), mp.mpf(1) / 10))         # ε0 = 1, E = 3, δ = 0.1


SUITE = f'''
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
'''


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
    assert sorted(failed) == ["test_estimate_outside", "test_extra_keywords_reach_the_accountant",
                              "test_loose_lower", "test_loose_upper_beyond_max_loose", "test_nan_estimate",
                              "test_optimistic_upper", "test_overstated_lower"]
    result.assert_outcomes(passed=6, failed=7)
    unsafe = failed["test_optimistic_upper"]
    assert "verialloc UNSAFE (optimistic" in unsafe and "times_0.9 claimed epsilon(delta=1e-05) = " in unsafe
    assert f"{0.9 * GAUSS_EPS:.6f}"[:7] in unsafe and "gaussian(sigma=1) scheme=allocation, steps=1" in unsafe
    assert f"[{GAUSS_EPS:.9f}"[:10] in unsafe        # the bracket starts at the truth
    assert "verialloc LOOSE" in failed["test_loose_upper_beyond_max_loose"]
    assert "20.0% above the certified upper end" in failed["test_loose_upper_beyond_max_loose"]
    assert "verialloc UNSAFE (overstated" in failed["test_overstated_lower"]
    assert f"{RR_DELTA:.9f}"[:10] in failed["test_overstated_lower"]
    assert "50.0% below the certified lower end" in failed["test_loose_lower"]
    outside = failed["test_estimate_outside"]
    assert "verialloc OUTSIDE" in outside and "as an estimate" in outside
    assert "0.1% above the certified upper end" in outside
    assert "not a number" in failed["test_nan_estimate"]
    assert f"{0.5 / GAUSS_EPS * 100:.3g}% above" in failed["test_extra_keywords_reach_the_accountant"]


def test_method_option_chooses_the_pld_reference(pytester):
    pytester.makepyfile(test_plugin_suite_method=f'''
from verialloc import Config, RandomizedResponse

RR = Config(RandomizedResponse(1), epochs=3)

def test_sound(verialloc_check):
    assert verialloc_check(lambda config, delta, direction: {RR_EPS!r}, RR, delta=0.1).method == "pld"

def test_optimistic(verialloc_check):
    verialloc_check(lambda config, delta, direction: 0.9 * {RR_EPS!r}, RR, delta=0.1)

def test_a_call_overrides_the_option(verialloc_check):
    assert verialloc_check(lambda config, delta, direction: {RR_EPS!r}, RR, delta=0.1, method="exact").method == "exact"
''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--verialloc-method", "pld")
    result.assert_outcomes(passed=2, failed=1)
    assert "method 'pld', error_kind 'bound'" in _failures(result)["test_optimistic"]


def test_the_option_is_in_the_help(pytester):
    pytester.runpytest("--help").stdout.fnmatch_lines(["*--verialloc-method*"])


@pytest.mark.parametrize("options, error, match", [
    (dict(delta=1e-5, claim="upperr"), ValueError, "claim must be one of upper, lower, estimate"),
    (dict(delta=1e-5, method="best"), ValueError, "method must be one of auto, exact, pld"),
    (dict(delta=1e-5, max_loose=-0.1), ValueError, "max_loose must be a finite number >= 0"),
    (dict(delta=1e-5, max_loose=True), ValueError, "max_loose must be a finite number >= 0"),
    (dict(delta=1e-5, claim="estimate", tolerance=math.nan), ValueError, "tolerance must be a finite number >= 0"),
    (dict(delta=1e-5, claim="estimate", max_loose=0.1), ValueError, "an estimate takes tolerance="),
    (dict(delta=1e-5, tolerance=0.1), ValueError, "an upper or lower claim takes max_loose="),
    (dict(delta=1e-5, epsilon=1), TypeError, "pass exactly one of epsilon="),
    (dict(), TypeError, "pass exactly one of epsilon="),
    (dict(delta=1e-5, direction="sideways"), ValueError, "direction"),
])
def test_bad_arguments_fail_before_the_accountant_runs(options, error, match):
    def accountant(*args, **kwargs):
        raise AssertionError("called")
    with pytest.raises(error, match=match):
        check_accountant(accountant, Config(Gaussian(1)), **options)


def test_a_config_that_is_neither_config_nor_dict_is_refused():
    with pytest.raises(TypeError, match="config must be a verialloc.Config or a dict of its fields"):
        check_accountant(lambda *a, **k: 1.0, "gaussian", delta=1e-5)


def test_references_are_computed_once_per_query(monkeypatch):
    calls = []

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return computed(*args, **kwargs)

    computed = api.delta
    monkeypatch.setattr(api, "delta", counted)
    cache, config = {}, Config(RandomizedResponse(1), epochs=3)
    for claim in ("upper", "estimate"):
        check_accountant(lambda config, epsilon, direction: RR_DELTA, config, epsilon=0.5, claim=claim,
                         references=cache)
    check_accountant(lambda config, epsilon, direction: RR_DELTA, config, epsilon=0.5, direction="remove",
                     references=cache)
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
    pytester.makepyfile(f"def my_epsilon(config, delta, direction):\n    return {factor * truth!r}\n\n"
                        + _readme_fixture_example())
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(**{outcome: 1})
