"""E[e^{−L}] of a PLD with an atom at −inf (F7): e^{−L} = +inf there, so any positive mass makes the mean +inf.

A realization has no −inf mass (F7 (i)); `exp_neg_mean` must still report +inf for one, whatever the size of the
atom in (0, 1] — validate_realization and dual then refuse it. Checked to kill (on a scratch copy):
`self.neg_inf_mass > 0` → `> 1` / `>= 1` / `>= 0` / `< 0` in exp_neg_mean, and its `float("inf")` → a finite value.
"""

import math

import numpy as np
import pytest

from verialloc.errors import InvalidParameter
from verialloc.numeric.pld.pld import PLD


@pytest.mark.parametrize("neg_inf_mass", [5e-324, 0.25, 0.5, 1.0])
def test_exp_neg_mean_is_infinite_with_mass_at_minus_inf(neg_inf_mass):
    pld = PLD(np.array([0.0, math.log(2.0)]), np.array([0.25, 0.25]), neg_inf_mass=neg_inf_mass, bound="lower")
    assert pld.exp_neg_mean() == math.inf
    with pytest.raises(InvalidParameter, match="neg_inf_mass"):
        pld.validate_realization()


def test_exp_neg_mean_without_minus_inf_atom_is_the_finite_sum():
    """1/4·e^0 + 1/4·e^{−ln 2} = 3/8 (hand-derived); the +inf atom adds nothing."""
    pld = PLD(np.array([0.0, math.log(2.0)]), np.array([0.25, 0.25]), inf_mass=0.5)
    assert abs(pld.exp_neg_mean() - 0.375) <= 1e-16
