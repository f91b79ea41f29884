"""`verialloc rdp|delta|epsilon`: one bracket per query (contract: docs/cli.md).

    verialloc rdp     (--config FILE | --mechanism M [params] --steps T) --alpha A [--digits N] [--budget S] [--json]
    verialloc delta   (--config FILE.json|FILE.toml | --mechanism M [params] --scheme allocation|poisson --steps T
                      [--k K] [--epochs E] [--rate LAMBDA]) --epsilon EPS [--direction remove|add|both]
                      [--method exact] [--digits N] [--budget SECONDS] [--json]
    verialloc epsilon ... --delta D ...

The configuration comes from the flags or from `--config FILE` (read into the flags by common.apply_config_file;
a configuration flag given with it is an error); `--pair` is inline JSON or a JSON file.

Bad input exits with status 2 and one line naming the parameter and its valid range.
"""

from __future__ import annotations

from .. import api, registry
from ..formatting import decimal, describe, describe_events, header_show
from ..errors import InvalidParameter
from ..validation import digits as check_digits, to_fraction
from .common import (
    DEFAULT_DIGITS,
    OPACUS_HELP,
    add_config_flags,
    bracket_json,
    config_from_args,
    progress_bar,
    spellings,
)


def register(sub) -> None:
    for name, helptext in [
        ("rdp", "Rényi DP of the remove direction at order --alpha"),
        ("delta", "δ(ε) bracket of the dominating pair"),
        ("epsilon", "ε(δ) bracket of the dominating pair"),
    ]:
        p = sub.add_parser(name, help=helptext, description=helptext)
        add_config_flags(p)
        p.add_argument("--from-opacus-history", metavar="FILE", help=OPACUS_HELP)
        if name == "rdp":
            orders = "; ".join(f"{m.name}: {m.orders}" for m in registry.METHODS.values() if m.orders)
            p.add_argument("--alpha", required=True, help=f"Rényi order ({orders})")
        elif name == "delta":
            p.add_argument(*spellings("epsilon"), required=True, help="ε at which to evaluate δ (any real)")
        else:
            p.add_argument(*spellings("delta"), required=True, help="target δ in (0, 1)")
        if name != "rdp":
            p.add_argument("--direction", default="both", help="remove | add | both (max of the two; default)")
        p.add_argument(
            "--method",
            default=registry.DEFAULT,
            help="accounting method: "
            + "|".join(registry.METHODS)
            + f" (default {registry.DEFAULT}: exact where the cost model estimates it at a few seconds, else best)",
        )
        if name != "rdp":
            add_method_flags(p)
        p.add_argument("--digits", default=str(DEFAULT_DIGITS), help=f"significant digits (default {DEFAULT_DIGITS})")
        p.add_argument(
            "--budget",
            help="seconds the query may take by the cost model's estimate (default 600); "
            "a request estimated above it is refused before it starts",
        )
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(run=run, render=render_text)


def add_method_flags(p) -> None:
    """Every registered method's flags, each once, its help prefixed by the methods that take it."""
    for flag, owners in registry.flags().values():
        p.add_argument(f"--{flag.name}", help=f"{'|'.join(owners)}: {flag.help}")


def method_options(args) -> dict:
    """The method's keywords from its flags (registry: `Method.flags`, `Method.options_from_flags`) and, for a
    method that reports progress, a progress reporter on stderr (common.Progress: a terminal bar shown after ~2 s,
    plain periodic lines elsewhere); a flag given to a method that does not take it is an error."""
    method = registry.method(args.method)
    flags = registry.flags()
    given = {
        f.keyword: getattr(args, f.keyword) for f, _ in flags.values() if getattr(args, f.keyword, None) is not None
    }
    allowed = {f.keyword for f in method.flags}
    for keyword, value in given.items():
        if keyword not in allowed:
            owners = next(o for f, o in flags.values() if f.keyword == keyword)
            raise InvalidParameter(keyword.replace("_", "-"), value, "applies only to --method " + "|".join(owners))
    out = method.options_from_flags(given)
    if method.takes_progress:
        out["progress"] = progress_bar()
    return out


def run(args) -> dict:
    """Execute a parsed rdp/delta/epsilon command; returns the JSON-ready result."""
    config = config_from_args(args)
    digits = check_digits(args.digits)
    out = {"command": args.command, "method": args.method, **config.as_dict(), "digits": digits}
    if args.command == "rdp":
        b = api.rdp(config, args.alpha, method=args.method, digits=digits, budget=args.budget)
        out.update(
            alpha=exact_text("alpha", args.alpha),
            input=typed_inputs(args),
            direction="remove",
            rdp=decimal(b.upper, digits) if b.error_kind == "exact" else decimal(b.upper, digits, "up"),
        )
    elif args.command == "delta":
        b = api.delta(
            config,
            args.epsilon,
            direction=args.direction,
            method=args.method,
            digits=digits,
            budget=args.budget,
            **method_options(args),
        )
        out.update(epsilon=exact_text("epsilon", args.epsilon), input=typed_inputs(args), direction=b.direction)
    else:
        b = api.epsilon(
            config,
            args.delta,
            direction=args.direction,
            method=args.method,
            digits=digits,
            budget=args.budget,
            **method_options(args),
        )
        out.update(delta=exact_text("delta", args.delta), input=typed_inputs(args), direction=b.direction)
    out.update(bracket_json(b, digits))
    out["quantity"] = b.quantity
    if args.method != b.method:
        out["method_used"] = b.method  # the method auto chose
    return out


#: the numeric flags echoed under "input" as typed (the top-level fields hold the exact rationals used)
NUMERIC_FLAGS = ("sigma", "scale", "eps0", "steps", "k", "epochs", "rate", "epsilon", "delta", "alpha")


def exact_text(name: str, text) -> str:
    """The exact rational the computation used for a (validated) input: "1e-5" -> "1/100000", "0.5" -> "1/2"."""
    return str(to_fraction(name, text))


def typed_inputs(args) -> dict:
    """Every numeric flag's text as typed (defaults as their default text), e.g. {"delta": "1e-5", "steps": "1000"}."""
    return {name: getattr(args, name) for name in NUMERIC_FLAGS if getattr(args, name, None) is not None}


def render_text(out: dict) -> str:
    target = {"rdp": "alpha", "delta": "epsilon", "epsilon": "delta"}[out["command"]]
    show = header_show(out)
    value = show(target, out.get(target))
    what = {"rdp": f"RDP at alpha={value}", "delta": f"delta(epsilon={value})", "epsilon": f"epsilon(delta={value})"}[
        out["command"]
    ]
    lines = [f"{what} of {describe(out, show)}", *describe_events(out)]
    method = (
        out["method"]
        if out.get("method_used", out["method"]) == out["method"]
        else f"{out['method']} ({out['method_used']})"
    )
    lines.append(f"  method {method}, direction {out['direction']} ({out['error_kind']})")
    lines.append(
        f"  value: {out['lower']}" if out["lower"] == out["upper"] else f"  bracket: [{out['lower']}, {out['upper']}]"
    )
    for d, sub in out.get("per_direction", {}).items():
        val = sub["lower"] if sub["lower"] == sub["upper"] else f"[{sub['lower']}, {sub['upper']}]"
        lines.append(f"    {d}: {val}")
    lines += [f"  note: {n}" for n in limits(out)]
    return "\n".join(lines)


def limits(out: dict) -> list[str]:
    """The notes that say a budget, not the mechanism, limits the bracket ("accuracy not met/limited", once each,
    with the direction when there are two): shown in the text output, never only in --json."""
    parts = out.get("per_direction") or {out.get("direction"): out}
    seen = {}
    for d, sub in parts.items():
        for n in (sub.get("budget") or {}).get("notes", []):
            if n.startswith("accuracy "):
                seen.setdefault(n, []).append(d)
    return [n + (f" ({', '.join(ds)})" if len(parts) > 1 else "") for n, ds in seen.items()]
