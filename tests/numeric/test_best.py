"""`best` runs pld, rdp, analytic in that order and stops once the bracket is within `target_gap` (issue #13).

References are the exact layer (randomized response, exact enumeration): whether best stops early or not, its
bracket contains the exact δ; stopping early is checked on what it reports (`details[d].details["skipped"]`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.errors import InvalidParameter
from verialloc.mechanisms import DiscretePair, RandomizedResponse
from verialloc.numeric.best import best_accountant as best
from verialloc.result import Bracket
from verialloc.validation import to_fraction

CONFIG = Config(RandomizedResponse(1), steps=4)
EPSILON = Fraction(1, 2)


def frac(value) -> Fraction:
    return to_fraction("value", value)


@pytest.fixture(scope="module")
def exact():
    b = api.delta(CONFIG, EPSILON, method="exact")
    return frac(b.lower), frac(b.upper)


def _not_run(bracket) -> dict:
    return {
        d: sorted(m for m, why in bracket.details[d].details["skipped"].items() if why.startswith("not run"))
        for d in ("remove", "add")
    }


def test_stops_after_pld_when_the_bracket_is_within_the_default_gap(exact):
    b = api.delta(CONFIG, EPSILON, method="best")
    assert frac(b.lower) <= exact[0] and exact[1] <= frac(b.upper)
    assert frac(b.upper) - frac(b.lower) <= Fraction(1, 100) * frac(b.upper)
    assert _not_run(b) == {"remove": ["analytic", "rdp"], "add": ["analytic", "rdp"]}


@pytest.mark.parametrize("gap", [0, 1e-14])
def test_runs_every_method_when_the_bracket_is_wider_than_the_target(exact, gap):
    """pld's relative width here is ~3e-11: a target of 0 or 1e-14 asks rdp and analytic too (rdp serves only the
    remove direction of allocation, F38 with E2, so it is skipped for add with its reason)."""
    b = api.delta(CONFIG, EPSILON, method="best", target_gap=gap)
    assert frac(b.lower) <= exact[0] and exact[1] <= frac(b.upper)
    assert _not_run(b) == {"remove": [], "add": []}
    assert "rdp" in b.details["remove"].details["candidates"]


def test_a_looser_target_never_widens_the_bracket_beyond_it(exact):
    """At target 0.5 best may stop after pld; whatever it returns still contains the exact value."""
    b = api.epsilon(CONFIG, Fraction(1, 10**6), direction="remove", method="best", target_gap=0.5)
    e = api.epsilon(CONFIG, Fraction(1, 10**6), direction="remove", method="exact")
    assert frac(b.lower) <= frac(e.lower) and frac(e.upper) <= frac(b.upper)


@pytest.mark.parametrize("gap", [-1, "nan", "1e400"])
def test_target_gap_is_validated(gap):
    with pytest.raises(InvalidParameter, match="target_gap"):
        api.delta(CONFIG, EPSILON, method="best", target_gap=gap)


def test_an_end_below_the_float64_range_is_not_a_zero_width():
    """P = Q: rdp's remove upper is ~7.6e-338 (below float64's subnormals) and pld's ~1e-15; with target 0 the
    width was once taken in float64 (0 − 0) and analytic, the only exact 0 here, was never asked."""
    pair = Config(DiscretePair([1], [1]), steps=1)
    b = api.delta(pair, Fraction(3, 8), direction="remove", method="best", target_gap=0)
    assert b.upper == 0 and b.details["upper_from"] == "analytic"


def _answer(lower, upper, direction):
    return Bracket("delta", mp.mpf(lower), mp.mpf(upper), "pld", direction, "bound", {})


@pytest.mark.parametrize("directions, expected", [(("remove", "add"), True), (("remove",), False), (("add",), True)])
def test_the_stop_rule_judges_the_answer_not_each_direction(directions, expected):
    """For "both" the answer is the max over the directions (F3): a wide remove bracket lying below a narrow add
    bracket cannot change it, so best stops (σ = 0.8, t = 10³ once ran analytic for 110 s for this reason)."""
    so_far = {"pld": {"remove": _answer("0.01", "0.02", "remove"), "add": _answer("0.1", "0.1005", "add")}}
    assert best._within("delta", directions, so_far, 0.01) is expected


def test_best_serves_large_epsilon_like_pld_and_contains_the_exact_delta():
    """best's δ range is pld's (any ε): at |ε| > 700 rdp and analytic are skipped, not the whole query (issue #30);
    the bracket holds the exact layer's δ (randomized response with ε0 = 800, t = 2, F2) in both signs of ε."""
    import mpmath as mp

    from verialloc import api
    from verialloc.config import Config
    from verialloc.mechanisms import RandomizedResponse

    config = Config(RandomizedResponse("800"), steps=2)
    for eps in ("790", "-720"):
        b = api.delta(config, eps, direction="remove", method="best")
        truth = api.delta(config, eps, direction="remove", method="exact", digits=20)
        assert mp.mpf(b.lower) <= mp.mpf(truth.lower) and mp.mpf(truth.upper) <= mp.mpf(b.upper)
        assert "rdp" in str(b.details.get("skipped", b.details)) or b.details.get("upper_from") == "pld"
