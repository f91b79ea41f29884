"""Fuzz of the command-line argument space (issue #11 item 5).

Draws `delta` / `epsilon` / `rdp` command lines with cheap settings (`--method exact` on one or a few steps, or
`--method rdp`), valid and invalid values (negative, zero, nan, inf, 1e308, 1e400, -1e-5, garbage, huge integers),
`--flag value` and `--flag=value` spellings, flags in any order, missing, repeated and unknown flags. Every run of
`verialloc.cli.main(argv)` (in process) must end with status 0 or 2, never print a traceback, print exactly one
line on stderr (and nothing on stdout) on status 2, and print one strict JSON document on status 0 with --json.

Known crashes in numeric code owned elsewhere are listed in KNOWN_CRASHES (xfailed in test_known_crash, issue #11
item 5); the fuzz keeps drawing them, and a status 3 that matches one of them is tolerated so the fuzz still runs.
A line that runs longer than TIME_LIMIT seconds is abandoned (hypothesis `reject`, shown with `note`): some valid
but extreme inputs are very slow in numeric code (KNOWN_SLOW); this suite checks the CLI, not their speed.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import time
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, note, reject, settings, strategies as st

from verialloc.cli import main

VALID_REAL = ["1", "0.5", "2", "1/3", "1e-5", "0.1", "3"]
VALID_SMALL_INT = ["1", "2", "3"]
BAD = [
    "0",
    "-1",
    "-1e-5",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e400",
    "1e-400",
    "abc",
    "",
    "1/0",
    "9" * 40,
    "0x10",
    "1,2",
    "--",
    "-",
    " 1 ",
    "1e",
    "١",
]

MECHANISMS = {"gaussian": "--sigma", "randomized-response": "--eps0", "laplace": "--scale"}
COMMANDS = {"delta": "--epsilon", "epsilon": "--delta", "rdp": "--alpha"}

#: seconds one drawn line may run before it is abandoned
TIME_LIMIT = 3.0


def flag_value(argv: list[str], flag: str) -> str | None:
    """The value argparse would take for `flag` (last occurrence, `--flag v` or `--flag=v`)."""
    found = None
    for i, tok in enumerate(argv):
        if tok == flag and i + 1 < len(argv):
            found = argv[i + 1]
        elif tok.startswith(flag + "="):
            found = tok[len(flag) + 1 :]
    return found


def _beyond_float(text: str | None) -> bool:
    try:
        return text is not None and abs(Fraction(text.strip())) >= 2**1024  # float64 overflows
    except (ValueError, ZeroDivisionError):
        return False


def _rdp_huge_count(argv: list[str]) -> bool:
    return flag_value(argv, "--method") == "rdp" and any(
        _beyond_float(flag_value(argv, f)) for f in ("--steps", "--epochs")
    )


def _exact_rdp_huge_alpha(argv: list[str]) -> bool:
    alpha = flag_value(argv, "--alpha")
    try:
        return (
            argv[:1] == ["rdp"]
            and flag_value(argv, "--method") in (None, "exact")
            and alpha is not None
            and abs(Fraction(alpha.strip())) > 10**154
        )
    except (ValueError, ZeroDivisionError):
        return False


#: crashes (status 3) this fuzz found in numeric code this suite does not own: (reason, a reproducing line, which
#: drawn lines it covers). Each is xfailed in test_known_crash and tolerated by the fuzz.
KNOWN_CRASHES: list = []  # the three found by this fuzz (rdp with counts beyond 2^53, exact rdp α > 1.3e154) are fixed

#: valid but extreme lines that run for minutes in numeric code (reported, not asserted; abandoned by the fuzz)
KNOWN_SLOW = [
    [
        "delta",
        "--mechanism",
        "laplace",
        "--scale",
        "1e308",
        "--steps",
        "10",
        "--epsilon",
        "2",
        "--scheme",
        "poisson",
        "--rate",
        "0.1",
        "--method",
        "rdp",
        "--direction",
        "both",
    ],  # > 60 s in rdp_logspace.poisson_rdp_curve (mpmath exp)
    ["epsilon", "--mechanism", "gaussian", "--sigma", "1e-400", "--steps", "1", "--delta", "1e-400"],  # > 20 s, exact
]


class _TooSlow(BaseException):
    """Raised by the alarm; a BaseException so that the CLI's boundary does not report it as an internal error."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """_TooSlow after `seconds` of CPU time (the same lines are abandoned however loaded the machine is), or after
    six times as much wall-clock time (a hang that does not burn CPU)."""

    def alarm(signum, frame):
        raise _TooSlow()

    previous = {sig: signal.signal(sig, alarm) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, 6 * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@st.composite
def value(draw, valid: list[str]) -> str:
    """Mostly a valid value (so that whole lines get through), else a bad or arbitrary one."""
    kind = draw(st.integers(0, 19))
    if kind < 16:
        return draw(st.sampled_from(valid))
    if kind == 16:
        return draw(st.sampled_from(BAD))
    if kind == 17:
        return str(draw(st.integers(min_value=-(10**30), max_value=10**30)))
    if kind == 18:
        return repr(draw(st.floats(allow_nan=True, allow_infinity=True)))
    return draw(st.text(alphabet="0123456789.-+eE/xnaif ", max_size=8))


@st.composite
def command_lines(draw) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    mechanism = draw(st.sampled_from(sorted(MECHANISMS)))
    method = draw(st.sampled_from(["exact", "rdp"]))
    steps_valid = ["1", "2", "3", "10", "1e2"] if method == "rdp" else ["1"]
    if command == "rdp":
        target_valid = ["2", "3", "8"] + (["2.5", "1.5", "100"] if method == "rdp" else [])
    elif command == "delta":
        target_valid = ["1", "0.5", "0", "-0.5", "2"]
    else:
        target_valid = ["1e-5", "0.01", "0.5", "1/3"]
    pairs = [
        (
            "--mechanism",
            draw(st.sampled_from(sorted(MECHANISMS) + ["cauchy", ""])) if draw(st.integers(0, 19)) == 0 else mechanism,
        ),
        (MECHANISMS[mechanism], draw(value(VALID_REAL))),
        ("--steps", draw(value(steps_valid))),
        (COMMANDS[command], draw(value(target_valid))),
        ("--method", method),
    ]
    if draw(st.booleans()):
        pairs.append(("--k", draw(value(VALID_SMALL_INT[:1]))))
    if draw(st.booleans()):
        pairs.append(("--epochs", draw(value(VALID_SMALL_INT[:1] if method == "exact" else VALID_SMALL_INT))))
    if draw(st.booleans()):
        pairs.append(("--scheme", draw(st.sampled_from(["allocation", "poisson", "allocation", "poisson", "both"]))))
    if draw(st.integers(0, 3)) == 0:
        pairs.append(("--rate", draw(value(["1", "0.5", "1/3"]))))
    if command != "rdp" and (method == "rdp" or draw(st.booleans())):
        pairs.append(("--direction", draw(st.sampled_from(["remove"] * 6 + ["add", "both", "up"]))))
    if draw(st.booleans()):
        pairs.append(("--digits", draw(value(["5", "12", "20"]))))
    if command != "rdp" and method == "rdp" and draw(st.integers(0, 3)) == 0:
        pairs.append(("--alpha-max", draw(value(["2", "16", "64"]))))
    if draw(st.integers(0, 19)) == 0:
        pairs.append((draw(st.sampled_from(["--bogus", "--samples", "--tail", "--loss-step"])), draw(value(["1"]))))
    # odd orders: drop or repeat a flag, shuffle, --flag=value spellings
    if draw(st.integers(0, 19)) == 0:
        pairs.pop(draw(st.integers(0, len(pairs) - 1)))
    if draw(st.integers(0, 9)) == 0:
        pairs.append(draw(st.sampled_from(pairs)))
    pairs = draw(st.permutations(pairs))
    argv = [command]
    for flag, text in pairs:
        argv += [f"{flag}={text}"] if draw(st.integers(0, 3)) == 0 else [flag, text]
    if draw(st.booleans()):
        argv.insert(draw(st.integers(1, len(argv))), "--json")
    if draw(st.integers(0, 29)) == 0:  # the subcommand after its flags: argparse rejects it, in one line
        argv.append(argv.pop(0))
    return argv


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _no_constants(token):
    raise ValueError(f"non-strict JSON token {token}")


def check(argv: list[str], limit: float | None = TIME_LIMIT) -> None:
    if limit is None:
        status, out, err = run(argv)
    else:
        try:
            with time_limit(limit):
                status, out, err = run(argv)
        except _TooSlow:
            note(f"abandoned after {limit} s: {argv}")
            reject()
    shown = f"verialloc {' '.join(repr(a) if not a or ' ' in a else a for a in argv)}\n{out}{err}"
    assert "Traceback" not in out + err, shown
    if status == 3 and any(match(argv) for _, _, match in KNOWN_CRASHES):
        return
    assert status in (0, 2), shown
    if status == 2:
        assert out == "", shown
        assert len(err.splitlines()) == 1 and err.endswith("\n") and err.startswith("verialloc: error: "), shown
    elif "--json" in argv:
        assert out.count("\n") == 1, shown
        doc = json.loads(out, parse_constant=_no_constants)
        assert isinstance(doc, dict) and {"lower", "upper", "input"} <= set(doc), shown
        assert "NaN" not in out and "Infinity" not in out, shown


@settings(max_examples=200, suppress_health_check=list(HealthCheck))
@given(command_lines())
def test_cli_argument_space(argv):
    check(argv)


@pytest.mark.slow
@settings(max_examples=3000, suppress_health_check=list(HealthCheck))
@given(command_lines())
def test_cli_argument_space_long(argv):
    check(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--delta", "-1e-5", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1"],
        ["delta", "--epsilon=-1e-5", "--mechanism=gaussian", "--sigma=1", "--steps=1", "--json"],
        ["rdp", "--json", "--alpha", "1e400", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1"],
        [
            "rdp",
            "--alpha",
            "1e308",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1e-400",
            "--steps",
            "9" * 40,
            "--method",
            "rdp",
        ],
        ["delta", "--mechanism", "laplace", "--scale", "1e308", "--steps", "1", "--epsilon", "-1e308", "--json"],
        ["epsilon", "--mechanism", "randomized-response", "--eps0", "1e400", "--steps", "1", "--delta", "1e-400"],
        ["delta", "--mechanism", "gaussian", "--sigma", "-nan", "--steps", "1", "--epsilon", "1"],
        # seed-runs 234: the exact layer's size estimate took lgamma of 10³⁰⁸ epochs (OverflowError, status 3)
        [
            "delta",
            "--mechanism=randomized-response",
            "--eps0=1",
            "--steps=1",
            "--epsilon=1",
            "--method=exact",
            "--epochs=1e308",
            "--scheme=poisson",
            "--rate=1",
            "--direction=remove",
        ],
        ["delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--epsilon", "-inf"],
        ["--mechanism", "gaussian", "delta"],
        ["delta"],
    ],
)
def test_hand_picked_lines(argv):
    check(argv, limit=None)


@pytest.mark.parametrize(
    "reason,argv", [pytest.param(r, a, marks=pytest.mark.xfail(reason=r, strict=False)) for r, a, _ in KNOWN_CRASHES]
)
def test_known_crash(reason, argv):
    status, out, err = run(argv)
    assert status in (0, 2), err


def test_fuzz_is_fast():
    """The default profile must stay cheap: one drawn line runs well under a second."""
    start = time.perf_counter()
    check(
        ["delta", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "1", "--epsilon", "1", "--json"],
        limit=None,
    )
    assert time.perf_counter() - start < 5
