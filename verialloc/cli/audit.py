"""`verialloc audit`: flag other accountants' answers against certified brackets (docs/audit.md).

    verialloc audit [--accountants NAME,...] [--entries ID,...] [--loose-percent X] [--timeout S] [--json]
                    [--markdown FILE] [--executor local|process|dask [--scheduler ADDRESS] [--workers N]]
    verialloc audit --mechanism gaussian --sigma S --scheme ... --steps T ... --delta D [--method pld|exact]
    verialloc audit --list

Default: every installed accountant on the shipped golden table. With a configuration, its certified bracket
is computed first (method pld by default) and that single entry is audited.
"""

from __future__ import annotations

from ..errors import InvalidParameter, UnsupportedRequest
from ..validation import as_float, nonnegative, open_unit, positive
from .common import OK, REFUTED, add_config_flags, config_from_args, progress_bar, spellings
from .executors import add_executor_flags, executor_args


def register(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="audit third-party accountants against certified brackets",
        description="Audit third-party accountants against verialloc's certified brackets.",
    )
    p.add_argument("--accountants", help="comma-separated accountant names (default: all installed); see --list")
    p.add_argument("--entries", help="comma-separated golden entry ids (default: the whole golden table)")
    p.add_argument(
        "--loose-percent", default="10", help="LOOSE when reported > certified upper by more than X%% (default 10)"
    )
    p.add_argument(
        "--timeout", default="300", help="seconds per accountant call before it is flagged TIMEOUT (default 300)"
    )
    p.add_argument("--markdown", metavar="FILE", help="also write the report as a Markdown table to FILE")
    p.add_argument("--list", action="store_true", help="list accountants (installed or not) and golden entries")
    add_config_flags(p, steps_required=False)
    p.add_argument(*spellings("delta"), help="with a configuration: target δ of the ε query")
    p.add_argument(*spellings("epsilon"), help="with a configuration: target ε of the δ query")
    p.add_argument("--method", default="pld", help="with a configuration: certifying method pld | exact")
    add_executor_flags(p, "accountant calls")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run, render=render, status=status)


def _accountants(args) -> list:
    from ..audit.adapters import NotInstalled, registry

    reg = registry()
    if not args.accountants:
        return [a for a in reg.values() if a.installed()]
    chosen = []
    for name in (n.strip() for n in args.accountants.split(",") if n.strip()):
        if name not in reg:
            raise InvalidParameter("accountants", name, "must be among " + ", ".join(reg))
        if not reg[name].installed():
            raise NotInstalled(name, reg[name].package)
        chosen.append(reg[name])
    return chosen


def _entries(args) -> list[dict]:
    from ..audit import golden

    if args.mechanism is not None:
        return [_config_entry(args)]
    entries = golden.load()["entries"]
    if not args.entries:
        return entries
    by_id = {e["id"]: e for e in entries}
    wanted = [i.strip() for i in args.entries.split(",") if i.strip()]
    for i in wanted:
        if i not in by_id:
            raise InvalidParameter("entries", i, "must be golden entry ids (verialloc audit --list)")
    return [by_id[i] for i in wanted]


def _config_entry(args) -> dict:
    """A one-off entry for the configuration given by flags (its bracket computed now)."""
    from ..audit.golden.generate import compute

    if args.steps is None:
        raise InvalidParameter("steps", "(missing)", "--steps is required with --mechanism")
    if args.mechanism != "gaussian":
        raise UnsupportedRequest("mechanism", args.mechanism, "the audited libraries take Gaussian configurations")
    if (args.delta is None) == (args.epsilon is None):
        raise InvalidParameter("delta", args.delta, "give exactly one of --delta or --epsilon with a configuration")
    config = config_from_args(args)  # validates every flag
    if args.delta is not None:
        open_unit("delta", args.delta)
        quantity, target = "epsilon", args.delta
    else:
        positive("epsilon", args.epsilon)
        quantity, target = "delta", args.epsilon
    spec = {
        "id": "config",
        "config": {
            "mechanism": "gaussian",
            "sigma": args.sigma,
            "scheme": config.scheme,
            "steps": config.steps,
            "k": config.k,
            "epochs": config.epochs,
        },
        "quantity": quantity,
        "target": target,
        "method": args.method,
    }
    if config.scheme == "poisson":
        spec["config"]["rate"] = str(config.rate)
    if args.method not in ("pld", "exact"):
        raise InvalidParameter("method", args.method, "must be pld | exact")
    return compute(spec)


def run(args) -> dict:
    from ..audit import golden, report
    from ..audit.adapters import registry
    from ..audit.runner import audit

    if args.list:
        return {
            "command": "audit",
            "list": True,
            "accountants": [
                {
                    "name": a.name,
                    "package": a.package,
                    "installed": a.installed(),
                    "direction": a.direction,
                    "claims": a.claims,
                    "call": a.call,
                }
                for a in registry().values()
            ],
            "entries": [e["id"] for e in golden.load()["entries"]],
        }
    loose = as_float("loose-percent", args.loose_percent, nonnegative)
    accountants = _accountants(args)
    if not accountants:
        raise UnsupportedRequest("accountants", "(none installed)", "pip install 'verialloc[audit]'")
    timeout = as_float("timeout", args.timeout, positive)
    where = executor_args(args)
    rows = audit(accountants, _entries(args), loose, progress=progress_bar(), timeout=timeout, **where)
    if not rows:  # an empty table with exit 0 read as "all OK"
        raise UnsupportedRequest(
            "accountants",
            ",".join(a.name for a in accountants),
            "none of them serves these entries (an empty table is no audit); `verialloc audit "
            "--list` shows the accountants, their packages and what they claim",
        )
    meta = {"command": "audit", "loose_percent": loose, "timeout": timeout}
    if args.mechanism is None:
        table = golden.load()
        meta.update(golden_date=table["date"], golden_versions=table["versions"])
    out = report.to_json(rows, meta)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(report.to_markdown(out["rows"]))
    return out


def status(out: dict) -> int:
    """4 when a row is UNSAFE (a library's bound on the wrong side of the certified bracket: its claim is refuted),
    else 0 (docs/cli.md, "Exit codes")."""
    return REFUTED if any(row["flag"] == "UNSAFE" for row in out.get("rows", ())) else OK


def render(out: dict) -> str:
    from ..audit import report

    if out.get("list"):
        lines = ["accountants:"]
        lines += [
            f"  {a['name']:32s} {'installed' if a['installed'] else 'missing  '} {a['package']:18s} "
            f"{a['direction']:6s} claims {a['claims']}"
            for a in out["accountants"]
        ]
        return "\n".join(lines + ["golden entries:"] + [f"  {e}" for e in out["entries"]])
    return report.to_terminal(out["rows"])
