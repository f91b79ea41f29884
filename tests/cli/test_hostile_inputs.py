"""Hostile-user inputs on the command line (numfix pass): every one exits 2 with one line naming the parameter the
user gave (never an internal name, never exit 3), or answers."""

from __future__ import annotations

import pytest

from verialloc.cli import main


def one_error_line(capsys, argv, status=2):
    assert main(argv) == status
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


GAUSS2 = ["--mechanism", "gaussian", "--sigma", "1", "--steps", "2"]


@pytest.mark.parametrize("method", ["pld", "best", "analytic", "mc", "rdp"])
def test_delta_rounding_to_one(capsys, method):
    line = one_error_line(capsys, ["epsilon", *GAUSS2, "--delta", "0.99999999999999999", "--method", method])
    assert "delta=" in line and "(0, 1)" in line and "delta_floor" not in line


@pytest.mark.parametrize("method", ["pld", "best", "exact"])
@pytest.mark.parametrize("scale", ["1e-400", "1e-300", "1e400"])
def test_laplace_scale_extremes_never_exit_3(capsys, method, scale):
    argv = ["delta", "--mechanism", "laplace", "--scale", scale, "--steps", "2", "--epsilon", "1", "--method", method]
    status = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert status in (0, 2), captured.err
    if status == 2:
        assert captured.err.count("\n") == 1 and "scale=" in captured.err and "decay" not in captured.err


@pytest.mark.parametrize("eps0", ["1e308", "1e400"])
def test_randomized_response_eps0_extremes_are_refused_naming_eps0(capsys, eps0):
    for q in (["delta", "--epsilon", "1"], ["epsilon", "--delta", "1e-5"]):
        argv = [q[0], "--mechanism", "randomized-response", "--eps0", eps0, "--steps", "2", *q[1:], "--method", "pld"]
        line = one_error_line(capsys, argv)
        assert "eps0=" in line and "1e+150" in line


def test_large_noise_refusal_does_not_blame_small_noise(capsys):
    argv = ["delta", "--mechanism", "gaussian", "--sigma", "30", "--steps", "2", "--epsilon", "1", "--method", "exact"]
    line = one_error_line(capsys, argv)
    assert "small noise" not in line and "delta there is far below its absolute error" in line


@pytest.mark.parametrize("method", ["mc"])
@pytest.mark.parametrize("query", [["delta", "--epsilon", "1"], ["epsilon", "--delta", "1e-5"]])
def test_confidence_rounding_to_one(capsys, method, query):
    argv = [query[0], *GAUSS2, *query[1:], "--method", method, "--confidence", "0.99999999999999999"]
    line = one_error_line(capsys, argv)
    assert "confidence=" in line and "(0, 1)" in line


@pytest.mark.parametrize("method", ["pld", "exact", "rdp", "analytic", "best"])
@pytest.mark.parametrize("budget", ["1e-300", "0.001"])
def test_a_budget_below_the_fixed_overhead_is_named(capsys, method, budget):
    argv = ["delta", *GAUSS2, "--epochs", "3", "--epsilon", "1", "--method", method, "--budget", budget]
    if method == "rdp":
        argv += ["--direction", "remove"]
    line = one_error_line(capsys, argv)
    assert line.startswith(f"verialloc: error: budget={budget}") and "0.05 s" in line
    assert "epochs=" not in line and "steps=" not in line


@pytest.mark.parametrize("tol", ["1", "1.5", "-0.1", "0.99999999999999999"])
def test_search_tol_out_of_range_names_the_flag_and_the_range(capsys, tol):
    argv = ["delta", *GAUSS2, "--epsilon", "1", "--method", "rdp", "--direction", "remove", "--search-tol", tol]
    line = one_error_line(capsys, argv)
    assert "search-tol=" in line and "[0, 1)" in line


@pytest.mark.parametrize("tol", ["0", "1e-400", "0.5"])
def test_search_tol_in_range_is_accepted(capsys, tol):
    argv = ["delta", *GAUSS2, "--epsilon", "1", "--method", "rdp", "--direction", "remove", "--search-tol", tol]
    assert main(argv) == 0
    capsys.readouterr()
