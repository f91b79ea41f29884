"""Run every proofs check and print ID, statement, method, PASS/FAIL, seconds; exit 1 on any FAIL.

`--markdown` prints the same table as Markdown (ID, statement, method, result; doc-only rows give their
reason; no timings, so the table is reproducible and can be kept in sync with docs/verification.md).
"""

import argparse
import sys
import time
import traceback

from . import load_all


def run_all() -> list[tuple]:
    """(id, statement, method, result, seconds, note) per check; result PASS | FAIL | doc-only."""
    rows = []
    for c in load_all():
        if c.run is None:
            rows.append((c.id, c.statement, c.method, "doc-only", "-", c.reason))
            continue
        start = time.perf_counter()
        try:
            c.run()
            status, note = "PASS", ""
        except Exception as exc:  # a failing check must not stop the others
            status, note = "FAIL", f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=sys.stderr)
        rows.append((c.id, c.statement, c.method, status, f"{time.perf_counter() - start:.2f}", note))
    return rows


def render_text(rows) -> str:
    width = max(len(r[1]) for r in rows)
    lines = [f"{'ID':<8} {'statement':<{width}} {'method':<9} {'result':<8} seconds"]
    lines += [f"{r[0]:<8} {r[1]:<{width}} {r[2]:<9} {r[3]:<8} {r[4]}" + (f"  ({r[5]})" if r[5] else "") for r in rows]
    return "\n".join(lines + [summary(rows)])


def render_markdown(rows) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| ID | Statement | Method | Result |", "|---|---|---|---|"]
    for r in rows:
        result = f"doc-only: {r[5]}" if r[3] == "doc-only" else r[3]
        lines.append(f"| {r[0]} | {cell(r[1])} | {r[2]} | {cell(result)} |")
    return "\n".join(lines)


def summary(rows) -> str:
    count = {s: sum(r[3] == s for r in rows) for s in ("PASS", "FAIL", "doc-only")}
    return f"{count['PASS']} passed, {count['FAIL']} failed, {count['doc-only']} doc-only"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proofs_checks", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    rows = run_all()
    print(render_markdown(rows) if args.markdown else render_text(rows))
    if args.markdown:
        print(summary(rows), file=sys.stderr)
    return 1 if any(r[3] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
