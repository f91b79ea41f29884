"""`verialloc rdp|delta|epsilon`: one bracket per query (contract: docs/cli.md).

    verialloc rdp     --mechanism M [params] --steps T --alpha A [--digits N] [--json]
    verialloc delta   --mechanism M [params] --scheme allocation|poisson --steps T [--k K] [--epochs E]
                      [--rate LAMBDA] --epsilon EPS [--direction remove|add|both] [--method exact] [--digits N] [--json]
    verialloc epsilon ... --delta D ...

Bad input exits with status 2 and one line naming the parameter and its valid range.
"""
from __future__ import annotations

from .. import api
from ..formatting import decimal
from ..errors import InvalidParameter
from ..validation import digits as check_digits, positive
from .common import DEFAULT_DIGITS, add_config_flags, bracket_json, config_from_args, progress_bar


def register(sub) -> None:
    for name, helptext in [("rdp", "Rényi DP of the remove direction at order --alpha"),
                           ("delta", "δ(ε) bracket of the dominating pair"),
                           ("epsilon", "ε(δ) bracket of the dominating pair")]:
        p = sub.add_parser(name, help=helptext, description=helptext)
        add_config_flags(p)
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
        p.set_defaults(run=run, render=render_text)


def method_options(args) -> dict:
    """Method-specific keywords: the pld accuracy knobs and a progress bar (shown only after ~2 s)."""
    knobs = {name: getattr(args, name) for name in ("loss_step", "grid_step", "tail")}
    given = {k: v for k, v in knobs.items() if v is not None}
    if args.method != "pld":
        if given:
            name = next(iter(given))
            raise InvalidParameter(name.replace("_", "-"), given[name], "applies only to --method pld")
        return {}
    from ..numeric.accountant import Settings
    values = {k: float(positive(k.replace("_", "-"), v)) for k, v in given.items()}
    return {"settings": Settings(**values), "progress": progress_bar()}


def run(args) -> dict:
    """Execute a parsed rdp/delta/epsilon command; returns the JSON-ready result."""
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
