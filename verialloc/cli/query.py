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

import inspect

from .. import api
from ..formatting import decimal
from ..errors import InvalidParameter
from ..validation import abbreviated, as_float, digits as check_digits, integer, nonnegative, positive, to_fraction
from .common import DEFAULT_DIGITS, add_config_flags, bracket_json, config_from_args, progress_bar


def register(sub) -> None:
    for name, helptext in [("rdp", "Rényi DP of the remove direction at order --alpha"),
                           ("delta", "δ(ε) bracket of the dominating pair"),
                           ("epsilon", "ε(δ) bracket of the dominating pair")]:
        p = sub.add_parser(name, help=helptext, description=helptext)
        add_config_flags(p)
        if name == "rdp":
            p.add_argument("--alpha", required=True,
                           help="Rényi order: integer >= 2 (exact); --method rdp: any order in (1, 10000]")
        elif name == "delta":
            p.add_argument("--epsilon", required=True, help="ε at which to evaluate δ (any real)")
        else:
            p.add_argument("--delta", required=True, help="target δ in (0, 1)")
        if name != "rdp":
            p.add_argument("--direction", default="both", help="remove | add | both (max of the two; default)")
        p.add_argument("--method", default="exact", help="accounting method: " + "|".join(api.METHODS))
        if name != "rdp":
            p.add_argument("--loss-step", help="pld: loss grid step of compositions (default 1e-4; composed "
                                               "allocation epochs go finer, to step/256, when epsilon is small)")
            p.add_argument("--grid-step", help="pld: exp-space grid step of the allocation sum (default: automatic)")
            p.add_argument("--tail", help="pld: tail mass truncated per step, tracked in the result (default 1e-15)")
            p.add_argument("--samples", help="mc: Monte Carlo draws (default 1e7/steps clamped to [2000, 200000])")
            p.add_argument("--seed", help="mc: random seed (default fixed, reproducible)")
            p.add_argument("--confidence", help="mc: confidence level of the interval (default 0.95)")
            p.add_argument("--alpha-max", help="rdp: largest integer order searched (default adaptive, <= 10000)")
            p.add_argument("--search-tol", help="rdp: stop the order search when larger orders can improve ε by at "
                                                "most this fraction (default 1e-3)")
            p.add_argument("--target-gap", help="best: stop asking further methods once the bracket's relative "
                                                "width is at most this (default 0.01; 0: run every method)")
        p.add_argument("--digits", default=str(DEFAULT_DIGITS), help=f"significant digits (default {DEFAULT_DIGITS})")
        p.add_argument("--budget", help="seconds the query may take by the cost model's estimate (default 600); "
                                        "a request estimated above it is refused before it starts")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(run=run, render=render_text)


PLD_KNOBS = ("loss_step", "grid_step", "tail")
MC_KNOBS = ("samples", "seed", "confidence")
RDP_KNOBS = ("alpha_max", "search_tol")
BEST_KNOBS = ("target_gap",)
#: --method -> the method-specific flags it accepts
METHOD_FLAGS = {"pld": PLD_KNOBS, "best": PLD_KNOBS + BEST_KNOBS, "analytic": ("loss_step", "tail"), "mc": MC_KNOBS,
                "rdp": RDP_KNOBS}


def method_options(args) -> dict:
    """Method-specific keywords (pld/best accuracy knobs, analytic's Poisson PLD knobs, mc sampling) and, for
    every method that accepts `progress` (takes_progress), a progress reporter on stderr (common.Progress: a
    terminal bar shown after ~2 s, plain periodic lines elsewhere); a flag given to a method that does not
    take it is an error."""
    allowed = METHOD_FLAGS.get(args.method, ())
    given = {k: getattr(args, k) for k in PLD_KNOBS + MC_KNOBS + RDP_KNOBS + BEST_KNOBS
             if getattr(args, k, None) is not None}
    for name, value in given.items():
        if name not in allowed:
            owners = [m for m, flags in METHOD_FLAGS.items() if name in flags]
            raise InvalidParameter(name.replace("_", "-"), value, "applies only to --method " + "|".join(owners))
    out = _knobs(args.method, given)
    if takes_progress(args.method):
        out["progress"] = progress_bar()
    return out


def _knobs(method: str, given: dict) -> dict:
    if method == "mc":
        return given
    if method == "rdp":
        out = {}
        if "alpha_max" in given:
            out["alpha_max"] = integer("alpha-max", given["alpha_max"], 2, 10_000)
        if "search_tol" in given:
            out["search_tol"] = as_float("search-tol", given["search_tol"], positive)
        return out
    from ..numeric.pld.pld_accountant import Settings
    knobs = {k: v for k, v in given.items() if k in PLD_KNOBS}
    try:
        settings = Settings(**{k: as_float(k.replace("_", "-"), v, positive) for k, v in knobs.items()})
    except InvalidParameter as e:  # name the flag as typed (--grid-step), not the keyword (grid_step)
        raise InvalidParameter(e.name.replace("_", "-"), given.get(e.name, e.value), e.valid) from None
    if method == "analytic":
        from ..numeric.analytic import Options
        return {"options": Options(pld=settings)} if given else {}
    if method == "pld":
        return {"settings": settings}
    if method == "best":
        gap = {"target_gap": as_float("target-gap", given["target_gap"], nonnegative)} if "target_gap" in given else {}
        return {"settings": settings, **gap}
    return {}


def takes_progress(method: str) -> bool:
    """Whether the method's delta/epsilon accept a `progress=callable(stage)` keyword (pld, best, analytic)."""
    module = api.METHODS.get(method)
    if module is None:
        return False
    return all("progress" in inspect.signature(getattr(module, q)).parameters for q in ("delta", "epsilon"))


def run(args) -> dict:
    """Execute a parsed rdp/delta/epsilon command; returns the JSON-ready result."""
    config = config_from_args(args)
    digits = check_digits(args.digits)
    out = {"command": args.command, "method": args.method, **config.as_dict(), "digits": digits}
    if args.command == "rdp":
        b = api.rdp(config, args.alpha, method=args.method, digits=digits, budget=args.budget)
        out.update(alpha=exact_text("alpha", args.alpha), input=typed_inputs(args), direction="remove",
                   rdp=decimal(b.upper, digits) if b.error_kind == "exact" else decimal(b.upper, digits, "up"))
    elif args.command == "delta":
        b = api.delta(config, args.epsilon, direction=args.direction, method=args.method, digits=digits,
                      budget=args.budget, **method_options(args))
        out.update(epsilon=exact_text("epsilon", args.epsilon), input=typed_inputs(args), direction=b.direction)
    else:
        b = api.epsilon(config, args.delta, direction=args.direction, method=args.method, digits=digits,
                        budget=args.budget, **method_options(args))
        out.update(delta=exact_text("delta", args.delta), input=typed_inputs(args), direction=b.direction)
    out.update(bracket_json(b, digits))
    out["quantity"] = b.quantity
    return out


#: the numeric flags echoed under "input" as typed (the top-level fields hold the exact rationals used)
NUMERIC_FLAGS = ("sigma", "scale", "eps0", "steps", "k", "epochs", "rate", "epsilon", "delta", "alpha")


def exact_text(name: str, text) -> str:
    """The exact rational the computation used for a (validated) input: "1e-5" -> "1/100000", "0.5" -> "1/2"."""
    return str(to_fraction(name, text))


def typed_inputs(args) -> dict:
    """Every numeric flag's text as typed (defaults as their default text), e.g. {"delta": "1e-5", "steps": "1000"}."""
    return {name: getattr(args, name) for name in NUMERIC_FLAGS if getattr(args, name, None) is not None}


def shown(out: dict, name: str, exact) -> str:
    """`typed (=exact)` when the text typed differs from the exact rational used ("1e-5 (=1/100000)"), else `exact`."""
    typed = out.get("input", {}).get(name)
    return f"{typed} (={exact})" if typed is not None and typed.strip() != str(exact) else str(exact)


#: longest parameter text in the human header (a 1e-400 mass is a 400-digit rational: --json keeps it whole)
HEADER_PARAM_CHARS = 80


def render_text(out: dict) -> str:
    params = ", ".join(f"{k}={abbreviated(shown(out, k, v), HEADER_PARAM_CHARS)}" for k, v in out["params"].items())
    head = (f"{out['mechanism']}({params}), {out['scheme']} steps={shown(out, 'steps', out['steps'])} "
            f"k={shown(out, 'k', out['k'])} epochs={shown(out, 'epochs', out['epochs'])}")
    if "rate" in out:
        head += f" rate={shown(out, 'rate', out['rate'])}"
    target = {"rdp": "alpha", "delta": "epsilon", "epsilon": "delta"}[out["command"]]
    value = shown(out, target, out.get(target))
    what = {"rdp": f"RDP at alpha={value}", "delta": f"delta(epsilon={value})",
            "epsilon": f"epsilon(delta={value})"}[out["command"]]
    lines = [f"{what} of {head}", f"  method {out['method']}, direction {out['direction']} ({out['error_kind']})"]
    lines.append(f"  value: {out['lower']}" if out["lower"] == out["upper"] else f"  bracket: [{out['lower']}, {out['upper']}]")
    for d, sub in out.get("per_direction", {}).items():
        val = sub["lower"] if sub["lower"] == sub["upper"] else f"[{sub['lower']}, {sub['upper']}]"
        lines.append(f"    {d}: {val}")
    return "\n".join(lines)
