"""The CLI contract (docs/cli.md): brackets, JSON fields, and one-line errors with exit status 2."""

import json
import subprocess
import sys

import mpmath as mp
import pytest

from verialloc.cli import main


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def f13(sigma, eps):
    """Balle–Wang (F13), written out independently of the package."""
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def test_rdp_gaussian_single_step(capsys):
    out = run_json(capsys, "rdp", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--alpha", "5")
    assert out["rdp"] == "2.5" and out["lower"] == out["upper"] == "2.5"  # F14: α/(2σ²)
    for key in ("lower", "upper", "method", "direction", "scheme", "mechanism", "params", "steps", "alpha", "digits"):
        assert key in out
    assert out["direction"] == "remove" and out["method"] == "auto" and out["method_used"] == "exact"


def test_rdp_alpha_two_closed_form(capsys):
    """I27: R_2 = ln(1 + (e^{1/σ²} − 1)/t)."""
    out = run_json(
        capsys, "rdp", "--mechanism", "gaussian", "--sigma", "0.8", "--steps", "1000", "--alpha", "2", "--digits", "25"
    )
    with mp.workdps(40):
        ref = mp.log(1 + (mp.exp(1 / mp.mpf("0.64")) - 1) / 1000)
        assert mp.almosteq(mp.mpf(out["rdp"]), ref, rel_eps=mp.mpf(10) ** -23)


def test_delta_gaussian_closed_form(capsys):
    out = run_json(
        capsys, "delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1", "--digits", "20"
    )
    with mp.workdps(30):
        assert mp.almosteq(mp.mpf(out["lower"]), f13(1, 1), rel_eps=mp.mpf(10) ** -19)
    assert (
        out["lower"] == out["upper"] and out["direction"] == "both" and set(out["per_direction"]) == {"remove", "add"}
    )
    assert out["scheme"] == "allocation" and out["epsilon"] == "1"


def test_delta_gaussian_t2_quadrature_contains_reference(capsys):
    """formulas.md §12.1: σ = 1, ε = 1, t = 2: remove 0.059206501, add 0.050197662."""
    for direction, ref in [("remove", "0.059206501"), ("add", "0.050197662")]:
        out = run_json(
            capsys,
            "delta",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1",
            "--steps",
            "2",
            "--epsilon",
            "1",
            "--direction",
            direction,
            "--digits",
            "15",
        )
        assert float(out["lower"]) <= float(out["upper"])
        assert abs(float(out["lower"]) - float(ref)) < 2e-9 and out["error_kind"] == "quadrature"


def test_epsilon_inverts_gaussian(capsys):
    out = run_json(
        capsys,
        "epsilon",
        "--mechanism",
        "gaussian",
        "--sigma",
        "2",
        "--steps",
        "1",
        "--delta",
        "1e-6",
        "--digits",
        "20",
    )
    with mp.workdps(30):
        assert mp.almosteq(f13(2, mp.mpf(out["upper"])), mp.mpf("1e-6"), rel_eps=mp.mpf(10) ** -15)


def test_composition_route_gaussian(capsys):
    """Allocation with k = steps uses every step: t·E Gaussians compose to σ/√(tE) (F13)."""
    out = run_json(
        capsys,
        "delta",
        "--mechanism",
        "gaussian",
        "--sigma",
        "2",
        "--steps",
        "3",
        "--k",
        "3",
        "--epochs",
        "3",
        "--epsilon",
        "0.5",
        "--digits",
        "20",
    )
    with mp.workdps(30):
        assert mp.almosteq(mp.mpf(out["upper"]), f13(mp.mpf(2) / 3, "0.5"), rel_eps=mp.mpf(10) ** -19)


def test_randomized_response_poisson_single_step(capsys):
    """Poisson, one step, rate λ: remove δ = Σ[λP + (1−λ)Q − κQ]_+ by hand."""
    out = run_json(
        capsys,
        "delta",
        "--mechanism",
        "randomized-response",
        "--eps0",
        "1",
        "--scheme",
        "poisson",
        "--steps",
        "1",
        "--rate",
        "0.5",
        "--epsilon",
        "0.1",
        "--direction",
        "remove",
        "--digits",
        "20",
    )
    with mp.workdps(30):
        x, lam, kappa = mp.e, mp.mpf("0.5"), mp.exp(mp.mpf("0.1"))
        p, q = [x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]
        ref = sum(max(lam * pi + (1 - lam) * qi - kappa * qi, 0) for pi, qi in zip(p, q))
        assert mp.almosteq(mp.mpf(out["upper"]), ref, rel_eps=mp.mpf(10) ** -19)
    assert out["rate"] == "1/2"


def test_discrete_pair_file(capsys, tmp_path):
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps({"p": ["1/2", "1/2", 0], "q": ["1/4", "1/4", "1/2"]}))
    out = run_json(capsys, "delta", "--mechanism", "discrete", "--pair", str(pair), "--steps", "1", "--epsilon", "0")
    assert mp.almosteq(mp.mpf(out["upper"]), mp.mpf("0.5"))  # TV distance


def test_text_output(capsys):
    assert main(["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1"]) == 0
    text = capsys.readouterr().out
    assert "value:" in text and "remove:" in text and "add:" in text


BAD = [
    (["delta", "--mechanism", "gaussian", "--sigma", "0", "--steps", "1", "--epsilon", "1"], "sigma"),
    (["delta", "--mechanism", "gaussian", "--sigma", "-1", "--steps", "1", "--epsilon", "1"], "sigma"),
    (["delta", "--mechanism", "gaussian", "--sigma", "nan", "--steps", "1", "--epsilon", "1"], "sigma"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "inf"], "epsilon"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "3", "--k", "4", "--epsilon", "1"], "k"),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--delta", "1.5"], "delta"),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--delta", "0"], "delta"),
    (
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "50", "--epsilon", "1", "--method", "exact"],
        "steps",
    ),
    (["delta", "--mechanism", "gaussian", "--scale", "1", "--steps", "1", "--epsilon", "1"], "scale"),
    (["delta", "--mechanism", "gaussian", "--steps", "1", "--epsilon", "1"], "sigma"),
    (["delta", "--mechanism", "cauchy", "--steps", "1", "--epsilon", "1"], "mechanism"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "0", "--epsilon", "1"], "steps"),
    (
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1", "--direction", "up"],
        "direction",
    ),
    (
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1", "--method", "magic"],
        "method",
    ),
    (
        [
            "delta",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1",
            "--scheme",
            "poisson",
            "--steps",
            "2",
            "--rate",
            "2",
            "--epsilon",
            "1",
        ],
        "rate",
    ),
    (
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--scheme", "allocation", "--steps", "2", "--rate", "0.5"]
        + ["--epsilon", "1"],
        "rate",
    ),  # a rate with an explicit allocation (without a scheme a rate means poisson)
    (["rdp", "--mechanism", "gaussian", "--sigma", "1", "--steps", "2", "--alpha", "1"], "alpha"),
    (["rdp", "--mechanism", "gaussian", "--sigma", "1", "--steps", "2", "--alpha", "2.5"], "alpha"),
    (["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1", "--digits", "3"], "digits"),
    (["delta", "--mechanism", "discrete", "--pair", "/nonexistent.json", "--steps", "1", "--epsilon", "1"], "pair"),
]


@pytest.mark.parametrize("argv,param", BAD)
def test_bad_input_exits_2_naming_parameter(capsys, argv, param):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verialloc: error: ") and param in lines[0]


def test_malformed_pair_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{p: oops")
    assert main(["delta", "--mechanism", "discrete", "--pair", str(bad), "--steps", "1", "--epsilon", "1"]) == 2
    assert "pair" in capsys.readouterr().err


def test_console_script_error_has_no_traceback():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "verialloc.cli",
            "delta",
            "--mechanism",
            "gaussian",
            "--sigma",
            "0",
            "--steps",
            "1",
            "--epsilon",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_rdp_poisson_alpha_two_closed_form(capsys):
    """Poisson: D_2(λP + (1−λ)Q‖Q) = 1 + λ²(D_2 − 1) = 1 + λ²(e^{1/σ²} − 1); t steps multiply R_2 by t (F21)."""
    out = run_json(
        capsys,
        "rdp",
        "--mechanism",
        "gaussian",
        "--sigma",
        "2",
        "--scheme",
        "poisson",
        "--steps",
        "50",
        "--rate",
        "0.01",
        "--alpha",
        "2",
        "--digits",
        "25",
    )
    with mp.workdps(40):
        ref = 50 * mp.log(1 + mp.mpf("0.01") ** 2 * (mp.exp(mp.mpf(1) / 4) - 1))
        assert mp.almosteq(mp.mpf(out["rdp"]), ref, rel_eps=mp.mpf(10) ** -23)
    assert out["scheme"] == "poisson" and out["rate"] == "1/100"


def test_laplace_single_step_closed_form(capsys):
    """Laplace scale b: δ(ε) = 1 − e^{(ε − 1/b)/2} for |ε| ≤ 1/b."""
    out = run_json(
        capsys, "delta", "--mechanism", "laplace", "--scale", "2", "--steps", "1", "--epsilon", "0.1", "--digits", "20"
    )
    with mp.workdps(30):
        assert mp.almosteq(
            mp.mpf(out["upper"]), -mp.expm1((mp.mpf("0.1") - mp.mpf("0.5")) / 2), rel_eps=mp.mpf(10) ** -19
        )


@pytest.mark.slow
def test_gaussian_t3_quadrature_route(capsys):
    """t = 3 is served by nested quadrature (capped at 12 digits); at ε = 0 both directions equal the TV distance
    (I3), so the two independently integrated brackets must overlap."""
    out = run_json(
        capsys, "delta", "--mechanism", "gaussian", "--sigma", "2", "--steps", "3", "--epsilon", "0", "--digits", "8"
    )
    rem, add = out["per_direction"]["remove"], out["per_direction"]["add"]
    assert float(rem["lower"]) <= float(add["upper"]) and float(add["lower"]) <= float(rem["upper"])
    assert out["per_direction"]["remove"]["error_kind"] == "quadrature"


def test_text_header_cuts_huge_rationals_json_keeps_them(capsys):
    """Hostile-user pass: a 1e-400 mass printed a 2,100-character header of digits. The text header cuts each
    parameter at 80 characters; --json keeps the exact rational the computation used."""
    argv = [
        "delta",
        "--mechanism",
        "discrete",
        "--pair",
        '{"p":["1/2","1/2"],"q":["1","1e-400"]}',
        "--steps",
        "1",
        "--epsilon",
        "1",
    ]
    assert main(argv) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert len(head) < 400 and "characters)" in head
    assert main(argv + ["--json"]) == 0
    q = json.loads(capsys.readouterr().out)["params"]["q"]
    assert "1/" + "1" + "0" * 399 + "1" in q  # the renormalized 1e-400 / (1 + 1e-400), whole
