"""The CLI's error boundary and output (issue #11): exit statuses 0/2/3/130/141, one-line messages, --debug,
--version, negative numbers as values, strict JSON, progress off a terminal, inputs echoed as typed and exact."""

import io
import json
import os
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest

from verialloc.cli import common, main, query
from verialloc.errors import InternalError
from verialloc.formatting import dumps, strict_json

GAUSS1 = ["--mechanism", "gaussian", "--sigma", "1", "--steps", "1"]


def one_error_line(capsys, argv, status=2):
    assert main(argv) == status
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def _strict(text):
    def refuse(token):
        raise ValueError(token)

    return json.loads(text, parse_constant=refuse)


# --- argument parsing -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", *GAUSS1, "--delta", "-1e-5"],
        ["epsilon", "--delta", "-1e-5", *GAUSS1],
        ["epsilon", *GAUSS1, "--delta=-1e-5"],
    ],
)
def test_negative_delta_is_a_value_and_the_message_names_delta(capsys, argv):
    line = one_error_line(capsys, argv)
    assert line == "verialloc: error: delta=-1e-5 is invalid: must lie in the open interval (0, 1)"


@pytest.mark.parametrize("text", ["-0.5", "-1/2", "-.5", "-5e-1"])
def test_negative_epsilon_is_accepted(capsys, text):
    assert (
        main(
            ["delta", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "1", "--epsilon", text, "--json"]
        )
        == 0
    )
    out = _strict(capsys.readouterr().out)
    assert out["epsilon"] == "-1/2" and out["input"]["epsilon"] == text


@pytest.mark.parametrize("text,name", [("-1", "sigma"), ("-inf", "sigma"), ("-nan", "sigma")])
def test_negative_parameters_name_their_flag(capsys, text, name):
    line = one_error_line(
        capsys, ["delta", "--mechanism", "gaussian", "--sigma", text, "--steps", "1", "--epsilon", "1"]
    )
    assert line.startswith(f"verialloc: error: {name}={text} is invalid")


@pytest.mark.parametrize("text", ["1_0", "\u0661", "0x10", "1e\u0661", "1\x1b[2J", "2\x00"])
def test_number_text_is_ascii_decimal_or_p_q(capsys, text):
    """Fraction() reads "1_0" as 10 and other scripts' digits ("١" as 1): a number on the command line, in a file
    or a pair is ASCII digits, '.', 'e', sign and '/' only. Control characters in a value are escaped in the
    message line (ESC reached the terminal) (hostile-user findings, #14)."""
    line = one_error_line(
        capsys, ["delta", "--mechanism", "gaussian", "--sigma", text, "--steps", "1", "--epsilon", "1"]
    )
    assert line.startswith("verialloc: error: sigma=") and "ASCII digits" in line
    assert line.isprintable()


def test_huge_integers_in_messages_are_named_by_size():
    """str() of an int beyond 4300 digits raises ValueError: the message builders crashed with it."""
    from verialloc.errors import InvalidParameter
    from verialloc.validation import abbreviated

    assert str(InvalidParameter("steps", 10**5000, "x")) == "steps=(an integer of 16610 bits) is invalid: x"
    assert abbreviated(-(10**5000)) == "(an integer of 16610 bits)"


def test_bare_command_prints_a_usage_hint(capsys):
    line = one_error_line(capsys, [])
    assert "usage: verialloc" in line and "delta" in line and "--help" in line and "arguments=" not in line


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["delta", *GAUSS1, "--epsilon"], "--epsilon"),
        (["delta", *GAUSS1, "--epsilon", "1", "--bogus", "3"], "--bogus"),
        (["delta", "--mechanism", "gaussian", "--sigma", "1", "--epsilon", "1"], "--steps"),
        (["delta", *GAUSS1, "--epsilon", "1", "--json=yes"], "--json"),
        (["delta", *GAUSS1, "--epsilon", "1", "--s", "1"], "--s"),  # ambiguous abbreviation
        (["bogus"], "bogus"),
    ],
)
def test_argparse_errors_name_the_flag_in_one_line(capsys, argv, flag):
    line = one_error_line(capsys, argv)
    assert line.startswith("verialloc: error: ") and flag in line and "arguments=" not in line


def test_version(capsys):
    from verialloc import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"verialloc {__version__}"


def test_help_exits_0(capsys):
    assert main(["delta", "--help"]) == 0
    assert "--epsilon" in capsys.readouterr().out


# --- the error boundary -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_traceback_of_a_user_error(capsys, where):
    argv = ["delta", "--mechanism", "gaussian", "--steps", "1", "--epsilon", "1", "--sigma", "0"]
    argv = ["--debug", *argv] if where == "before" else [*argv, "--debug"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().splitlines()[-1] == "verialloc: error: sigma=0 is invalid: must be > 0"


def _raising(exc):
    def run(args):
        raise exc

    return run


@pytest.mark.parametrize(
    "exc",
    [ZeroDivisionError("division by zero"), OverflowError("math range error\nsecond"), KeyError("x"), RuntimeError()],
)
def test_unexpected_exception_is_internal_error_3(capsys, monkeypatch, exc):
    monkeypatch.setattr(query, "run", _raising(exc))
    line = one_error_line(capsys, ["delta", *GAUSS1, "--epsilon", "1"], status=3)
    assert line.startswith("verialloc: internal error (") and type(exc).__name__ in line and "--debug" in line


def test_internal_error_is_3_and_debug_shows_the_traceback(capsys, monkeypatch):
    monkeypatch.setattr(query, "run", _raising(InternalError("lower 2 > upper 1")))
    line = one_error_line(capsys, ["delta", *GAUSS1, "--epsilon", "1"], status=3)
    assert "lower 2 > upper 1" in line and "--debug" in line
    assert main(["delta", *GAUSS1, "--epsilon", "1", "--debug"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "InternalError" in err


def test_keyboard_interrupt_is_130_with_one_line(capsys, monkeypatch):
    monkeypatch.setattr(query, "run", _raising(KeyboardInterrupt()))
    assert one_error_line(capsys, ["delta", *GAUSS1, "--epsilon", "1"], status=130) == "verialloc: interrupted"


def test_missing_file_is_a_user_error(capsys, monkeypatch):
    monkeypatch.setattr(query, "run", _raising(FileNotFoundError(2, "No such file or directory", "/no/such/file")))
    line = one_error_line(capsys, ["delta", *GAUSS1, "--epsilon", "1"], status=2)
    assert "/no/such/file" in line


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_broken_pipe_in_process_is_quiet(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["delta", *GAUSS1, "--epsilon", "1", "--json"]) == 141
    assert capsys.readouterr().err == ""


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [os.getcwd(), os.environ.get("PYTHONPATH")] if p)}


def test_broken_pipe_console(tmp_path):
    """stdout is a pipe whose reader is gone (`| head` after head exits): exit 141, nothing on stderr."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "verialloc.cli", "delta", *GAUSS1, "--epsilon", "1", "--json"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert proc.returncode == 141 and proc.stderr == ""


def test_sigint_console():
    """A real SIGINT during the computation: one line, status 130. The child restores Python's SIGINT handler: a
    shell starts background jobs with SIGINT ignored, and the child would inherit that (seen in `.ci/seed-runs`)."""
    code = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from verialloc.cli import main, query\n"
        "run = query.run\n"
        "def interrupted(args):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return run(args)\n"
        "query.run = interrupted\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "delta", *GAUSS1, "--epsilon", "1"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 130 and proc.stdout == "" and proc.stderr == "verialloc: interrupted\n"


# --- output -------------------------------------------------------------------------------------------------------


def test_strict_json_converts_non_finite_numpy_and_mpmath():
    value = {
        "a": float("nan"),
        "b": [float("inf"), -float("inf")],
        "c": np.float64("nan"),
        "d": np.array([1.5, np.inf]),
        "e": mp.mpf("-inf"),
        "f": mp.mpf("0.25"),
        "g": mp.mpf("1e400"),
        "h": np.int64(3),
        "i": np.bool_(True),
        2.5: (1, None),
    }
    safe = strict_json(value)
    big = safe.pop("g")  # beyond float64: a decimal string
    assert isinstance(big, str) and mp.almosteq(mp.mpf(big), mp.mpf("1e400"), rel_eps=1e-15)
    assert safe == {
        "a": "nan",
        "b": ["inf", "-inf"],
        "c": "nan",
        "d": [1.5, "inf"],
        "e": "-inf",
        "f": 0.25,
        "h": 3,
        "i": True,
        "2.5": [1, None],
    }
    text = dumps(value)
    assert "NaN" not in text and "Infinity" not in text and _strict(text)["d"] == [1.5, "inf"]
    with pytest.raises(TypeError):
        dumps({"x": object()})


def test_stability_json_is_strict(capsys):
    """rdp-linear at alpha = 37, 38 and t = 1e9 fails (inf relative error, NaN ends): no NaN/Infinity tokens."""
    assert main(["stability", "--probe", "rdp-linear", "--x", "8,38", "--y", "1000,1000000000", "--json"]) == 0
    text = capsys.readouterr().out
    out = _strict(text)
    assert "NaN" not in text and "Infinity" not in text
    assert any(p["rel_error"] == "inf" for p in out["points"])


@pytest.mark.parametrize("flag", ["--png", "--csv"])
def test_stability_output_into_a_missing_directory(capsys, tmp_path, flag):
    target = tmp_path / "missing" / "out.file"
    line = one_error_line(capsys, ["stability", "--probe", "rdp-linear", "--x", "8", "--y", "1000", flag, str(target)])
    assert line.startswith(f"verialloc: error: {flag[2:]}=") and "does not exist" in line
    assert not target.parent.exists()  # no directory is created


def test_inputs_echoed_as_typed_and_exact(capsys):
    argv = ["epsilon", "--mechanism", "gaussian", "--sigma", "0.8", "--steps", "1", "--delta", "1e-5"]
    assert main([*argv, "--json"]) == 0
    out = _strict(capsys.readouterr().out)
    assert out["delta"] == "1/100000" and out["params"] == {"sigma": "4/5"}
    assert out["input"] == {"sigma": "0.8", "steps": "1", "k": "1", "epochs": "1", "delta": "1e-5"}
    assert main(argv) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == "epsilon(delta=1e-5 (=1/100000)) of gaussian(sigma=0.8 (=4/5)), allocation steps=1 k=1 epochs=1"


def test_poisson_rate_and_rdp_alpha_echo(capsys):
    argv = [
        "rdp",
        "--mechanism",
        "randomized-response",
        "--eps0",
        "1",
        "--scheme",
        "poisson",
        "--steps",
        "2",
        "--rate",
        "0.5",
        "--alpha",
        "2.0",
    ]
    assert main([*argv, "--json"]) == 0
    out = _strict(capsys.readouterr().out)
    assert (
        out["rate"] == "1/2"
        and out["alpha"] == "2"
        and out["input"]["rate"] == "0.5"
        and out["input"]["alpha"] == "2.0"
    )
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(
        "RDP at alpha=2.0 (=2) of randomized-response(eps0=1), poisson steps=2 k=1 epochs=1 rate=0.5 (=1/2)"
    )


# --- progress -----------------------------------------------------------------------------------------------------


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_progress_off_a_terminal_prints_plain_lines_at_most_every_interval(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(common.time, "monotonic", clock)
    stream = io.StringIO()
    tick = common.Progress(stream=stream)
    for second in range(35):  # 10 ticks a second for 35 s
        for _ in range(10):
            tick(f"stage at {second}")
            clock.now += 0.1
    tick.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert len(lines) == 3 and all(line.startswith("verialloc: ") for line in lines)  # at 10, 20, 30 s


def test_progress_quiet_for_short_runs_off_a_terminal():
    stream = io.StringIO()
    tick = common.Progress(stream=stream)
    for _ in range(100):
        tick("stage")
    tick.close()
    assert stream.getvalue() == ""


def test_progress_on_a_terminal_uses_a_bar():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tick = common.Progress(stream=Tty())
    assert tick.bar is not None
    tick("stage")
    common.close_progress()
    assert tick.bar is None and tick not in common._OPEN
