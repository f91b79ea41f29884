"""I11 (lower ≤ exact ≤ upper) for every method in `verialloc.api.METHODS`, against the exact layer, both
directions; cross-method consistency (every valid upper ≥ every valid lower) where the exact layer stops.

Methods are taken from api.METHODS at run time, so new methods are checked without editing this file; a method
that raises UnsupportedRequest for a query is skipped for it, and brackets whose error_kind is not a certified
one (e.g. a Monte-Carlo estimate) are left out of the hard inequalities.
"""
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings

from verialloc import Config, Gaussian, Laplace, RandomizedResponse, api
from verialloc.testing.assertions import assert_sound_lower, assert_sound_upper
from verialloc.testing.strategies import Query, configs, finite_mechanisms, queries

#: relative slack: 4 units in the last place of a float64 claim (a float-valued bound may round an exact
#: boundary value by half an ulp, e.g. pld's ε = ln(1 − δ) of P = Q comes out 7.9e-18 below ln 0.9)
SLACK = 4 * 2.0**-53


def claim(value):
    """An accountant stub returning a fixed claim (the helpers call fn(config, epsilon=…/delta=…, direction=…))."""
    return lambda config, **query: value


def check_against_exact(query: Query, certified) -> None:
    exact = query.ask(api, "exact", digits=20)
    given_ = {"epsilon" if query.quantity == "delta" else "delta": query.value}
    for method, bracket in certified(lambda m, **o: query.ask(api, m, **o), exclude=("exact",), what=repr(query)).items():
        common = dict(direction=query.direction, method=exact, rtol=SLACK, **given_)
        assert_sound_upper(claim(bracket.upper), query.config, **common)
        assert_sound_lower(claim(bracket.lower), query.config, **common)


@given(queries(configs(finite_mechanisms())))
def test_every_method_brackets_the_exact_value_on_finite_pairs_I11(certified, query):
    """I11 on random finite pairs (zero masses included), allocation (any k) and Poisson, epochs, δ(ε) and ε(δ),
    remove / add / both: every certified method's lower ≤ exact ≤ upper."""
    check_against_exact(query, certified)


CONTINUOUS = [
    Query(Config(Gaussian(1), steps=1), "delta", Fraction(1), "both"),
    Query(Config(Gaussian(1), steps=2), "delta", Fraction(1, 2), "add"),
    Query(Config(Gaussian(1), steps=2, k=2, epochs=2), "delta", Fraction(2), "remove"),
    Query(Config(Gaussian(2), "poisson", steps=2, rate=Fraction(1, 2)), "delta", Fraction(1, 4), "both"),
    Query(Config(Laplace(1), steps=2), "delta", Fraction(1, 2), "both"),
    Query(Config(Laplace(Fraction(1, 2)), "poisson", steps=1, rate=Fraction(1, 3)), "epsilon", Fraction(1, 100), "both"),
    Query(Config(Gaussian(1), steps=1), "epsilon", Fraction(1, 1000), "add"),
]


#: slow: the analytic method takes 15–20 s (or more) on these
SLOW_CONTINUOUS = [Query(Config(Gaussian(1), steps=2), "delta", Fraction(1), "remove")]
CONTINUOUS += [pytest.param(q, marks=pytest.mark.slow) for q in SLOW_CONTINUOUS]


@pytest.mark.parametrize("query", CONTINUOUS, ids=lambda q: f"{q.config.mechanism!r}-{q.config.scheme}-t{q.config.steps}"
                         f"-{q.quantity}-{q.direction}")
def test_every_method_brackets_the_exact_value_on_continuous_mechanisms_I11(certified, query):
    """I11 for Gaussian (F13, quadrature of F25 at t = 2, F12 for one Poisson step) and Laplace."""
    check_against_exact(query, certified)


@pytest.mark.slow
@given(queries(configs(cheap=True)))
@settings(max_examples=15)
def test_every_method_brackets_the_exact_value_on_random_continuous_configs_I11(certified, query):
    """I11 on hypothesis-drawn Gaussian / Laplace configurations on the exact layer's cheap routes (slow: quadrature)."""
    check_against_exact(query, certified)


SLOW_BEYOND = [  # analytic: 15 s to > 30 s each
    Query(Config(Gaussian(1), steps=20), "delta", Fraction(1, 2), "both"),
    Query(Config(Gaussian(2), steps=30, k=3), "delta", Fraction(1, 2), "remove"),
    Query(Config(RandomizedResponse(1), steps=200), "epsilon", Fraction(1, 10**6), "both"),
]
BEYOND_EXACT = [
    Query(Config(Gaussian(1), "poisson", steps=50, rate=Fraction(1, 50), epochs=2), "delta", Fraction(1, 2), "both"),
    Query(Config(RandomizedResponse(1), "poisson", steps=100, rate=Fraction(1, 10)), "epsilon", Fraction(1, 10**6),
          "both"),
] + [pytest.param(q, marks=pytest.mark.slow) for q in SLOW_BEYOND]


@pytest.mark.parametrize("query", BEYOND_EXACT, ids=lambda q: f"{q.config.mechanism!r}-t{q.config.steps}-{q.quantity}")
def test_every_upper_is_at_least_every_lower_across_methods_I11(certified, query):
    """I11 across methods: for each pair of certified methods (exact included when it answers), upper_i ≥ lower_j."""
    brackets = certified(lambda m, **o: query.ask(api, m, **o), what=repr(query))
    assert "pld" in brackets
    with mp.workdps(50):
        for name_i, bi in brackets.items():
            for name_j, bj in brackets.items():
                slack = SLACK * abs(bj.lower) if mp.isfinite(bj.lower) else 0
                assert bi.upper >= bj.lower - slack, (
                    f"{name_i} upper {bi.upper} < {name_j} lower {bj.lower} for {query}")


@given(configs(finite_mechanisms(), schemes=("allocation",)).filter(lambda c: c.k == 1))
@settings(max_examples=10)
def test_rdp_of_every_method_is_at_least_the_exact_rdp_I11(certified, config):
    """I11 for Rényi DP (remove direction, F38): every method answering rdp gives an upper ≥ the exact value."""
    exact = api.rdp(config, 3, method="exact", digits=20)
    for method, bracket in certified(lambda m, **o: api.rdp(config, 3, method=m, digits=20)).items():
        with mp.workdps(50):
            assert bracket.upper >= exact.lower * (1 - SLACK), f"{method} rdp upper below exact for {config}"
            assert bracket.lower <= exact.upper * (1 + SLACK), f"{method} rdp lower above exact for {config}"
