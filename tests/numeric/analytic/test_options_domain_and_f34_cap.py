"""Known gaps of issue #15 in the analytic bounds: the `Options` domain (its documented open and closed ends, each
clause of the `and`s on its own) and the cap of the truncated-Poisson bound (F34) at δ = 1.

References are hand-derived: the domain written in `Options`' messages (η points an integer in [2, 200], η span a
number in (1e−3, 1e9), tail in (0, 1e−3), rate in (0, 1], hoeffding cosh|sinh (E8), τ factor 1|2 (E7)), and
δ ≤ 1 for every pair together with a lower bound on F34's additive term that exceeds 1.
"""

import math
from fractions import Fraction

import pytest

from verialloc import Config, RandomizedResponse
from verialloc.errors import InvalidParameter
from verialloc.numeric.analytic import Options, truncated_poisson
from verialloc.numeric.pld.pld_accountant import Settings

VALID = [
    {},
    {"eta_points": 2},
    {"eta_points": 200},
    {"eta_span": math.nextafter(1e-3, 1.0)},
    {"eta_span": 0.5},
    {"eta_span": math.nextafter(1e9, 0.0)},
    {"tail": 5e-4},
    {"tail": 5e-324},
    {"tail": math.nextafter(1e-3, 0.0)},
    {"rate": 1},
    {"rate": 0.5},
    {"rate": 5e-324},
    {"hoeffding": "cosh"},
    {"hoeffding": "sinh"},
    {"tau_factor": 1},
    {"tau_factor": 2},
]
INVALID = [
    {"eta_points": 1},
    {"eta_points": 201},
    {"eta_points": 2.5},
    {"eta_span": 1e-3},
    {"eta_span": 1e9},
    {"eta_span": 2e9},
    {"eta_span": Fraction(5)},
    {"tail": 0.0},
    {"tail": 1e-3},
    {"tail": 0.5},
    {"tail": Fraction(1, 10**6)},
    {"rate": 0},
    {"rate": 1.5},
    {"rate": 2},
    {"hoeffding": "tanh"},
    {"tau_factor": 0},
    {"tau_factor": 3},
]


@pytest.mark.parametrize("kwargs", VALID, ids=repr)
def test_options_accept_their_documented_domain(kwargs):
    """Every documented value, ends included where closed, is accepted. Kills: each check inverted (`not` dropped),
    η points from 3 or `2 <` / `< 200`, η span from 1.001, tail from 1, rate `< 1`, `is None` for `is not None`,
    "cosh"/"sinh" misspelt, τ factor (2, 2)."""
    Options(**kwargs)


@pytest.mark.parametrize("kwargs", INVALID, ids=repr)
def test_options_reject_outside_their_documented_domain(kwargs):
    """Every value outside (open ends, wrong type) raises InvalidParameter. Kills: `and` → `or` in the η points,
    η span, tail and rate checks (a float 2.5, 2e9, 0.5 or a Fraction passes one clause only), η points to 201,
    span `<= 1e9` or < 1e9 + 1, tail `0 <=` / `<= 1e-3` / < 1.001, rate `0 <=` / `<= 2`, τ factor (1, 3)."""
    with pytest.raises(InvalidParameter):
        Options(**kwargs)


def test_truncated_poisson_bound_is_capped_at_one():
    """F34 with n = k·E = 3 copies of A_2 and η span ½ (every η = (1 + g)/2 ≤ ¾ < 1, so every candidate carries the
    additive term): the term n·(m·δ0 + β) ≥ n·β ≥ 3·e^{−m/2} = 3/e > 1 (β = e^{−mγ²/(2h²)} with γ ≤ 1, h ≥ 1), so
    the uncapped bound exceeds 1 at every η and the returned bound is exactly the trivial δ ≤ 1, in both
    directions. Kills: the cap `min(value, 1.0)` → `min(value, 2.0)`."""
    config = Config(RandomizedResponse(1), steps=2, epochs=3)
    options = Options(pld=Settings(loss_step=1e-3, tail=1e-14), eta_points=3, eta_span=0.5)
    for direction in ("remove", "add"):
        assert truncated_poisson.delta(config, 1.0, direction, options).value == 1.0
