"""Regenerate the golden tables: certified brackets from verialloc's own sound methods on a fixed grid.

    python -m verialloc.audit.golden.generate [--executor local|process|dask] [--scheduler ADDRESS]
                                              [--workers N] [--only ID ...] [--out FILE]

Each entry is computed by `verialloc.api` with direction "both" (F3), so the remove, add and both brackets
(lower rounded down, upper rounded up) come from one call: method "exact" where it applies (closed forms,
F13 composition), else "pld" (sound float64 lower/upper bounds, F55). Entries are independent: `generate`
runs `compute` through the shared executor (verialloc.runtime.executor) — a local process pool by default,
"local" (in this process), "dask" (a cluster at `scheduler`, or a LocalCluster; extra `dask`), or any
`concurrent.futures.Executor` object such as `dask.distributed.Client.get_executor()` (docs/audit.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import time
from pathlib import Path

from ...runtime.executor import EXECUTORS, completed
from ...errors import VeriallocError

DIGITS = 12
DEFAULT_FILE = Path(__file__).with_name("default.json")


def _g(sigma, scheme="allocation", steps=1, k=1, epochs=1, rate=None) -> dict:
    out = {"mechanism": "gaussian", "sigma": sigma, "scheme": scheme, "steps": steps, "k": k, "epochs": epochs}
    if rate is not None:
        out["rate"] = rate
    return out


_DPSGD = _g("0.8", "poisson", 1000, rate="1e-3")
_TINY = {"tail": 1e-30}  # truncated mass per step far below the target δ (docs/pld.md, tiny δ)

#: the shipped grid: Poisson DP-SGD, allocation (k ≥ 1, epochs), small δ, large t; id -> spec
GRID: list[dict] = [
    {"id": "dpsgd-s0.8-T1e3-d1e-5", "config": _DPSGD, "quantity": "epsilon", "target": "1e-5", "method": "pld"},
    {"id": "dpsgd-s0.8-T1e3-d1e-10", "config": _DPSGD, "quantity": "epsilon", "target": "1e-10", "method": "pld"},
    {
        "id": "dpsgd-s0.8-T1e3-d1e-15",
        "config": _DPSGD,
        "quantity": "epsilon",
        "target": "1e-15",
        "method": "pld",
        "settings": _TINY,
    },
    {
        "id": "dpsgd-s0.8-T1e3-e2",
        "config": _DPSGD,
        "quantity": "delta",
        "target": "2",
        "method": "pld",
        "settings": _TINY,
    },
    {
        "id": "dpsgd-s0.8-T1e3-e8",
        "config": _DPSGD,
        "quantity": "delta",
        "target": "8",
        "method": "pld",
        "settings": _TINY,
    },
    {
        "id": "dpsgd-s1-T1e4-d1e-5",
        "config": _g("1", "poisson", 10_000, rate="1e-3"),
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "pld",
    },
    {
        "id": "dpsgd-s1-T1e6-d1e-5",
        "config": _g("1", "poisson", 1_000_000, rate="1e-3"),
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "pld",
    },
    {
        "id": "dpsgd-s1.1-q1e-2-T1e3-d1e-6",
        "config": _g("1.1", "poisson", 1000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-6",
        "method": "pld",
    },
    {"id": "gauss-s1-d1e-15", "config": _g("1"), "quantity": "epsilon", "target": "1e-15", "method": "exact"},
    {
        "id": "gauss-s2-T100-d1e-10",
        "config": _g("2", steps=100, k=100),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "exact",
    },
    {
        "id": "alloc-s1-t10-E10-d1e-6",
        "config": _g("1", steps=10, epochs=10),
        "quantity": "epsilon",
        "target": "1e-6",
        "method": "pld",
    },
    {
        "id": "alloc-s1-t1e3-d1e-6",
        "config": _g("1", steps=1000),
        "quantity": "epsilon",
        "target": "1e-6",
        "method": "pld",
    },
    {
        "id": "alloc-s1-t1e3-k10-d1e-6",
        "config": _g("1", steps=1000, k=10),
        "quantity": "epsilon",
        "target": "1e-6",
        "method": "pld",
    },
    {
        "id": "alloc-s1-t1e3-d1e-12",
        "config": _g("1", steps=1000),
        "quantity": "epsilon",
        "target": "1e-12",
        "method": "pld",
    },
    {
        "id": "alloc-s1-t1e4-E5-d1e-8",
        "config": _g("1", steps=10_000, epochs=5),
        "quantity": "epsilon",
        "target": "1e-8",
        "method": "pld",
    },
    {
        "id": "alloc-s1-t1e6-d1e-10",
        "config": _g("1", steps=1_000_000),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "pld",
    },
    # a boundary of the accountant map (docs/stability.md, "Where accountants break"): dp_accounting.pld is inside
    # the bracket at δ = 1e-5 and 0.0102% below its lower end at δ = 1e-10 for this configuration
    {
        "id": "dpsgd-s1-q1e-2-T1e4-d1e-5",
        "config": _g("1", "poisson", 10_000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "pld",
    },
    {
        "id": "dpsgd-s1-q1e-2-T1e4-d1e-10",
        "config": _g("1", "poisson", 10_000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "pld",
    },
    # a boundary of opacus.gdp's map (docs/stability.md, "Where accountants break"): the GDP CLT approximation is
    # above the certified bracket at δ = 1e-5 (1.018x) and below its lower end at δ = 1e-10 (0.933x)
    {
        "id": "dpsgd-s0.6-q1e-2-T1e4-d1e-5",
        "config": _g("0.6", "poisson", 10_000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "pld",
    },
    {
        "id": "dpsgd-s0.6-q1e-2-T1e4-d1e-10",
        "config": _g("0.6", "poisson", 10_000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "pld",
    },
    # a boundary of the Poisson map over the performance map's region (docs/stability.md, "Where accountants
    # break"): at δ = 1e-10, σ = 5, dp_accounting.pld is inside the bracket at T = 1e3 and x(1 - 9.6e-05) of its
    # lower end at T = 1e5 (σ = 1 and 2 flip between the same T)
    {
        "id": "dpsgd-s5-q1e-2-T1e3-d1e-10",
        "config": _g("5", "poisson", 1000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "pld",
    },
    {
        "id": "dpsgd-s5-q1e-2-T1e5-d1e-10",
        "config": _g("5", "poisson", 100_000, rate="1e-2"),
        "quantity": "epsilon",
        "target": "1e-10",
        "method": "pld",
    },
    # a boundary of pld_accounting.range's map (docs/stability.md, "Where accountants break"): it answers at
    # δ = 1e-14 and raises RuntimeError ("Poisson-based adaptive initialization produced an invalid estimate: inf")
    # from δ = 1e-15 down, at every σ and t of the map
    {
        "id": "alloc-s1-t100-d1e-14",
        "config": _g("1", steps=100),
        "quantity": "epsilon",
        "target": "1e-14",
        "method": "pld",
        "settings": _TINY,
    },
    {
        "id": "alloc-s1-t100-d1e-15",
        "config": _g("1", steps=100),
        "quantity": "epsilon",
        "target": "1e-15",
        "method": "pld",
        "settings": _TINY,
    },
]


def compute(spec: dict) -> dict:
    """One golden entry: `spec` plus brackets {remove, add, both: [lower, upper]} as outward-rounded strings."""
    from ... import api
    from . import config_of, entry_brackets

    from ... import registry

    given = {k: repr(v) for k, v in spec.get("settings", {}).items()}  # the method's flags, as their text
    options = registry.method(spec["method"]).options_from_flags(given)
    query = api.epsilon if spec["quantity"] == "epsilon" else api.delta
    start = time.perf_counter()
    b = query(config_of(spec), spec["target"], direction="both", method=spec["method"], digits=DIGITS, **options)
    seconds = time.perf_counter() - start
    brackets = entry_brackets(b, DIGITS)
    notes = sorted({n for x in b.details.values() for n in x.details.get("notes", [])})
    return {
        **spec,
        "settings": spec.get("settings", {}),
        "brackets": brackets,
        "error_kind": b.error_kind,
        "notes": notes,
        "seconds": round(seconds, 2),
    }


def versions() -> dict:
    """Software that produced a table (recorded in its `versions` field)."""
    import mpmath
    import numpy
    import scipy

    from ... import __version__

    return {
        "verialloc": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "mpmath": mpmath.__version__,
    }


def generate(
    specs: list[dict] = GRID, executor="process", workers: int | None = None, scheduler: str | None = None
) -> dict:
    """The table for `specs` (entries in their order), computed on `executor` (module docstring; workers: local
    processes, default one per core)."""
    entries = [None] * len(specs)
    for i, entry in completed(compute, specs, executor, scheduler=scheduler, workers=workers):
        entries[i] = entry
    return {"versions": versions(), "date": datetime.date.today().isoformat(), "digits": DIGITS, "entries": entries}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m verialloc.audit.golden.generate", description=__doc__.split("\n")[0])
    p.add_argument("--executor", default="process", choices=EXECUTORS, help="where entries run (default process)")
    p.add_argument("--scheduler", help="with --executor dask: the scheduler address (default: a local cluster)")
    p.add_argument("--workers", type=int, help="local worker processes (process, dask; default one per core)")
    p.add_argument("--only", nargs="*", help="entry ids to compute (default: the whole grid)")
    p.add_argument("--out", default=str(DEFAULT_FILE), help="output JSON file (default: the shipped table)")
    args = p.parse_args(argv)
    specs = [s for s in GRID if not args.only or s["id"] in args.only]
    try:
        table = generate(specs, args.executor, workers=args.workers, scheduler=args.scheduler)
    except VeriallocError as exc:  # --workers with local, no dask installed, no scheduler answering
        p.error(str(exc))
    Path(args.out).write_text(json.dumps(table, indent=1) + "\n")
    for e in table["entries"]:
        print(f"{e['id']:32s} {e['seconds']:8.1f} s  both={e['brackets']['both']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
