"""Poisson subsampling takes its sampling probability from the user, never a guess (issue #30, items 1 and 7): a
missing rate and a k that Poisson does not use are refused naming the parameter, from every way a configuration is
given (flags, config files, batch rows, Python)."""

import json

import pytest

from verialloc import Config, Gaussian, InvalidParameter
from verialloc.cli import main

RATE_MISSING = "rate=(missing) is invalid: must be given for scheme poisson: a sampling probability in (0, 1]"


def error_line(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ("certify", "--delta", "1e-5", "--claimed-epsilon", "2"),
        ("epsilon", "--delta", "1e-5", "--method", "pld"),
        ("delta", "--epsilon", "1"),
    ],
)
def test_cli_poisson_without_rate_is_refused(capsys, argv):
    config = ("--mechanism", "gaussian", "--sigma", "1", "--scheme", "poisson", "--steps", "1000")
    assert RATE_MISSING in error_line(capsys, argv[0], *config, *argv[1:])


def test_config_file_poisson_without_rate_is_refused(capsys, tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('mechanism = "gaussian"\nsigma = 1\nscheme = "poisson"\nsteps = 1000\n')
    assert RATE_MISSING in error_line(capsys, "epsilon", "--config", str(path), "--delta", "1e-5", "--method", "pld")


def test_batch_row_poisson_without_rate_is_an_error_row(capsys, tmp_path):
    claims, out = tmp_path / "claims.jsonl", tmp_path / "out.jsonl"
    row = {"id": "r", "mechanism": "gaussian", "sigma": "1", "scheme": "poisson", "steps": "10", "delta": "1e-5"}
    claims.write_text(json.dumps({**row, "claimed_epsilon": "2"}) + "\n")
    assert main(["certify", "--batch", str(claims), "--out", str(out)]) == 2
    (result,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["verdict"] == "error" and RATE_MISSING in result["error"]


def test_python_config_poisson_without_rate_is_refused():
    with pytest.raises(InvalidParameter, match=r"rate=\(missing\) is invalid: must be given for scheme poisson"):
        Config(Gaussian(1), scheme="poisson", steps=1000)
    assert Config(Gaussian(1), scheme="poisson", steps=1000, rate="1/1000").rate * 1000 == 1


def test_poisson_k_other_than_one_is_refused(capsys):
    """k is the allocation's "k of t steps"; a Poisson element joins each step with probability rate, so k = 3
    would be echoed and ignored (the same answer as k = 1)."""
    line = error_line(
        capsys,
        *("delta", "--mechanism", "gaussian", "--sigma", "1", "--scheme", "poisson"),
        *("--steps", "10", "--k", "3", "--rate", "0.5", "--epsilon", "1"),
    )
    assert line.startswith("verialloc: error: k=3 is invalid:") and "scheme poisson" in line
    with pytest.raises(InvalidParameter, match="^k=3 is invalid"):
        Config(Gaussian(1), scheme="poisson", steps=10, k=3, rate="1/2")
    assert Config(Gaussian(1), scheme="poisson", steps=10, k=1, rate="1/2").k == 1
