"""An upper PLD keeps all its mass through compositions (found by `verialloc fuzz --seed 2026`).

Poisson with a tiny rate and many compositions: the composition trimmed its surplus to a float total from np.sum,
which drifts below the exact total by n·u per composition; the upper PLD lost ~1e-13 of mass unaccounted, so its
δ at ε = −5 fell below the trivial bound 1 − e^ε (I1) and `best` crashed on crossed ends. Reference: 1 − e^ε in
mpmath (a lower bound on every δ), and the exact layer where it applies.
"""

from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import RandomizedResponse
from verialloc.numeric.pld.pld_accountant import Settings

CASES = [(Fraction(1), 14, 89), (Fraction(1), 13, 12), (Fraction(1, 10000), 2, 13)]


@pytest.mark.parametrize("eps0,steps,epochs", CASES)
@pytest.mark.parametrize("method", ["pld", "best"])
def test_upper_end_is_at_least_the_trivial_bound(eps0, steps, epochs, method):
    config = Config(RandomizedResponse(eps0), scheme="poisson", steps=steps, epochs=epochs, rate=Fraction(1, 8192))
    got = api.delta(config, -5, direction="add", method=method, settings=Settings(loss_step=1e-3))
    with mp.workdps(40):
        assert got.upper >= 1 - mp.exp(-5)
    assert got.lower <= got.upper
