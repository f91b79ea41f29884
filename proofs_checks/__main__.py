"""Run every proofs check and print ID, statement, method, PASS/FAIL, seconds; exit 1 on any FAIL."""
import sys
import time
import traceback

from . import load_all


def main() -> int:
    failed = 0
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
            failed += 1
            status, note = "FAIL", f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=sys.stderr)
        rows.append((c.id, c.statement, c.method, status, f"{time.perf_counter() - start:.2f}", note))
    width = max(len(r[1]) for r in rows)
    print(f"{'ID':<6} {'statement':<{width}} {'method':<9} {'result':<8} seconds")
    for r in rows:
        print(f"{r[0]:<6} {r[1]:<{width}} {r[2]:<9} {r[3]:<8} {r[4]}" + (f"  ({r[5]})" if r[5] else ""))
    print(f"{sum(r[3] == 'PASS' for r in rows)} passed, {failed} failed, {sum(r[3] == 'doc-only' for r in rows)} doc-only")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
