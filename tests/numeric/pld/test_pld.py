"""The PLD type against brute-force pair PLDs and the exact layer: I14, I15, F2 δ and its inverse, F51 B.2(1)/(3)."""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verialloc.exact.finite_pair import FiniteLossPair
from verialloc.numeric.pld.pld import PLD
from verialloc.testing.assertions import assert_same_pld
from verialloc.testing.strategies import probability_pairs as discrete_pairs

TOL = 1e-13


def pair_pld(p, q) -> PLD:
    """L_{P,Q} by brute force (F6): ℓ = ln P/Q under P, equal values merged, P(Q = 0) at +inf."""
    table = {}
    for x, y in zip(p, q):
        if x > 0 and y > 0:
            key = float(mp.log(mp.mpf(x.numerator) * y.denominator / (mp.mpf(x.denominator) * y.numerator)))
            table[key] = table.get(key, 0.0) + float(x)
    values = sorted(table)
    inf = float(sum(x for x, y in zip(p, q) if y == 0))
    return PLD(np.array(values), np.array([table[v] for v in values]), inf_mass=inf)


epsilons = st.integers(-250, 250).map(lambda i: i / 100)


@given(discrete_pairs())
def test_realization_invariants_I14(pair):
    p, q = pair
    pld = pair_pld(p, q).validate_realization()
    assert pld.neg_inf_mass == 0
    assert abs(pld.total_mass - 1) <= TOL
    q_where_p = float(sum(y for x, y in zip(p, q) if x > 0))
    assert abs(pld.exp_neg_mean() - q_where_p) <= TOL  # E[e^{−L_{P,Q}}] = Q(P > 0) (F7 (i))


@given(discrete_pairs())
def test_dual_is_the_reversed_pair_and_an_involution_I15(pair):
    p, q = pair
    forward, backward = pair_pld(p, q), pair_pld(q, p)
    assert_same_pld(forward.dual(), backward)  # D(L_{P,Q}) = L_{Q,P}
    assert_same_pld(forward.dual().dual(), forward)  # D(D(L)) = L
    forward.dual().validate_realization()


@given(discrete_pairs(), epsilons)
def test_delta_matches_exact_pair_both_directions(pair, epsilon):
    p, q = pair
    with mp.workdps(30):
        exact = FiniteLossPair(p, q)
        for pld, direction in ((pair_pld(p, q), "remove"), (pair_pld(q, p), "add")):
            assert abs(pld.delta(epsilon) - float(exact.delta(Fraction(epsilon), direction))) <= TOL


def test_delta_is_vectorized_and_counts_the_inf_atom():
    pld = PLD(np.array([0.0, 1.0]), np.array([0.5, 0.3]), inf_mass=0.2)
    np.testing.assert_allclose(pld.delta([5.0, 1.0, 0.5]), [0.2, 0.2, 0.2 + 0.3 * -np.expm1(-0.5)])


@given(discrete_pairs(), st.integers(1, 999).map(lambda i: i / 1000))
def test_epsilon_inverts_delta_like_the_exact_pair(pair, delta):
    p, q = pair
    pld = pair_pld(p, q)
    eps = pld.epsilon(delta)
    with mp.workdps(30):
        exact = FiniteLossPair(p, q).epsilon(Fraction(delta))
    if mp.isinf(exact):
        assert eps == float(exact)
        return
    assert abs(eps - float(exact)) <= 1e-9
    assert pld.delta(eps) <= delta + TOL
    assert pld.delta(eps - 1e-7) > delta - TOL


def test_float_error_moves_epsilon_and_delta_in_the_safe_direction():
    base = PLD(np.array([-0.5, 0.2, 1.0, 2.0]), np.array([0.3, 0.3, 0.3, 0.1]))
    upper, lower = base.with_bound("upper"), base.with_bound("lower")
    upper = PLD(upper.losses, upper.masses, float_error=1e-3, bound="upper")
    lower = PLD(lower.losses, lower.masses, float_error=1e-3, bound="lower")
    for target in (0.01, 0.05, 0.2):
        assert upper.epsilon(target) > base.epsilon(target) > lower.epsilon(target)
        # ε of the upper PLD certifies δ + float_error ≤ target; of the lower, δ − float_error ≥ target
        assert base.delta(upper.epsilon(target)) + 1e-3 <= target + TOL
        assert base.delta(lower.epsilon(target)) - 1e-3 >= target - TOL
    for eps in (0.0, 0.5, 1.5):
        assert upper.delta_bound(eps) == pytest.approx(base.delta(eps) + 1e-3)
        assert lower.delta_bound(eps) == pytest.approx(max(base.delta(eps) - 1e-3, 0.0))


def sf(pld: PLD, x: float) -> float:
    return float(np.sum(pld.masses[pld.losses > x])) + pld.inf_mass


def test_counterexample_F51_B2_1_dual_breaks_stochastic_order_I20():
    ln2, ln4 = np.log(2), np.log(4)
    v = PLD(np.array([ln2, ln4]), np.array([0.6, 0.4])).validate_realization()
    u = PLD(np.array([ln2, ln4]), np.array([0.4, 0.6])).validate_realization()
    points = [-2.0, -ln4, -1.0, -ln2, 0.0, ln2, 1.0, ln4, 2.0]
    assert all(sf(v, x) <= sf(u, x) for x in points)  # V ⪯ U
    dv, du = v.dual(), u.dual()
    np.testing.assert_allclose(dv.losses, [-ln4, -ln2])
    np.testing.assert_allclose(dv.masses, [0.1, 0.3])
    assert dv.inf_mass == pytest.approx(0.6)
    np.testing.assert_allclose(du.masses, [0.15, 0.2])
    assert du.inf_mass == pytest.approx(0.65)
    # neither dual dominates the other
    assert any(sf(dv, x) > sf(du, x) for x in points) and any(sf(du, x) > sf(dv, x) for x in points)
    # B.2(3): D(U) ⪯_(0,c) D(V) holds with the corrected c = E[e^{−V}] − E[e^{−U}] = 0.05 (E13) ...
    c = v.exp_neg_mean() - u.exp_neg_mean()
    assert c == pytest.approx(0.05)
    assert all(sf(du, x) <= sf(dv, x) + c + TOL for x in points)
    # ... and fails with the printed constant f_U(inf) − f_V(inf) = 0
    printed = u.inf_mass - v.inf_mass
    assert any(sf(du, x) > sf(dv, x) + printed for x in points)


def test_invalid_pld_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="losses"):
        PLD(np.array([1.0, 0.0]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="bound"):
        PLD(np.array([0.0]), np.array([1.0]), bound="tight")
    with pytest.raises(ValueError, match="E\\[exp\\(-L\\)\\]"):
        PLD(np.array([-1.0]), np.array([1.0])).validate_realization()


@pytest.mark.parametrize("bound", ["upper", "lower"])
def test_dual_carries_the_float_budget_through_the_weights(bound):
    """F7 / Alg. 7: D(L) weighs each mass by e^{−l}; an ℓ1 error fe of the masses moves the dual's masses by at most
    max(1, max e^{−l})·fe and its +inf atom by as much again, so the dual's budget is at least twice that
    (derived here from the losses, not read from the code). Would catch a budget dropped or not scaled."""
    losses = np.array([-3.0, -0.5, 0.25, 2.0])
    pld = PLD(losses, np.array([0.01, 0.29, 0.4, 0.3]), inf_mass=0.0, truncated=0.0, float_error=1e-9, bound=bound)
    dual = pld.dual()
    needed = 2 * max(1.0, float(np.exp(-losses).max())) * 1e-9
    assert dual.float_error >= needed, (dual.float_error, needed)
