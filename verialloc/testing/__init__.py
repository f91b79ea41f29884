"""Reusable test tools for other accountants' test suites and verialloc's own (docs/testing.md).

    >>> from verialloc import Config, RandomizedResponse
    >>> from verialloc.testing import assert_sound_upper
    >>> def optimistic(config, epsilon, direction):   # one RR step (ε0 = 1): δ(1/2) = (e − e^{1/2})/(e + 1) ≈ 0.2877
    ...     return 0.25
    >>> assert_sound_upper(optimistic, Config(RandomizedResponse(1)), epsilon=0.5)
    Traceback (most recent call last):
    AssertionError: unsound upper bound: optimistic claimed delta(epsilon=0.5) = 0.25 as an upper bound ...

Public names (`__all__`):
* checks of an accountant `fn(config, epsilon=ε | delta=δ, direction=d)` against verialloc's references:
  `check_accountant` (upper / lower / estimate claims, optional looseness; the `verialloc_check` fixture of the
  pytest plugin, `plugin`), `assert_sound_upper`, `assert_sound_lower` and `reference` (the Bracket they use);
* the golden tables of `verialloc audit` as test cases with precomputed references: `golden_cases`, `GoldenCase`;
* hypothesis strategies for accounting inputs (exact Fractions): `gaussians`, `laplaces`, `randomized_responses`,
  `discrete_pairs`, `probability_pairs`, `finite_mechanisms`, `mechanisms`, `rates`, `epsilons`, `deltas`,
  `directions`, `configs`, `queries` and their `Query`.
The rest stays in the submodules: PLD-level helpers (`assertions.assert_same_pld`, `domination_slack`,
`assert_stochastically_dominated`; `strategies.pld_realizations`, `exp_laws`, `ordered_exp_laws`,
`exp_law_to_pld`), the rational references `brute_force` and the fuzzer `fuzz`.

Names load on first use (PEP 562): the pytest plugin imports this package in every pytest run where verialloc is
installed, so importing it must neither cost time nor need hypothesis (the `test` extra), which only the strategies
import.
"""

from importlib import import_module

#: public name -> submodule defining it
_SOURCES = {
    **dict.fromkeys(("assert_sound_lower", "assert_sound_upper", "reference"), "assertions"),
    "check_accountant": "plugin",
    **dict.fromkeys(("GoldenCase", "golden_cases"), "golden"),
    **dict.fromkeys(
        (
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
        ),
        "strategies",
    ),
}

__all__ = sorted(_SOURCES)


def __getattr__(name: str):
    if name not in _SOURCES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = import_module(f"{__name__}.{_SOURCES[name]}")
    except ImportError as err:
        raise ImportError(f"verialloc.testing.{name} needs {err.name}: pip install 'verialloc[test]'") from err
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
