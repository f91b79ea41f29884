"""Run every benchmark module in one process and print their tables (`make bench`).

Each module exposes `run() -> list[dict]` and `main()`; figures for docs/benchmarks.md are taken from one
run of this script so that ratios compare numbers measured side by side.
"""

from __future__ import annotations

import importlib
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODULES = [
    "bench_rdp_forms",
    "bench_pld",
    "bench_poisson",
    "bench_rows",
    "bench_rdp_accountant",
    "bench_contract",
    "bench_ledger",
]


def main(names: list[str]) -> None:
    print(
        f"# verialloc benchmarks — {time.strftime('%Y-%m-%d %H:%M')} — {platform.processor() or platform.machine()}, "
        f"python {platform.python_version()}"
    )
    for name in names or MODULES:
        print(f"\n## {name}")
        importlib.import_module(name).main()


if __name__ == "__main__":
    main(sys.argv[1:])
