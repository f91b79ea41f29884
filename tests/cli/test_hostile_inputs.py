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
