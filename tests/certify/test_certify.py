"""certify: brackets contain the exact value (exact layer, F2/F13/F22), verdict semantics, decided at a margin."""

from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.certify import certify, make_claim
from verialloc.certify.verdict import decide
from verialloc.errors import InvalidParameter
from verialloc.mechanisms import DiscretePair

DIRECTIONS = ("remove", "add", "both")


def rate_of(scheme, steps):
    """Poisson needs its rate given: one expected step per element (1/t), as allocation's k = 1."""
    return Fraction(1, steps) if scheme == "poisson" else None


#: binary randomized response up to t = 1000; a three-atom pair up to t = 60 (its exact enumeration grows as t²)
finite_configs = st.one_of(
    st.builds(
        lambda eps0, steps, scheme: Config(
            RandomizedResponse(eps0), scheme=scheme, steps=steps, rate=rate_of(scheme, steps)
        ),
        st.sampled_from(["0.3", "1", "2"]),
        st.sampled_from([1, 2, 7, 100, 1000]),
        st.sampled_from(["allocation", "poisson"]),
    ),
    st.builds(
        lambda steps, scheme: Config(
            DiscretePair(["0.5", "0.3", "0.2"], ["0.2", "0.3", "0.5"]),
            scheme=scheme,
            steps=steps,
            rate=rate_of(scheme, steps),
        ),
        st.sampled_from([1, 3, 60]),
        st.sampled_from(["allocation", "poisson"]),
    ),
)


def exact_value(config, quantity, at, direction):
    query = api.epsilon if quantity == "epsilon" else api.delta
    b = query(config, at, direction=direction, method="exact", digits=20)
    assert b.error_kind == "exact"
    return b.lower


@settings(max_examples=12)
@given(finite_configs, st.sampled_from(["1e-3", "1e-6"]), st.sampled_from(DIRECTIONS))
def test_pld_bracket_contains_exact_epsilon(config, delta, direction):
    """pld-only certificate (exact step skipped) vs the exact enumeration (finite pairs, t up to 1000)."""
    truth = exact_value(config, "epsilon", delta, direction)
    cert = certify(config, make_claim(delta=delta, claimed_epsilon="0"), direction, loss_steps=(1e-3,), use_exact=False)
    assert cert.lower <= truth <= cert.upper


@settings(max_examples=12)
@given(finite_configs, st.sampled_from(["0", "0.05", "0.5"]), st.sampled_from(DIRECTIONS))
def test_pld_bracket_contains_exact_delta(config, eps, direction):
    truth = exact_value(config, "delta", eps, direction)
    cert = certify(
        config, make_claim(epsilon=eps, claimed_delta="1e-6"), direction, loss_steps=(1e-3,), use_exact=False
    )
    assert cert.lower <= truth <= cert.upper


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("steps", [1, 2])
def test_gaussian_small_t_contains_exact(steps, direction):
    """Gaussian t ≤ 2: the pld certificate contains the exact layer's value (F13 closed form / quadrature)."""
    config = Config(Gaussian("1.5"), steps=steps)  # σ < 1 costs ~7 s per call here (heavy tails at small t)
    truth = api.delta(config, "0.5", direction=direction, digits=15)
    cert = certify(
        config, make_claim(epsilon="0.5", claimed_delta="0.1"), direction, loss_steps=(1e-3,), use_exact=False
    )
    assert cert.lower <= truth.lower and truth.upper <= cert.upper


@settings(max_examples=10)
@given(
    finite_configs,
    st.sampled_from(["1e-4", "1e-8"]),
    st.sampled_from(DIRECTIONS),
    st.sampled_from([Fraction(1, 10**6), Fraction(1, 100)]),
    st.booleans(),
)
def test_verdict_never_wrong(config, delta, direction, margin, exact_first):
    """Claim just above the truth: never refuted; below it by a margin: never certified (exact or pld route)."""
    truth = exact_value(config, "epsilon", delta, direction)
    above = Fraction(mp.nstr(truth * (1 + 1e-9) + mp.mpf(10) ** -12, 20))
    below = Fraction(mp.nstr(truth - margin * (1 + abs(truth)), 20))
    for claim, forbidden in ((above, "refuted"), (below, "certified")):
        if claim < 0:
            continue
        cert = certify(
            config,
            make_claim(delta=delta, claimed_epsilon=claim),
            direction,
            loss_steps=(1e-3, 3e-4),
            use_exact=exact_first,
        )
        assert cert.verdict != forbidden


@pytest.mark.parametrize(
    "eps0,steps,epochs,delta", [(0.02, 4, 30, "1e-5"), (0.013, 3, 20, "1e-9"), (1 / 64, 4, 25, "1e-5")]
)
def test_pld_steps_compose_epochs_on_a_finer_loss_step(eps0, steps, epochs, delta):
    """Allocation epochs: each pld step recomposes the epochs on a finer loss step (pld_accountant.finer_epochs,
    scaled with the schedule). At the first step (Δ = 1e-3) the ε bracket was 12–23 % wide and the δ bracket's ends
    8–27× apart (composed on Δ: drift E·Δ); now ≤ 4.6 % and ≤ 3.8×. Both contain the exact composed profile."""
    config = Config(RandomizedResponse(eps0), steps=steps, epochs=epochs)
    truth = exact_value(config, "epsilon", delta, "both")
    cert = certify(config, make_claim(delta=delta, claimed_epsilon="0"), loss_steps=(1e-3,), use_exact=False)
    assert cert.lower <= truth <= cert.upper
    assert cert.upper - cert.lower <= 0.06 * cert.upper
    at = mp.nstr(truth, 15)
    truth_delta = exact_value(config, "delta", at, "both")
    cert = certify(config, make_claim(epsilon=at, claimed_delta=delta), loss_steps=(1e-3,), use_exact=False)
    assert cert.lower <= truth_delta <= cert.upper
    assert cert.upper <= 5 * cert.lower


def test_clear_margin_is_decided_with_budget():
    """Gaussian σ = 1, t = 1000, 3 epochs: claims 5% off the truth are decided by the pld schedule."""
    config = Config(Gaussian("1"), steps=1000, epochs=3)
    mid = certify(config, make_claim(delta="1e-5", claimed_epsilon="0"), loss_steps=(1e-3,))
    centre = (mid.lower + mid.upper) / 2
    for factor, verdict in ((mp.mpf("1.05"), "certified"), (mp.mpf("0.95"), "refuted")):
        cert = certify(config, make_claim(delta="1e-5", claimed_epsilon=mp.nstr(centre * factor, 10)), budget=60)
        assert cert.verdict == verdict
        assert cert.stop_reason == "decided"


def test_exact_route_decides_discrete_claims():
    config = Config(RandomizedResponse("1"), steps=1000)
    truth = exact_value(config, "epsilon", "1e-5", "both")
    cert = certify(config, make_claim(delta="1e-5", claimed_epsilon=mp.nstr(truth * 1.001, 12)))
    assert cert.verdict == "certified" and cert.methods == {"lower": "exact", "upper": "exact"}


def test_decide_semantics():
    assert decide(Fraction(1), mp.mpf("0.5"), mp.mpf(1)) == "certified"
    assert decide(Fraction(1, 4), mp.mpf("0.5"), mp.mpf(1)) == "refuted"
    assert decide(Fraction(1, 2), mp.mpf("0.5"), mp.mpf(1)) == "inconclusive"
    assert decide(Fraction(10), mp.mpf("-inf"), mp.mpf("inf")) == "inconclusive"


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({}, "claim"),
        ({"delta": "1e-5"}, "claimed-epsilon"),
        ({"claimed_epsilon": "1"}, "delta"),
        ({"delta": "1e-5", "claimed_epsilon": "1", "epsilon": "1", "claimed_delta": "1e-5"}, "epsilon"),
        ({"delta": "1e-5", "claimed_delta": "1e-5"}, "claimed-delta"),
        ({"delta": "0", "claimed_epsilon": "1"}, "delta"),
        ({"delta": "1", "claimed_epsilon": "1"}, "delta"),
        ({"delta": "1e-5", "claimed_epsilon": "-1"}, "claimed-epsilon"),
        ({"delta": "1e-5", "claimed_epsilon": float("nan")}, "claimed-epsilon"),
        ({"epsilon": "1", "claimed_delta": "1"}, "claimed-delta"),
        ({"epsilon": "nan", "claimed_delta": "0.1"}, "epsilon"),
    ],
)
def test_bad_claims(kwargs, name):
    with pytest.raises(InvalidParameter) as info:
        make_claim(**kwargs)
    assert info.value.name == name


def test_bad_budget():
    with pytest.raises(InvalidParameter, match="budget"):
        certify(Config(Gaussian(1)), make_claim(delta="1e-5", claimed_epsilon=1), budget=0)


def test_claim_a_float_ulp_below_the_truth_is_never_certified():
    """Seed run 271 (f8a42fb, reverted): an exact step rerun at 30 digits came back rounded to nearest at 53 bits and
    lost its 1e-28 widening, so certify CERTIFIED ε ≤ 0.905697735327769 where the exact ε is 0.90569773532776900534
    (RR ε0 = 1, t = 10, δ = 1e-6). Whatever the exact step's digits, the bracket must contain the truth."""
    config = Config(RandomizedResponse("1"), scheme="allocation", steps=10)
    with mp.workdps(50):
        truth = api.epsilon(config, "0.000001", direction="remove", method="exact", digits=40).lower
    cert = certify(config, make_claim(delta="0.000001", claimed_epsilon="0.905697735327769"), "remove", budget=5)
    assert cert.verdict != "certified" and cert.lower <= truth <= cert.upper
