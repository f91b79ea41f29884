"""Refining the grids tightens the bracket (issue #3): a finer grid never raises the upper bound nor lowers the
lower bound, up to the float64 rounding that directed arithmetic absorbs into the masses (≤ FLOAT_SLACK here).

Known exception (documented in docs/pld.md): the lower bound of the allocation's exp-space grid step h is not
monotone, because its contraction (exp_grid.contract) is not nested across grids — see the strict xfail below.
"""
import pytest

from verialloc.config import Config
from verialloc.mechanisms import Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.pld import pld_accountant as acc
from verialloc.numeric.pld.allocation import allocation
from verialloc.numeric.pld.loss_law import loss_law

#: directed float64 rounding absorbed into the masses grows with the grid length (~1e-10 at 10⁴ points)
FLOAT_SLACK = 1e-9
EPSILONS = (0.0, 0.5, 1.0)


def _deltas(config, step):
    out = {}
    for d in ("remove", "add"):
        for e in EPSILONS:
            b = acc.delta(config, e, d, 15, settings=acc.Settings(loss_step=step))
            out[d, e] = (float(b.lower), float(b.upper))
    return out


@pytest.mark.parametrize("config", [
    Config(Gaussian(1), scheme="poisson", steps=10, rate="0.1"),
    Config(Laplace(1), scheme="poisson", steps=5, rate="0.3"),
    Config(RandomizedResponse(1), scheme="poisson", steps=8, rate="0.25"),
    Config(Gaussian(1), steps=20, epochs=3),
], ids=["gauss-poisson", "laplace-poisson", "rr-poisson", "gauss-allocation-epochs"])
def test_loss_step_refinement_tightens(config):
    coarse, fine = _deltas(config, 2e-3), _deltas(config, 1e-3)
    for key in coarse:
        assert fine[key][1] <= coarse[key][1] + FLOAT_SLACK, (key, coarse[key], fine[key])
        assert fine[key][0] >= coarse[key][0] - FLOAT_SLACK, (key, coarse[key], fine[key])


@pytest.mark.parametrize("mech, steps", [(Gaussian(1), 1), (Gaussian(0.8), 10), (Laplace(1), 5), (RandomizedResponse(1), 4)])
def test_allocation_grid_refinement_never_raises_upper(mech, steps):
    """The upper spread is nested (linear interpolation onto grid h is a spread of that onto h/2), so halving
    h never raises the upper δ beyond the float slack and the finer grid's stated float budget (which grows
    like 1/h: it bounds the single-step CDF evaluation errors per cell)."""
    law = loss_law(mech)
    prev = None
    for h in (0.2, 0.1, 0.05):
        a = allocation(law, steps, epsilon_max=1.0, grid_step=h)
        cur = {d: a.plds[d, "upper"].delta_bound(list(EPSILONS)) for d in ("remove", "add")}
        if prev:
            for d in cur:
                slack = FLOAT_SLACK + 2 * a.plds[d, "upper"].float_error
                assert (cur[d] <= prev[d] + slack).all(), (h, d, cur[d] - prev[d], slack)
        prev = cur


@pytest.mark.xfail(strict=True, reason="known: the allocation lower contraction is not nested across grid steps")
def test_allocation_grid_refinement_lower_not_monotone():
    law = loss_law(Gaussian(1))
    coarse, fine = (allocation(law, 1, epsilon_max=1.0, grid_step=h).plds["remove", "lower"].delta_bound([0.1])
                    for h in (0.2, 0.1))
    assert fine[0] >= coarse[0] - FLOAT_SLACK
