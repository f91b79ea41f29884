"""The executor flags (`--executor`, `--scheduler`, `--workers`) of the commands that run independent tasks
(certify --batch, stability, audit): where the tasks run (verialloc.runtime.executor)."""

from __future__ import annotations

from ..runtime.executor import EXECUTORS, check, cores
from ..errors import InvalidParameter
from ..validation import integer

#: most local worker processes per core: the tasks are CPU-bound and single-threaded, so more processes only share
#: the cores, each holding its own memory (numpy, scipy, mpmath and the task's arrays: 85 MB and up)
WORKERS_PER_CORE = 2


def add_executor_flags(p, what: str) -> None:
    p.add_argument(
        "--executor",
        default="local",
        help=f"where the {what} run: "
        + " | ".join(EXECUTORS)
        + " (default local: in this process; process: a local process pool; dask: a Dask cluster)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --executor dask: the scheduler (tcp://host:8786); default: a local cluster started for the run",
    )
    p.add_argument(
        "--workers",
        help="with --executor process|dask and no --scheduler: local worker processes "
        f"(default: one per core; at most {WORKERS_PER_CORE} per core, and never more "
        "than there are tasks)",
    )


def executor_args(args) -> dict:
    """{executor, scheduler, workers} of the flags, checked (one line naming the flag when they do not fit)."""
    workers = None if args.workers is None else _workers(args.workers)
    check(args.executor, args.scheduler, workers)
    return {"executor": args.executor, "scheduler": args.scheduler, "workers": workers}


def _workers(value) -> int:
    n = cores()
    try:
        return integer("workers", value, 1, WORKERS_PER_CORE * n)
    except InvalidParameter:
        raise InvalidParameter(
            "workers",
            value,
            f"must be an integer in [1, {WORKERS_PER_CORE * n}] "
            f"({WORKERS_PER_CORE} per core, {n} cores here: the tasks are "
            "CPU-bound, so more processes would only share the cores and "
            "the memory)",
        ) from None
