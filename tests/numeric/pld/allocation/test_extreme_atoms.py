"""Lower allocation PLDs keep the single-step outcomes beyond float64 as atoms (readout._extreme_atoms, F2, F24).

Pair P = (1/2, 1/2), Q = (1, 1e-400) and its swap, t = 3. Remove: the atom ℓ = ln(0.5·10^400) ≈ 920.3 has
X = e^ℓ beyond float64; under the component of P̄_t whose own step hits it (P-mass 1/2), ln(S/t) ≥ ℓ − ln 3. Add
(swapped pair): the atom ℓ = ln(2·10^−400) has X = 0 in float64; when all three steps hit it (Q-mass 1/8),
−ln(S/t) = −ℓ. The lower PLD must hold an atom at a loss no larger than the true one (mpmath, 50 digits) and a
mass no larger than the true one, both within a few ulps; its δ(ε) must stay below the exact layer's and, at ε
where only these outcomes count, reach it to within its float budget. The other pair/direction combinations
have no such outcome, and their lower δ must stay sound.

Checked to kill (on a scratch copy): `direction == "remove" and law.high_masses.size` → `or`, `law.low_mass > 0
and …` → `or` / `> 1`, the direction strings changed, `law.low_mass ** t` → `* t`, `high_losses - math.log(t)` →
`+`, `extra - 8 * _U * …` → `+`, `extra_m * (1.0 - kappa - 8 * _U)` → `1.0 + kappa …`, `keep = extra_m > 0` →
`< 0`, `if not np.any(keep)` → `if np.any(keep)`, and the merge's `[losses, extra[keep]]` / `[masses,
extra_m[keep]]` concatenated in swapped order. Equivalent: `extra_m > 0` → `>= 0` (it only adds zero-mass points).
"""

import mpmath as mp
import pytest

from verialloc import api
from verialloc.config import Config
from verialloc.mechanisms import DiscretePair
from verialloc.numeric.pld.allocation import allocation

HALF, TINY = ["1/2", "1/2"], ["1", "1e-400"]
T = 3
with mp.workdps(50):
    REMOVE_LOSS = mp.log(mp.mpf("0.5") * mp.mpf(10) ** 400) - mp.log(T)
    ADD_LOSS = -mp.log(2 * mp.mpf(10) ** -400)
#: (pair, direction, true loss of the extra outcome, its mass); None: no outcome beyond float64 in that direction
CASES = [
    pytest.param(HALF, TINY, "remove", REMOVE_LOSS, 0.5, id="remove"),
    pytest.param(TINY, HALF, "add", ADD_LOSS, 0.125, id="add"),
    pytest.param(HALF, TINY, "add", None, None, id="add-no-extreme"),
    pytest.param(TINY, HALF, "remove", None, None, id="remove-no-extreme"),
]


@pytest.mark.parametrize("p,q,direction,loss,mass", CASES)
def test_lower_pld_keeps_outcomes_beyond_float64(p, q, direction, loss, mass):
    low = allocation(DiscretePair(p, q).loss_law(), T).plds[direction, "lower"]
    if loss is not None:
        assert loss - mp.mpf("1e-11") <= low.losses[-1] <= loss and mass * (1 - 1e-13) <= low.masses[-1] <= mass
    else:
        assert low.losses[-1] < 10
    for eps in (1.0, 500.0, 915.0):
        exact = api.delta(Config(DiscretePair(p, q), steps=T), eps, direction=direction, method="exact")
        lower = float(low.delta_bound(eps))
        assert lower <= exact.lower
        if loss is not None:
            assert exact.lower - lower <= 2 * low.float_error + 1e-13 * exact.lower
