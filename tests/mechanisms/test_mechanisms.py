"""Mechanisms (dominating pairs) against independent integrals and hand-derived closed forms (F2, F5, F13, F14)."""

import json
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
from hypothesis import given, strategies as st

from verialloc.io.config_file import json_parameter
from verialloc import DiscretePair, Gaussian, InvalidParameter, Laplace, RandomizedResponse

sigmas = st.sampled_from(["0.3", "0.5", "0.8", "1", "2.5", "7"])
scales = st.sampled_from(["0.25", "0.5", "1", "3"])
epsilons = st.sampled_from(["-2", "-0.5", "0", "0.1", "0.7", "1.5", "3"])


def hockey_stick_integral(mech, eps, direction):
    """H_{e^eps} as ∫ [a(x) − e^eps b(x)]_+ dx, split where the integrand's sign changes (F2, integral form)."""
    kappa = mp.exp(mp.mpf(eps))
    p = lambda x: mech.q_pdf(x - 1)  # P is Q shifted by the sensitivity 1
    a, b = (p, mech.q_pdf) if direction == "remove" else (mech.q_pdf, p)
    f = lambda x: max(a(x) - kappa * b(x), 0)
    cuts = [-mp.inf, mp.mpf(-1), mp.mpf(0), mp.mpf(0.5), mp.mpf(1), mp.mpf(2), mp.inf]
    sign = 1 if direction == "remove" else -1
    if isinstance(mech, Gaussian):  # loss (2x − 1)/(2σ²) = ±ε
        s = mp.mpf(mech.sigma.numerator) / mech.sigma.denominator
        cuts.append(mp.mpf(1) / 2 + sign * s**2 * mp.mpf(eps))
    else:  # Laplace: loss (2x − 1)/b = ±ε inside (0, 1)
        scale = mp.mpf(mech.scale.numerator) / mech.scale.denominator
        cuts.append((1 + sign * mp.mpf(eps) * scale) / 2)
    cuts = sorted(set(cuts))
    return mp.quad(f, cuts)


@given(sigmas, epsilons, st.sampled_from(["remove", "add"]))
def test_gaussian_delta_matches_integral(sigma, eps, direction):
    """F13 (I4) equals the integral form of F2 in both directions."""
    with mp.workdps(30):
        g = Gaussian(sigma)
        assert mp.almosteq(
            g.delta(eps, direction),
            hockey_stick_integral(g, eps, direction),
            rel_eps=mp.mpf(10) ** -20,
            abs_eps=mp.mpf(10) ** -25,
        )


@given(scales, epsilons, st.sampled_from(["remove", "add"]))
def test_laplace_delta_matches_integral(scale, eps, direction):
    with mp.workdps(30):
        lap = Laplace(scale)
        assert mp.almosteq(
            lap.delta(eps, direction),
            hockey_stick_integral(lap, eps, direction),
            rel_eps=mp.mpf(10) ** -18,
            abs_eps=mp.mpf(10) ** -22,
        )


@given(st.one_of(sigmas.map(Gaussian), scales.map(Laplace)), st.sampled_from([0, 0.5, 1, 2, 3.5, 6]))
def test_moments_match_integral(mech, p):
    """D_p = E_Q[(P/Q)^p] (F5) against direct integration; Gaussian closed form F14."""
    with mp.workdps(30):
        integrand = lambda x: mech.q_pdf(x) * mp.exp(p * mech.privacy_loss(x))
        ref = mp.quad(integrand, [-mp.inf, 0, 1, mp.inf])
        assert mp.almosteq(mech.moment(p), ref, rel_eps=mp.mpf(10) ** -18)


@pytest.mark.parametrize(
    "mech",
    [
        Gaussian("0.7"),
        Laplace("1.3"),
        RandomizedResponse("0.9"),
        DiscretePair(["1/2", "1/3", "1/6"], ["1/4", "1/4", "1/2"]),
    ],
)
def test_symbolic_moments_equal_numeric(mech):
    with mp.workdps(40):
        sym = mech.moments_symbolic(6)
        for p, expr in enumerate(sym.values):
            if sym.generator is not None:
                expr = expr.subs(sym.generator, sym.meaning)
            assert mp.almosteq(mp.mpf(sp.N(expr, 50)), mech.moment(p), rel_eps=mp.mpf(10) ** -30)


def test_gaussian_rdp_closed_form():
    """F14: R_α = α/(2σ²), also via the moment."""
    with mp.workdps(30):
        g = Gaussian("0.8")
        assert mp.almosteq(g.rdp(5), mp.mpf(5) / (2 * (mp.mpf(4) / 5) ** 2))
        assert mp.almosteq(mp.log(g.moment(5)) / 4, g.rdp(5))


@given(st.sampled_from(["0.1", "0.5", "1", "2"]), epsilons)
def test_randomized_response_hand_formula(eps0, eps):
    """Remove: Σ[P_i − κQ_i]_+ = [x − κ]_+/(1+x) + [1 − κx]_+/(1+x) with x = e^{ε0}; add is the same pair reflected."""
    with mp.workdps(30):
        x, kappa = mp.exp(mp.mpf(eps0)), mp.exp(mp.mpf(eps))
        ref = (max(x - kappa, 0) + max(1 - kappa * x, 0)) / (1 + x)
        rr = RandomizedResponse(eps0)
        assert mp.almosteq(rr.delta(eps, "remove"), ref)
        assert mp.almosteq(rr.delta(eps, "add"), ref)


@given(
    st.one_of(sigmas.map(Gaussian), scales.map(Laplace), st.sampled_from(["0.3", "1.2"]).map(RandomizedResponse)),
    st.sampled_from(["0.05", "0.6", "2"]),
)
def test_profile_duality_i3(mech, eps):
    """I3: H_κ(P‖Q) = 1 − κ + κ H_{1/κ}(Q‖P)."""
    with mp.workdps(30):
        kappa = mp.exp(mp.mpf(eps))
        assert mp.almosteq(
            mech.delta(eps, "remove"), 1 - kappa + kappa * mech.delta(-mp.mpf(eps), "add"), abs_eps=mp.mpf(10) ** -25
        )


def test_discrete_pair_with_mass_outside_q():
    """P(Q = 0) enters δ fully (F2 E_Q form + P(Q=0)); Rényi moments of order > 1 are infinite."""
    with mp.workdps(30):
        pair = DiscretePair([0.5, 0.25, 0.25], [0.5, 0.5, 0])
        assert not pair.absolutely_continuous
        assert pair.delta(10, "remove") >= mp.mpf("0.25")
        assert pair.moment(2) == mp.inf and pair.rdp(3) == mp.inf
        assert pair.moment(0) == 1


def test_discrete_pair_exact_reading():
    pair = DiscretePair(["1/3", "1/3", "1/3"], [0.5, 0.25, 0.25])
    assert pair.p == (Fraction(1, 3),) * 3 and sum(pair.q) == 1


def test_renormalized_pair_names_the_sum_it_was_given():
    """A vector within 1e-9 of summing to 1 is divided by its sum, and the pair says so (it changed silently)."""
    pair = DiscretePair(["0.333333333"] * 3, [0.5, 0.25, 0.25])
    assert pair.p == (Fraction(1, 3),) * 3
    assert pair.params()["p_given_sum"] == "999999999/1000000000" and "q_given_sum" not in pair.params()
    assert "p_given_sum" not in DiscretePair(["1/3"] * 3, [0.5, 0.25, 0.25]).params()
    with pytest.raises(InvalidParameter, match="within 1e-09"):
        DiscretePair(["0.33333333"] * 3, [0.5, 0.25, 0.25])  # 1e-8 off


@pytest.mark.parametrize(
    "p,q,name",
    [
        ([0.5, 0.6], [0.5, 0.5], "p"),
        ([0.5, 0.5], [1.5, -0.5], "q[1]"),
        ([], [], "p"),
        ([0.5, 0.5], [1.0], "q"),
        ([0.5, "nan"], [0.5, 0.5], "p[1]"),
        ([0.5, "abc"], [0.5, 0.5], "p[1]"),
    ],
)
def test_discrete_pair_rejects_bad_vectors(p, q, name):
    with pytest.raises(InvalidParameter) as err:
        DiscretePair(p, q)
    assert err.value.name == name


@pytest.mark.parametrize("content", ["{not json", '{"p": [1]}', "[1, 2]", '{"p": [0.5, 0.5], "q": [0.2, 0.2]}'])
def test_pair_file_errors(tmp_path, content):
    f = tmp_path / "pair.json"
    f.write_text(content)
    with pytest.raises(InvalidParameter) as err:
        DiscretePair.from_parameter(*json_parameter("pair", str(f)))
    assert err.value.name in {"pair", "q", "p"}


def test_pair_file_roundtrip(tmp_path):
    f = tmp_path / "pair.json"
    f.write_text(json.dumps({"p": ["3/4", "1/4"], "q": [0.25, 0.75]}))
    assert DiscretePair.from_parameter(*json_parameter("pair", str(f))).p == (Fraction(3, 4), Fraction(1, 4))


@pytest.mark.parametrize(
    "make,bad",
    [
        (Gaussian, 0),
        (Gaussian, -1),
        (Gaussian, float("nan")),
        (Gaussian, float("inf")),
        (Laplace, "-2"),
        (RandomizedResponse, 0),
        (Gaussian, "x"),
    ],
)
def test_mechanism_parameters_validated(make, bad):
    with pytest.raises(InvalidParameter, match="must be"):
        make(bad)


def test_direction_validated():
    with pytest.raises(InvalidParameter, match="direction"):
        Gaussian(1).delta(0, "sideways")


@pytest.mark.parametrize(
    "value,expected",
    [("1e-5", Fraction(1, 100000)), (0.8, Fraction(4, 5)), (-3, Fraction(-3)), ("2/7", Fraction(2, 7))],
)
def test_numbers_read_exactly(value, expected):
    from verialloc.validation import to_fraction

    assert to_fraction("x", value) == expected


def test_mpf_sign_kept():
    from verialloc.validation import to_fraction

    assert to_fraction("x", -mp.mpf(0.5)) == Fraction(-1, 2)
