"""The dp_accounting bridge: the translation table, and VerifiedAccountant against independent references
(dp_accounting's own PLD and RDP accountants, verialloc's exact layer, closed forms evaluated here in mpmath)."""

import math
import inspect
from fractions import Fraction

import mpmath as mp
import pytest

dpa = pytest.importorskip("dp_accounting")

from dp_accounting.pld.pld_privacy_accountant import PLDAccountant  # noqa: E402
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant  # noqa: E402

from verialloc import Config, DiscretePair, Gaussian, Laplace, api  # noqa: E402
from verialloc.errors import InvalidParameter, UnsupportedRequest  # noqa: E402
from verialloc.ledger import Ledger  # noqa: E402
from verialloc.integrations.dp_accounting import (  # noqa: E402
    RandomAllocationDpEvent,
    VerifiedAccountant,
    from_dp_event,
)
from verialloc.numeric.pld.pld_accountant import Settings  # noqa: E402

NR = dpa.NeighboringRelation
ADD_REMOVE, SPECIAL = NR.ADD_OR_REMOVE_ONE, NR.REPLACE_SPECIAL
G = dpa.GaussianDpEvent(0.8)
LAP = dpa.LaplaceDpEvent(2)
RR = dpa.RandomizedResponseDpEvent(0.5, 4)
PS = dpa.PoissonSampledDpEvent(0.01, G)
ALLOC = RandomAllocationDpEvent(2, 10, G)
Self, Composed = dpa.SelfComposedDpEvent, dpa.ComposedDpEvent
#: a coarser grid keeps each PLD query to a second or two (the bracket stays certified, only wider)
FAST = {"settings": Settings(loss_step=1e-3)}


def poisson(mechanism, q, steps):
    return Config(mechanism, "poisson", steps=steps, rate=q)


# R(x) keeps x w.p. 1 − p + p/k = 5/8 (p = 1/2, k = 4); R(special) is uniform: 1/4 on x, 3/4 on the rest
RR_PAIR = DiscretePair([Fraction(5, 8), Fraction(3, 8)], [Fraction(1, 4), Fraction(3, 4)])

TABLE = [
    (G, ADD_REMOVE, poisson(Gaussian("0.8"), 1, 1)),
    (G, SPECIAL, poisson(Gaussian("0.8"), 1, 1)),
    (Self(G, 5), ADD_REMOVE, poisson(Gaussian("0.8"), 1, 5)),
    (LAP, ADD_REMOVE, poisson(Laplace(2), 1, 1)),
    (RR, SPECIAL, poisson(RR_PAIR, 1, 1)),
    (
        dpa.RandomizedResponseDpEvent(0.25, 2),
        SPECIAL,
        poisson(DiscretePair([Fraction(7, 8), Fraction(1, 8)], [Fraction(1, 2), Fraction(1, 2)]), 1, 1),
    ),
    (PS, ADD_REMOVE, poisson(Gaussian("0.8"), Fraction(1, 100), 1)),
    (Self(PS, 100), ADD_REMOVE, poisson(Gaussian("0.8"), Fraction(1, 100), 100)),
    (Self(Self(PS, 100), 3), ADD_REMOVE, poisson(Gaussian("0.8"), Fraction(1, 100), 300)),
    (Composed([PS, Self(PS, 4), dpa.NoOpDpEvent()]), ADD_REMOVE, poisson(Gaussian("0.8"), Fraction(1, 100), 5)),
    (Composed([Composed([PS, PS]), Self(PS, 2)]), ADD_REMOVE, poisson(Gaussian("0.8"), Fraction(1, 100), 4)),
    (dpa.PoissonSampledDpEvent(0.5, LAP), ADD_REMOVE, poisson(Laplace(2), Fraction(1, 2), 1)),
    (Self(dpa.PoissonSampledDpEvent(0.1, RR), 7), SPECIAL, poisson(RR_PAIR, Fraction(1, 10), 7)),
    (dpa.PoissonSampledDpEvent(1.0, G), ADD_REMOVE, poisson(Gaussian("0.8"), 1, 1)),
    (ALLOC, ADD_REMOVE, Config(Gaussian("0.8"), steps=10, k=2)),
    (Self(ALLOC, 3), ADD_REMOVE, Config(Gaussian("0.8"), steps=10, k=2, epochs=3)),
    (Composed([ALLOC, Self(ALLOC, 2)]), ADD_REMOVE, Config(Gaussian("0.8"), steps=10, k=2, epochs=3)),
    (Self(RandomAllocationDpEvent(1, 1000, RR), 2), SPECIAL, Config(RR_PAIR, steps=1000, epochs=2)),
    (Composed([G, LAP]), ADD_REMOVE, Ledger.of(poisson(Gaussian("0.8"), 1, 1), poisson(Laplace(2), 1, 1))),
    (
        Composed([PS, Self(G, 2), Self(PS, 4)]),
        ADD_REMOVE,
        Ledger.of(poisson(Gaussian("0.8"), Fraction(1, 100), 5), poisson(Gaussian("0.8"), 1, 2)),
    ),
]


@pytest.mark.parametrize("event, relation, expected", TABLE)
def test_translation_table(event, relation, expected):
    assert from_dp_event(event, relation) == expected


def test_a_gaussian_and_a_laplace_step_composed_against_quadrature():
    """Composed([Gaussian(0.8), Laplace(2)]): δ(ε) of the product pair is E_{y~P2}[δ_G(ε − ℓ_L(y))] (remove; the
    Laplace loss ℓ_L(y) = (|y| − |y − 1|)/b under P2 = Lap(1, b)), integrated here in mpmath with F13 for δ_G;
    the bridge's certified bracket (pld, a Ledger of two events) must hold it."""
    acc = VerifiedAccountant().compose(Composed([G, LAP]))
    assert isinstance(acc.config(), Ledger)
    with mp.workdps(30):
        s, b = mp.mpf("0.8"), mp.mpf(2)

        def delta_g(e):  # F13 for one Gaussian step of noise multiplier s
            return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)

        for eps in (mp.mpf("0.5"), mp.mpf("1.5")):
            dens = lambda y: mp.exp(-abs(y - 1) / b) / (2 * b)  # noqa: E731
            loss = lambda y: (abs(y) - abs(y - 1)) / b  # noqa: E731
            ref = mp.quad(lambda y: dens(y) * delta_g(eps - loss(y)), [-mp.inf, 0, 1, mp.inf])
            bracket = acc.get_delta_bracket(str(eps))
            assert bracket.lower <= ref * (1 + mp.mpf(10) ** -12) and ref * (1 - mp.mpf(10) ** -12) <= bracket.upper


def test_floats_are_read_through_their_shortest_decimal_repr():
    assert from_dp_event(dpa.GaussianDpEvent(0.1)).mechanism.sigma == Fraction(1, 10)
    assert from_dp_event(dpa.PoissonSampledDpEvent(1e-3, G)).rate == Fraction(1, 1000)


UNSUPPORTED = [
    (dpa.NonPrivateDpEvent(), ADD_REMOVE, UnsupportedRequest, "NonPrivateDpEvent"),
    (dpa.NoOpDpEvent(), ADD_REMOVE, UnsupportedRequest, "NoOpDpEvent"),
    (dpa.UnsupportedDpEvent(), ADD_REMOVE, UnsupportedRequest, "UnsupportedDpEvent"),
    (dpa.SampledWithReplacementDpEvent(100, 10, G), ADD_REMOVE, UnsupportedRequest, "SampledWithReplacementDpEvent"),
    (dpa.ZCDpEvent(0.5), ADD_REMOVE, UnsupportedRequest, "ZCDpEvent"),
    (dpa.PoissonSampledDpEvent(0.1, Self(G, 2)), ADD_REMOVE, UnsupportedRequest, "PoissonSampledDpEvent.event"),
    (dpa.PoissonSampledDpEvent(0.1, PS), ADD_REMOVE, UnsupportedRequest, "PoissonSampledDpEvent"),
    (RandomAllocationDpEvent(1, 10, PS), ADD_REMOVE, UnsupportedRequest, "RandomAllocationDpEvent.event"),
    (dpa.PoissonSampledDpEvent(0.1, ALLOC), ADD_REMOVE, UnsupportedRequest, "RandomAllocationDpEvent"),
    (Composed([dpa.NoOpDpEvent()]), ADD_REMOVE, UnsupportedRequest, "ComposedDpEvent"),
    (Composed([G, dpa.NonPrivateDpEvent()]), ADD_REMOVE, UnsupportedRequest, "NonPrivateDpEvent"),
    (RR, ADD_REMOVE, UnsupportedRequest, "RandomizedResponseDpEvent"),
    (G, NR.REPLACE_ONE, UnsupportedRequest, "REPLACE_ONE"),
    (dpa.GaussianDpEvent(0), ADD_REMOVE, InvalidParameter, "GaussianDpEvent.noise_multiplier"),
    (dpa.LaplaceDpEvent(-1.0), ADD_REMOVE, InvalidParameter, "LaplaceDpEvent.noise_multiplier"),
    (dpa.PoissonSampledDpEvent(0, G), ADD_REMOVE, InvalidParameter, "PoissonSampledDpEvent.sampling_probability"),
    (dpa.PoissonSampledDpEvent(1.5, G), ADD_REMOVE, InvalidParameter, "PoissonSampledDpEvent.sampling_probability"),
    (Self(G, 0), ADD_REMOVE, InvalidParameter, "SelfComposedDpEvent.count"),
    (Composed(None), ADD_REMOVE, InvalidParameter, "ComposedDpEvent.events"),  # was a raw TypeError
    (dpa.GaussianDpEvent(10**5000), ADD_REMOVE, InvalidParameter, "GaussianDpEvent.noise_multiplier"),  # ValueError
    (Self(G, 10**5000), ADD_REMOVE, InvalidParameter, "SelfComposedDpEvent.count"),  # of str() beyond 4300 digits
    (RandomAllocationDpEvent(3, 2, G), ADD_REMOVE, InvalidParameter, "RandomAllocationDpEvent.num_allocations"),
    (RandomAllocationDpEvent(1, 0, G), ADD_REMOVE, InvalidParameter, "RandomAllocationDpEvent.num_steps"),
    (dpa.RandomizedResponseDpEvent(1.5, 2), SPECIAL, InvalidParameter, "RandomizedResponseDpEvent.noise_parameter"),
    (dpa.RandomizedResponseDpEvent(0.5, 0), SPECIAL, InvalidParameter, "RandomizedResponseDpEvent.num_buckets"),
    ("GaussianDpEvent(1)", ADD_REMOVE, InvalidParameter, "DpEvent"),
    (G, "ADD_OR_REMOVE_ONE", InvalidParameter, "neighboring_relation"),
]


@pytest.mark.parametrize("event, relation, error, named", UNSUPPORTED)
def test_unsupported_events_raise_naming_the_event(event, relation, error, named):
    with pytest.raises(error, match=named):
        from_dp_event(event, relation)


def test_random_allocation_event_is_a_frozen_dp_event():
    event = RandomAllocationDpEvent(1, 10, G)
    assert isinstance(event, dpa.DpEvent)
    with pytest.raises(AttributeError):
        event.num_steps = 5
    assert dpa.DpEvent.from_named_tuple(event.to_named_tuple()) == event


# --- the accountant -------------------------------------------------------------------------------------------


def test_accountant_relations_and_methods():
    assert VerifiedAccountant().neighboring_relation is ADD_REMOVE
    assert VerifiedAccountant(SPECIAL).neighboring_relation is SPECIAL
    with pytest.raises(UnsupportedRequest, match="REPLACE_ONE"):
        VerifiedAccountant(NR.REPLACE_ONE)
    with pytest.raises(InvalidParameter, match="method"):
        VerifiedAccountant(method="mc")


BAD_ACCOUNTANTS = [  # (arguments, parameter named, what the message says is valid)
    (dict(bogus=1), "bogus", "neighboring_relation, method, digits, budget, progress, settings"),
    (dict(method="exact", settings=Settings()), "settings", "not a keyword of VerifiedAccountant(method='exact')"),
    (dict(method="rdp", samples=10), "samples", "alpha_max, search_tol"),
    (dict(direction="remove"), "direction", "always answers for direction both"),
    (dict(neighboring_relation="ADD_OR_REMOVE_ONE"), "neighboring_relation", "ADD_OR_REMOVE_ONE or REPLACE_SPECIAL"),
    (dict(neighboring_relation=None), "neighboring_relation", "NeighboringRelation"),
    (dict(neighboring_relation=True), "neighboring_relation", "NeighboringRelation"),
    (dict(neighboring_relation=0), "neighboring_relation", "NeighboringRelation"),
    (dict(method=None), "method", "certified method"),
    (dict(method=["pld"]), "method", "certified method"),
    (dict(method="PLD"), "method", "certified method"),
    (dict(settings=3), "settings", "Settings"),
    (dict(settings={"loss_step": 1e-3}), "settings", "Settings"),
    (dict(progress="print"), "progress", "callable"),
    (dict(method="analytic", options=3), "options", "analytic.Options"),
    (dict(method="rdp", alpha_max="64"), "alpha_max", "integer in [2, "),
    (dict(method="rdp", alpha_max=True), "alpha_max", "integer in [2, "),
    (dict(digits="x"), "digits", "integer in [5, 1000]"),
    (dict(digits=True), "digits", "integer in [5, 1000]"),
    (dict(budget=-1), "budget", "seconds > 0"),
    (dict(budget=float("nan")), "budget", "seconds > 0"),
]


@pytest.mark.parametrize("arguments, named, valid", BAD_ACCOUNTANTS)
def test_bad_accountant_arguments_raise_invalid_parameter_when_built(arguments, named, valid):
    """Unknown keywords (a raw TypeError at the first query before) and wrong types (AttributeError 'int' object
    has no attribute 'tail' for settings=3, TypeError for progress=5 or alpha_max='64') are refused at
    construction, naming the parameter and what is valid."""
    with pytest.raises(InvalidParameter) as info:
        VerifiedAccountant(**arguments)
    assert info.value.name == named and str(info.value).startswith(f"{named}=") and valid in str(info.value)


def test_the_keywords_a_method_takes_are_accepted():
    VerifiedAccountant(method="rdp", alpha_max=64, search_tol=0.01, digits=20, budget=30)
    VerifiedAccountant(method="best", target_gap=0.1, progress=print, **FAST)
    from verialloc.numeric.analytic import Options

    VerifiedAccountant(method="analytic", options=Options(), progress=None)


@pytest.mark.parametrize(
    "query, value, valid",
    [
        ("get_epsilon", None, "finite real number"),
        ("get_epsilon", "abc", "finite real number"),
        ("get_epsilon", float("nan"), "finite real number"),
        ("get_epsilon", True, "finite real number"),
        ("get_epsilon", float("inf"), "finite real number"),
        ("get_epsilon", [1e-5], "finite real number"),
        ("get_delta", None, "finite real number"),
        ("get_delta", "abc", "finite real number"),
        ("get_delta", float("nan"), "finite real number"),
        ("get_delta", False, "finite real number"),
        ("get_delta", float("-inf"), "finite real number"),
        ("get_delta", (1.0,), "finite real number"),
    ],
)
@pytest.mark.parametrize("composed", [False, True])
def test_bad_queries_name_the_dp_accounting_argument(query, value, valid, composed):
    """target_delta / target_epsilon (dp_accounting's names), with or without a ledger (the api's `delta=` /
    `epsilon=` were named before once something was composed)."""
    accountant = VerifiedAccountant(**FAST)
    if composed:
        accountant.compose(G)
    named = "target_delta" if query == "get_epsilon" else "target_epsilon"
    for ask in (query, query + "_bracket") if composed else (query,):
        with pytest.raises(InvalidParameter) as info:
            getattr(accountant, ask)(value)
        assert info.value.name == named and valid in str(info.value)


@pytest.mark.parametrize("composed", [False, True])
def test_get_epsilon_at_the_ends_answers_as_dp_accounting(composed):
    """Issue #30 item 8: δ = 0 gives inf (0 with nothing composed), δ >= 1 gives 0, as dp_accounting's PLD and RDP
    accountants; a negative δ is refused; the brackets keep (0, 1)."""
    accountant = VerifiedAccountant(**FAST)
    if composed:
        accountant.compose(G)
    assert accountant.get_epsilon(0) == (math.inf if composed else 0.0)
    assert accountant.get_epsilon(1) == accountant.get_epsilon(1.5) == 0.0
    with pytest.raises(InvalidParameter, match="target_delta=-1e-05 is invalid: must be >= 0"):
        accountant.get_epsilon(-1e-5)
    theirs = dpa.pld.PLDAccountant().compose(G)
    assert theirs.get_epsilon(0) == math.inf and theirs.get_epsilon(1) == 0
    if composed:
        for bad in (0, 1, -1e-5):
            with pytest.raises(InvalidParameter, match="open interval"):
                accountant.get_epsilon_bracket(bad)


def test_an_empty_ledger_refuses_an_epsilon_beyond_float64():
    with pytest.raises(InvalidParameter, match="target_epsilon=-1e400 is invalid: must lie within the float64"):
        VerifiedAccountant().get_delta("-1e400")  # an OverflowError before


def test_decimal_strings_are_exact_numbers_as_everywhere_in_verialloc():
    accountant = VerifiedAccountant(method="exact").compose(G)
    assert accountant.get_epsilon("1e-5") == accountant.get_epsilon(1e-5)
    assert accountant.get_delta("1/2") == accountant.get_delta(0.5)


@pytest.mark.parametrize(
    "event, count, named, valid",
    [
        (None, 1, "event", "dp_accounting DpEvent"),
        ("GaussianDpEvent(1)", 1, "event", "dp_accounting DpEvent"),
        (G, "x", "count", "integer >= 1"),
        (G, None, "count", "integer >= 1"),
        (G, 0, "count", "integer >= 1"),
        (G, -2, "count", "integer >= 1"),
        (G, 1.5, "count", "integer >= 1"),
        (G, True, "count", "integer >= 1"),
    ],
)
def test_compose_refuses_bad_events_and_counts(event, count, named, valid):
    """TypeError (dp_accounting's) for a non-event or a non-int count, UnsupportedEventError for count 0 before."""
    accountant = VerifiedAccountant()
    with pytest.raises(InvalidParameter) as info:
        accountant.compose(event, count)
    assert info.value.name == named and valid in str(info.value)
    assert isinstance(accountant.ledger, dpa.NoOpDpEvent)  # nothing was composed
    assert accountant.compose(G, 2.0).config() == poisson(Gaussian("0.8"), 1, 2)  # an integral float is a count


@pytest.mark.parametrize(
    "method, options, named",
    [
        ("pld", dict(bogus=1), "bogus"),
        ("exact", dict(settings=Settings()), "settings"),
        ("pld", dict(samples=10), "samples"),
        ("pld", dict(settings=3), "settings"),
        ("best", dict(progress=5), "progress"),
        ("rdp", dict(alpha_max="x"), "alpha_max"),
        (["pld"], {}, "method"),
    ],
)
def test_the_api_names_an_unknown_or_mistyped_method_option(method, options, named):
    """api.delta/epsilon take the method's keywords as **options (VerifiedAccountant passes its own on): a raw
    TypeError (unexpected keyword), AttributeError or TypeError from inside the method before."""
    config = poisson(Gaussian(1), Fraction(1, 100), 10)
    for query in (api.delta, api.epsilon):
        with pytest.raises(InvalidParameter) as info:
            query(config, Fraction(1, 2), method=method, **options)
        assert info.value.name == named


def _accepted(module) -> set:
    """Named keywords of module.delta and module.epsilon after (config, value, direction, digits)."""
    names = set()
    for query in ("delta", "epsilon"):
        params = list(inspect.signature(getattr(module, query)).parameters.values())[4:]
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names


def test_each_methods_declared_keywords_are_what_its_accountant_accepts():
    """The registry's keywords (what the API checks) and the accountant's signature cannot drift apart; best passes
    its other keywords on to pld."""
    for name, m in api.METHODS.items():
        if m.accountant is None:  # auto runs no queries of its own: it takes best's keywords, for best
            assert m.keywords == api.METHODS["best"].keywords
            continue
        accepted = _accepted(m.accountant) | (_accepted(api.METHODS["pld"].accountant) if name == "best" else set())
        assert set(m.keywords) == accepted, name
    keywords = {name: m.keywords for name, m in api.METHODS.items()}
    assert keywords["exact"] == () and keywords["pld"] == ("progress", "settings")
    assert keywords["best"] == ("progress", "settings", "target_gap")
    assert keywords["rdp"] == ("alpha_max", "search_tol") and keywords["analytic"] == ("options", "progress")
    assert keywords["mc"] == ("confidence", "interval", "proposal", "samples", "seed")


@pytest.mark.parametrize(
    "event, relation",
    [(e, r) for e, r, _ in TABLE]
    + [(e, r) for e, r, _, _ in UNSUPPORTED if isinstance(e, dpa.DpEvent) and r in (ADD_REMOVE, SPECIAL)],
)
def test_supports_exactly_when_the_event_translates(event, relation):
    try:
        from_dp_event(event, relation)
        translates = True
    except (UnsupportedRequest, InvalidParameter):
        translates = False
    assert VerifiedAccountant(relation).supports(event) is translates


def test_supports_judges_the_ledger_composed_with_the_event():
    """Events of another kind join the ledger as events of their own; an untranslatable one is refused as the
    PrivacyAccountant contract says."""
    accountant = VerifiedAccountant().compose(PS, 10)
    assert accountant.supports(PS) and accountant.supports(Self(PS, 3))
    assert accountant.supports(G) and accountant.supports(dpa.PoissonSampledDpEvent(0.02, G))
    assert not accountant.supports(dpa.NonPrivateDpEvent())
    with pytest.raises(dpa.UnsupportedEventError, match="NonPrivateDpEvent"):
        accountant.compose(dpa.NonPrivateDpEvent())
    assert accountant.compose(PS, 5).config() == poisson(Gaussian("0.8"), Fraction(1, 100), 15)
    assert accountant.compose(G).config() == Ledger.of(
        poisson(Gaussian("0.8"), Fraction(1, 100), 15), poisson(Gaussian("0.8"), 1, 1)
    )


def test_empty_ledger_has_no_privacy_loss():
    accountant = VerifiedAccountant()
    assert accountant.get_epsilon(1e-5) == 0.0
    assert accountant.get_delta(0.5) == 0.0
    assert accountant.get_delta(-1.0) >= 1 - mp.exp(-1)  # δ(ε) = 1 − e^ε for P = Q
    with pytest.raises(UnsupportedRequest, match="NoOpDpEvent"):
        accountant.get_epsilon_bracket(1e-5)


def _gaussian_delta(sigma, eps):
    """Balle–Wang (F13), written here independently: Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)."""
    sigma, eps = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.exp(eps) * mp.ncdf(-1 / (2 * sigma) - eps * sigma)


@pytest.mark.parametrize("method", ["pld", "best", "exact"])
def test_single_gaussian_against_the_closed_form(method):
    with mp.workdps(30):
        accountant = VerifiedAccountant(method=method).compose(dpa.GaussianDpEvent(1.25))
        truth = _gaussian_delta("1.25", 1)
        bracket = accountant.get_delta_bracket(1)
        assert bracket.lower <= truth * (1 + mp.mpf(10) ** -20) and truth <= bracket.upper * (1 + mp.mpf(10) ** -20)
        assert accountant.get_delta(1.0) >= truth
        eps_truth = mp.findroot(lambda e: _gaussian_delta("1.25", e) - mp.mpf("1e-5"), 3)
        assert accountant.get_epsilon(1e-5) >= eps_truth
        assert accountant.get_epsilon_bracket(1e-5).lower <= eps_truth + mp.mpf(10) ** -20


def test_poisson_dp_sgd_against_dp_accountings_pld_and_rdp():
    """Truth ≤ dp_accounting's pessimistic PLD and RDP answers (upper bounds), so our certified lower end is below
    them and our upper end within our own bracket width above them."""
    event = Self(dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0)), 10)
    ours = VerifiedAccountant(**FAST).compose(event)
    bracket = ours.get_epsilon_bracket(1e-5)
    for theirs in (
        PLDAccountant(ADD_REMOVE).compose(event).get_epsilon(1e-5),
        RdpAccountant(neighboring_relation=ADD_REMOVE).compose(event).get_epsilon(1e-5),
    ):
        assert bracket.lower <= theirs
        assert bracket.upper <= theirs + bracket.width
    assert ours.get_epsilon(1e-5) >= bracket.upper
    delta_theirs = PLDAccountant(ADD_REMOVE).compose(event).get_delta(2.0)
    delta_bracket = ours.get_delta_bracket(2.0)
    assert delta_bracket.lower <= delta_theirs <= delta_theirs + delta_bracket.width
    assert delta_bracket.upper <= delta_theirs + delta_bracket.width


def test_poisson_two_steps_against_the_exact_layer():
    event = Self(dpa.PoissonSampledDpEvent(0.5, dpa.GaussianDpEvent(1.0)), 2)
    exact = api.delta(poisson(Gaussian(1), Fraction(1, 2), 2), 1, method="exact")
    ours = VerifiedAccountant(**FAST).compose(event)
    bracket = ours.get_delta_bracket(1)
    assert bracket.lower <= exact.upper and exact.lower <= bracket.upper
    assert ours.get_delta(1.0) >= exact.lower


def test_gaussian_allocation_t2_against_the_exact_layer():
    event = RandomAllocationDpEvent(1, 2, dpa.GaussianDpEvent(1.0))
    exact = api.delta(Config(Gaussian(1), steps=2), 1, method="exact")
    bracket = VerifiedAccountant(**FAST).compose(event).get_delta_bracket(1)
    assert bracket.lower <= exact.upper and exact.lower <= bracket.upper


def _rr_delta(p, k, eps, count):
    """δ(ε) of the count-fold REPLACE_SPECIAL randomized response, from F2 over the product outcomes (here)."""
    stay = 1 - mp.mpf(p) + mp.mpf(p) / k
    pair = ([stay, 1 - stay], [mp.mpf(1) / k, 1 - mp.mpf(1) / k])
    out = []
    for a, b in (pair, pair[::-1]):  # remove H(P‖Q), add H(Q‖P)
        total = 0
        for j in range(count + 1):  # j outcomes "x" among count: probability a0^j a1^(count−j) · C(count, j)
            pa = mp.binomial(count, j) * a[0] ** j * a[1] ** (count - j)
            pb = mp.binomial(count, j) * b[0] ** j * b[1] ** (count - j)
            total += max(pa - mp.exp(eps) * pb, 0)
        out.append(total)
    return max(out)


def test_randomized_response_against_the_definition_and_dp_accounting():
    event = Self(dpa.RandomizedResponseDpEvent(0.5, 4), 3)
    with mp.workdps(30):
        truth = _rr_delta("0.5", 4, mp.mpf("0.5"), 3)
        for method in ("exact", "pld"):
            bracket = VerifiedAccountant(SPECIAL, method=method).compose(event).get_delta_bracket(0.5)
            assert bracket.lower <= truth * (1 + mp.mpf(10) ** -20) and truth <= bracket.upper * (1 + mp.mpf(10) ** -20)
    # dp_accounting's PLD accountant composes the parts of a ComposedDpEvent (it drops a SelfComposed count: below)
    theirs = PLDAccountant(SPECIAL).compose(Composed([event.event] * 3)).get_delta(0.5)
    bracket = VerifiedAccountant(SPECIAL).compose(event).get_delta_bracket(0.5)
    assert bracket.lower <= theirs and bracket.upper <= theirs + bracket.width


def test_dp_accountings_pld_drops_the_count_of_randomized_response():
    """dp_accounting 0.6.0: PLDAccountant composes a RandomizedResponseDpEvent once whatever its count (no
    self_compose), so SelfComposed(RR, 3) reports the one-step δ, below the truth from the definition (F2)."""
    event = Self(dpa.RandomizedResponseDpEvent(0.5, 4), 3)
    theirs = PLDAccountant(SPECIAL).compose(event).get_delta(0.5)
    assert theirs == PLDAccountant(SPECIAL).compose(event.event).get_delta(0.5)
    with mp.workdps(30):
        assert theirs < _rr_delta("0.5", 4, mp.mpf("0.5"), 3)
        assert theirs < VerifiedAccountant(SPECIAL, method="exact").compose(event).get_delta_bracket(0.5).lower


def test_randomized_response_allocation_against_the_exact_layer():
    event = Self(RandomAllocationDpEvent(1, 20, dpa.RandomizedResponseDpEvent(0.5, 2)), 2)
    exact = api.epsilon(Config(DiscretePair(["3/4", "1/4"], ["1/2", "1/2"]), steps=20, epochs=2), "1e-6")
    ours = VerifiedAccountant(SPECIAL).compose(event)
    bracket = ours.get_epsilon_bracket(1e-6)
    assert bracket.lower <= exact.lower and exact.upper <= bracket.upper
    assert ours.get_epsilon(1e-6) >= exact.upper


def test_laplace_composition_against_dp_accounting_and_the_exact_layer():
    event = Self(dpa.LaplaceDpEvent(1.0), 2)
    exact = api.delta(poisson(Laplace(1), 1, 2), 1, method="exact")
    ours = VerifiedAccountant().compose(event)
    bracket = ours.get_delta_bracket(1)
    assert bracket.lower <= exact.upper and exact.lower <= bracket.upper
    theirs = PLDAccountant(ADD_REMOVE).compose(event).get_delta(1.0)
    assert bracket.lower <= theirs and bracket.upper <= theirs + bracket.width


def test_rdp_accountant_on_poisson_gaussian_names_its_own_keywords():
    """The rdp method has no add-direction Poisson RDP for a Gaussian; the error suggested `direction=remove`,
    which VerifiedAccountant does not take (it answers for both directions). It now names method= (#14)."""
    accountant = VerifiedAccountant(method="rdp")
    accountant.compose(dpa.PoissonSampledDpEvent(0.01, G), 100)
    with pytest.raises(UnsupportedRequest) as info:
        accountant.get_epsilon(1e-5)
    assert (
        info.value.name == "method" and "method='pld'" in str(info.value) and "direction=remove" not in str(info.value)
    )


@pytest.mark.parametrize("eps", ["-1e-400", "-1e-30", -1, "-0.5"])
def test_empty_accountant_delta_is_an_upper_bound_at_any_negative_epsilon(eps):
    """P = Q: δ(ε) = 1 − e^ε for ε < 0. '-1e-400' went through float64 as −0.0 and returned 0.0, below the truth
    1 − e^(−1e-400) ≈ 1e-400 (hostile-user finding, #14). Checked against mpmath at 50 digits."""
    from verialloc.mechanisms.base import mpq

    got = VerifiedAccountant().get_delta(eps)
    with mp.workdps(50):
        truth = -mp.expm1(mpq(Fraction(str(eps))))
        assert truth <= got <= truth * (1 + 1e-15) + 5e-324


def test_curves_are_get_epsilon_and_get_delta_at_each_point_in_order():
    """get_epsilon_curve asks from the smallest δ up (one compiled table for the curve) and answers in the caller's
    order, with get_epsilon's ends (δ = 0: inf, δ >= 1: 0); get_delta_curve is get_delta in order."""
    event = Self(dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0)), 10)
    deltas = [1e-3, 0, "1e-9", 1.0, 1e-5, 0.2]
    curve = VerifiedAccountant(**FAST).compose(event).get_epsilon_curve(deltas)
    single = VerifiedAccountant(**FAST).compose(event)
    ordered = {float(d): single.get_epsilon(d) for d in sorted(deltas, key=float)}
    assert curve == [ordered[float(d)] for d in deltas]
    assert curve[1] == math.inf and curve[3] == 0.0
    assert VerifiedAccountant(**FAST).compose(event).get_delta_curve([2, "0.5", -1]) == [
        single.get_delta(e) for e in (2, "0.5", -1)
    ]
    assert VerifiedAccountant().get_epsilon_curve([1e-5, 0.5]) == [0.0, 0.0]  # nothing composed
    for bad, named in (("1e-5", "target_deltas"), ([1e-5, -1], "target_delta"), ([1e-5, "x"], "target_delta")):
        with pytest.raises(InvalidParameter) as info:
            VerifiedAccountant(**FAST).compose(event).get_epsilon_curve(bad)
        assert info.value.name == named


@pytest.mark.parametrize("kind", ["composed", "self-composed"])
def test_nesting_deeper_than_the_bridge_translates_is_refused_not_a_recursion_error(kind):
    """Hostile-user pass (issue #29): 500 levels of ComposedDpEvent raised RecursionError from the translation and
    from dp_accounting's repr of the event; 250 levels translate."""
    from dp_accounting import dp_event as dpe
    from dp_accounting.privacy_accountant import UnsupportedEventError

    from verialloc.integrations.dp_accounting import MAX_NESTING, VerifiedAccountant

    def nested(depth):
        e = dpe.GaussianDpEvent(2.0)
        for _ in range(depth):
            e = dpe.ComposedDpEvent([e]) if kind == "composed" else dpe.SelfComposedDpEvent(e, 1)
        return e

    acc = VerifiedAccountant(method="exact")
    assert not acc.supports(nested(2 * MAX_NESTING))
    with pytest.raises(UnsupportedEventError, match=f"at most {MAX_NESTING} levels"):
        acc.compose(nested(2 * MAX_NESTING))
    shallow = VerifiedAccountant(method="exact").compose(nested(MAX_NESTING - 50))
    plain = VerifiedAccountant(method="exact").compose(dpe.GaussianDpEvent(2.0))
    assert shallow.get_epsilon(1e-5) == plain.get_epsilon(1e-5)
