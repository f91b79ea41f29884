"""Issue #10 item 5: what a verdict rests on (quadrature is an estimate, not "exact"), --strict, infinite true ε
(disjoint supports: the bracket is [+inf, +inf], refuted), NaN-free bracket arithmetic, and printed ends that
agree with the verdict at the boundary (claim == printed lower end), --digits."""

import json
from fractions import Fraction

import mpmath as mp
import pytest

import verialloc.cli as cli
from verialloc import Config, Gaussian, RandomizedResponse
from verialloc.certify import certificate_json, certify, make_claim
from verialloc.certify.exact_step import widen as _widen
from verialloc.certify.refine import _width
from verialloc.certify.report import render_text, shown
from verialloc.certify.verdict import decide
from verialloc.mechanisms import DiscretePair

DISJOINT = DiscretePair([1, 0], [0, 1])
PARTLY_DISJOINT = DiscretePair(["0.5", "0.5", 0], ["0.5", 0, "0.5"])


@pytest.mark.parametrize("steps", [1, 3])
def test_disjoint_supports_are_refuted_at_infinity(steps):
    """Old: exact step widened +inf to [nan, +inf], the certificate read [-inf, +inf], INCONCLUSIVE."""
    cert = certify(Config(DISJOINT, steps=steps), make_claim(delta="1e-5", claimed_epsilon="3"))
    assert cert.lower == mp.inf and cert.upper == mp.inf and cert.verdict == "refuted"
    assert cert.methods == {"lower": "exact", "upper": "exact"}
    out = certificate_json(cert)
    assert (out["lower"], out["upper"]) == ("+inf", "+inf")
    assert all(s["lower"] != "nan" for s in out["refinement"])
    assert "certified epsilon: [+inf, +inf]" in render_text(out) and "REFUTED" in render_text(out)
    json.dumps(out, allow_nan=False)


def test_disjoint_delta_claim_is_refuted():
    cert = certify(Config(DISJOINT, steps=2), make_claim(epsilon="3", claimed_delta="0.9"))
    assert cert.upper == 1 and cert.lower > mp.mpf("0.9") and cert.verdict == "refuted"


def test_pld_route_certifies_an_infinite_lower_end():
    """pld only (exact skipped), a pair with an atom at +inf of mass 1 − (1/2)^3 per direction: the certified lower
    ε is verified to be +inf (old: −inf, so [−inf, +inf] and INCONCLUSIVE)."""
    cert = certify(
        Config(PARTLY_DISJOINT, steps=3),
        make_claim(delta="1e-5", claimed_epsilon="3"),
        use_exact=False,
        loss_steps=(1e-3,),
    )
    assert cert.lower == mp.inf and cert.upper == mp.inf and cert.verdict == "refuted"
    assert cert.methods == {"lower": "pld", "upper": "pld"}


def test_bracket_arithmetic_keeps_infinities():
    inf = mp.inf
    assert _widen(inf, -1) == inf and _widen(-inf, +1) == -inf and _widen(mp.mpf(0), -1) == 0
    assert _widen(mp.mpf(2), -1) < 2 < _widen(mp.mpf(2), +1)
    assert _width(inf, inf) == 0 and _width(-inf, inf) == inf and _width(mp.mpf(1), mp.mpf(3)) == 2
    assert decide(Fraction(10**9), inf, inf) == "refuted"
    assert decide(Fraction(10**9), -inf, inf) == "inconclusive"


def test_quadrature_is_labelled_and_strict_skips_it():
    """Gaussian t = 2: the exact layer's value is quadrature with an estimated error. Old: "by exact". Strict:
    the quadrature step is recorded as skipped and the verdict comes from the pld bounds."""
    config, claim = Config(Gaussian(1), steps=2), make_claim(delta="1e-5", claimed_epsilon="4")
    cert = certify(config, claim, budget=60)
    assert cert.verdict == "certified" and cert.methods == {"lower": "quadrature", "upper": "quadrature"}
    assert not cert.rigorous and cert.error_kinds["upper"] == "quadrature"
    out = certificate_json(cert)
    text = render_text(out)
    assert "by quadrature (estimated error)" in text and "by exact" not in text
    assert "estimated error, not a bound" in text and out["rigorous"] is False
    strict = certify(config, claim, budget=60, strict=True, loss_steps=(1e-3,))
    assert strict.verdict == "certified" and strict.methods == {"lower": "pld", "upper": "pld"} and strict.rigorous
    assert strict.steps[0].skipped and strict.steps[0].error_kind == "quadrature"
    assert "skipped: --strict" in render_text(certificate_json(strict))
    # the quadrature step must not tighten the strict bracket: its ends come from the pld step alone
    assert (strict.lower, strict.upper) == (strict.steps[1].lower, strict.steps[1].upper)


def test_strict_keeps_exact_routes():
    cert = certify(Config(RandomizedResponse(1), steps=100), make_claim(delta="1e-6", claimed_epsilon="5"), strict=True)
    assert cert.verdict == "certified" and cert.methods == {"lower": "exact", "upper": "exact"} and cert.rigorous


def test_printed_lower_end_agrees_with_a_refuted_claim():
    """RR(1), t = 1000, δ = 1e-6: true ε ≈ 0.1266144849. Old: claim 0.12661448 printed as the lower end and
    REFUTED, which reads as "claim == lower" (inconclusive). The printed lower end now gets the digits that show
    claim < lower; a certified claim is never below the printed upper end."""
    config = Config(RandomizedResponse(1), steps=1000)
    refuted = certificate_json(certify(config, make_claim(delta="1e-6", claimed_epsilon="0.12661448")))
    assert refuted["verdict"] == "refuted" and Fraction(refuted["lower"]) > Fraction("0.12661448")
    assert Fraction(refuted["upper"]) == Fraction("0.12661449")  # the other end keeps the asked digits
    certified = certificate_json(certify(config, make_claim(delta="1e-6", claimed_epsilon="0.1266144849")))
    assert certified["verdict"] == "certified" and Fraction(certified["upper"]) <= Fraction("0.1266144849")


def test_shown_rounds_safely_and_extends_digits():
    x = mp.mpf("0.123456789")
    assert shown(x, 3, "down") == "0.123" and shown(x, 3, "up") == "0.124"
    assert Fraction(shown(x, 3, "down", Fraction("0.123"))) > Fraction("0.123")
    assert Fraction(shown(x, 3, "up", Fraction("0.1234568"))) <= Fraction("0.1234568")
    assert shown(mp.inf, 3, "down") == "+inf" and shown(-mp.inf, 3, "up") == "-inf"
    # beyond MAX_DIGITS: the exact decimal of the binary end
    with mp.workprec(300):
        end = 1 + mp.mpf(2) ** -200
    text = shown(end, 3, "down", Fraction(1) + Fraction(1, 2**201))
    assert Fraction(text) == 1 + Fraction(1, 2**200)


def run_json(capsys, argv):
    assert cli.main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_digits_and_strict(capsys):
    base = [
        "certify",
        "--mechanism",
        "randomized-response",
        "--eps0",
        "1",
        "--steps",
        "1000",
        "--delta",
        "1e-6",
        "--claimed-epsilon",
        "0.2",
    ]
    out = run_json(capsys, base + ["--digits", "4", "--strict"])
    assert (out["lower"], out["upper"], out["digits"]) == ("0.1266", "0.1267", 4)
    assert out["strict"] is True and out["rigorous"] is True and out["method"] == {"lower": "exact", "upper": "exact"}
    assert cli.main(base + ["--digits", "0"]) == 2
