"""Ledgers: compositions of different events (verialloc.ledger), compiled once and queried many times.

References, computed here and independent of the code under test:
* Gaussian-only ledgers whose every step holds the element: one Gaussian with μ² = Σ T_i/σ_i² (F13), in mpmath;
* finite-pair ledgers (randomized response and small pairs under allocation, Poisson and plain steps, mixed):
  the exact hockey-stick (F2) of the product of the events' pairs, enumerated here in Fractions (e^ε as a
  rational bracket: δ is monotone in e^ε);
* the rdp method's upper end (F18, its own route) against the pld bracket of the same ledger.
"""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, DiscretePair, Gaussian, RandomizedResponse, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.ledger import MAX_EVENTS, Ledger
from verialloc.validation import to_fraction


def f13_delta(mu, eps):
    """δ(ε) of N(μ, 1) vs N(0, 1) (Balle–Wang, F13)."""
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


# --- the ledger itself -------------------------------------------------------------------------------------------


def test_events_merge_by_kind_in_order_of_appearance():
    a = Config(Gaussian(1), steps=10, epochs=2)
    b = Config(Gaussian(1), scheme="poisson", steps=100, rate="0.01")
    c = Config(Gaussian(1), scheme="poisson", steps=50, epochs=3, rate="0.01")
    ledger = Ledger.of(a, [b, Ledger.of(a)], c)
    assert ledger.events == (
        Config(Gaussian(1), steps=10, epochs=4),
        Config(Gaussian(1), "poisson", steps=250, rate="0.01"),
    )
    assert Ledger.of(a).single is a and Ledger.of(a, b).single is None
    assert ledger.times(3).events[0].epochs == 12
    twice, doubled = ledger + ledger, ledger.times(2)
    assert [(e.steps * e.epochs, e.k) for e in twice.events] == [(e.steps * e.epochs, e.k) for e in doubled.events]


@pytest.mark.parametrize("bad, name", [((), "events"), (("x",), "event"), ((Config(Gaussian(1)), 3), "event")])
def test_bad_ledgers_name_what_is_wrong(bad, name):
    with pytest.raises(InvalidParameter) as info:
        Ledger(bad)
    assert info.value.name == name


def test_a_million_events_merge_and_too_many_distinct_ones_are_refused():
    one = Config(Gaussian(1), scheme="poisson", steps=1, rate="0.01")
    assert Ledger.of([one] * 10**6).events[0].steps == 10**6
    distinct = [Config(Gaussian(1 + Fraction(i, 10**6)), steps=2) for i in range(MAX_EVENTS + 1)]
    with pytest.raises(UnsupportedRequest, match="distinct events"):
        Ledger.of(distinct)


def test_deep_nesting_flattens():
    event = Config(RandomizedResponse(1), steps=3)
    nested = event
    for _ in range(2000):
        nested = [nested]
    assert Ledger.of(nested).single == event


# --- Gaussian-only ledgers: μ² adds ---------------------------------------------------------------------------------

GAUSSIAN_LEDGER = Ledger.of(
    Config(Gaussian(2), scheme="poisson", steps=3, rate=1),
    Config(Gaussian("0.8"), steps=2, k=2),
    Config(Gaussian("1.5"), steps=7, k=7, epochs=2),
)


def mu():
    """μ of the ledger's one Gaussian at the current precision: μ² = 3/2² + 2/0.8² + 14/1.5² (F13)."""
    return mp.sqrt(mp.mpf(3) / 4 + mp.mpf(2) / mp.mpf("0.64") + mp.mpf(14) / mp.mpf("2.25"))


@pytest.mark.parametrize("eps", ["0.5", "3", "-1"])
def test_gaussian_ledger_exact_is_the_closed_form(eps):
    b = api.delta(GAUSSIAN_LEDGER, eps, digits=20)
    with mp.workdps(40):
        ref = f13_delta(mu(), mp.mpf(eps))
        assert abs(b.lower - ref) <= mp.mpf(10) ** -18 * ref


@pytest.mark.parametrize("delta", ["1e-5", "1e-10"])
def test_gaussian_ledger_pld_and_rdp_bracket_the_closed_form(delta):
    with mp.workdps(40):
        lo, hi = mp.mpf(0), mp.mpf(100)
        for _ in range(200):  # ε(δ) of the closed form by bisection (δ decreasing in ε)
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f13_delta(mu(), mid) > mp.mpf(delta) else (lo, mid)
    pld = api.epsilon(GAUSSIAN_LEDGER, delta, method="pld")
    assert pld.lower <= hi and lo <= pld.upper and float(pld.upper - pld.lower) <= 1e-3 * float(hi)
    rdp = api.epsilon(GAUSSIAN_LEDGER, delta, method="rdp", direction="remove")
    assert rdp.upper >= lo


# --- finite-pair ledgers against enumeration ---------------------------------------------------------------------


def exact(x) -> Fraction:
    """An mpf's exact binary value."""
    return to_fraction("x", x)


def pair_of(p, q):
    return dict(enumerate(map(Fraction, p))), dict(enumerate(map(Fraction, q)))


def allocation_pair(p, q, t):
    """A_t(*) vs Q^t over output sequences, k = 1 (F11, F22)."""
    a, b = {}, {}
    for y in itertools.product(range(len(p)), repeat=t):
        qs = [Fraction(q[j]) for j in y]
        b[y] = math.prod(qs)
        a[y] = sum(Fraction(p[y[i]]) * math.prod(qs[:i] + qs[i + 1 :]) for i in range(t)) / t
    return a, b


def poisson_pair(p, q, t, lam):
    mixed = [lam * Fraction(x) + (1 - lam) * Fraction(y) for x, y in zip(p, q)]
    return power(pair_of(mixed, q), t)


def product(x, y):
    a, b = {}, {}
    for (u, au), (v, av) in itertools.product(x[0].items(), y[0].items()):
        a[(u, v)], b[(u, v)] = au * av, x[1][u] * y[1][v]
    return a, b


def power(pair, n):
    out = ({(): Fraction(1)}, {(): Fraction(1)})
    for _ in range(n):
        out = product(out, pair)
    return out


def hockey(pair, kappa: Fraction, direction):
    a, b = pair if direction == "remove" else (pair[1], pair[0])
    return sum((x - kappa * b[k] for k, x in a.items() if x > kappa * b[k]), Fraction(0))


P, Q = ["1/2", "3/10", "1/5"], ["1/5", "3/10", "1/2"]
RR = ["3/4", "1/4"], ["1/4", "3/4"]  # randomized response with e^ε0 = 3
FINITE_LEDGERS = [
    (
        Ledger.of(
            Config(DiscretePair(P, Q), steps=2), Config(DiscretePair(*RR), scheme="poisson", steps=2, rate="1/3")
        ),
        lambda: product(allocation_pair(P, Q, 2), poisson_pair(*RR, 2, Fraction(1, 3))),
    ),
    (
        Ledger.of(Config(DiscretePair(*RR), scheme="poisson", steps=3, rate=1), Config(DiscretePair(P, Q), steps=3)),
        lambda: product(power(pair_of(*RR), 3), allocation_pair(P, Q, 3)),
    ),
]


@pytest.mark.parametrize("ledger, reference", FINITE_LEDGERS)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_finite_ledgers_against_enumeration(ledger, reference, direction):
    pair = reference()
    for eps in (Fraction(1, 4), Fraction(3, 2)):
        with mp.workdps(50):
            e = mp.mpf(eps.numerator) / eps.denominator
            below, above = exact(mp.exp(e) * (1 - mp.mpf(10) ** -45)), exact(mp.exp(e) * (1 + mp.mpf(10) ** -45))
        ref_hi, ref_lo = hockey(pair, below, direction), hockey(pair, above, direction)  # δ falls as e^ε grows
        value = api.delta(ledger, eps, direction=direction, digits=25)
        assert ref_lo - Fraction(1, 10**20) <= exact(value.lower) <= ref_hi + Fraction(1, 10**20)
        for method in ("pld", "best"):
            b = api.delta(ledger, eps, direction=direction, method=method)
            assert exact(b.lower) <= ref_hi and ref_lo <= exact(b.upper), method


def test_a_ledger_the_exact_layer_cannot_compose_is_refused_naming_events():
    ledger = Ledger.of(Config(Gaussian(1), steps=5), Config(RandomizedResponse(1), steps=2))
    with pytest.raises(UnsupportedRequest, match="events"):
        api.delta(ledger, 1, method="exact")
    assert api.delta(ledger, 1).method == "best"  # the default (auto) answers it by best
    for method in ("analytic", "mc"):
        with pytest.raises(UnsupportedRequest) as info:
            api.epsilon(ledger, "1e-5", method=method)
        assert info.value.name == "events"


# --- compile once, query many ----------------------------------------------------------------------------------

POISSON_LEDGER = Ledger.of(
    Config(Gaussian(1), scheme="poisson", steps=200, rate="0.02"),
    Config(Gaussian("1.3"), scheme="poisson", steps=300, rate="0.01"),
)


def test_a_cached_query_returns_what_a_fresh_compile_returns():
    acc = api.compile(POISSON_LEDGER, method="pld")
    first = [acc.epsilon(d) for d in ("1e-5", "1e-7")] + [acc.delta(e) for e in ("0.5", "2")]
    again = [acc.epsilon(d) for d in ("1e-5", "1e-7")] + [acc.delta(e) for e in ("0.5", "2")]
    fresh = [api.epsilon(POISSON_LEDGER, d, method="pld") for d in ("1e-5", "1e-7")] + [
        api.delta(POISSON_LEDGER, e, method="pld") for e in ("0.5", "2")
    ]
    for x, y, z in zip(first, again, fresh):
        assert (x.lower, x.upper) == (y.lower, y.upper) == (z.lower, z.upper)


@pytest.mark.parametrize("delta", ["1e-5", "1e-8"])
def test_poisson_phases_pld_is_below_rdp_and_narrow(delta):
    pld = api.epsilon(POISSON_LEDGER, delta, method="pld")
    rdp = api.epsilon(POISSON_LEDGER, delta, method="rdp", direction="remove")
    assert pld.lower <= rdp.upper and float(pld.upper - pld.lower) <= 1e-3 * float(pld.upper)


@pytest.mark.parametrize(
    "accounted", [POISSON_LEDGER, Config(Gaussian(1), steps=50)], ids=["poisson-ledger", "allocation"]
)
def test_one_direction_after_both_reads_the_both_tables_and_equals_a_fresh_query(accounted):
    acc = api.compile(accounted, method="pld")
    both = acc.epsilon("1e-6")
    for d in ("remove", "add"):
        cached, fresh = acc.epsilon("1e-6", direction=d), api.epsilon(accounted, "1e-6", direction=d, method="pld")
        assert (cached.lower, cached.upper) == (fresh.lower, fresh.upper)
        assert cached.upper <= both.upper


def _closed_form_epsilon(mu_value, delta):
    """ε(δ) of N(μ, 1) vs N(0, 1) by bisection on F13 (δ decreasing in ε), as a bracket [lo, hi]."""
    with mp.workdps(40):
        lo, hi = mp.mpf(0), mp.mpf(100)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f13_delta(mu_value, mid) > mp.mpf(delta) else (lo, mid)
    return lo, hi


def test_a_privacy_curve_reuses_the_table_of_its_smallest_delta_and_brackets_the_closed_form():
    """Plain Gaussian steps (rate 1): μ = √T/σ = 1 (F13). The smallest δ is asked first; every larger δ (whose tail
    rule asks a coarser tail) reads its table, and every answer still brackets the closed form within 0.1%."""
    accounted = Config(Gaussian(100), scheme="poisson", steps=10_000, rate=1)
    acc = api.compile(accounted, method="pld")
    answers = {d: acc.epsilon(d) for d in ("1e-10", "1e-6", "3e-9", "1e-8", "1e-4")}
    assert len(acc.compiled.builds._tables) == 1
    for delta, got in answers.items():
        lo, hi = _closed_form_epsilon(mp.mpf(1), delta)
        assert got.lower <= hi and lo <= got.upper and float(got.upper - got.lower) <= 1e-3 * float(hi)


def test_a_descending_privacy_curve_builds_once_past_the_default_tail_and_brackets_the_closed_form():
    """The first δ that needs a finer tail builds ahead (CURVE_REACH) in a compiled ledger, so the smaller δ that
    follow read that table; a single query keeps the tail rule (F13 reference as above)."""
    accounted = Config(Gaussian(100), scheme="poisson", steps=10_000, rate=1)
    acc = api.compile(accounted, method="pld")
    answers = {d: acc.epsilon(d) for d in ("1e-6", "1e-9", "1e-10", "3e-12", "1e-14")}
    assert len(acc.compiled.builds._tables) == 2
    for delta, got in answers.items():
        lo, hi = _closed_form_epsilon(mp.mpf(1), delta)
        assert got.lower <= hi and lo <= got.upper and float(got.upper - got.lower) <= 1e-3 * float(hi)
    single = api.epsilon(accounted, "1e-10", method="pld")
    lo, hi = _closed_form_epsilon(mp.mpf(1), "1e-10")
    assert single.lower <= hi and lo <= single.upper


def test_an_allocation_table_is_not_reused_across_delta_plans_and_equals_a_fresh_query():
    """An allocation's plan (grid step, cuts, geometric grid) follows its δ: the table of δ = 1e-20 read at δ = 1e-10
    gave a bracket 19× as wide as the one δ = 1e-10 plans for (accountant map: [0.36, 8.38] against
    [0.363114, 0.363145] at σ = 0.8, t = 10⁴). A compiled ledger answers as a fresh query does."""
    config = Config(Gaussian("0.8"), steps=100)
    acc = api.compile(config, method="pld")
    acc.epsilon("1e-20")
    cached, fresh = acc.epsilon("1e-10"), api.epsilon(config, "1e-10", method="pld")
    assert (cached.lower, cached.upper) == (fresh.lower, fresh.upper)
    assert float(fresh.upper - fresh.lower) <= 1e-3 * float(fresh.upper)
