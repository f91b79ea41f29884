"""`verialloc fuzz`: the differential soundness fuzzer (verialloc.testing.fuzz; docs/verification.md "Fuzzer").

    verialloc fuzz [--minutes M] [--seed S] [--methods m1,m2] [--families f1,f2] [--cases N] [--timeout SECONDS]
                   [--json]
    verialloc fuzz --replay CASE_JSON [--methods ...] [--timeout SECONDS] [--json]

Progress goes to stderr; stdout gets the summary table and every violation with its reproducing command lines
(or one strict JSON object with --json: no NaN/Infinity tokens, infinities as "inf"/"-inf").
"""

from __future__ import annotations

import json
import sys
import time

from ..errors import InvalidParameter
from ..validation import as_float, integer, positive


def register(sub) -> None:
    p = sub.add_parser(
        "fuzz",
        help="differential soundness fuzzer: every method against every other and the exact layer",
        description="Draw configurations from the whole domain with hypothesis, check every method's "
        "bracket against every other's and certify's verdicts against the exact value, "
        "shrink each violation and print a reproducing command line.",
    )
    p.add_argument("--minutes", default="1", help="time budget in minutes, shrinking included (default 1)")
    p.add_argument("--seed", default="0", help="hypothesis seed: the same seed draws the same cases (default 0)")
    p.add_argument(
        "--methods",
        help="comma-separated methods (default: every method of api.METHODS but auto, which runs exact or best)",
    )
    p.add_argument(
        "--families",
        help="comma-separated mechanism families: gaussian,laplace,randomized-response,discrete (default: all)",
    )
    p.add_argument("--cases", help="stop after this many drawn cases (default: only the time budget)")
    p.add_argument("--timeout", default="20", help="wall-clock limit of one method on one case, seconds (default 20)")
    p.add_argument("--replay", help="re-check one case given as the JSON printed with a violation")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run, render=render)


def _choices(name: str, text: str | None, allowed) -> tuple:
    if text is None:
        return tuple(allowed)
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        raise InvalidParameter(name, text, "must be a comma-separated subset of " + ",".join(allowed))
    return values


def run(args) -> dict:
    from .. import api
    from ..testing import fuzz as fz

    methods = _choices("methods", args.methods, tuple(api.METHODS))
    if args.methods is None:  # auto repeats exact or best: named, it is fuzzed too
        methods = fz.ALL_METHODS
    timeout = as_float("timeout", args.timeout, positive)
    if args.replay is not None:
        try:
            case = fz.Case.from_dict(json.loads(args.replay))
            case.config()
        except (ValueError, TypeError, KeyError) as exc:
            raise InvalidParameter(
                "replay", args.replay[:80], f"must be a case JSON printed by verialloc fuzz ({exc})"
            ) from None
        return {"command": "fuzz-replay", **fz.case_json(fz.replay(case, methods, timeout))}
    families = _choices("families", args.families, fz.FAMILIES)
    minutes = as_float("minutes", args.minutes, positive)
    seed = integer("seed", args.seed, lo=0)
    max_cases = None if args.cases is None else integer("cases", args.cases, lo=1)
    bar = _progress(minutes)
    try:
        report = fz.fuzz(minutes, seed, methods, families, max_cases=max_cases, timeout=timeout, progress=bar)
    finally:
        bar.close()
    return fz.summary_json(report)


class _Bar:
    """tqdm status line on stderr: elapsed/budget, cases, violations, the case just checked."""

    def __init__(self, minutes: float):
        from tqdm import tqdm

        self.bar = tqdm(
            total=round(60 * minutes),
            desc="verialloc fuzz",
            unit="s",
            file=sys.stderr,
            leave=False,
            bar_format="{desc}: {n_fmt}/{total_fmt} s |{bar:20}| {postfix}",
        )
        self.start = time.monotonic()

    def __call__(self, report, result) -> None:
        elapsed = time.monotonic() - self.start
        self.bar.update(max(0, min(round(elapsed), self.bar.total) - self.bar.n))
        self.bar.set_postfix_str(
            f"cases={len(report.cases)} violations={len(report.found)} "
            f"last: {result.case.family} t={result.case.steps} {result.seconds:.1f}s"
        )

    def close(self) -> None:
        self.bar.close()


def _progress(minutes: float) -> _Bar:
    return _Bar(minutes)


def render(out: dict) -> str:
    if out["command"] == "fuzz-replay":
        return _render_replay(out)
    lines = [_table(out)]
    lines.append(
        f"{out['cases']} cases in {out['seconds']:.1f} s ({out['runs']} hypothesis runs), seed {out['seed']}; "
        f"{len(out['violations'])} distinct violations"
    )
    for i, v in enumerate(out["violations"], 1):
        lines += _violation_lines(i, v)
    lines += [f"note: {n}" for n in out["notes"]]
    return "\n".join(lines)


def _table(out: dict) -> str:
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    table = Table(title="verialloc fuzz", title_justify="left")
    columns = (
        "family",
        "cases",
        "checks",
        "seconds",
        "answered",
        "n/a",
        "timeout",
        "crash",
        "skipped",
        "violating cases",
        "mc misses",
    )
    for c in columns:
        table.add_column(c, justify="left" if c == "family" else "right")
    total = {c: 0 for c in columns[1:]}
    for family, row in out["counts"].items():
        cells = (
            row["cases"],
            row["checks"],
            row["seconds"],
            row["ok"],
            row["na"],
            row["timeout"],
            row["crash"],
            row["skipped"],
            row["violations"],
            row["mc_misses"],
        )
        for c, value in zip(columns[1:], cells):
            total[c] += value
        table.add_row(family, *(f"{x:.1f}" if isinstance(x, float) else str(x) for x in cells))
    table.add_row("total", *(f"{x:.1f}" if isinstance(x, float) else str(x) for x in total.values()))
    buffer = StringIO()
    Console(file=buffer, width=120, color_system=None, force_terminal=False).print(table)
    return buffer.getvalue().rstrip("\n")


def _violation_lines(i: int, v: dict) -> list[str]:
    label = f" [{v['label']}]" if v["label"] else ""
    shrunk = "shrunk" if v.get("shrunk") else "not shrunk"
    lines = [
        f"violation {i}: {v['kind']} {'/'.join(v['methods'])}{label} ({v.get('occurrences', 1)} cases, {shrunk})",
        f"  case: {v['description']}",
        f"  {v['message']}",
    ]
    lines += [f"  $ {c}" for c in v["commands"]]
    lines.append(f"  $ {v['replay']}")
    lines.append("  python:")
    lines += [f"    {line}" for line in v["python"].rstrip("\n").splitlines()]
    return lines


def _render_replay(out: dict) -> str:
    lines = [f"replay: {out['description']} ({out['seconds']:.1f} s)"]
    for name, res in out["results"].items():
        if res["status"] == "ok":
            extra = f" verdict {res['verdict']}" if "verdict" in res else ""
            lines.append(f"  {name}: [{res['lower']}, {res['upper']}] ({res['error_kind']}){extra}")
        else:
            lines.append(f"  {name}: {res['status']} {res.get('error', '')}".rstrip())
    lines.append(
        f"  {len(out['violations'])} violations" + (f", {out['mc_misses']} mc miss" if out["mc_misses"] else "")
    )
    for i, v in enumerate(out["violations"], 1):
        lines += _violation_lines(i, v)
    return "\n".join(lines)
