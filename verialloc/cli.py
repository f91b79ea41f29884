"""The `verialloc` command line (contract: docs/cli.md).

    verialloc rdp     --mechanism M [params] --steps T --alpha A [--digits N] [--json]
    verialloc delta   --mechanism M [params] --scheme allocation|poisson --steps T [--k K] [--epochs E]
                      [--rate LAMBDA] --epsilon EPS [--direction remove|add|both] [--method exact] [--digits N] [--json]
    verialloc epsilon ... --delta D ...

Bad input exits with status 2 and one line naming the parameter and its valid range.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import api
from .config import SCHEMES, Config
from .errors import InvalidParameter, VerifallocError
from .formatting import decimal
from .mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from .result import Bracket
from .validation import digits as check_digits, positive

#: --mechanism value -> (constructor, the one flag it takes)
MECHANISM_FLAGS = {
    "gaussian": (Gaussian, "sigma"),
    "laplace": (Laplace, "scale"),
    "randomized-response": (RandomizedResponse, "eps0"),
    "discrete": (DiscretePair.from_json, "pair"),
}
DEFAULT_DIGITS = 12


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (no usage dump)
        raise InvalidParameter("arguments", "", message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verialloc", description="Certified privacy accounting for random allocation and Poisson subsampling.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, helptext in [("rdp", "Rényi DP of the remove direction at order --alpha"),
                           ("delta", "δ(ε) bracket of the dominating pair"),
                           ("epsilon", "ε(δ) bracket of the dominating pair")]:
        p = sub.add_parser(name, help=helptext, description=helptext)
        _add_config_flags(p)
        if name == "rdp":
            p.add_argument("--alpha", required=True, help="integer Rényi order >= 2")
        elif name == "delta":
            p.add_argument("--epsilon", required=True, help="ε at which to evaluate δ (any real)")
        else:
            p.add_argument("--delta", required=True, help="target δ in (0, 1)")
        if name != "rdp":
            p.add_argument("--direction", default="both", help="remove | add | both (max of the two; default)")
        p.add_argument("--method", default="exact", help="accounting method: " + "|".join(api.METHODS))
        if name != "rdp":
            p.add_argument("--loss-step", help="pld: loss grid step of compositions (default 1e-4)")
            p.add_argument("--grid-step", help="pld: exp-space grid step of the allocation sum (default: automatic)")
            p.add_argument("--tail", help="pld: tail mass truncated per step, tracked in the result (default 1e-15)")
        p.add_argument("--digits", default=str(DEFAULT_DIGITS), help=f"significant digits (default {DEFAULT_DIGITS})")
        p.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("demo", help="run the main job on a default configuration")
    return parser


def _add_config_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", required=True, help="|".join(MECHANISM_FLAGS))
    p.add_argument("--sigma", help="Gaussian noise multiplier σ > 0")
    p.add_argument("--scale", help="Laplace scale b > 0 (sensitivity 1)")
    p.add_argument("--eps0", help="randomized-response ε0 > 0")
    p.add_argument("--pair", help='JSON file {"p": [...], "q": [...]} for --mechanism discrete')
    p.add_argument("--scheme", default="allocation", help="allocation | poisson")
    p.add_argument("--steps", required=True, help="number of steps t >= 1")
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
        out["per_direction"] = {d: bracket_json(sub, digits) for d, sub in b.details.items()}
    elif b.error_kind == "bound":
        out["budget"] = {key: b.details[key] for key in ("truncated", "float_error", "notes")}
    return out


def method_options(args) -> dict:
    """Method-specific keywords: the pld accuracy knobs and a progress bar (shown only after ~2 s)."""
    knobs = {name: getattr(args, name) for name in ("loss_step", "grid_step", "tail")}
    given = {k: v for k, v in knobs.items() if v is not None}
    if args.method != "pld":
        if given:
            name = next(iter(given))
            raise InvalidParameter(name.replace("_", "-"), given[name], "applies only to --method pld")
        return {}
    from .numeric.accountant import Settings
    values = {k: float(positive(k.replace("_", "-"), v)) for k, v in given.items()}
    return {"settings": Settings(**values), "progress": _progress_bar()}


def _progress_bar():
    from tqdm import tqdm
    bar = tqdm(total=None, desc="verialloc", delay=2.0, file=sys.stderr, leave=False, bar_format="{desc}: {elapsed} {postfix}")

    def tick(stage: str) -> None:
        bar.set_postfix_str(stage, refresh=False)
        bar.update(1)

    return tick


def run(argv: list[str]) -> dict:
    """Parse and execute; returns the JSON-ready result (raises VerifallocError on bad input)."""
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo
        return run_demo()
    config = config_from_args(args)
    digits = check_digits(args.digits)
    out = {"command": args.command, "method": args.method, **config.as_dict(), "digits": digits}
    if args.command == "rdp":
        b = api.rdp(config, args.alpha, method=args.method, digits=digits)
        out.update(alpha=str(b.details["alpha"]), direction="remove", rdp=decimal(b.lower, digits))
    elif args.command == "delta":
        b = api.delta(config, args.epsilon, direction=args.direction, method=args.method, digits=digits,
                      **method_options(args))
        out.update(epsilon=args.epsilon, direction=b.direction)
    else:
        b = api.epsilon(config, args.delta, direction=args.direction, method=args.method, digits=digits,
                        **method_options(args))
        out.update(delta=args.delta, direction=b.direction)
    out.update(bracket_json(b, digits))
    out["quantity"] = b.quantity
    return out


def render_text(out: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in out["params"].items())
    head = f"{out['mechanism']}({params}), {out['scheme']} steps={out['steps']} k={out['k']} epochs={out['epochs']}"
    if "rate" in out:
        head += f" rate={out['rate']}"
    what = {"rdp": f"RDP at alpha={out.get('alpha')}", "delta": f"delta(epsilon={out.get('epsilon')})",
            "epsilon": f"epsilon(delta={out.get('delta')})"}[out["command"]]
    lines = [f"{what} of {head}", f"  method {out['method']}, direction {out['direction']} ({out['error_kind']})"]
    lines.append(f"  value: {out['lower']}" if out["lower"] == out["upper"] else f"  bracket: [{out['lower']}, {out['upper']}]")
    for d, sub in out.get("per_direction", {}).items():
        val = sub["lower"] if sub["lower"] == sub["upper"] else f"[{sub['lower']}, {sub['upper']}]"
        lines.append(f"    {d}: {val}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        out = run(argv)
    except VerifallocError as exc:
        print(f"verialloc: error: {exc}", file=sys.stderr)
        return 2
    if out.get("command") == "demo":
        return 0
    wants_json = "--json" in argv
    print(json.dumps(out) if wants_json else render_text(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
