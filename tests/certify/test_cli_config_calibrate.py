"""CLI certify/calibrate (JSON fields, exit 2), configuration files (JSON/TOML, errors), calibrate, report."""

import importlib
import json
import pickle
from fractions import Fraction

import pytest

import verialloc.cli as cli
from verialloc import Config, Gaussian, api
from verialloc.certify import calibrate, certify, load_config, make_claim, write_report
from verialloc.cli import certify as certify_cli
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.mechanisms import DiscretePair


def test_certify_is_a_registered_subcommand():
    assert "certify" in cli.SUBCOMMANDS and cli.LISTED["certify"][0] == cli.LISTED["calibrate"][0] == "certify"
    assert certify_cli.register is not None


#: certify's exit status by verdict (docs/cli.md, "Exit codes")
STATUS = {"certified": 0, "refuted": 4, "inconclusive": 5}


def run_json(capsys, argv):
    status = cli.main(argv + ["--json"])
    out = json.loads(capsys.readouterr().out)
    if out["command"] == "calibrate":  # 0 converged, 5 not (docs/cli.md, "Exit codes")
        assert status == (0 if out["converged"] else 5)
    else:
        assert status == STATUS.get(out.get("verdict"), 0)
    return out


def test_calibrate_that_cannot_converge_in_its_budget_exits_5(capsys):
    """calibrate --budget 0.001 printed no σ and exited 0 (third pass, issue #30): a CI job must see it failed."""
    out = run_json(
        capsys, ["calibrate", "--steps", "100", "--target-epsilon", "1", "--delta", "1e-5", "--budget", "0.001"]
    )
    assert not out["converged"] and out["sigma_upper"] is None


def test_cli_json_fields(capsys):
    out = run_json(
        capsys,
        [
            "certify",
            "--mechanism",
            "randomized-response",
            "--eps0",
            "1",
            "--steps",
            "1000",
            "--delta",
            "1e-5",
            "--claimed-epsilon",
            "0.2",
        ],
    )
    for key in ("verdict", "lower", "upper", "method", "error_budget", "refinement", "stop_reason"):
        assert key in out
    assert out["verdict"] == "certified" and set(out["method"]) == {"lower", "upper"}
    truth = api.epsilon(Config(__import__("verialloc").RandomizedResponse("1"), steps=1000), "1e-5", digits=20).lower
    assert float(out["lower"]) <= truth <= float(out["upper"])


def test_cli_delta_claim_pld(capsys):
    out = run_json(
        capsys,
        [
            "certify",
            "--mechanism",
            "gaussian",
            "--sigma",
            "2",
            "--steps",
            "100",
            "--epsilon",
            "1",
            "--claimed-delta",
            "0.5",
            "--direction",
            "add",
            "--budget",
            "20",
        ],
    )
    assert out["verdict"] == "certified" and out["method"]["upper"] == "pld" and out["direction"] == "add"
    assert "add" in out["error_budget"]["upper"]


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--delta", "1e-5"], "claimed-epsilon"),
        (
            ["--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--delta", "2", "--claimed-epsilon", "1"],
            "delta",
        ),
        (
            [
                "--mechanism",
                "gaussian",
                "--sigma",
                "1",
                "--steps",
                "10",
                "--delta",
                "1e-5",
                "--claimed-epsilon",
                "1",
                "--epsilon",
                "1",
                "--claimed-delta",
                "0.1",
            ],
            "epsilon",
        ),
        (["--steps", "10", "--delta", "1e-5", "--claimed-epsilon", "1"], "mechanism"),
        (
            ["--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--claimed-epsilon", "nan"],
            "claimed-epsilon",
        ),
    ],
)
def test_cli_bad_input_exits_2(capsys, argv, name):
    assert cli.main(["certify"] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verialloc: error: {name}=") and err.count("\n") == 1


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_config_files_json_and_toml(tmp_path):
    js = load_config(write(tmp_path, "c.json", '{"mechanism": "gaussian", "sigma": 0.8, "steps": 1000, "epochs": 3}'))
    tm = load_config(write(tmp_path, "c.toml", 'mechanism = "gaussian"\nsigma = "4/5"\nsteps = 1000\nepochs = 3\n'))
    assert js == tm == Config(Gaussian("0.8"), steps=1000, epochs=3)
    pair = load_config(
        write(
            tmp_path,
            "d.toml",
            'mechanism = "discrete"\nsteps = 5\nscheme = "poisson"\nrate = "1/2"\n'
            'pair = {p = ["1/2", "1/2"], q = ["1/4", "3/4"]}\n',
        )
    )
    assert pair.mechanism.params() == DiscretePair(["1/2", "1/2"], ["1/4", "3/4"]).params() and pair.rate == 0.5


@pytest.mark.parametrize(
    "name, text, param",
    [
        ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 10, "colour": 1}', "colour"),
        ("c.json", '{"mechanism": "gaussian", "sigma": 1, ', "config"),
        ("c.toml", 'mechanism = "gaussian"\nsigma = \n', "config"),
        ("c.toml", 'mechanism = "gaussian"\nsteps = 3\n', "sigma"),
        ("c.json", '{"mechanism": "gaussian", "sigma": 1, "scale": 2, "steps": 10}', "scale"),
        ("c.json", '{"mechanism": "gaussian", "sigma": -1, "steps": 10}', "sigma"),
        ("c.json", '{"mechanism": "gaussian", "sigma": "__import__(\\"os\\")", "steps": 10}', "sigma"),
        ("c.json", "[1, 2]", "config"),
        ("c.yaml", "mechanism: gaussian", "config"),
    ],
)
def test_config_file_errors(tmp_path, name, text, param):
    with pytest.raises(InvalidParameter) as info:
        load_config(write(tmp_path, name, text))
    assert info.value.name == param


def test_cli_config_file(tmp_path, capsys):
    path = write(tmp_path, "c.toml", 'mechanism = "randomized-response"\neps0 = 1\nsteps = 100\n')
    out = run_json(capsys, ["certify", "--config", str(path), "--delta", "1e-5", "--claimed-epsilon", "0.01"])
    assert out["verdict"] == "refuted" and out["steps"] == 100
    assert (
        cli.main(["certify", "--config", str(path), "--steps", "5", "--delta", "1e-5", "--claimed-epsilon", "1"]) == 2
    )


def test_calibrate_single_step_checked_by_fresh_call():
    """Gaussian t = 1 (exact F13): σ_upper meets the target by a fresh api.epsilon; σ_lower misses it (I5)."""
    template = Config(Gaussian(1), steps=1)
    cal = calibrate(template, "1", "1e-5", tolerance="1e-3")
    assert cal.converged and cal.sigma_upper / cal.sigma_lower - 1 <= 1e-3
    assert api.epsilon(Config(Gaussian(cal.sigma_upper), steps=1), "1e-5").upper <= 1
    assert api.epsilon(Config(Gaussian(cal.sigma_lower), steps=1), "1e-5").lower > 1


def test_calibrate_cli_single_step(capsys):
    out = run_json(capsys, ["calibrate", "--steps", "1", "--target-epsilon", "2", "--delta", "1e-6"])
    assert out["converged"] and api.epsilon(Config(Gaussian(out["sigma_upper"]), steps=1), "1e-6").upper <= 2


@pytest.mark.slow
def test_calibrate_cli_pld(capsys):
    """t = 100 through the pld schedule (~50 s)."""
    out = run_json(
        capsys,
        [
            "calibrate",
            "--steps",
            "100",
            "--target-epsilon",
            "2",
            "--delta",
            "1e-5",
            "--tolerance",
            "0.05",
            "--budget",
            "60",
        ],
    )
    assert out["converged"], out["reason"]
    sigma = out["sigma_upper"]
    fresh = api.epsilon(Config(Gaussian(sigma), steps=100), "1e-5", method="pld")
    assert fresh.upper <= 2


def test_calibrate_rejects_sigma(capsys):
    assert cli.main(["calibrate", "--steps", "10", "--sigma", "1", "--target-epsilon", "1", "--delta", "1e-5"]) == 2


def test_report_written_with_png(tmp_path):
    pytest.importorskip("matplotlib")
    cert = certify(Config(Gaussian(2), steps=100), make_claim(delta="1e-5", claimed_epsilon="1"), budget=20)
    report = write_report(cert, tmp_path / "cert.md")
    text = report.read_text()
    assert "verdict: CERTIFIED" in text and "![certified privacy profile](cert.png)" in text
    assert (tmp_path / "cert.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(InvalidParameter):
        write_report(cert, tmp_path / "missing" / "cert.md")


class _Cert:
    """What the probe worker reads from a certify result."""

    def __init__(self, verdict):
        self.verdict, self.lower, self.upper = verdict, 0, 0


def test_calibrate_stops_at_an_unsupported_probe(monkeypatch):
    """Hostile-user pass: `calibrate --steps 10 --target-epsilon 100` reached σ = 1/16, where pld's geometric grid
    is refused; the refusal did not pickle back from the probe worker and ended as an internal error (exit 3).
    Now the search stops there and returns what it certified (σ = 1/8), naming the refused probe; a refusal at the
    template's own σ is the user's error (exit 2)."""
    module = importlib.import_module("verialloc.certify.calibrate")  # the package re-exports the function's name

    def fake(config, claim, direction, left, progress, strict):
        if config.mechanism.sigma < Fraction(1, 10):
            raise UnsupportedRequest("method", "pld", "a geometric grid of 2.12e+05 points is needed")
        return _Cert("certified")

    monkeypatch.setattr(module, "certify", fake)
    cal = module.calibrate(Config(Gaussian(1), steps=10), "100", "1e-5")
    assert cal.sigma_upper == Fraction(1, 8) and cal.sigma_lower is None and not cal.converged
    assert cal.reason.startswith("stopped while bracketing: the probe at sigma=1/16 is not supported: method=pld")
    with pytest.raises(UnsupportedRequest, match="geometric grid"):
        module.calibrate(Config(Gaussian("0.05"), steps=10), "100", "1e-5")


@pytest.mark.parametrize(
    "exc",
    [
        InvalidParameter("sigma", -1, "must be > 0"),
        UnsupportedRequest("k", 5, "k <= steps"),
    ],
)
def test_errors_pickle_with_their_fields(exc):
    """calibrate's probe worker sends errors across processes: they must come back whole (the class, the fields
    and the one-line message), not fail in unpickling."""
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc) and back.name == exc.name and back.value == exc.value
