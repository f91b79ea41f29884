"""Method "pld" end to end: lower ≤ exact ≤ upper against the exact layer (I11), monotonicity, trivial bound.

Exact references: verialloc.exact (count enumeration for randomized response and discrete pairs, exact
k-subset likelihood for k > 1, quadrature for the Gaussian at t ≤ 2, F13 for Gaussian compositions); beyond them
(Gaussian, t = 50) the opposite bounds of the geometric-grid allocation (F52/F53, a separate code path).

Issue #16: `test_trivial_bound_and_monotone_in_epsilon` checked monotonicity in ε of one PLD table (true for every
PLD); it is now `test_trivial_bound_and_geometric_overlap_beyond_the_exact_layer`.
"""

import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair, Gaussian, RandomizedResponse, api
from verialloc.exact.discrete_profiles import discrete_delta, discrete_epsilon
from verialloc.exact.quadrature import allocation_delta_quadrature
from verialloc.numeric.pld.allocation.geometric import allocation_pld_geometric
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.pld.table import build as plds

FAST = Settings(loss_step=2e-3, tail=1e-10)


def pld_delta(config, eps, direction, s=FAST):
    b = api.delta(config, eps, direction=direction, method="pld", settings=s)
    return float(b.lower), float(b.upper)


def pld_deltas(config, epsilons, direction, s=FAST):
    """(lower, upper) lists from one build of the PLDs (direction "both": max over the two)."""
    table = plds(config, s, epsilon_max=max(abs(e) for e in epsilons))
    dirs = ("remove", "add") if direction == "both" else (direction,)
    return [
        (
            max(float(table[d, "lower"].delta_bound(e)) for d in dirs),
            max(float(table[d, "upper"].delta_bound(e)) for d in dirs),
        )
        for e in epsilons
    ]


def exact_delta(config, eps, direction):
    with mp.workdps(30):
        return float(
            discrete_delta(
                config.mechanism,
                config.scheme,
                config.steps,
                eps,
                direction,
                k=config.k,
                epochs=config.epochs,
                rate=config.rate,
                digits=20,
            )
        )


def assert_brackets(lower, exact, upper, what):
    slack = 1e-12 * max(exact, 1e-300)  # float64 rounding of the exact value itself
    assert lower <= exact + slack, f"{what}: lower {lower!r} > exact {exact!r}"
    assert exact <= upper + slack, f"{what}: upper {upper!r} < exact {exact!r}"


@given(
    eps0=st.sampled_from(["0.2", "0.5", "1", "2"]),
    steps=st.sampled_from([1, 2, 7, 100, 1000]),
    eps=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    direction=st.sampled_from(["remove", "add"]),
)
@settings(max_examples=20)
def test_allocation_randomized_response_sound(eps0, steps, eps, direction):
    """I11: lower ≤ exact ≤ upper for 1-of-t allocation, both directions."""
    config = Config(RandomizedResponse(eps0), steps=steps)
    lo, hi = pld_delta(config, eps, direction)
    assert_brackets(lo, exact_delta(config, eps, direction), hi, f"RR {eps0} t={steps} eps={eps} {direction}")


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_allocation_randomized_response_t_10000(direction):
    config = Config(RandomizedResponse("1"), steps=10_000)
    for eps, (lo, hi) in zip((0.01, 0.05), pld_deltas(config, (0.01, 0.05), direction)):
        assert_brackets(lo, exact_delta(config, eps, direction), hi, f"t=1e4 eps={eps}")


@pytest.mark.parametrize("k,epochs", [(2, 1), (3, 2), (1, 3)])
def test_allocation_k_and_epochs_sound(k, epochs):
    """k > 1 (F27 reduction, upper; F30 for the lower) and epochs (F8) against exact k-subset enumeration."""
    config = Config(RandomizedResponse("1"), steps=12, k=k, epochs=epochs)
    for direction in ("remove", "add"):
        for eps, (lo, hi) in zip((0.2, 1.0), pld_deltas(config, (0.2, 1.0), direction)):
            assert_brackets(lo, exact_delta(config, eps, direction), hi, f"k={k} E={epochs} {direction} eps={eps}")


@given(
    pair=st.sampled_from(
        [([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]), ([0.6, 0.4, 0.0], [0.3, 0.3, 0.4]), ([0.2, 0.3, 0.5], [0.0, 0.5, 0.5])]
    ),
    scheme=st.sampled_from(["allocation", "poisson"]),
    steps=st.sampled_from([1, 3, 5]),
    direction=st.sampled_from(["remove", "add"]),
    eps=st.sampled_from([0.0, 0.4, 1.5]),
)
@settings(max_examples=20)
def test_discrete_pairs_with_zero_masses_sound(pair, scheme, steps, direction, eps):
    config = Config(DiscretePair(*pair), scheme=scheme, steps=steps, rate="0.3" if scheme == "poisson" else None)
    lo, hi = pld_delta(config, eps, direction)
    assert_brackets(lo, exact_delta(config, eps, direction), hi, f"{pair} {scheme} t={steps} {direction} eps={eps}")


@pytest.mark.parametrize("steps,rate", [(100, "0.01"), (1000, "0.003")])
def test_poisson_randomized_response_sound(steps, rate):
    config = Config(RandomizedResponse("1"), scheme="poisson", steps=steps, rate=rate)
    for direction in ("remove", "add"):
        lo, hi = pld_delta(config, 0.1, direction)
        assert_brackets(lo, exact_delta(config, 0.1, direction), hi, f"poisson t={steps} {direction}")


@pytest.mark.parametrize(
    "sigma,eps,direction,ref",
    [
        (1, 1, "remove", 0.059206501),
        (1, 1, "add", 0.050197662),
        (2, 0.5, "remove", 0.018326595),
        (0.5, 2, "add", 0.18644915),
    ],
)
def test_gaussian_t2_against_quadrature(sigma, eps, direction, ref):
    """formulas.md §12.1 (t = 2) — and the mpmath quadrature as the exact reference."""
    with mp.workdps(20):
        exact, err = allocation_delta_quadrature(Gaussian(sigma), 2, eps, direction, digits=15)
    assert abs(float(exact) - ref) < 1e-6 * ref
    lo, hi = pld_delta(Config(Gaussian(sigma), steps=2), eps, direction)
    assert_brackets(lo, float(exact), hi, f"gaussian sigma={sigma} t=2 {direction}")


def test_gaussian_single_step_and_composition_closed_form():
    """t = 1: F13; allocation with k = t = 4 over 2 epochs is 8 compositions: F13 at σ/√8."""
    for config, sigma in (
        (Config(Gaussian("0.9"), steps=1), 0.9),
        (Config(Gaussian("2"), steps=4, k=4, epochs=2), 2 / math.sqrt(8)),
    ):
        epsilons = (0.0, 0.5, 2.0)
        for eps, (lo, hi) in zip(epsilons, pld_deltas(config, epsilons, "remove")):
            with mp.workdps(30):
                exact = float(Gaussian(sigma).delta(eps))
            assert_brackets(lo, exact, hi, f"{config} eps={eps}")


def test_epsilon_bracket_contains_exact():
    config = Config(RandomizedResponse("0.5"), steps=500)
    b = api.epsilon(config, "1e-6", method="pld", settings=FAST)
    with mp.workdps(30):
        exact = float(discrete_epsilon(config.mechanism, "allocation", 500, "1e-6", "both", digits=20))
    assert float(b.lower) <= exact <= float(b.upper)


def test_trivial_bound_and_geometric_overlap_beyond_the_exact_layer():
    """I1 and I11 where no exact value exists (Gaussian σ = 0.7, t = 50, ε from −1 to 2, each direction):
    upper ≥ max(0, 1 − e^ε), the floor of every profile (I1); and the pld bracket overlaps the one of the
    geometric-grid algorithm (Algs 1/2 of [003], F52/F53, α = 0.02 — a separate code path from the exp-grid
    allocation the pld method uses here): pld lower ≤ geometric upper, geometric lower ≤ pld upper.

    #16: this test asserted that both bounds from one PLD table are non-increasing in ε, which holds for every
    PLD, so it could not fail; the order of bounds across ε now follows from containment of an independent one.
    Mutations checked to be killed (scratch copy): `plds` reading the allocation PLD of the other direction
    (`source[swap[d], b]`; the old test passed it); `readout.read_pld` reading S one grid point too high (the remove
    lower end passes the geometric upper end at ε = −1, by a small margin)."""
    config = Config(Gaussian("0.7"), steps=50)
    epsilons = (-1.0, -0.2, 0.0, 0.3, 1.0, 2.0)
    table = plds(config, FAST, epsilon_max=max(abs(e) for e in epsilons))
    law = config.mechanism.loss_law()
    for d in ("remove", "add"):
        geo = {b: allocation_pld_geometric(law, 50, d, b, alpha=0.02, beta=1e-12)[0] for b in ("lower", "upper")}
        for e in epsilons:
            lo, hi = (float(table[d, b].delta_bound(e)) for b in ("lower", "upper"))
            geo_lo, geo_hi = (float(geo[b].delta_bound(e)) for b in ("lower", "upper"))
            assert max(0.0, -math.expm1(e)) <= hi <= 1.0, (d, e, hi)
            assert lo <= geo_hi and geo_lo <= hi, (d, e, (lo, hi), (geo_lo, geo_hi))


@pytest.mark.parametrize("param", ["sigma", "steps", "epochs", "rate"])
def test_monotone_in_parameters(param):
    """I5–I8 consequences on the computed bounds: larger σ / more steps (allocation) give smaller δ; more epochs or
    a larger Poisson rate give larger δ. Checked as upper(favourable) ≤ upper(unfavourable) with the bracket width as slack."""
    base = dict(sigma="1", steps=100, epochs=1, rate=None, scheme="allocation")
    variants = {
        "sigma": ({"sigma": "1.2"}, {"sigma": "1"}),
        "steps": ({"steps": 200}, {"steps": 100}),
        "epochs": ({"epochs": 1}, {"epochs": 2}),
        "rate": ({"rate": "0.01", "scheme": "poisson"}, {"rate": "0.02", "scheme": "poisson"}),
    }[param]
    results = []
    for change in variants:
        kw = {**base, **change}
        config = Config(
            Gaussian(kw["sigma"]), scheme=kw["scheme"], steps=kw["steps"], epochs=kw["epochs"], rate=kw["rate"]
        )
        results.append(pld_delta(config, 0.3, "both"))
    (lo_small, hi_small), (lo_big, hi_big) = results
    assert hi_small <= hi_big + (hi_big - lo_big)
    assert lo_small <= lo_big + (hi_small - lo_small)


def test_refining_the_loss_grid_tightens_composition():
    """Nested loss grids (Δ, Δ/2): the upper bound does not increase, the lower does not decrease."""
    config = Config(RandomizedResponse("0.5"), scheme="poisson", steps=200, rate="0.05")
    coarse = pld_delta(config, 0.5, "remove", Settings(loss_step=4e-3, tail=1e-13))
    fine = pld_delta(config, 0.5, "remove", Settings(loss_step=2e-3, tail=1e-13))
    assert fine[1] <= coarse[1] * (1 + 1e-9) and fine[0] >= coarse[0] * (1 - 1e-9)


def test_cli_pld(capsys):
    from verialloc.cli import main
    import json

    assert (
        main(
            [
                "delta",
                "--mechanism",
                "randomized-response",
                "--eps0",
                "1",
                "--steps",
                "100",
                "--epsilon",
                "0.2",
                "--method",
                "pld",
                "--loss-step",
                "1e-3",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    exact = exact_delta(Config(RandomizedResponse("1"), steps=100), 0.2, "both")
    assert float(out["lower"]) <= exact <= float(out["upper"]) and out["method"] == "pld"
    assert "budget" in out["per_direction"]["remove"]


def test_cli_pld_knobs_rejected_for_exact(capsys):
    from verialloc.cli import main

    assert (
        main(
            ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1", "--tail", "1e-9"]
            + ["--method", "exact"]
        )
        == 2
    )
    assert "tail" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["1e-20", "1e-30"])
def test_tiny_delta_randomized_response_finite_and_sound(target):
    """Tiny δ: the tail-accurate allocation gives a finite bracket containing the exact ε (count enumeration)."""
    config = Config(RandomizedResponse("1"), steps=1000)
    b = api.epsilon(config, target, method="pld")
    with mp.workdps(30):
        exact = float(discrete_epsilon(config.mechanism, "allocation", 1000, target, "both", digits=20))
    assert float(b.lower) <= exact <= float(b.upper) < float("inf")
    assert float(b.upper) - float(b.lower) <= 1e-6 * exact


def test_heavy_tails_fall_back_to_the_geometric_grid():
    """Gaussian σ = 0.4, t = 2: the uniform exp-grid cannot hold the heavy single-step tail, the accountant
    switches to the geometric-grid algorithm (F52/F53) and the bracket still contains the exact value (quadrature)."""
    config = Config(Gaussian("0.4"), steps=2)
    exact = api.delta(config, 2, direction="remove", digits=10)
    b = api.delta(config, 2, direction="remove", method="pld")
    assert b.lower <= exact.lower and exact.upper <= b.upper
    assert b.upper - b.lower < 0.02 * exact.upper
    assert any("geometric" in note for note in b.details["notes"])


@pytest.mark.parametrize(
    "config",
    [
        Config(Gaussian(2), scheme="poisson", rate=1, steps=20),
        Config(Gaussian(Fraction(3, 2)), scheme="poisson", rate=1, steps=3, epochs=4),
        Config(Gaussian(Fraction(9, 4)), steps=6, k=6, epochs=2),
        pytest.param(Config(Gaussian(1), scheme="poisson", rate=1, steps=100), marks=pytest.mark.slow),  # ε ≈ 92
    ],
    ids=["poisson-T20", "poisson-T3E4", "alloc-k=t", "poisson-T100"],
)
@pytest.mark.parametrize("query, value", [("epsilon", "1e-5"), ("delta", "2.5")])
def test_gaussian_composition_brackets_f13_and_is_tight(config, query, value, monkeypatch):
    """Every step holds the element (Poisson rate 1, allocation k = t): the pld method discretizes one Gaussian of
    μ = tE/(2σ²) (F13) instead of composing t·E steps (100 Gaussian steps took 30 s in VerifiedAccountant's default
    method). The bracket holds the exact layer's F13 value (mpmath) and is as tight as one step's discretization."""
    from verialloc.numeric.pld import table

    composed = []
    real_compose = table.self_compose
    monkeypatch.setattr(
        table, "self_compose", lambda pld, n, *a, **k: composed.append(n) or real_compose(pld, n, *a, **k)
    )
    got = getattr(api, query)(config, value, method="pld")
    assert composed and set(composed) == {1}  # one step of μ = tE/(2σ²), no t·E-fold composition
    exact = getattr(api, query)(config, value, method="exact", digits=20)
    assert got.lower <= exact.lower and exact.upper <= got.upper
    assert got.upper - got.lower <= 1e-6 * max(abs(exact.upper), 1e-3)


def test_accuracy_note_of_a_delta_query_names_the_computed_upper_delta():
    """A δ query has no target δ: its accuracy note compares the budget with the computed upper δ and says so
    (it read "exceeds 1% of delta=3.4e-15", as if 3.4e-15 had been asked; hostile-user pass, #13)."""
    config = Config(mechanism=Gaussian(1), scheme="poisson", steps=4, rate=Fraction(1, 100))
    b = api.delta(config, 8, direction="remove", method="pld")
    notes = [n for n in b.details["notes"] if n.startswith("accuracy")]
    assert notes and all(f"of the upper delta={float(b.upper):.6g}" in n for n in notes), notes
