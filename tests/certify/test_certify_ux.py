"""Issue #30 item 8: ε brackets of claims floored at 0, short str/repr of results, numbers from batch results."""

import json
import re

import mpmath as mp

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.certify import certify, load_results, make_claim
from verialloc.certify.refine import floor_at_zero
from verialloc.cli import main


def test_epsilon_of_a_claim_is_floored_at_zero_with_the_same_verdict():
    """ε(δ) can be below 0 (randomized response with eps0 = 1/1000 over 10 steps, δ = 0.01: ln(1 − δ), the exact
    value); a claim about the ε >= 0 of (ε, δ)-DP gets the bracket of max(ε(δ), 0), and the same verdict."""
    config = Config(RandomizedResponse("1/1000"), steps=10)
    truth = api.epsilon(config, "0.01", method="exact")
    assert truth.upper < 0
    cert = certify(config, make_claim(delta="0.01", claimed_epsilon=2))
    assert cert.floored and cert.lower == cert.upper == 0 and cert.verdict == "certified"
    assert floor_at_zero(mp.mpf(-1), mp.mpf(2)) == (0, 2)


def test_certify_report_says_the_bracket_is_floored(capsys):
    argv = ["certify", "--mechanism", "randomized-response", "--eps0", "0.001", "--steps", "10", "--delta", "0.01"]
    assert main([*argv, "--claimed-epsilon", "2"]) == 0
    out = capsys.readouterr().out
    assert "certified epsilon: [0.0, 0.0]" in out and "max(epsilon(delta), 0)" in out
    assert main([*argv, "--claimed-epsilon", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert float(got["lower"]) == 0 and "floored" in got


def test_results_print_short():
    config = Config(Gaussian(1), steps=1000)
    b = api.epsilon(config, "1e-5")
    assert len(repr(b)) < 120 and str(b).startswith("epsilon in [0.1387") and "(best, both, bound)" in str(b)
    cert = certify(config, make_claim(delta="1e-5", claimed_epsilon=1))
    assert len(str(cert)) < 250 and str(cert).startswith("CERTIFIED: epsilon(delta=1/100000) <= 1")
    assert repr(cert).startswith("<Certificate CERTIFIED")


def test_batch_results_as_numbers(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        json.dumps({"mechanism": "gaussian", "sigma": 1, "steps": 1, "delta": "1e-5", "claimed_epsilon": 5}) + "\n"
    )
    out = tmp_path / "results.jsonl"
    assert main(["certify", "--batch", str(claims), "--out", str(out)]) == 0
    (text,) = load_results(out)
    (row,) = load_results(out, numbers=True)
    assert isinstance(text["lower"], str) and isinstance(row["lower"], float) and isinstance(row["seconds"], float)
    assert row["lower"] <= mp.mpf(text["lower"]) and row["upper"] >= mp.mpf(text["upper"])
    assert row["rigorous"] is True and row["error"] is None and row["verdict"] == "certified"


def test_batch_row_errors_name_remedies_as_the_caller_would():
    """A row run in a worker process of a command-line batch names flags; one of a Python run_batch, keywords."""
    from verialloc.certify.batch import certify_row

    values = {"mechanism": "gaussian", "sigma": "1", "steps": "1000000", "epochs": "10000", "delta": "1e-5"}
    task = {
        "key": "k",
        "line": 2,
        "values": {**values, "claimed_epsilon": "1"},
        "defaults": {"direction": "both", "budget": "1", "strict": "false"},
        "digits": 8,
    }
    cli_row = certify_row({**task, "words": "cli"})
    python_row = certify_row({**task, "words": "python"})
    assert cli_row["verdict"] == python_row["verdict"] == "error"
    assert re.search(r"--budget [0-9]", cli_row["error"]) and re.search(r"budget=[0-9]", python_row["error"])


def test_certify_refusal_names_no_method_flag_it_lacks(capsys):
    """certify chooses its methods: a range refusal must not advise `--method` (hostile-user pass, issue #30)."""
    from verialloc.cli import main

    assert main(["certify", "--sigma", "1", "--steps", "10", "--delta", "1e-400", "--claimed-epsilon", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "delta=1e-400" in err and "1e-300" in err and "--method" not in err and len(err.splitlines()) == 1
