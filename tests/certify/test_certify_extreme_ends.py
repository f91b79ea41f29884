"""Issue #14 item 1: certified bracket ends beyond float64 — an ε of 5e319 (σ = 1e-160) or a δ of e^(−5e599)
(ε = 1e300) — decide the verdict and are printed, in the ε and the δ claim form, in JSON and text, and with
--report. The verdict used to be `bracket=5e+319 is invalid` (ends read through float64) and a δ end of
e^(−5e599) was expanded into an exact rational (11 GB, killed); a claim or target beyond float64 crashed
(OverflowError) in the pld step and the report's plot. References are exact rationals and mpmath closed forms."""

import json
import re
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, strategies as st

import verialloc.cli as cli
from verialloc.formatting import decimal
from verialloc.certify.verdict import compare, decide


#: certify's exit status by verdict (docs/cli.md, "Exit codes")
STATUS = {"certified": 0, "refuted": 4, "inconclusive": 5}


def run_json(capsys, *argv):
    status = cli.main(["certify", *argv, "--json"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert status == STATUS[out["verdict"]], captured.err
    return out


def exponent(text: str) -> int:
    """The decimal exponent of a printed end d.ddde±X."""
    return int(re.fullmatch(r"-?\d\.\d+e([+-]\d+)", text).group(1))


def test_epsilon_beyond_float64_is_refuted_with_its_bracket(capsys):
    """σ = 1e-160: ε(δ) = μ + s/σ, μ = 1/(2σ²) = 5e319, s ≈ Φ⁻¹(1 − δ) = 4.26 (F13, F15): REFUTED."""
    out = run_json(
        capsys,
        "--mechanism",
        "gaussian",
        "--sigma",
        "1e-160",
        "--steps",
        "1",
        "--delta",
        "1e-5",
        "--claimed-epsilon",
        "3",
    )
    sigma = Fraction(1, 10**160)
    mu = 1 / (2 * sigma**2)
    assert out["verdict"] == "refuted"
    lower, upper = Fraction(out["lower"]), Fraction(out["upper"])
    assert lower <= mu < mu + 5 / sigma <= upper  # the true ε lies in (μ, μ + 5/σ)
    assert upper - lower <= mu * Fraction(3, 10**7)  # 8 printed digits, each end rounded outward
    assert Fraction(out["refinement"][0]["lower"]) == lower
    status = cli.main(
        [
            "certify",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1e-160",
            "--steps",
            "1",
            "--delta",
            "1e-5",
            "--claimed-epsilon",
            "3",
        ]
    )
    text = capsys.readouterr().out
    assert status == 4 and f"certified epsilon: [{out['lower']}, {out['upper']}]" in text and "REFUTED" in text


def test_delta_below_float64_is_refuted_without_expanding_it(capsys):
    """ε = 1e300, σ = 1: δ(ε) = Φ(1/2 − ε) − e^ε Φ(−1/2 − ε) = φ(ε − 1/2)·(R(ε − 1/2) − R(ε + 1/2)) > 0
    (F13; R the Mills ratio, R(y) = 1/y − 1/y³ + …), so log10 δ = −(ε − 1/2)²/(2 ln 10) − log10(√(2π)·ε²) + O(1/ε²):
    a claim of 0 is refuted, both printed ends carry that exponent (tests/exact/test_far_tail.py: one 10^580 off)."""
    out = run_json(
        capsys, "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1e300", "--claimed-delta", "0"
    )
    assert out["verdict"] == "refuted"
    with mp.workdps(700):
        eps = mp.mpf(10) ** 300
        reference = -((eps - mp.mpf(1) / 2) ** 2) / (2 * mp.log(10)) - mp.log10(mp.sqrt(2 * mp.pi) * eps**2)
        top = int(mp.floor(reference))
    for end in ("lower", "upper"):
        assert exponent(out[end]) in (top - 1, top), (out[end][-30:], top)
    assert not out["lower"].startswith("-") and out["lower"] != "0.0"


@pytest.mark.parametrize("epsilon,verdict", [("43", "refuted"), ("44", "certified")])
def test_delta_claims_below_the_subnormals_keep_their_verdict(capsys, epsilon, verdict):
    """A claimed δ of 1e-400 (below the float64 subnormals, 5e-324) against δ(43) ≈ 1.3e-396 and δ(44) ≈ 2.6e-415
    (F13 by mpmath at 60 digits): neither end may become 0."""
    with mp.workdps(60):
        e = mp.mpf(epsilon)
        truth = mp.ncdf(mp.mpf(1) / 2 - e) - mp.exp(e) * mp.ncdf(-mp.mpf(1) / 2 - e)
    assert (truth > mp.mpf("1e-400")) == (verdict == "refuted")
    out = run_json(
        capsys,
        "--mechanism",
        "gaussian",
        "--sigma",
        "1",
        "--steps",
        "1",
        "--epsilon",
        epsilon,
        "--claimed-delta",
        "1e-400",
    )
    assert out["verdict"] == verdict
    lower = Fraction(out["lower"])
    assert 0 < lower <= Fraction(mp.nstr(truth, 20)) * (1 + Fraction(1, 10**8))


@pytest.mark.parametrize(
    "argv",
    [
        ["--steps", "10", "--epsilon", "1e400", "--claimed-delta", "0"],  # the pld window at a target beyond float64
        ["--steps", "10", "--epsilon", "-1e400", "--claimed-delta", "0.5"],
        ["--steps", "1", "--delta", "1e-5", "--claimed-epsilon", "1e400"],  # the report's plot range
    ],
)
def test_claims_and_targets_beyond_float64(capsys, tmp_path, argv):
    out = run_json(capsys, "--mechanism", "gaussian", "--sigma", "1", *argv, "--budget", "20")
    if "--claimed-delta" in argv and argv[argv.index("--epsilon") + 1] == "1e400":
        assert out["verdict"] != "certified"  # δ(1e400) > 0: the loss of 1-of-10 allocation is unbounded
    if "-1e400" in argv:
        assert out["verdict"] == "refuted"  # δ(−1e400) ≥ 1 − e^ε (I1), and e^ε is below 1e-300
    if "--claimed-epsilon" in argv:
        assert out["verdict"] == "certified"  # ε(1e-5) of σ = 1 is 4.4 (F13)
        report = tmp_path / "r.md"
        assert cli.main(["certify", "--mechanism", "gaussian", "--sigma", "1", *argv, "--report", str(report)]) == 0
        assert report.with_suffix(".png").exists()


def test_report_of_a_configuration_no_pld_table_represents(capsys, tmp_path):
    """σ = 1e-160 is decided exactly; the plot comes from a pld table (σ in [1e-3, 1e8]): the report says so."""
    report = tmp_path / "r.md"
    status = cli.main(
        [
            "certify",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1e-160",
            "--steps",
            "1",
            "--delta",
            "1e-5",
            "--claimed-epsilon",
            "3",
            "--report",
            str(report),
        ]
    )
    capsys.readouterr()
    assert status == 4  # refuted
    text = report.read_text()
    assert "REFUTED" in text and "No profile plot" in text and "sigma=" in text
    assert not report.with_suffix(".png").exists()


# ------------------------------------------------------------------------------------------------ compare


def mpf_of(man: int, exp: int) -> mp.mpf:
    """man·2^exp exactly (mp.mpf rounds to the working precision)."""
    with mp.workprec(max(abs(man).bit_length(), 1)):
        return mp.mpf((man, exp))


@given(
    st.integers(-(2**80), 2**80),
    st.integers(-20_000, 20_000),
    st.integers(-(10**30), 10**30),
    st.integers(1, 10**30),
    st.integers(-6_000, 6_000),
)
def test_compare_is_the_exact_rational_comparison(man, exp, num, den, shift):
    x = mpf_of(man, exp)
    q = Fraction(num, den) * Fraction(2) ** shift
    exact = Fraction(man) * Fraction(2) ** exp
    assert compare(q, x) == (q > exact) - (q < exact)
    assert compare(exact, x) == 0
    text = decimal(x, 9, "down")
    assert compare(q, text) == (q > Fraction(text)) - (q < Fraction(text))


def test_compare_and_decide_at_magnitudes_no_rational_holds():
    tiny, huge = mp.ldexp(1, -(10**600)), mp.ldexp(3, 10**600)
    assert compare(Fraction(0), tiny) == -1 and compare(Fraction(1, 10**4000), tiny) == 1
    assert compare(Fraction(10**4000), huge) == -1 and compare(Fraction(-1), -tiny) == -1
    assert decide(Fraction(0), tiny, 2 * tiny) == "refuted"
    assert decide(Fraction(1, 10**400), tiny, 2 * tiny) == "certified"
    assert decide(Fraction(3), huge, mp.inf) == "refuted"
    assert compare(Fraction(1), "1.0e-217147240951625896768041851291716008125014703497809457199998961584") == 1
