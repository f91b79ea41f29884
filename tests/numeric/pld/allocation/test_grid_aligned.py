"""Grid-aligned mechanism parameters: losses that land exactly on grid points or grid edges (issue #10, item 1).

Class of the defect: an atom whose exp-space value is the grid offset o = e^{min ℓ} was classified twice — once
by the cells' CDFs (np.log of the edge) and once by a second ln of the offset (math.log), which rounds to the
other side of the atom for ε0 = 7/8 — and its mass was lost from the upper PLD. Every finite-pair query in
this file is checked against the exact count enumeration (verialloc.exact), never against the code itself.
"""

import math
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import DiscretePair, RandomizedResponse
from verialloc.numeric.pld.allocation.exp_grid import spread

#: dyadic ε0 (the loss ±ε0 is then exactly representable and lands on dyadic grid points)
DYADIC = st.builds(lambda num, exp: Fraction(num, 2**exp), st.integers(1, 40), st.integers(0, 5))


def _contains(config, eps, direction):
    got = api.delta(config, eps, direction=direction, method="pld")
    with mp.workdps(40):
        exact = api.delta(config, eps, direction=direction, method="exact", digits=25).lower
    assert got.lower <= exact <= got.upper, (config, eps, direction, got.lower, exact, got.upper)


@pytest.mark.parametrize(
    "steps,k,epochs,direction",
    [(4, 4, 1, "remove"), (2, 2, 2, "remove"), (1, 1, 1, "add"), (1, 1, 1, "remove"), (3, 1, 1, "add")],
)
def test_issue_reproductions_eps0_seven_eighths(steps, k, epochs, direction):
    """The reported layouts with ε0 = 7/8 (upper was 0.2358 against the exact 0.531; t = 1 add crossed)."""
    _contains(Config(RandomizedResponse(Fraction(7, 8)), steps=steps, k=k, epochs=epochs), 0.5, direction)


def test_spread_keeps_all_mass_when_an_atom_sits_on_the_offset():
    """The upper single step is a spread: it keeps all Q-mass (F2, F8); for 7/8 the atom at the offset was lost."""
    law = (RandomizedResponse(Fraction(7, 8))).loss_law()
    values = law.atoms()[0]
    offset = math.exp(values[0])
    grid = spread(law, 0.002, 2000, offset)
    assert abs(float(grid.masses.sum()) - 1.0) < 1e-12


@given(
    eps0=DYADIC,
    t=st.integers(1, 6),
    direction=st.sampled_from(["remove", "add"]),
    eps=st.sampled_from([0.0, 0.125, 0.5, 0.875, 1.0]),
    data=st.data(),
)
def test_dyadic_randomized_response_brackets_exact(eps0, t, direction, eps, data):
    """I11 on dyadic ε0 and dyadic ε, k ≤ t, both directions."""
    k = data.draw(st.integers(1, t))
    _contains(Config(RandomizedResponse(eps0), steps=t, k=k), eps, direction)


@given(num=st.integers(1, 15), t=st.integers(1, 4), direction=st.sampled_from(["remove", "add"]))
def test_pairs_whose_losses_are_multiples_of_the_loss_step_bracket_exact(num, t, direction):
    """Pairs with likelihood ratios 2^{±num} (losses ±num·ln 2, the offset e^{−num ln 2} = 2^{−num} exact in float)."""
    p = [Fraction(2**num, 2**num + 1), Fraction(1, 2**num + 1)]
    q = [Fraction(1, 2**num + 1), Fraction(2**num, 2**num + 1)]
    _contains(Config(DiscretePair(p, q), steps=t), num * 0.25, direction)
