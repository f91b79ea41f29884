"""Shared pieces of the command line: the one-line-error parser, configuration flags, bracket JSON, progress."""
from __future__ import annotations

import argparse
import sys

from ..config import SCHEMES, Config
from ..errors import InvalidParameter
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
    def error(self, message):  # one line, exit 2 (no usage dump)
        raise InvalidParameter("arguments", "", message)


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


def progress_bar():
    """A callable tick(stage) driving a tqdm status line on stderr that appears only after ~2 s."""
    from tqdm import tqdm
    bar = tqdm(total=None, desc="verialloc", delay=2.0, file=sys.stderr, leave=False, bar_format="{desc}: {elapsed} {postfix}")

    def tick(stage: str) -> None:
        bar.set_postfix_str(stage, refresh=False)
        bar.update(1)

    return tick
