"""Every method-specific flag (`Method.flags` of the registry) refuses hostile values with exit 2 and one line naming it.

Found by sweeping the flags with their owning method: `--search-tol`, `--loss-step`, `--tail`, `--grid-step` at
1e400 (beyond float64) and `--samples 1e308` crashed with an OverflowError (status 3) — the float conversion of a
validated exact value (now `validation.as_float`) and mc's cost estimate (now computed on a capped count).
"""

from __future__ import annotations

import contextlib
import io

import pytest

from verialloc.cli import main
from verialloc.registry import METHODS

HOSTILE = ["-1", "nan", "inf", "-inf", "1e400", "abc", "", "1/0"]
#: values a flag legitimately accepts (a seed is any integer >= 0)
VALID = {("seed", "1e400")}
CASES = [
    (name, flag.name, value)
    for name, m in METHODS.items()
    for flag in m.flags
    for value in HOSTILE
    if (flag.name, value) not in VALID
]


@pytest.mark.parametrize("method, flag, value", CASES)
def test_hostile_method_flag_is_one_line_exit_2(method, flag, value):
    name = flag
    argv = [
        "epsilon",
        "--mechanism",
        "gaussian",
        "--sigma",
        "1",
        "--steps",
        "2",
        "--delta",
        "1e-5",
        "--method",
        method,
        f"--{name}={value}",
    ]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    lines = err.getvalue().splitlines()
    assert (status, out.getvalue(), len(lines)) == (2, "", 1), (argv, err.getvalue())
    assert name in lines[0] and "Traceback" not in lines[0]


def test_samples_beyond_float64_is_refused_by_the_budget():
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(
            [
                "epsilon",
                "--mechanism",
                "gaussian",
                "--sigma",
                "1",
                "--steps",
                "2",
                "--delta",
                "1e-5",
                "--method",
                "mc",
                "--samples",
                "1e308",
            ]
        )
    assert status == 2 and "samples" in err.getvalue() and "budget" in err.getvalue()


@pytest.mark.parametrize(
    "flag, value",
    [("--epsilon", "1e999999"), ("--epsilon", "-1e999999"), ("--sigma", "1e1001"), ("--steps", "1e999999")],
)
def test_number_text_beyond_the_exponent_range_is_refused_at_once(flag, value):
    """`delta --epsilon 1e999999` ran for minutes (the query values had no number-size check; the configuration
    flags had): every number given as text goes through validation.check_number_text."""
    argv = ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "1"]
    argv[argv.index(flag) + 1] = value
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 2 and "decimal exponent in [-4000, 1000]" in err.getvalue(), err.getvalue()


@pytest.mark.parametrize("value", ["1e308", "1.5"])
def test_grid_step_above_its_range_is_refused(value):
    """The exp-grid step is at most tighten.MAX_GRID_STEP = 1 (e^ℓ has mean 1 under Q): 1e308 answered the trivial
    δ ≤ 1 with exit 0 (hostile-user pass, #13). The message names the flag as typed, not the keyword grid_step."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(
            [
                "delta",
                "--mechanism",
                "gaussian",
                "--sigma",
                "0.8",
                "--steps",
                "5",
                "--k",
                "2",
                "--epsilon",
                "0.1",
                "--method",
                "pld",
                "--grid-step",
                value,
            ]
        )
    lines = err.getvalue().splitlines()
    assert status == 2 and lines == [f"verialloc: error: grid-step={value} is invalid: must lie in (0, 1]"], lines
