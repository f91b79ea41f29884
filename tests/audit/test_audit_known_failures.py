"""Known failures of third-party accountants, reproduced as flagged rows against the shipped golden brackets.
Each test skips when its library is absent (install with pip install 'verialloc[audit]')."""

import math

import pytest

from verialloc.audit import ERROR, LOOSE, OK, OUTSIDE, UNSAFE, audit_one
from verialloc.audit.adapters import registry

pytestmark = pytest.mark.anchor


def row(accountant, entry_id, golden_by_id, module):
    pytest.importorskip(module)
    return audit_one(registry()[accountant], golden_by_id[entry_id])


def test_dp_accounting_pld_inf_at_tiny_delta(golden_by_id):
    """PLDAccountant(1e-4), q=1e-3, σ=0.8, T=1e3: get_epsilon(1e-15) = inf (certified ε ≈ 3.531)."""
    r = row("dp_accounting.pld", "dpsgd-s0.8-T1e3-d1e-15", golden_by_id, "dp_accounting")
    assert r.flag == LOOSE and r.reported == math.inf


def test_dp_accounting_pld_delta_floor(golden_by_id):
    """Same accountant, get_delta(8) ≈ 1.5e-15: a float floor far above the certified δ(8) < 1e-26."""
    r = row("dp_accounting.pld", "dpsgd-s0.8-T1e3-e8", golden_by_id, "dp_accounting")
    assert r.flag == LOOSE and 1e-16 < r.reported < 1e-14


@pytest.mark.parametrize("entry_id", ["dpsgd-s1-T1e4-d1e-5", "dpsgd-s1-T1e6-d1e-5"])
def test_dp_accounting_optimistic_pld_reports_zero(golden_by_id, entry_id):
    """from_gaussian_mechanism(pessimistic_estimate=False) at q=1e-3, σ=1, T=1e4 and 1e6, δ=1e-5: ε = 0. A declared
    lower end of 0 is true (not UNSAFE), only uninformative: LOOSE."""
    r = row("dp_accounting.pld-optimistic", entry_id, golden_by_id, "dp_accounting")
    assert r.claims == "lower" and r.flag == LOOSE and r.reported == 0


def test_dp_accounting_optimistic_pld_above_the_truth(golden_by_id):
    """Same accountant at q=1e-3, σ=0.8, T=1e3, δ=1e-15: the declared lower end ≈ 10.46 exceeds the certified
    upper ≈ 3.531, so it is false: UNSAFE for a lower claim."""
    r = row("dp_accounting.pld-optimistic", "dpsgd-s0.8-T1e3-d1e-15", golden_by_id, "dp_accounting")
    assert r.claims == "lower" and r.flag == UNSAFE and r.reported > 10


def test_prv_estimate_is_outside_not_unsafe(golden_by_id):
    """prv.estimate at 100 compositions of σ = 2, δ = 1e-10 is ~2e-9 relative below the exact value: OUTSIDE."""
    r = row("prv.estimate", "gauss-s2-T100-d1e-10", golden_by_id, "prv_accountant")
    assert r.claims == "estimate" and r.flag in (OUTSIDE, OK)


def test_dp_accounting_pld_ok_at_moderate_delta(golden_by_id):
    r = row("dp_accounting.pld", "dpsgd-s0.8-T1e3-d1e-5", golden_by_id, "dp_accounting")
    assert r.flag == OK


def test_dp_accounting_pld_just_below_the_truth_at_delta_1e10(golden_by_id):
    """A boundary of the accountant map (docs/stability.md, "Where accountants break"): PLDAccountant(1e-4),
    q = 1e-2, σ = 1, T = 1e4 is inside the certified bracket at δ = 1e-5 and 0.0102% below its lower end at
    δ = 1e-10 (9.31517 against [9.31612, 9.31644])."""
    assert row("dp_accounting.pld", "dpsgd-s1-q1e-2-T1e4-d1e-5", golden_by_id, "dp_accounting").flag == OK
    r = row("dp_accounting.pld", "dpsgd-s1-q1e-2-T1e4-d1e-10", golden_by_id, "dp_accounting")
    assert r.flag == UNSAFE and 9.31 < r.reported < 9.3161 and "below the certified lower bound" in r.reason


def test_dp_accounting_pld_below_the_truth_from_T1e3_to_T1e5(golden_by_id):
    """A boundary of the Poisson map over the performance map's region (docs/stability.md, "Where accountants
    break"): PLDAccountant(1e-4), q = 1e-2, σ = 5, δ = 1e-10 is inside the certified bracket at T = 1e3 (0.368035
    against [0.367923, 0.368046]) and x(1 - 9.6e-05) of its lower end at T = 1e5 (4.033893 against
    [4.034282, 4.035722])."""
    assert row("dp_accounting.pld", "dpsgd-s5-q1e-2-T1e3-d1e-10", golden_by_id, "dp_accounting").flag == OK
    r = row("dp_accounting.pld", "dpsgd-s5-q1e-2-T1e5-d1e-10", golden_by_id, "dp_accounting")
    assert r.flag == UNSAFE and 4.0335 < r.reported < 4.0342 and "below the certified lower bound" in r.reason


def test_opacus_gdp_below_the_truth_at_sigma_5(golden_by_id):
    """The same two entries: opacus's GDP accountant is below the certified lower end at σ = 5 too, by less as T
    grows (0.982x at T = 1e3, 0.998x at T = 1e5)."""
    for entry_id, lo, hi in (("dpsgd-s5-q1e-2-T1e3-d1e-10", 0.36, 0.3625), ("dpsgd-s5-q1e-2-T1e5-d1e-10", 4.02, 4.03)):
        r = row("opacus.gdp", entry_id, golden_by_id, "opacus")
        assert r.flag == UNSAFE and lo < r.reported < hi


def test_prv_negative_delta_without_warning(golden_by_id, recwarn):
    """prv_accountant compute_delta(ε=2) lower end = estimate − delta_error < 0, no warning."""
    r = row("prv.lower", "dpsgd-s0.8-T1e3-e2", golden_by_id, "prv_accountant")
    assert r.flag == ERROR and r.reported < 0 and "negative" in r.reason
    assert not [w for w in recwarn if "delta" in str(w.message).lower()]


def test_prv_refuses_tiny_delta(golden_by_id):
    r = row("prv.upper", "dpsgd-s0.8-T1e3-d1e-15", golden_by_id, "prv_accountant")
    assert r.flag == ERROR and r.reported is None and "Floating point" in r.reason


def test_opacus_gdp_underestimates(golden_by_id):
    """GaussianAccountant, q=1e-3, σ=0.8, T=1e3, δ=1e-5: 0.200 against certified ≈ 0.3035."""
    r = row("opacus.gdp", "dpsgd-s0.8-T1e3-d1e-5", golden_by_id, "opacus")
    assert r.flag == UNSAFE and abs(r.reported - 0.200) < 1e-3


def test_opacus_gdp_sign_flips_with_delta(golden_by_id):
    """A boundary of opacus.gdp's map (docs/stability.md, "Where accountants break"): GaussianAccountant, q = 1e-2,
    σ = 0.6, T = 1e4 is above the certified bracket at δ = 1e-5 (23.433 against [23.01756, 23.01759]: OK, not
    LOOSE at 10%) and below its lower end at δ = 1e-10 (31.656 against [33.9232, 33.9242])."""
    r = row("opacus.gdp", "dpsgd-s0.6-q1e-2-T1e4-d1e-5", golden_by_id, "opacus")
    assert r.flag == OK and 23.4 < r.reported < 23.5
    r = row("opacus.gdp", "dpsgd-s0.6-q1e-2-T1e4-d1e-10", golden_by_id, "opacus")
    assert r.flag == UNSAFE and 31.6 < r.reported < 31.7 and "below the certified lower bound" in r.reason


def test_random_allocation_direct_add_shift_once(golden_by_id):
    """allocation_epsilon_direct(..., Direction.ADD), σ=1, t=10, E=10, δ=1e-6: 5.337 < certified add lower."""
    pytest.importorskip("pandas")  # random_allocation imports it at package import
    r = row("random_allocation.direct-add", "alloc-s1-t10-E10-d1e-6", golden_by_id, "random_allocation")
    assert r.flag == UNSAFE and r.direction == "add" and abs(r.reported - 5.337) < 1e-3


def test_random_allocation_combined_is_sound_where_direct_add_is_not(golden_by_id):
    """allocation_epsilon_combined (BOTH) at σ = 1, t = 10, E = 10, δ = 1e-6: 7.522, above the certified both bracket
    [6.8994, 6.9014] (OK at 10%), where the add bound of `direct` alone is UNSAFE (the test above)."""
    pytest.importorskip("pandas")
    r = row("random_allocation.combined", "alloc-s1-t10-E10-d1e-6", golden_by_id, "random_allocation")
    assert r.flag == OK and 7.5 < r.reported < 7.55


def test_pld_accounting_fails_at_tiny_delta(golden_by_id):
    """gaussian_allocation_epsilon_range at t = 1, σ = 1, δ = 1e-15 raises RuntimeError (certified ε ≈ 8.166)."""
    r = row("pld_accounting.range", "gauss-s1-d1e-15", golden_by_id, "PLD_accounting")
    assert r.flag == ERROR and "RuntimeError" in r.reason


def test_pld_accounting_delta_floor_between_1e14_and_1e15(golden_by_id):
    """A boundary of pld_accounting.range's map (docs/stability.md, "Where accountants break"): σ = 1, t = 100
    answers 3.3178 at δ = 1e-14 (certified [3.30083, 3.30085]: OK) and raises RuntimeError at δ = 1e-15, as at
    every δ ≤ 1e-15 the map tried."""
    r = row("pld_accounting.range", "alloc-s1-t100-d1e-14", golden_by_id, "PLD_accounting")
    assert r.flag == OK and 3.30 < r.reported < 3.34
    r = row("pld_accounting.range", "alloc-s1-t100-d1e-15", golden_by_id, "PLD_accounting")
    assert r.flag == ERROR and "RuntimeError" in r.reason and "invalid estimate: inf" in r.reason


@pytest.mark.slow
@pytest.mark.parametrize("entry_id", ["alloc-s1-t10-E10-d1e-6", "alloc-s1-t1e3-d1e-6"])
def test_pld_accounting_upper_is_sound(golden_by_id, entry_id):
    r = row("pld_accounting.range", entry_id, golden_by_id, "PLD_accounting")
    assert r.flag == OK
