"""I11 (lower ≤ exact ≤ upper) for every method in `verialloc.api.METHODS`, both directions.

* random finite pairs, continuous mechanisms, random continuous configurations: every certified method against
  the exact layer (verialloc.exact: enumeration, closed forms, quadrature);
* beyond the exact layer (large t, Gaussian Poisson/allocation): against exact rational count enumerations
  written in this file — the query's own value for a two-output rational pair, and for the Gaussian the value of
  one-bit quantizations it dominates (F8), which every upper end must reach; cross-method upper_i ≥ lower_j
  (i ≠ j) as a secondary check;
* Rényi DP: every method's rdp bracket against the exact RDP (F38).

Mutations checked to be killed by the beyond-exact test (#16): the pld Poisson rate × 0.95 (two-output pairs) and
× 0.5 (Gaussian, through the one-bit references), the pld Gaussian loss law at 1.3σ (Gaussian), the exact layer's
poisson_pair composing t − 1 steps (two-output pairs).

Methods are taken from api.METHODS at run time, so new methods are checked without editing this file; a method
that raises UnsupportedRequest for a query is skipped for it, and brackets whose error_kind is not a certified
one (e.g. a Monte-Carlo estimate) are left out of the hard inequalities.
"""

import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings

from _reference import assert_delta_bracket, assert_epsilon_bracket, epsilon_at_least, frac, hockey, kappa_star
from verialloc import Config, DiscretePair, Gaussian, Laplace, api
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
    for method, bracket in certified(
        lambda m, **o: query.ask(api, m, **o), exclude=("exact",), what=repr(query)
    ).items():
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
    Query(
        Config(Laplace(Fraction(1, 2)), "poisson", steps=1, rate=Fraction(1, 3)), "epsilon", Fraction(1, 100), "both"
    ),
    Query(Config(Gaussian(1), steps=1), "epsilon", Fraction(1, 1000), "add"),
]


#: slow: the analytic method takes 15–20 s (or more) on these
SLOW_CONTINUOUS = [Query(Config(Gaussian(1), steps=2), "delta", Fraction(1), "remove")]
CONTINUOUS += [pytest.param(q, marks=pytest.mark.slow) for q in SLOW_CONTINUOUS]


@pytest.mark.parametrize(
    "query",
    CONTINUOUS,
    ids=lambda q: f"{q.config.mechanism!r}-{q.config.scheme}-t{q.config.steps}-{q.quantity}-{q.direction}",
)
def test_every_method_brackets_the_exact_value_on_continuous_mechanisms_I11(certified, query):
    """I11 for Gaussian (F13, quadrature of F25 at t = 2, F12 for one Poisson step) and Laplace."""
    check_against_exact(query, certified)


@pytest.mark.slow
@given(queries(configs(cheap=True)))
@settings(max_examples=15)
def test_every_method_brackets_the_exact_value_on_random_continuous_configs_I11(certified, query):
    """I11 on hypothesis-drawn Gaussian / Laplace configurations on the exact layer's cheap routes (slow: quadrature)."""
    check_against_exact(query, certified)


# --- beyond the exact layer: exact count enumerations of two-output pairs -------------------------------------
#: rational randomized responses, e^{ε0} = 3 and 5/2 (their masses are exact, unlike RandomizedResponse(ln 3)'s)
RR3 = DiscretePair([Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)])
RR52 = DiscretePair([Fraction(5, 7), Fraction(2, 7)], [Fraction(2, 7), Fraction(5, 7)])


def count_pair(p, q, config: Config) -> tuple[dict, dict]:
    """(A, B) of `config` over a two-output pair (p, q), q > 0, as exact rationals on the count n of output 0
    (every sequence with n zeros has the same likelihood ratio; F11, F24, F46): Poisson, T = t·E steps:
    A(n) = C(T, n) m0^n m1^{T−n}, m = λp + (1−λ)q; allocation (E = 1): A(n) = B(n) Σ_j [C(n, j)C(t−n, k−j)/C(t, k)]
    r0^j r1^{k−j}, r = p/q, B(n) = C(t, n) q0^n q1^{t−n}. Written here, independent of verialloc.exact."""
    if config.scheme == "poisson":
        steps, lam = config.steps * config.epochs, config.rate
        m = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
        return (
            {n: math.comb(steps, n) * m[0] ** n * m[1] ** (steps - n) for n in range(steps + 1)},
            {n: math.comb(steps, n) * q[0] ** n * q[1] ** (steps - n) for n in range(steps + 1)},
        )
    assert config.epochs == 1
    t, k = config.steps, config.k
    r = [x / y for x, y in zip(p, q)]
    b = {n: math.comb(t, n) * q[0] ** n * q[1] ** (t - n) for n in range(t + 1)}
    a = {
        n: b[n]
        * sum(
            Fraction(math.comb(n, j) * math.comb(t - n, k - j), math.comb(t, k)) * r[0] ** j * r[1] ** (k - j)
            for j in range(max(0, k - (t - n)), min(k, n) + 1)
        )
        for n in range(t + 1)
    }
    return a, b


def one_bit_pairs(sigma: Fraction) -> list:
    """Two-output pairs dominated by the Gaussian pair (N(1, σ²), N(0, σ²)) (F8 post-processing, F16): output 1{x > c}
    has P = (1 − a, a), Q = (1 − b, b) with a = Φ((1 − c)/σ), b = Φ(−c/σ); a rounded down and b up to 1e-12 keep it
    a post-processing (flip the output with a small probability). Thresholds c ∈ {1/2, 1, 3/2, 2, 5/2, 3}."""
    out = []
    with mp.workdps(40):
        s = mp.mpf(sigma.numerator) / sigma.denominator
        for c in (0.5, 1, 1.5, 2, 2.5, 3):
            a = Fraction(int(mp.floor(mp.ncdf((1 - c) / s) * 10**12)), 10**12)
            b = Fraction(int(mp.ceil(mp.ncdf(-c / s) * 10**12)), 10**12)
            out.append(([1 - a, a], [1 - b, b]))
    return out


def references(query: Query):
    """{direction: [(A, B), ...]} and whether they are exact (the query's own pair) or dominated (Gaussian)."""
    mech = query.config.mechanism
    if isinstance(mech, DiscretePair):
        return [count_pair(*mech.exact_probabilities(), query.config)], True
    return [count_pair(p, q, query.config) for p, q in one_bit_pairs(mech.sigma)], False


SLOW_BEYOND = [  # analytic: 15 s to > 30 s each; the Gaussian Poisson with epochs: 0.7 s
    Query(Config(RR52, steps=200), "epsilon", Fraction(1, 10**3), "both"),  # ~8 s (analytic: 8-13 s at δ = 1e-6)
    Query(Config(Gaussian(1), "poisson", steps=50, rate=Fraction(1, 50), epochs=2), "delta", Fraction(1, 4), "both"),
    Query(Config(Gaussian(1), steps=20), "delta", Fraction(1, 2), "both"),
    Query(Config(Gaussian(2), steps=30, k=3), "delta", Fraction(1, 2), "remove"),
]
BEYOND_EXACT = [
    Query(Config(Gaussian(1), "poisson", steps=20, rate=Fraction(1, 4)), "delta", Fraction(1, 2), "both"),
    Query(Config(RR3, "poisson", steps=100, rate=Fraction(1, 10)), "epsilon", Fraction(1, 10**6), "both"),
    Query(Config(RR3, "poisson", steps=40, rate=Fraction(1, 8), epochs=2), "delta", Fraction(3, 8), "both"),
    Query(Config(RR3, steps=16, k=2), "delta", Fraction(1, 2), "both"),
] + [pytest.param(q, marks=pytest.mark.slow) for q in SLOW_BEYOND]


@pytest.mark.parametrize(
    "query",
    BEYOND_EXACT,
    ids=lambda q: (
        f"{q.config.mechanism!r}-{q.config.scheme}-t{q.config.steps}-k{q.config.k}-{q.quantity}-{q.direction}"
    ),
)
def test_beyond_the_exact_layer_every_method_brackets_an_exact_count_reference_I11(certified, query):
    """I11 where verialloc's exact layer is slow or stops, against exact rational references computed here
    (`count_pair`): for a two-output rational pair the reference is the query's own value (lower ≤ exact ≤ upper
    for every certified method); for the Gaussian it is the largest value over one-bit quantizations, pairs the
    Gaussian dominates (F8), so every upper end must reach it (δ: upper ≥ H; ε: upper ≥ ε_quantized(δ)).
    Secondary: across two different methods, upper_i ≥ lower_j."""
    brackets = certified(lambda m, **o: query.ask(api, m, **o), what=repr(query))
    assert "pld" in brackets
    pairs, exact = references(query)
    directions = ("remove", "add") if query.direction == "both" else (query.direction,)
    oriented = [pair if d == "remove" else pair[::-1] for pair in pairs for d in directions]
    for name, bracket in brackets.items():
        if query.quantity == "delta":
            ref = max(hockey(a, b, query.value) for a, b in oriented)  # "both" is the max over directions (F3)
            if exact:
                assert_delta_bracket(bracket, ref, f"{name} {query}", digits=30)
            else:
                assert frac(bracket.upper) >= ref[0], f"{name} upper {bracket.upper} < dominated {float(ref[0])}"
        else:
            kappa = max(kappa_star(a, b, query.value) for a, b in oriented)
            if exact:
                assert_epsilon_bracket(bracket, kappa, f"{name} {query}", digits=30)
            else:
                assert epsilon_at_least(frac(bracket.upper), kappa), f"{name} upper {bracket.upper} < dominated"
    for name_i, bi in brackets.items():
        for name_j, bj in brackets.items():
            if name_i != name_j:
                slack = 0 if bj.error_kind != "exact" else abs(frac(bj.lower)) / 10**29
                assert frac(bi.upper) >= frac(bj.lower) - slack, (
                    f"{name_i} upper {bi.upper} < {name_j} lower {bj.lower}"
                )


@given(configs(finite_mechanisms(), schemes=("allocation",)).filter(lambda c: c.k == 1))
@settings(max_examples=10)
def test_rdp_of_every_method_is_at_least_the_exact_rdp_I11(certified, config):
    """I11 for Rényi DP (remove direction, F38): every method answering rdp gives an upper ≥ the exact value."""
    exact = api.rdp(config, 3, method="exact", digits=20)
    for method, bracket in certified(lambda m, **o: api.rdp(config, 3, method=m, digits=20)).items():
        with mp.workdps(50):
            assert bracket.upper >= exact.lower * (1 - SLACK), f"{method} rdp upper below exact for {config}"
            assert bracket.lower <= exact.upper * (1 + SLACK), f"{method} rdp lower above exact for {config}"
