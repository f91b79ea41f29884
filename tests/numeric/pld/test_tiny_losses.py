"""Losses far below float64's resolution of e^ℓ (randomized response at ε0 ≤ 1e-8, t = 20001; hostile-user pass):
pld gave [-1e-12, +inf] (the moments about the offset cancelled, the envelopes' per-step drift compounded to a
truncated mass > 1). Reference: the exact layer (the binary pair's count vectors in arbitrary precision)."""

from __future__ import annotations

import math

import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import RandomizedResponse


@pytest.mark.parametrize("eps0", ["1e-8", "1e-9", "1e-12"])
def test_epsilon_of_tiny_randomized_response_is_a_finite_sound_bracket(eps0):
    cfg = Config(RandomizedResponse(eps0), steps=20001)
    exact = api.epsilon(cfg, "1e-5", method="exact", digits=20)
    got = api.epsilon(cfg, "1e-5", method="pld")
    assert math.isfinite(float(got.lower)) and math.isfinite(float(got.upper))
    assert got.lower <= exact.lower and exact.upper <= got.upper
    assert float(got.upper - got.lower) < 1e-9  # ε is ln(1 − δ) + O(ε0²): the bracket says so


@pytest.mark.parametrize("eps0", ["1e-9", "1e-12"])
@pytest.mark.parametrize("eps", ["0", "1e-10", "-1e-6"])
def test_delta_of_tiny_randomized_response_brackets_the_exact_one(eps0, eps):
    cfg = Config(RandomizedResponse(eps0), steps=20001)
    exact = api.delta(cfg, eps, method="exact", digits=20)
    got = api.delta(cfg, eps, method="pld")
    assert got.lower <= exact.lower and exact.upper <= got.upper
    assert float(got.upper - got.lower) < 1e-9
