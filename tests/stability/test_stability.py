"""Stability explorer (issue #5): classification, sweeps against mpmath, CSV/PNG output, CLI errors."""

import csv
import json
import math

import mpmath as mp
import pytest

from verialloc.cli import main
from verialloc.stability import PROBES, classify, regions, run


@pytest.mark.parametrize(
    "lo, hi, ref, status",
    [
        (0.5, 0.5, mp.mpf("0.5"), "ok"),
        (0.5, 0.5, mp.mpf("0.6"), "inaccurate"),
        (math.nan, math.nan, mp.mpf("0.1"), "failed"),
        (math.inf, math.inf, mp.mpf("0.1"), "failed"),
        (-1e-17, -1e-17, mp.mpf("1e-20"), "failed"),
        (0.1, 0.2, mp.mpf("0.3"), "unsound"),
        (0.1, 0.2, mp.mpf("0.15"), "inaccurate"),
        (0.0, 0.0, mp.mpf("1e-400"), "inaccurate"),
    ],
)
def test_classify(lo, hi, ref, status):
    assert classify(lo, hi, ref, 1e-3)[1] == status


def test_textbook_gaussian_delta_accurate_in_the_bulk_and_underflows_in_the_tail():
    """F13 in float64 agrees with mpmath to 1e-12 where δ is representable; it returns 0 (an optimistic
    answer, relative error 1) once both Φ terms underflow (σ = 4, ε = 12: δ ≈ 1e-300 below float64)."""
    p = PROBES["gaussian-delta"]
    points = run(p, (1.0, 4.0), (1.0, 12.0), 1e-12)
    by = {(pt.x, pt.y): pt for pt in points}
    assert by[1.0, 1.0].status == "ok" and by[1.0, 1.0].rel_error < 1e-12
    tail = by[4.0, 12.0]
    assert tail.lower == 0.0 and mp.mpf(tail.reference) > 0 and tail.status == "inaccurate"
    assert regions(points, p) == ["sigma=4: epsilon in {12}: inaccurate (worst relative error 1)"]


def test_pld_probe_brackets_contain_exact():
    """The PLD ε bracket contains the exact ε for randomized response down to δ = 1e-30 (no unsound point)."""
    points = run(PROBES["pld-rr-epsilon"], (10, 100), (1e-6, 1e-30), 1e-3)
    assert all(pt.status == "ok" for pt in points), points


def test_cli_writes_csv_and_png(tmp_path, capsys):
    csv_path, png_path = tmp_path / "s.csv", tmp_path / "s.png"
    argv = ["stability", "--probe", "gaussian-delta", "--x", "1,4", "--y", "1,12", "--csv", str(csv_path), "--json"]
    try:
        import matplotlib  # noqa: F401

        argv += ["--png", str(png_path)]
    except ImportError:
        png_path = None
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["points"]) == 4 and out["regions"]
    rows = list(csv.reader(open(csv_path)))
    assert rows[0][:2] == ["sigma", "epsilon"] and len(rows) == 5
    if png_path:
        assert png_path.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--probe", "nope"], "probe"),
        (["--probe", "gaussian-delta", "--x", "1,abc"], "x"),
        (["--probe", "gaussian-delta", "--y", "1,inf"], "y"),
        (["--probe", "gaussian-delta", "--tolerance", "2"], "tolerance"),
    ],
)
def test_cli_errors(argv, name, capsys):
    assert main(["stability", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verialloc: error:") and name in err and err.count("\n") == 1


def test_linear_float64_rdp_breaks_where_the_moments_overflow_and_logspace_does_not():
    """Same generating-function algorithm at two precisions: plain float64 fails once the series coefficients
    overflow (α = 38 at σ = 1, where α(α−1)/2 = 703 nears ln(max float) = 709.8) and loses digits of ln D_α at
    t = 1e9; the log-space path stays within 1e-10 of mpmath."""
    linear = {(pt.x, pt.y): pt for pt in run(PROBES["rdp-linear"], (8, 37, 38), (1000, 10**9), 1e-10)}
    assert linear[8, 1000].status == linear[37, 1000].status == "ok"
    assert linear[38, 1000].status == "failed"
    assert linear[8, 10**9].status == "inaccurate" and linear[8, 10**9].rel_error < 1e-6
    logspace = run(PROBES["rdp-logspace"], (8, 39, 512), (1000, 10**9), 1e-10)
    assert all(pt.status == "ok" for pt in logspace), logspace
