"""Inconsistent certified ends are bugs, never clipped (issue #10 item 9), and the pld trivial ε end is rounded
down (item 3).

References: mpmath at 60 digits for ln(1 − δ); the contract that two directed bounds of one quantity cannot cross.
"""

import math

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verialloc import api
from verialloc.cli import main
from verialloc.config import Config
from verialloc.errors import InternalError
from verialloc.mechanisms import Gaussian
from verialloc.numeric.pld import pipeline, pld_accountant


def test_summed_output_lower_end_above_the_upper_end_is_an_internal_error():
    config = Config(Gaussian(1), steps=10, k=10)
    with pytest.raises(InternalError, match="summed-output"):
        pipeline._raised(0.1, 0.2, 0.3, None, config, [])
    assert pipeline._raised(0.1, 0.2, 0.15, None, config, []) == 0.15  # a valid raise is kept as is


def test_crossed_pld_ends_are_an_internal_error():
    with pytest.raises(InternalError, match="crossed"):
        pipeline._raised(0.3, 0.2, None, None, Config(Gaussian(1), steps=10), [])


def test_cli_reports_an_internal_error_with_status_3(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise InternalError("planted")

    monkeypatch.setattr(pld_accountant, "query", broken)
    code = main(
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "3", "--epsilon", "1", "--method", "pld"]
    )
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and "planted" in err


@given(delta=st.floats(1e-300, 0.5))
def test_trivial_epsilon_end_is_at_most_ln_one_minus_delta(delta):
    """The lower ε end is max(pld lower, ln(1 − δ) rounded down): the latter never exceeds the true ln(1 − δ)."""
    from verialloc.rounding import trivial_epsilon_lower

    with mp.workdps(60):
        assert mp.mpf(trivial_epsilon_lower(delta)) <= mp.log1p(-mp.mpf(delta))  # log(1 − δ) cancels at δ < 1e-50
    assert math.log1p(-delta) >= trivial_epsilon_lower(delta)


def test_pld_epsilon_lower_end_is_directed_when_the_trivial_bound_decides():
    """Large δ, one Gaussian step with huge σ: the lower end is the trivial ln(1 − δ), which must not round up."""
    delta = 0.4
    got = api.epsilon(Config(Gaussian(50), steps=1), delta, direction="remove", method="pld")
    exact = api.epsilon(Config(Gaussian(50), steps=1), delta, direction="remove", method="exact", digits=30)
    assert got.lower <= exact.lower <= got.upper
