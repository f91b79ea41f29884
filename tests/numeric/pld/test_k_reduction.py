"""k-of-t allocation when k does not divide t (F27 reduction to ⌊t/k⌋ steps; issue #16 item 1, mutation A4).

Reference: the exact k-subset enumeration of the exact layer (elementary symmetric likelihood, not ⌊t/k⌋).
A ⌈t/k⌉ slip gives upper 0.429 against the exact 0.541 at RR ε0 = 1, t = 4, k = 3, ε = 0.2, add.
"""

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import DiscretePair, RandomizedResponse

CASES = [(4, 3), (5, 2), (7, 3), (5, 3), (6, 4), (7, 2)]


def exact(config, eps, direction):
    with mp.workdps(40):
        return api.delta(config, eps, direction=direction, method="exact", digits=25).lower


@pytest.mark.parametrize("t,k", CASES)
@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("method", ["pld", "rdp", "best"])
def test_randomized_response_bracket_contains_exact(t, k, direction, method):
    config = Config(RandomizedResponse(1), steps=t, k=k)
    for eps in (0.0, 0.2, 0.7):
        try:
            got = api.delta(config, eps, direction=direction, method=method)
        except ValueError as exc:  # verialloc's UnsupportedRequest (e.g. rdp has no add direction, E2)
            assert "not supported" in str(exc)
            return
        ref = exact(config, eps, direction)
        assert got.lower <= ref <= got.upper, (t, k, eps, direction, method, got.lower, ref, got.upper)


def test_reported_ceiling_slip_case_is_caught():
    """The upper end must reach the exact value at the issue's point (0.541 vs a slipped 0.429)."""
    config = Config(RandomizedResponse(1), steps=4, k=3)
    got = api.delta(config, 0.2, direction="add", method="pld")
    assert got.upper >= exact(config, 0.2, "add") > mp.mpf("0.5")


def test_three_atom_pair_bracket_contains_exact():
    pair = DiscretePair(["1/2", "1/3", "1/6"], ["1/6", "1/3", "1/2"])
    for t, k in CASES[:4]:
        config = Config(pair, steps=t, k=k)
        for direction in ("remove", "add"):
            got = api.delta(config, 0.3, direction=direction, method="pld")
            assert got.lower <= exact(config, 0.3, direction) <= got.upper, (t, k, direction)


@pytest.mark.parametrize("t", [2, 3, 5])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_every_step_used_gives_a_tight_bracket(t, direction):
    """k = t is the t-fold composition: both ends come from it, so the lower end is tight too (it was the
    k = 1 profile: 0.024 against the exact 0.531 at ε0 = 7/8, t = 4)."""
    config = Config(RandomizedResponse("7/8"), steps=t, k=t, epochs=2)
    got = api.delta(config, 0.5, direction=direction, method="pld")
    ref = exact(config, 0.5, direction)
    assert got.lower <= ref <= got.upper
    assert ref - got.lower <= 1e-4 * ref, (got.lower, ref)


@pytest.mark.parametrize("t,k,eps0", [(10, 4, "1"), (7, 2, "0.5"), (5, 3, "2"), (11, 3, "0.875")])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_unequal_blocks_beat_the_floor_reduction(t, k, eps0, direction):
    """k ∤ t: the upper end splits t into k − r blocks of ⌊t/k⌋ and r of ⌈t/k⌉ steps (F27's proof; proofs_checks
    F27u), so it lies below F27's own value — the exact composition of k copies of A_⌊t/k⌋, which every upper end
    built on F27 exceeds (RR ε0 = 1, t = 10, k = 4, remove: 3.99329 before, now 3.9029141 against the exact
    3.9029140) — and above the exact k-subset value."""
    config = Config(RandomizedResponse(eps0), steps=t, k=k)
    truth = api.epsilon(config, "1e-5", direction=direction, method="exact").upper
    f27 = api.epsilon(
        Config(RandomizedResponse(eps0), steps=t // k, epochs=k), "1e-5", direction=direction, method="exact"
    ).lower
    got = api.epsilon(config, "1e-5", direction=direction, method="pld")
    assert got.lower <= truth <= got.upper < f27, (got.lower, truth, got.upper, f27)
