"""The executor flags (`--executor`, `--scheduler`, `--workers`) of the commands that run independent tasks
(certify --batch, stability, audit): where the tasks run (verialloc.certify.executor)."""
from __future__ import annotations

from ..certify.executor import EXECUTORS, check
from ..validation import integer

MAX_WORKERS = 1024


def add_executor_flags(p, what: str) -> None:
    p.add_argument("--executor", default="local", help=f"where the {what} run: " + " | ".join(EXECUTORS)
                   + " (default local: in this process; process: a local process pool; dask: a Dask cluster)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --executor dask: the scheduler (tcp://host:8786); "
                                                          "default: a local cluster started for the run")
    p.add_argument("--workers", help="with --executor process|dask and no --scheduler: local worker processes "
                                     "(default: one per core)")


def executor_args(args) -> dict:
    """{executor, scheduler, workers} of the flags, checked (one line naming the flag when they do not fit)."""
    workers = None if args.workers is None else integer("workers", args.workers, 1, MAX_WORKERS)
    check(args.executor, args.scheduler, workers)
    return {"executor": args.executor, "scheduler": args.scheduler, "workers": workers}
