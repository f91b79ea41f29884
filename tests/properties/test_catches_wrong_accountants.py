"""The soundness helpers catch deliberately wrong accountants (and pass correct ones).

* `rounded_down_upper`: composes a PLD whose losses were rounded *down* (a dominated PLD, F10/F49) but reports its
  δ as an upper bound (the E15 mistake: Alg. 4's printed rounding direction);
* `remove_for_add`: answers the add direction with the remove-direction value (the E1 mistake, [000] Thm 4.1).
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from verialloc import Config, DiscretePair, Gaussian, RandomizedResponse, api
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.pld.compose import self_compose
from verialloc.numeric.pld.pld import PLD
from verialloc.testing.assertions import assert_sound_lower, assert_sound_upper

FAST = Settings(loss_step=1e-2, tail=1e-10, grid_step=2e-2)
ASYMMETRIC = DiscretePair([Fraction(3, 5), Fraction(2, 5), 0], [Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)])


def rounded_down_upper(config, epsilon, direction="remove", grid=0.75):
    """WRONG: t-fold composition (Poisson rate 1) of the single-step PLD with losses rounded down to `grid`."""
    values, p_masses, _ = config.mechanism.loss_law().atoms()
    floored = np.floor(values / grid) * grid
    uniq, index = np.unique(floored, return_inverse=True)
    single = PLD(uniq, np.bincount(index, p_masses, uniq.size), bound="upper")  # claims "upper": it is not
    return float(self_compose(single, config.steps, tail=0.0, step=grid).delta(float(epsilon)))


def remove_for_add(config, epsilon, direction="remove"):
    """WRONG for direction="add": returns the remove-direction profile whatever the direction (erratum E1)."""
    return float(api.delta(config, epsilon, direction="remove").upper)


def test_rounding_the_pld_down_is_caught_E15():
    config = Config(RandomizedResponse(1), "poisson", steps=3, rate=1)
    with pytest.raises(AssertionError) as caught:
        assert_sound_upper(rounded_down_upper, config, epsilon=Fraction(1, 2), direction="remove")
    message = str(caught.value)
    for text in (
        "unsound upper bound",
        "rounded_down_upper",
        "delta(epsilon=1/2)",
        "direction=remove",
        "randomized-response(eps0=1) scheme=poisson, steps=3",
        "method 'exact'",
        "below it by",
    ):
        assert text in message, text
    # the same accountant with a grid containing the losses (±1) rounds nothing: it passes
    assert_sound_upper(rounded_down_upper, config, epsilon=Fraction(1, 2), direction="remove", grid=0.5)


def test_remove_bound_used_for_add_is_caught_E1():
    config = Config(ASYMMETRIC, steps=2)
    assert_sound_upper(remove_for_add, config, epsilon=2, direction="remove")  # right for remove
    with pytest.raises(AssertionError) as caught:
        assert_sound_upper(remove_for_add, config, epsilon=2, direction="add")
    message = str(caught.value)
    for text in (
        "unsound upper bound",
        "remove_for_add",
        "direction=add",
        "discrete(p=[3/5, 2/5, 0]",
        "delta ∈ [0.25, 0.25]",
    ):
        assert text in message, text


def test_lower_bound_claims_are_checked_too():
    config = Config(ASYMMETRIC, steps=2)
    add_value = lambda config, epsilon, direction: float(api.delta(config, epsilon, direction="add").lower)  # noqa: E731
    assert_sound_lower(add_value, config, epsilon=2, direction="add")
    with pytest.raises(AssertionError, match="unsound lower bound.*direction=remove.*above it by 0.25"):
        assert_sound_lower(add_value, config, epsilon=2, direction="remove")


def test_nan_and_non_numbers_are_caught():
    config = Config(RandomizedResponse(1), steps=2)
    with pytest.raises(AssertionError, match="NaN or not a number"):
        assert_sound_upper(lambda c, **kw: math.nan, config, epsilon=1)
    with pytest.raises(AssertionError, match="NaN or not a number"):
        assert_sound_lower(lambda c, **kw: "0.1", config, delta="1e-3")


def test_beyond_the_exact_layer_the_pld_bracket_is_the_reference():
    """Gaussian allocation at t = 20 is outside the exact layer: the certified pld bracket decides."""
    config = Config(Gaussian(1), steps=20)
    pld = lambda c, epsilon, direction: float(
        api.delta(
            c,
            epsilon,
            direction=direction,
            method="pld",  # noqa: E731
            settings=FAST,
        ).upper
    )
    ref = assert_sound_upper(pld, config, epsilon=Fraction(1, 2), pld_settings=FAST, direction="remove")
    assert ref.method == "pld"
    halved = lambda c, epsilon, direction: pld(c, epsilon, direction) / 2  # noqa: E731
    with pytest.raises(AssertionError, match="method 'pld', error_kind 'bound'"):
        assert_sound_upper(halved, config, epsilon=Fraction(1, 2), pld_settings=FAST, direction="remove")


def test_epsilon_queries_and_argument_errors():
    config = Config(RandomizedResponse(Fraction(1, 2)), steps=3)
    exact = float(api.epsilon(config, "1e-2", direction="both").upper)
    assert_sound_upper(lambda c, delta, direction: exact * (1 + 1e-9), config, delta="1e-2", direction="both")
    with pytest.raises(AssertionError, match=r"epsilon\(delta=1e-2\)"):
        assert_sound_upper(lambda c, delta, direction: exact * 0.99, config, delta="1e-2", direction="both")
    with pytest.raises(TypeError, match="exactly one"):
        assert_sound_upper(lambda c, **kw: 0.0, config, epsilon=1, delta="1e-3")
