"""Issue #16 item 7: the quadrature brackets of the exact layer (t = 2, Gaussian and Laplace, F25).

`api.delta(Config(mech, steps=2), ε, method="exact")` answers with a Bracket of error_kind "quadrature" built by
`verialloc.exact.quadrature`. Checked here: lower ≤ estimate ≤ upper; the bracket at 15 digits contains the same
quadrature run at 40 digits (an independent, much finer evaluation: different node counts and working precision);
and, for the Gaussian, the bracket agrees with formulas.md §12.1 (8 significant digits, computed with SciPy and a
3001² grid, "agreement ~1e−6"; entries are compared within that table's own stated accuracy).
"""

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, Laplace, api
from verialloc.exact.quadrature import allocation_delta_quadrature

# §12.1: sigma -> eps -> (remove, add), t = 2, k = 1
TABLE_12_1 = {
    0.5: {
        0: (0.59975061, 0.59975061),
        0.5: (0.50209809, 0.49124799),
        1: (0.40457750, 0.38033919),
        2: (0.23232134, 0.18644915),
    },
    1: {
        0: (0.29776223, 0.29776223),
        0.5: (0.14917752, 0.14268697),
        1: (0.059206501, 0.050197662),
        2: (0.0047457776, 0.0020559245),
    },
    2: {
        0: (0.14402832, 0.14402832),
        0.5: (0.018326595, 0.017397486),
        1: (0.00064612837, 0.00047900624),
        2: (2.8811863e-08, 1.9429956e-09),
    },
}
CASES = [(s, e, d) for s in TABLE_12_1 for e in TABLE_12_1[s] for d in ("remove", "add")]


def check_bracket(mech, eps, direction):
    bracket = api.delta(Config(mech, steps=2), eps, direction=direction, method="exact", digits=15)
    assert bracket.error_kind == "quadrature"
    estimate = bracket.details["estimate"]
    assert bracket.lower <= estimate <= bracket.upper, bracket
    with mp.workdps(50):
        fine, err = allocation_delta_quadrature(mech, 2, eps, direction, digits=40)
        assert err <= abs(fine) * mp.mpf(10) ** -35 + mp.mpf(10) ** -60
        assert bracket.lower <= fine <= bracket.upper, (bracket, fine)
        # the bracket is as tight as promised (15 digits): width ≤ 1e−14 relative
        assert bracket.upper - bracket.lower <= abs(fine) * mp.mpf("1e-14") + mp.mpf(10) ** -40
    return bracket


@pytest.mark.parametrize("sigma,eps,direction", CASES)
def test_gaussian_t2_bracket_contains_fine_quadrature_and_table(sigma, eps, direction):
    """Would catch: a bracket built around the wrong estimate, an error estimate too small (bracket misses the
    40-digit value), a remove/add swap (the table's columns differ for ε > 0)."""
    bracket = check_bracket(Gaussian(sigma), eps, direction)
    table = TABLE_12_1[sigma][eps][0 if direction == "remove" else 1]
    mid = (bracket.lower + bracket.upper) / 2
    assert abs(mid - table) <= 1e-6 * table, (float(mid), table)


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.3, 0.6])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_laplace_t2_bracket_contains_fine_quadrature(scale, eps, direction):
    """Laplace: the loss law has atoms and kinks (a harder integrand); same containment check at 40 digits, and
    δ_A2(ε) ≤ δ_{Lap}(ε) (joint convexity of the hockey-stick divergence in the pair, F2/F12; one step in closed form:
    1 − e^{(ε−ε0)/2} for |ε| < ε0 = 1/b, 0 above), strictly positive below ε0."""
    bracket = check_bracket(Laplace(scale), eps, direction)
    e0 = 1 / mp.mpf(scale)
    single = -mp.expm1((eps - e0) / 2) if eps < e0 else mp.mpf(0)
    assert bracket.lower <= single
    if eps < e0:
        assert bracket.upper > 0
