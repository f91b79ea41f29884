"""`verialloc.testing.golden_cases`: the audit's golden tables as pytest cases with precomputed references
(issue #32: region boundaries added as golden entries are caught by the pytest plugin as by `verialloc audit`)."""

import pytest

from verialloc.errors import InvalidParameter
from verialloc.testing import check_accountant, golden_cases

POISSON = golden_cases(scheme="poisson")


def test_cases_cover_the_table_and_its_known_failure_boundaries():
    ids = {c.id for c in golden_cases()}
    assert {"dpsgd-s0.6-q1e-2-T1e4-d1e-5", "dpsgd-s0.6-q1e-2-T1e4-d1e-10"} <= ids
    assert all(c.config.scheme == "poisson" for c in POISSON) and 0 < len(POISSON) < len(ids)


@pytest.mark.parametrize("case", POISSON, ids=str)
def test_rdp_on_the_golden_poisson_cases(case):
    """An independent sound upper bound (RDP, F18) passes against the precomputed reference."""
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    from dp_accounting import dp_event

    def rdp_epsilon(config, delta, direction="both"):
        event = dp_event.PoissonSampledDpEvent(
            float(config.rate), dp_event.GaussianDpEvent(float(config.mechanism.sigma))
        )
        return rdp.RdpAccountant().compose(event, config.steps * config.epochs).get_epsilon(float(delta))

    if case.quantity != "epsilon":
        pytest.skip("an epsilon accountant")
    ref = check_accountant(rdp_epsilon, case.config, **case.query, method=case.reference("both"))
    assert ref.method == "golden" and ref.details["golden"] == case.id


@pytest.mark.parametrize("direction", ["both", "remove", "add"])
def test_an_answer_just_below_the_certified_lower_end_is_unsafe(direction):
    for case in golden_cases():
        ref = case.reference(direction)
        if ref.lower <= 0:  # nothing lies below a lower end of 0 (a δ entry at large ε)
            continue
        below = float(ref.lower) * (1 - 1e-6)
        fn = (lambda v: lambda config, **kw: v)(below)
        with pytest.raises(AssertionError, match="UNSAFE"):
            check_accountant(fn, case.config, **case.query, direction=direction, method=ref)
        above = float(ref.upper) * (1 + 1e-9)
        check_accountant(
            (lambda v: lambda config, **kw: v)(above), case.config, **case.query, direction=direction, method=ref
        )


def test_a_reference_of_another_query_or_direction_is_refused():
    case = POISSON[0]
    with pytest.raises(InvalidParameter, match="precomputed reference must be of"):
        check_accountant(
            lambda c, **kw: 1.0, case.config, **case.query, direction="remove", method=case.reference("add")
        )
    with pytest.raises(InvalidParameter, match="direction=sideways"):
        golden_cases(scheme="poisson")[0].reference("sideways")
