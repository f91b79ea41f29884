"""A differential soundness fuzzer (issue #10; `verialloc fuzz`, docs/verification.md "Fuzzer").

Hypothesis draws configurations and queries from the whole domain (continuous and grid-aligned parameters, tiny
and huge σ, t up to 10^5, k up to t, epochs, ε ∈ [−5, 200], δ ∈ [1e-300, 0.5], both directions, allocation and
Poisson); every method of `api.METHODS` answers in a worker process under a wall-clock limit; every certified
bracket must overlap every other (lower_A ≤ upper_B, the exact layer and the trivial I1 bracket included) and every
`certify` verdict must agree with the exact value. Violations shrink and come with reproducing command lines.

    >>> from verialloc.testing.fuzz import fuzz, summary_json
    >>> report = fuzz(minutes=0.5, seed=1, methods=("exact", "pld"), families=("randomized-response",),
    ...               max_cases=3)                                              # doctest: +SKIP
    >>> summary_json(report)["violations"]                                      # doctest: +SKIP
    []
"""

from __future__ import annotations

import json
import math

import mpmath as mp

from .cases import FAMILIES, Case, cases
from .checks import judge
from .runner import ALL_METHODS, CaseResult, Report, evaluate, fuzz, replay

__all__ = [
    "ALL_METHODS",
    "FAMILIES",
    "Case",
    "CaseResult",
    "Report",
    "cases",
    "evaluate",
    "fuzz",
    "judge",
    "replay",
    "summary_json",
    "case_json",
    "strict_json",
    "counts",
]

STATUSES = ("ok", "na", "timeout", "crash", "skipped")


def counts(report: Report) -> dict:
    """{family: {"cases", "checks" (differential checks made), "seconds", "violations" (cases with one), "mc_misses",
    per-status method outcomes}}."""
    out: dict = {}
    for r in report.cases:
        row = out.setdefault(
            r.case.family,
            {"cases": 0, "checks": 0, "seconds": 0.0, "violations": 0, "mc_misses": 0, **{s: 0 for s in STATUSES}},
        )
        row["cases"] += 1
        row["checks"] += r.checks
        row["seconds"] += r.seconds
        row["violations"] += bool(r.violations)
        row["mc_misses"] += r.mc_misses
        for name, res in r.results.items():
            if name != "trivial":
                row[res["status"]] += 1
    return out


def summary_json(report: Report) -> dict:
    """The JSON-ready report: settings, counts per family, every distinct violation (with commands)."""
    return strict_json(
        {
            "command": "fuzz",
            "seed": report.seed,
            "methods": list(report.methods),
            "families": list(report.families),
            "seconds": round(report.seconds, 3),
            "runs": report.runs,
            "cases": len(report.cases),
            "counts": counts(report),
            "violations": [
                dict(v.as_dict(), occurrences=report.occurrences.get(sig, 0), shrunk=sig in report.shrunk)
                for sig, v in report.found.items()
            ],
            "notes": report.notes,
        }
    )


def case_json(result: CaseResult) -> dict:
    """One evaluated case: every method's outcome and the violations."""
    return strict_json(
        {
            "case": result.case.to_dict(),
            "description": result.case.describe(),
            "seconds": round(result.seconds, 3),
            "results": {
                name: {k: v for k, v in out.items() if k != "traceback"} for name, out in result.results.items()
            },
            "violations": [v.as_dict() for v in result.violations],
            "mc_misses": result.mc_misses,
        }
    )


def strict_json(x):
    """Recursively JSON-safe: mpf/float as strings or finite floats, infinities as "inf"/"-inf", NaN as "nan"."""
    if isinstance(x, dict):
        return {str(k): strict_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [strict_json(v) for v in x]
    if isinstance(x, mp.mpf):
        return "nan" if mp.isnan(x) else ("inf" if x == mp.inf else ("-inf" if x == -mp.inf else mp.nstr(x, 17)))
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return str(x)


def dumps(x) -> str:
    """json.dumps that refuses NaN / Infinity tokens."""
    return json.dumps(strict_json(x), allow_nan=False)
