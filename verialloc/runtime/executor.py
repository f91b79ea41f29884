"""Where independent tasks run: one interface for batch certification, golden-table regeneration and sweeps.

`completed(fn, items, executor)` yields (index, fn(item)) as each task finishes, for
  "local"    in this process, one after the other, in order;
  "process"  a local pool of `workers` processes (concurrent.futures.ProcessPoolExecutor);
  "dask"     a Dask cluster (extra `dask`): the scheduler at `scheduler` ("tcp://host:8786"), or a LocalCluster
             of `workers` single-threaded worker processes started for the run, whose workers ignore SIGINT:
             Ctrl-C interrupts this process, which cancels the tasks and stops them;
local pools have `workers` processes (default: one per core), never more than there are items.
or any concurrent.futures.Executor given as the object (a thread pool, `dask.distributed.Client.get_executor()`).
At most WINDOW tasks are in flight, so a long input is fed as results come back. `fn` and the items must be
picklable for "process" and "dask" (a module-level function; workers need verialloc installed).

mpmath's working precision is one global per process, so tasks that share a process (a thread pool, Dask
workers with several threads) run one at a time: two interleaved `mp.workdps` blocks would each compute at the
other's precision, and the last to exit would leave its own behind.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from multiprocessing import forkserver

from ..errors import InvalidParameter, UnsupportedRequest
from ..mp_lock import MPMATH

EXECUTORS = ("local", "process", "dask")
#: most tasks submitted and not yet finished
WINDOW = 256
#: seconds to wait for a Dask scheduler to answer, and beyond that for its handshake
CONNECT_TIMEOUT = 10
HANDSHAKE_GRACE = 5
#: seconds a local worker still running a task when the run ends (Ctrl-C, an error) has before it is killed
STOP_GRACE = 1


def check(executor: str, scheduler: str | None = None, workers: int | None = None) -> None:
    """Refuse an unknown executor name, or a scheduler/worker count it does not take, before any work."""
    if executor not in EXECUTORS:
        raise InvalidParameter("executor", executor, "must be one of " + "|".join(EXECUTORS))
    if scheduler is not None and executor != "dask":
        raise InvalidParameter("scheduler", scheduler, "applies only to --executor dask")
    if scheduler is not None and workers is not None:
        raise InvalidParameter(
            "workers", workers, "sets the size of a local cluster; the cluster at --scheduler has its own workers"
        )
    if workers is not None and executor == "local":
        raise InvalidParameter("workers", workers, "applies to --executor process|dask (local runs in this process)")
    if executor == "dask":
        try:
            import dask.distributed  # noqa: F401  (the extra is missing: say so before any work)
        except ImportError:
            raise UnsupportedRequest(
                "executor", "dask", "needs dask.distributed, not installed (pip install 'verialloc[dask]')"
            ) from None


def completed(fn, items, executor="local", *, scheduler: str | None = None, workers: int | None = None):
    """Yield (index, fn(item)) for every item, in order of completion (in input order for "local")."""
    items = list(items)
    if isinstance(executor, Executor):
        yield from _windowed(executor, fn, items)
        return
    check(executor, scheduler, workers)
    if executor == "local":
        for i, item in enumerate(items):
            yield i, fn(item)
        return
    if not items:  # no pool or cluster started for nothing (a resumed batch with every row done)
        return
    size = min(workers or cores(), len(items))  # --workers 1000 started 1000 processes for 3 rows
    with contextlib.ExitStack() as stack:
        if executor == "process":
            pool = stack.enter_context(ProcessPoolExecutor(max_workers=size))
        else:
            pool = _dask(stack, scheduler, size)
        yield from _windowed(pool, fn, items)


def cores() -> int:
    """The cores this process may run on: its CPU affinity where the system has one (a container or `taskset` may
    give it fewer than the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _windowed(pool: Executor, fn, items: list):
    pending, todo = {}, iter(enumerate(items))
    try:
        while True:
            for i, item in todo:
                pending[pool.submit(_one_at_a_time, fn, item)] = i
                if len(pending) >= WINDOW:
                    break
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
    finally:  # stopped early (an error, Ctrl-C): drop what has not started
        for future in pending:
            future.cancel()


def _one_at_a_time(fn, item):
    with MPMATH:
        return fn(item)


def _dask(stack: contextlib.ExitStack, scheduler: str | None, workers: int):
    """The concurrent.futures face of a Dask client, closed with `stack` without waiting for tasks (after Ctrl-C, the
    executor's own exit, shutdown(wait=True), waited for every task it had handed out, those whose results were
    lost with interrupted workers included: for minutes, or for ever)."""
    import dask
    from dask.distributed import Client, LocalCluster  # present: check() has looked

    if scheduler is None:  # non-daemonic workers: a task may fork (audit's per-call timeout child)
        stack.enter_context(
            dask.config.set(
                {"distributed.worker.daemon": False, "distributed.worker.multiprocessing-method": _start_method()}
            )
        )
        with _sigint_deferred():
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers, threads_per_worker=1, dashboard_address=None, silence_logs=logging.CRITICAL
                )
            )
            stack.callback(_stop_workers, cluster)
            client = stack.enter_context(Client(cluster))
    else:
        client = stack.enter_context(_connect(scheduler))
    pool = client.get_executor(pure=False)
    stack.callback(pool.shutdown, wait=False)
    return pool


def _start_method() -> str:
    """How local workers start: forked by a fork server that was started ignoring SIGINT, so they ignore it too (the
    server gives its children the handlers it found). A terminal's Ctrl-C goes to the whole process group, and
    interrupted workers printed tracebacks and lost finished results; this process alone is interrupted and stops
    them. Without a fork server (Windows), or off the main thread (signal handlers are set there), spawned."""
    if "forkserver" not in multiprocessing.get_all_start_methods() or not _main_thread():
        return "spawn"
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, handler)
    return "forkserver"


@contextlib.contextmanager
def _sigint_deferred():
    """A Ctrl-C while the cluster starts is delivered once it is up and held by the ExitStack (raised inside its
    start, it left a half-started cluster to an atexit hook that failed with a traceback)."""
    if not _main_thread():
        yield
        return
    caught = []
    handler = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
    if caught:
        signal.raise_signal(signal.SIGINT)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _stop_workers(cluster) -> None:
    """Close the cluster's workers, killing one still running a task after STOP_GRACE seconds (the cluster's own
    close gives it 4 s)."""
    import asyncio

    cluster.sync(asyncio.gather, *(nanny.close(timeout=STOP_GRACE) for nanny in cluster.workers.values()))


def _connect(scheduler: str):
    """A Client of the scheduler at `scheduler`, or one error within CONNECT_TIMEOUT + HANDSHAKE_GRACE seconds.
    Dask's own timeout covers the TCP connection, not the handshake: a silent server (an HTTP port) would hang it,
    and bytes that are not Dask's framing raise ValueError or MemoryError; so it runs in a daemon thread that is
    abandoned at the deadline."""
    from dask.distributed import Client

    box = {}

    def attempt():
        try:
            box["client"] = Client(scheduler, timeout=CONNECT_TIMEOUT)
            return
        except Exception as exc:  # any failure to connect is the address's fault, reported as one line
            box["error"] = f"{type(exc).__name__}: {exc}"
        gc.collect()  # the half-built Client, here rather than in whichever thread next collects garbage

    thread = threading.Thread(target=attempt, name="verialloc-dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + HANDSHAKE_GRACE)
    if thread.is_alive():
        raise InvalidParameter(
            "scheduler",
            scheduler,
            f"no Dask scheduler answered there (no handshake within {CONNECT_TIMEOUT + HANDSHAKE_GRACE} s)",
        )
    if "error" in box:
        raise InvalidParameter("scheduler", scheduler, f"no Dask scheduler answered there ({box['error']})")
    return box["client"]
