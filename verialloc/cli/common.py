"""Shared pieces of the command line: the one-line-error parser, configuration flags, bracket JSON, progress."""
from __future__ import annotations

import argparse
import sys
import time

from ..config import SCHEMES, Config
from ..errors import InvalidParameter, UsageError
from ..formatting import decimal
from ..mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from ..result import Bracket

#: --mechanism value -> (constructor, the one flag it takes)
MECHANISM_FLAGS = {
    "gaussian": (Gaussian, "sigma"),
    "laplace": (Laplace, "scale"),
    "randomized-response": (RandomizedResponse, "eps0"),
    "discrete": (DiscretePair.from_json, "pair"),
}
DEFAULT_DIGITS = 12


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2 through the CLI's error boundary, no usage dump)."""

    def error(self, message):
        message = " ".join(str(message).split())
        if "required: command" in message:  # bare `verialloc` (or only global flags)
            raise UsageError(no_subcommand_hint(self))
        message = message.replace("argument command: invalid choice", "unknown subcommand")
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def no_subcommand_hint(parser: argparse.ArgumentParser) -> str:
    names = ",".join(subcommand_parsers(parser))
    return f"no subcommand given; usage: verialloc [--version] [--debug] {{{names}}} [flags] (see `verialloc --help`)"


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict:
    """name -> parser of every subcommand of `parser` (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def add_config_flags(p: argparse.ArgumentParser, *, steps_required: bool = True) -> None:
    p.add_argument("--mechanism", required=steps_required, help="|".join(MECHANISM_FLAGS))
    p.add_argument("--sigma", help="Gaussian noise multiplier σ > 0")
    p.add_argument("--scale", help="Laplace scale b > 0 (sensitivity 1)")
    p.add_argument("--eps0", help="randomized-response ε0 > 0")
    p.add_argument("--pair", help='JSON file {"p": [...], "q": [...]} for --mechanism discrete')
    p.add_argument("--scheme", default="allocation", help="allocation | poisson")
    p.add_argument("--steps", required=steps_required, help="number of steps t >= 1")
    p.add_argument("--k", default="1", help="steps per element (allocation), 1 <= k <= steps")
    p.add_argument("--epochs", default="1", help="number of epochs (compositions) >= 1")
    p.add_argument("--rate", help="Poisson rate λ in (0, 1] (default k/steps)")


def mechanism_from_args(args) -> object:
    if args.mechanism not in MECHANISM_FLAGS:
        raise InvalidParameter("mechanism", args.mechanism, "must be one of " + "|".join(MECHANISM_FLAGS))
    make, flag = MECHANISM_FLAGS[args.mechanism]
    for other in {f for _, f in MECHANISM_FLAGS.values()} - {flag}:
        if getattr(args, other) is not None:
            raise InvalidParameter(other, getattr(args, other), f"applies only to --mechanism {_owner(other)}")
    if getattr(args, flag) is None:
        raise InvalidParameter(flag, "(missing)", f"--{flag} is required for --mechanism {args.mechanism}")
    return make(getattr(args, flag))


def _owner(flag: str) -> str:
    return next(name for name, (_, f) in MECHANISM_FLAGS.items() if f == flag)


def config_from_args(args) -> Config:
    if args.scheme not in SCHEMES:
        raise InvalidParameter("scheme", args.scheme, "must be one of " + "|".join(SCHEMES))
    return Config(mechanism_from_args(args), scheme=args.scheme, steps=args.steps, k=args.k,
                  epochs=args.epochs, rate=args.rate)


def bracket_json(b: Bracket, digits: int) -> dict:
    """lower rounded down, upper rounded up (exact results round to nearest, so lower == upper)."""
    if b.error_kind == "exact":
        lo = hi = decimal(b.lower, digits)
    else:
        lo, hi = decimal(b.lower, digits, "down"), decimal(b.upper, digits, "up")
    out = {"lower": lo, "upper": hi, "error_kind": b.error_kind}
    if b.direction == "both":
        out["per_direction"] = {d: bracket_json(sub, digits) for d, sub in b.details.items() if isinstance(sub, Bracket)}
    elif b.error_kind == "bound":
        out["budget"] = {key: b.details[key] for key in ("truncated", "float_error", "notes") if key in b.details}
    if b.error_kind == "statistical":
        out["statistics"] = {k: b.details[k] for k in ("certified", "confidence", "samples", "seed", "interval",
                                                        "estimate") if k in b.details}
    if isinstance(b.details.get("best"), str):
        out["bound"] = b.details["best"]  # analytic: the bound that won
    for key in ("upper_from", "lower_from"):
        if key in b.details:
            out[key] = b.details[key]
    return out


#: progress reporters not yet closed (main closes them before it prints the result or an error)
_OPEN: list = []
#: off a terminal, at most one progress line per this many seconds
LOG_INTERVAL = 10.0


class Progress:
    """A callable tick(stage) reporting long computations on stderr.

    On a terminal: a tqdm status line that appears only after ~2 s and is erased when done. Off a terminal (logs,
    CI, pipes): no carriage returns, only plain lines "verialloc: <elapsed> s, <n> steps, <stage>", the first after
    LOG_INTERVAL seconds and then at most one per LOG_INTERVAL seconds.
    """

    def __init__(self, desc: str = "verialloc", interval: float = LOG_INTERVAL, stream=None):
        self.desc, self.interval = desc, interval
        self.stream = sys.stderr if stream is None else stream
        self.start = time.monotonic()
        self.next = self.start + interval
        self.count = 0
        self.bar = None
        if _isatty(self.stream):
            from tqdm import tqdm
            self.bar = tqdm(total=None, desc=desc, delay=2.0, file=self.stream, leave=False,
                            bar_format="{desc}: {elapsed} {postfix}")
        _OPEN.append(self)

    def __call__(self, stage: str) -> None:
        self.count += 1
        if self.bar is not None:
            self.bar.set_postfix_str(str(stage), refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if now >= self.next:
            self.next = now + self.interval
            print(f"{self.desc}: {now - self.start:.0f} s, {self.count} steps, {stage}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self in _OPEN:
            _OPEN.remove(self)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def close_progress() -> None:
    """Close every open progress reporter (erases the terminal status line before anything else is printed)."""
    for p in list(_OPEN):
        try:
            p.close()
        except Exception:  # a broken stderr must not hide the real outcome
            if p in _OPEN:
                _OPEN.remove(p)


def progress_bar(desc: str = "verialloc") -> Progress:
    """A callable tick(stage): a tqdm status line on a terminal, plain periodic lines elsewhere (see Progress)."""
    return Progress(desc)
