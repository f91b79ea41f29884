"""The `verialloc` command line (contract: docs/cli.md). One module per subcommand, each exposing
`register(subparsers)`; a subcommand sets `run(args) -> dict` (JSON-ready) and `render(out) -> str`.

`main` is the one error boundary: bad input (a VeriallocError) exits with status 2 and one line naming the
parameter and its valid range; anything else is a bug and exits with status 3 and one line pointing to `--debug`
(which prints the traceback). Ctrl-C exits 130 with one line; a closed stdout pipe (`| head`) exits 141 quietly.
A subcommand whose answer is a verdict sets `status(out)` (certify: 4 refuted, 5 inconclusive; audit: 4 with an
UNSAFE row; docs/cli.md, "Exit codes").
"""

from __future__ import annotations

import errno
import os
import re
import sys
import traceback
import warnings

import importlib

from ..errors import InternalError, VeriallocError, command_line
from .common import (
    BROKEN_PIPE,
    INTERNAL_ERROR,
    INTERRUPTED,
    OK,
    USER_ERROR,
    Parser,
    close_progress,
    subcommand_parsers,
)

#: the subcommand modules, by name: each is imported only when one of its subcommands runs (or its --help), so
#: `verialloc --help`, `--version` and a mistyped subcommand load no mechanism or method (sympy, scipy: seconds)
SUBCOMMANDS = ("query", "certify", "audit", "stability", "demo", "fuzz")
#: subcommand -> (its module, its one help line: what `verialloc --help` lists; tests/cli check them against the
#: modules' own)
LISTED = {
    "rdp": ("query", "Rényi DP of the remove direction at order --alpha"),
    "delta": ("query", "δ(ε) bracket of the dominating pair"),
    "epsilon": ("query", "ε(δ) bracket of the dominating pair"),
    "certify": ("certify", "certify or refute a claimed (ε, δ) for a configuration"),
    "calibrate": ("certify", "smallest Gaussian σ with certified ε(δ) <= a target"),
    "audit": ("audit", "audit third-party accountants against certified brackets"),
    "stability": ("stability", "map where a float64 path drifts from its mpmath twin"),
    "demo": ("demo", "certify three claims about a default DP-SGD-style configuration"),
    "fuzz": ("fuzz", "differential soundness fuzzer: every method against every other and the exact layer"),
}
#: a value token that argparse would take for an option: -1e-5, -.5, -1/3, -2,3, -inf, -nan
_NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)


def version() -> str:
    try:
        from importlib.metadata import version as dist_version

        return dist_version("verialloc")
    except Exception:  # not installed (source tree on sys.path)
        from .. import __version__

        return __version__


def build_parser(argv: list[str] | None = None) -> Parser:
    """The parser. Given the command line, only the module of the subcommand it names is imported and registered;
    the others are listed by name and help line (`LISTED`). Without it, every subcommand is registered."""
    parser = Parser(
        prog="verialloc",
        description="Certified privacy accounting for random allocation and Poisson subsampling.",
        epilog="--debug (anywhere on the line) prints the traceback of any error.",
    )
    parser.add_argument("--version", action="version", version=f"verialloc {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    chosen = _named_subcommand(argv) if argv is not None else None
    for module in SUBCOMMANDS:
        if isinstance(module, str):
            names = [n for n, (m, _) in LISTED.items() if m == module]
            if argv is not None and chosen not in names:
                for name in names:
                    sub.add_parser(name, help=LISTED[name][1], add_help=False)
                continue
            module = importlib.import_module(f".{module}", __name__)
        module.register(sub)
    return parser


def _named_subcommand(argv: list[str]) -> str | None:
    """The subcommand the command line names: its first token that is not an option."""
    first = next((tok for tok in argv if not tok.startswith("-")), None)
    return first if first in LISTED else None


def attach_negative_values(argv: list[str], parser: Parser) -> list[str]:
    """`--delta -1e-5` -> `--delta=-1e-5`: a token that looks like a negative number right after a flag that takes
    a value is that flag's value (argparse alone reads -1e-5 as an unknown option)."""
    subs, current, out = subcommand_parsers(parser), parser, []
    for tok in argv:
        if out and _NEGATIVE_VALUE.match(tok) and tok not in current._option_string_actions:
            action = _value_option(current, out[-1])
            if action is not None:
                out[-1] = f"{out[-1]}={tok}"
                continue
        if current is parser and tok in subs:
            current = subs[tok]
        out.append(tok)
    return out


def _value_option(parser: Parser, token: str):
    """The action of the option `token` (spelled out: no abbreviations) when it takes exactly one value."""
    if not token.startswith("--") or "=" in token:
        return None
    action = parser._option_string_actions.get(token)
    return action if action is not None and action.nargs is None else None


def parse(argv: list[str]):
    parser = build_parser(list(argv))
    return parser.parse_args(attach_negative_values(list(argv), parser))


def run(argv: list[str]) -> dict:
    """Parse and execute; returns the JSON-ready result (raises VeriallocError on bad input)."""
    args = parse(argv)
    return args.run(args)


def main(argv: list[str] | None = None) -> int:
    """Run one command line; returns the exit status (never raises, never prints a traceback without --debug)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        with warnings.catch_warnings(), command_line():
            if not debug:  # numeric RuntimeWarnings etc. would break the one-line stderr contract
                warnings.simplefilter("ignore")
            try:
                return _execute(argv)
            finally:
                close_progress()
    except KeyboardInterrupt:
        return _fail(debug, "verialloc: interrupted", INTERRUPTED)
    except BrokenPipeError:
        _stdout_to_devnull()
        return BROKEN_PIPE
    except VeriallocError as exc:
        return _fail(debug, f"verialloc: error: {_one_line(exc)}", USER_ERROR)
    except InternalError as exc:
        return _fail(
            debug,
            f"verialloc: internal error (a bug, please report it with the command line): "
            f"{_one_line(exc)}; rerun with --debug for the traceback",
            INTERNAL_ERROR,
        )
    except OSError as exc:
        if exc.filename is not None:  # a file named on the command line cannot be read or written
            return _fail(debug, f"verialloc: error: cannot access {exc.filename}: {exc.strerror or exc}", USER_ERROR)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS):  # the output's device: not a bug
            return _fail(debug, f"verialloc: error: cannot write the output: {exc.strerror}", USER_ERROR)
        return _internal(debug, exc)
    except Exception as exc:
        return _internal(debug, exc)


def _execute(argv: list[str]) -> int:
    try:
        args = parse(argv)
    except SystemExit as exc:  # --help, --version: argparse printed and wants to exit
        return exc.code if isinstance(exc.code, int) else (OK if exc.code is None else USER_ERROR)
    out = args.run(args)
    if getattr(args, "json", False):
        from ..formatting import dumps

        text = dumps(out)
    else:
        text = args.render(out)
    close_progress()
    if text:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()  # a closed pipe shows up here, inside the error boundary
    return args.status(out) if hasattr(args, "status") else OK


def _internal(debug: bool, exc: BaseException) -> int:
    what = f"{type(exc).__name__}: {_one_line(exc)}" if str(exc) else type(exc).__name__
    return _fail(
        debug,
        f"verialloc: internal error ({what}); this is a bug: rerun with --debug for the traceback "
        "and report it with the command line",
        INTERNAL_ERROR,
    )


def _fail(debug: bool, line: str, status: int) -> int:
    try:
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr is gone too: the status is all that is left
        pass
    return status


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _stdout_to_devnull() -> None:
    """After EPIPE: point stdout at devnull so the interpreter's final flush does not complain (Python docs,
    "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
