"""`verialloc certify` and `verialloc calibrate` (docs/certify.md).

verialloc certify   (--config FILE.json|FILE.toml | --mechanism M [params] --steps T [...])
                    (--delta D --claimed-epsilon X | --epsilon EPS --claimed-delta Y)
                    [--direction remove|add|both] [--budget SECONDS] [--strict] [--digits N]
                    [--report FILE.md] [--json]
verialloc certify   --batch CLAIMS.csv|.jsonl --out RESULTS.csv|.jsonl [--executor local|process|dask]
                    [--scheduler ADDRESS] [--workers N] [--direction ...] [--budget S] [--strict] [--digits N]
verialloc calibrate (--config FILE | --steps T [--scheme ...]) --target-epsilon E --delta D
                    [--tolerance REL] [--direction ...] [--budget SECONDS] [--json]
"""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from ..certify import calibrate, certificate_json, certify, make_claim, write_report
from ..certify.batch import run_batch
from ..certify.calibrate import DEFAULT_BUDGET as CALIBRATE_BUDGET, DEFAULT_TOLERANCE
from ..certify.refine import DEFAULT_BUDGET
from ..certify.report import DIGITS, MAX_DIGITS, render_text, report_path
from ..errors import InvalidParameter
from ..formatting import decimal
from .query import typed_inputs
from ..validation import integer
from ..config import Config
from ..mechanisms import Gaussian
from .common import (
    CONFIG_DEFAULTS,
    CONFIG_FLAGS,
    INCONCLUSIVE,
    OPACUS_HELP,
    OK,
    REFUTED,
    add_config_flags,
    config_from_args,
    progress_bar,
    spellings,
)
from .executors import add_executor_flags, executor_args


def register(sub) -> None:
    p = sub.add_parser(
        "certify",
        help="certify or refute a claimed (ε, δ) for a configuration",
        description="Certified bracket of the true ε(δ) or δ(ε) and a verdict on the claim.",
    )
    _common(p)
    p.add_argument(*spellings("delta"), help="target δ in (0, 1) (with --claimed-epsilon)")
    p.add_argument(  # opacus's target_epsilon is the ε a run is to meet: here, the claim
        "--claimed-epsilon", "--target-epsilon", dest="claimed_epsilon", help="claimed ε >= 0 at --delta"
    )
    p.add_argument("--epsilon", help="target ε (with --claimed-delta)")
    p.add_argument("--claimed-delta", help="claimed δ in [0, 1) at --epsilon")
    p.add_argument("--budget", default=str(DEFAULT_BUDGET), help=f"seconds of refinement (default {DEFAULT_BUDGET})")
    p.add_argument(
        "--strict",
        action="store_true",
        help="decide on rigorous bounds only (exact or pld); skip estimated quadrature errors",
    )
    p.add_argument(
        "--digits",
        default=str(DIGITS),
        help=f"significant digits of the printed bracket, rounded outward (default {DIGITS}); an end "
        "that decides the verdict gets more when fewer would misplace the claim",
    )
    p.add_argument("--report", help="write a Markdown report (and a PNG profile plot next to it)")
    p.add_argument("--from-opacus-history", metavar="FILE", help=OPACUS_HELP)
    p.add_argument(
        "--batch",
        metavar="FILE",
        help="certify every row of a .csv or .jsonl table of claims (keys: the "
        "configuration keys, the claim, direction, budget, strict, id)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="with --batch: results .csv or .jsonl, appended row by row; rows already in it are skipped (resume)",
    )
    add_executor_flags(p, "rows of --batch")
    p.set_defaults(run=run_certify, render=render_certify, status=certify_status)

    c = sub.add_parser(
        "calibrate",
        help="smallest Gaussian σ with certified ε(δ) <= a target",
        description="Bisection in σ (monotone, I5) with certified probes.",
    )
    _common(c)
    c.add_argument("--target-epsilon", required=True, help="target ε > 0")
    c.add_argument(*spellings("delta"), required=True, help="δ in (0, 1)")
    c.add_argument("--tolerance", default=DEFAULT_TOLERANCE, help=f"relative σ tolerance (default {DEFAULT_TOLERANCE})")
    c.add_argument("--budget", default=str(CALIBRATE_BUDGET), help=f"seconds in total (default {CALIBRATE_BUDGET})")
    c.set_defaults(run=run_calibrate, render=render_calibration, status=calibrate_status)


def _common(p) -> None:
    add_config_flags(p, steps_required=False)
    p.add_argument("--direction", default="both", help="remove | add | both (max of the two; default)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _config(args, *, calibrating: bool = False):
    if args.config is not None:  # read into the flags by common.apply_config_file (conflicts refused there)
        return config_from_args(args)
    if args.steps is None:
        raise InvalidParameter("steps", "(missing)", "--steps T (>= 1) or --config FILE is required")
    if calibrating:
        if args.mechanism not in (None, "gaussian") or args.sigma is not None:
            raise InvalidParameter(
                "sigma" if args.sigma is not None else "mechanism",
                args.sigma or args.mechanism,
                "calibrate searches the Gaussian σ: omit it",
            )
        args = SimpleNamespace(**{**vars(args), "mechanism": "gaussian", "sigma": "1"})
    return config_from_args(args)  # a missing mechanism: implied by its parameter, else refused naming it


def run_certify(args) -> dict:
    if args.batch is not None or args.out is not None:
        return _run_batch(args)
    for flag in ("executor", "scheduler", "workers"):
        if getattr(args, flag) not in (None, "local"):
            raise InvalidParameter(flag, getattr(args, flag), "applies only with --batch FILE --out FILE")
    config = _config(args) if args.from_opacus_history is None else config_from_args(args)
    claim = make_claim(
        delta=args.delta, claimed_epsilon=args.claimed_epsilon, epsilon=args.epsilon, claimed_delta=args.claimed_delta
    )
    digits = _digits(args.digits)
    if args.report:  # checked before the work: a FIFO or a missing directory is refused now, not after a minute
        report_path(args.report)
    cert = certify(config, claim, args.direction, args.budget, progress=progress_bar(), strict=args.strict)
    out = certificate_json(cert, digits)
    claimed = args.claimed_epsilon if args.claimed_epsilon is not None else args.claimed_delta
    out["input"] = {**typed_inputs(args), **({"claimed": claimed} if claimed is not None else {})}
    if args.report:
        out["report"] = str(write_report(cert, args.report, digits))
    return out


def _run_batch(args) -> dict:
    """`--batch FILE --out FILE`: the table gives the configurations and claims; the flags only the defaults."""
    if args.batch is None or args.out is None:
        missing = "batch" if args.batch is None else "out"
        raise InvalidParameter(missing, "(missing)", "--batch CLAIMS and --out RESULTS go together")
    given = [
        f
        for f in (
            *CONFIG_FLAGS,
            "config",
            "from_opacus_history",
            "delta",
            "claimed_epsilon",
            "epsilon",
            "claimed_delta",
            "report",
        )
        if getattr(args, f) not in (None, CONFIG_DEFAULTS.get(f))
    ]
    if given:
        raise InvalidParameter(
            given[0].replace("_", "-"),
            getattr(args, given[0]),
            "cannot be combined with --batch (each row gives its configuration and claim)",
        )
    return run_batch(
        args.batch,
        args.out,
        **executor_args(args),
        direction=args.direction,
        budget=args.budget,
        strict=args.strict,
        digits=_digits(args.digits),
        progress=progress_bar("certify batch"),
    )


def certify_status(out: dict) -> int:
    """The exit status of a verdict (docs/cli.md, "Exit codes"): 0 certified, 4 refuted, 5 inconclusive; a batch's
    is that of its worst row over the whole table (refuted before inconclusive; rows with verdict error have
    already ended it with status 2)."""
    verdicts = out["table"] if "batch" in out else {out["verdict"]: 1}
    if verdicts.get("refuted"):
        return REFUTED
    return INCONCLUSIVE if verdicts.get("inconclusive") else OK


def render_certify(out: dict) -> str:
    """One claim: the certificate (render_text); a batch: its summary."""
    if "batch" not in out:
        return render_text(out)
    counts = lambda verdicts: ", ".join(f"{n} {v}" for v, n in verdicts.items())  # noqa: E731
    lines = [
        f"certify batch {out['batch']} -> {out['out']}: {out['rows']} rows, {out['skipped']} already there, "
        f"{out['computed']} computed in {out['seconds']:.1f} s (executor {out['executor']})",
        f"  {counts(out['verdicts'])}",
    ]
    if out["skipped"]:
        lines.append(f"  the whole table: {counts(out['table'])}")
    return "\n".join(lines)


def _digits(value) -> int:
    return integer("digits", value, 1, MAX_DIGITS)


def calibrate_status(out: dict) -> int:
    """0 when the search converged to its tolerance, else 5 like an inconclusive claim (what is certified so far is
    in sigma_upper / sigma_lower; docs/cli.md, "Exit codes")."""
    return OK if out["converged"] else INCONCLUSIVE


def run_calibrate(args) -> dict:
    config = _config(args, calibrating=True)
    if not isinstance(config, Config):
        raise InvalidParameter(
            "config", args.config, "calibrate searches the Gaussian σ of one configuration, not of a file of phases"
        )
    if args.config is not None and not isinstance(config.mechanism, Gaussian):
        raise InvalidParameter("mechanism", config.mechanism.name, "calibrate searches the Gaussian σ")
    cal = calibrate(
        config,
        args.target_epsilon,
        args.delta,
        direction=args.direction,
        tolerance=args.tolerance,
        budget=args.budget,
        progress=progress_bar(),
    )
    return {
        "command": "calibrate",
        **{k: v for k, v in config.as_dict().items() if k not in ("mechanism", "params")},
        "target_epsilon": str(cal.target_epsilon),
        "delta": str(cal.delta),
        "tolerance": str(cal.tolerance),
        "sigma_upper": _sigma(cal.sigma_upper),
        "sigma_lower": _sigma(cal.sigma_lower),
        "converged": cal.converged,
        "reason": cal.reason,
        "probes": [
            {
                "sigma": _sigma(s),
                "verdict": v,
                "epsilon_lower": decimal(lo, DIGITS, "down"),
                "epsilon_upper": decimal(hi, DIGITS, "up"),
                "seconds": round(sec, 3),
            }
            for s, v, lo, hi, sec in cal.probes
        ],
    }


def _sigma(x) -> str | None:
    """σ values are short exact decimals (SIG_DIGITS significant digits)."""
    return None if x is None else str(Decimal(x.numerator) / Decimal(x.denominator))


def render_calibration(out: dict) -> str:
    lines = [
        f"calibrate Gaussian σ: {out['scheme']} steps={out['steps']} k={out['k']} epochs={out['epochs']}, "
        f"target ε <= {out['target_epsilon']} at δ = {out['delta']}"
    ]
    lines.append(f"  sigma_upper = {out['sigma_upper']}  (certified: its upper ε <= target)")
    lines.append(f"  sigma_lower = {out['sigma_lower']}  (certified: its lower ε > target, so every σ <= it misses)")
    lines.append(f"  {out['reason']}; {len(out['probes'])} probes")
    return "\n".join(lines)
