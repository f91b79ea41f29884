"""The public names of verialloc.testing: exported from their submodules, loaded lazily, no hypothesis needed for
the package or the pytest plugin, private helpers kept private."""

import doctest
import subprocess
import sys

import pytest

import verialloc.testing
from verialloc.testing import assertions, golden, plugin, strategies

#: the public surface (issue #14): name -> submodule defining it
PUBLIC = {
    "assert_sound_upper": assertions,
    "assert_sound_lower": assertions,
    "reference": assertions,
    "check_accountant": plugin,
    "GoldenCase": golden,
    "golden_cases": golden,
    **{
        name: strategies
        for name in (
            "Query",
            "configs",
            "deltas",
            "directions",
            "discrete_pairs",
            "epsilons",
            "finite_mechanisms",
            "gaussians",
            "laplaces",
            "mechanisms",
            "probability_pairs",
            "queries",
            "randomized_responses",
            "rates",
        )
    },
}


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_star_import_gives_the_public_names_from_their_submodules():
    namespace = {}
    exec("from verialloc.testing import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(PUBLIC)
    assert verialloc.testing.__all__ == sorted(PUBLIC)
    for name, module in PUBLIC.items():
        assert namespace[name] is getattr(module, name), name
    assert set(PUBLIC) <= set(dir(verialloc.testing))


def test_the_docstring_names_every_public_name():
    doc = verialloc.testing.__doc__
    assert [name for name in PUBLIC if f"`{name}`" not in doc] == []


def test_the_docstring_example_runs():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(verialloc.testing, "verialloc.testing", globs={}):
        runner.run(test)
    assert runner.summarize(verbose=False) == (0, 4)


@pytest.mark.parametrize(
    "name",
    [
        "_as_mpf",
        "describe",
        "_check",
        "GRID",
        "pld_realizations",
        "exp_laws",
        "assert_same_pld",
        "domination_slack",
        "no_such_name",
    ],
)
def test_private_and_internal_names_stay_in_their_submodules(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(verialloc.testing, name)


def test_submodules_still_import_from_the_package():
    from verialloc.testing import brute_force, fuzz

    assert callable(brute_force.hockey_stick) and callable(fuzz.fuzz)


def test_importing_verialloc_loads_neither_hypothesis_nor_verialloc_testing():
    out = _python(
        "import sys, verialloc; print(sorted(m for m in sys.modules if m.split('.')[0] == 'hypothesis' "
        "or m.startswith('verialloc.testing')))"
    )
    assert out.strip() == "[]"


def test_the_plugin_loads_nothing_heavy():
    """The plugin loads into every pytest run: of verialloc it adds only itself and verialloc.testing (the package
    names load lazily, PEP 562), and no sympy, scipy, numpy or hypothesis; mpmath is its one load-time import."""
    out = _python(
        "import sys, pytest; before = set(sys.modules); import verialloc.testing.plugin; "
        "print(sorted({m.split('.')[0] if not m.startswith('verialloc') else m "
        "for m in set(sys.modules) - before if m.split('.')[0] not in sys.stdlib_module_names}))"
    )
    assert out.strip() == "['mpmath', 'verialloc', 'verialloc.testing', 'verialloc.testing.plugin']"


def test_without_hypothesis_the_plugin_and_assertions_work_and_strategies_say_what_is_missing():
    out = _python(
        "import sys; sys.modules['hypothesis'] = None\n"
        "import verialloc.testing.plugin, verialloc.testing as t\n"
        "print(t.assert_sound_upper.__name__, t.check_accountant.__name__)\n"
        "try:\n    t.configs\nexcept ImportError as err:\n    print(err)"
    )
    assert out.splitlines() == [
        "assert_sound_upper check_accountant",
        "verialloc.testing.configs needs hypothesis: pip install 'verialloc[test]'",
    ]


def test_reference_refuses_an_unknown_method():
    """`reference(method="typo")` once fell back to pld silently."""
    from verialloc import Config, Gaussian, InvalidParameter

    with pytest.raises(InvalidParameter, match="method"):
        verialloc.testing.reference(Config(Gaussian(1), steps=1), epsilon=1, method="exat")
