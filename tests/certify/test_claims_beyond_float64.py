"""δ claims below float64's range (hostile-user pass): --claimed-delta 1e-400 is 0.0 as a float, 1e-320 subnormal;
the pld step's tail-accurate floor was that float (ZeroDivisionError / OverflowError, exit 3). Now the floor is
kept at the float range's bottom: the step answers, and its bracket contains the exact layer's δ."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verialloc import api
from verialloc.certify.refine import LOSS_STEPS, _pld_step
from verialloc.certify.verdict import Claim
from verialloc.cli import main
from verialloc.config import Config
from verialloc.mechanisms import RandomizedResponse


@pytest.mark.parametrize("claimed", [Fraction(1, 10**400), Fraction(1, 10**320), Fraction(1, 10**310)])
def test_pld_step_of_a_claim_below_the_float_range_brackets_the_exact_delta(claimed):
    cfg = Config(RandomizedResponse(2), steps=20)
    step, _, _ = _pld_step(cfg, Claim("delta", Fraction(1), claimed), "remove", LOSS_STEPS[0], None, None)
    exact = api.delta(cfg, 1, direction="remove", method="exact")
    assert step.lower <= exact.upper and exact.lower <= step.upper
    assert step.lower > 0  # above every claim below the float range: refutes it, soundly


@pytest.mark.parametrize("claimed", ["1e-400", "1e-320"])
def test_certify_cli_refutes_a_claim_below_the_float_range(capsys, claimed):
    argv = ["certify", "--mechanism", "gaussian", "--sigma", "2", "--steps", "10", "--epsilon", "1"]
    assert main([*argv, "--claimed-delta", claimed]) == 4  # refuted: δ(1) > 0 for every Gaussian
    assert "REFUTED" in capsys.readouterr().out
