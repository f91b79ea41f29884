"""Laplace at ε = 1/b exactly: δ = 0 (found by verialloc fuzz --seed 7: 1.6e-27 from comparing two roundings of the
rational kink, and certify REFUTED the true claim δ = 0). Reference: the closed form's exact kink, F2."""

from fractions import Fraction

import pytest

from verialloc import api
from verialloc.certify import certify, make_claim
from verialloc.config import Config
from verialloc.mechanisms import Laplace


@pytest.mark.parametrize("scale", [Fraction(400, 71), Fraction(10000, 239), Fraction(3, 7)])
def test_delta_at_the_kink_is_exactly_zero(scale):
    config = Config(Laplace(scale), steps=1)
    for direction in ("remove", "add"):
        got = api.delta(config, 1 / scale, direction=direction, digits=20)
        assert got.lower == got.upper == 0
        assert api.delta(config, 1 / scale - Fraction(1, 10**30), direction=direction, digits=20).lower > 0


def test_certify_accepts_the_true_zero_claim():
    cert = certify(
        Config(Laplace(Fraction(10000, 239)), steps=1),
        make_claim(epsilon="0.0239", claimed_delta="0"),
        direction="remove",
        budget=5,
    )
    assert cert.verdict == "certified"
