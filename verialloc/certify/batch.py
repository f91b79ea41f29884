"""Batch certification: a table of claims in, one result row per claim out (docs/certify.md, "Batch certification").

The table's format, its reading and the results file (resume included) are io.batch_files'. Here: each row is
certified (`certify_row`, on the chosen executor); a row whose values are invalid runs anyway: it gets verdict
"error" and a one-line reason, and the batch goes on; results are appended as rows finish (in order of completion).
The summary counts the verdicts of this run (`verdicts`) and of every row of the table as --out holds it (`table`,
rows done by an earlier run included): an error row there raises RowErrors at the end, so a resumed run still says so.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..errors import InvalidParameter, VeriallocError
from ..io import config_file
from ..io.batch_files import CLAIM_KEYS, INPUT_KEYS, RESULT_KEYS, Results, input_columns, key, read_rows
from ..runtime import executor as executors
from ..validation import abbreviated
from .refine import certify
from .report import certificate_json
from .verdict import make_claim


class RowErrors(VeriallocError):
    """Some rows of a finished batch have verdict "error" (their reasons are in the output's error column)."""


def certify_row(task: dict) -> dict:
    """The output row of one input row (never raises: a failing row gets verdict "error" and its reason)."""
    start = time.perf_counter()
    values = {**task["defaults"], **task["values"]}
    row = {"id": task["key"], **input_columns(task), **dict.fromkeys(RESULT_KEYS, "")}
    try:
        unknown = [k for k in values if k not in INPUT_KEYS and k != "id"]
        if unknown:
            raise InvalidParameter(
                abbreviated(unknown[0]),
                abbreviated(values[unknown[0]]),
                "unknown key; keys: id, " + ", ".join(INPUT_KEYS),
            )
        config = _accounted(values)
        claim = make_claim(**{k: values.get(k) for k in CLAIM_KEYS})
        cert = certify(config, claim, values["direction"], values["budget"], strict=_flag(values["strict"]))
        out = certificate_json(cert, task["digits"])
        row.update(
            verdict=out["verdict"],
            lower=out["lower"],
            upper=out["upper"],
            method_lower=out["method"]["lower"],
            method_upper=out["method"]["upper"],
            rigorous=str(out["rigorous"]).lower(),
        )
    except VeriallocError as exc:
        row.update(verdict="error", error=" ".join(str(exc).split()))
    except Exception as exc:  # a bug in one row must not end a batch of thousands; the row says what happened
        row.update(verdict="error", error=f"internal error ({type(exc).__name__}: {abbreviated(str(exc), 200)})")
    row["seconds"] = f"{time.perf_counter() - start:.3f}"
    return row


def _accounted(values: dict):
    """A row's Config, or the Ledger of its `phases` (which then stand for every configuration key)."""
    if not values.get("phases"):
        return config_file.config_from_values({k: values.get(k) for k in config_file.KEYS})
    given = [k for k in config_file.KEYS if values.get(k)]
    if given:
        raise InvalidParameter(
            given[0], abbreviated(values[given[0]]), "a row with phases gives every configuration key inside its phases"
        )
    return config_file.accounted_from_values(config_file.phase_values(values["phases"]))


def _flag(text: str) -> bool:
    if text.lower() not in ("true", "false", "1", "0"):
        raise InvalidParameter("strict", abbreviated(text), "must be true, false, 1 or 0")
    return text.lower() in ("true", "1")


def _check_same_inputs(tasks: list, results: "Results", out) -> None:
    """A row already in `out` under the same id must have been certified for the same inputs (its budget aside):
    an edited claim or configuration under an old id is refused, never answered with the old verdict."""
    for task in tasks:
        stored = results.done.get(task["key"])
        if stored is None:
            continue
        for k, now in input_columns(task).items():
            if k != "budget" and stored.get(k, "") != now:
                raise InvalidParameter(
                    "out",
                    out,
                    f"holds id {abbreviated(task['key'])!r} certified with {k} = "
                    f"{abbreviated(stored.get(k, ''))!r}, the input now says "
                    f"{abbreviated(now)!r}: use a new --out, or delete that line to "
                    "certify it again",
                )


def _same_file(a, b) -> bool:
    try:
        return os.path.samefile(a, b)  # symbolic and hard links too
    except OSError:  # one does not exist (yet)
        return Path(a).resolve() == Path(b).resolve()


def run_batch(
    path,
    out,
    *,
    executor="local",
    scheduler=None,
    workers=None,
    direction="both",
    budget="60",
    strict=False,
    digits=8,
    progress=None,
) -> dict:
    """Certify every row of `path` not yet in `out`, appending results as they finish; returns a summary.
    Raises RowErrors at the end when a row (of this run) has verdict "error"."""
    executors.check(executor, scheduler, workers)
    if _same_file(path, out):
        raise InvalidParameter("out", out, "is the --batch input itself: results go to another file")
    rows = read_rows(path)
    results = Results(out)
    defaults = {"direction": direction, "budget": str(budget), "strict": "true" if strict else "false"}
    tasks = [
        {"key": key(values), "line": line, "values": values, "defaults": defaults, "digits": digits}
        for line, values in rows
    ]
    _check_same_inputs(tasks, results, out)
    todo = [t for t in tasks if t["key"] not in results.done]
    counts = dict.fromkeys(("certified", "refuted", "inconclusive", "error"), 0)
    rows = dict(results.done)
    start = time.perf_counter()
    with results:
        for n, (i, row) in enumerate(
            executors.completed(certify_row, todo, executor, scheduler=scheduler, workers=workers), 1
        ):
            results.write(row)
            counts[row["verdict"]] += 1
            rows[row["id"]] = row
            if progress:
                progress(f"{n}/{len(todo)} rows, {row['id']}: {row['verdict']}")
    table = dict.fromkeys(counts, 0)  # every row of the input as --out now holds it (rows skipped as done too)
    first_error = None
    for task in tasks:
        row = rows[task["key"]]
        table[row["verdict"]] += 1
        if row["verdict"] == "error" and first_error is None:
            first_error = f"line {task['line']} (id {row['id']}): {row['error']}"
    summary = {
        "command": "certify",
        "batch": str(path),
        "out": str(out),
        "executor": executor,
        "rows": len(tasks),
        "skipped": len(tasks) - len(todo),
        "computed": len(todo),
        "verdicts": counts,
        "table": table,
        "seconds": round(time.perf_counter() - start, 3),
    }
    if table["error"]:
        raise RowErrors(
            f"{table['error']} of {len(tasks)} rows have verdict error (reasons in the error column of "
            f"{out}; the other rows are written); first: {first_error}"
        )
    return summary
