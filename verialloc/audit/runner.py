"""Run accountants over golden entries: one `Row` per (accountant, entry) the accountant serves."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from dataclasses import asdict, dataclass

from ..runtime import child
from ..runtime.child import ChildFailure, ChildTimeout
from ..runtime.executor import completed
from ..errors import UnsupportedRequest
from .adapters import Accountant, NotInstalled, registry
from .flags import DEFAULT_LOOSE_PERCENT, ERROR, TIMEOUT, classify, exact
from .golden import config_of


@dataclass(frozen=True)
class Row:
    accountant: str
    entry: str  # golden entry id
    quantity: str  # "epsilon" (at δ = target) or "delta" (at ε = target)
    target: str
    direction: str  # which certified bracket the value is compared with
    reported: float | None
    lower: str  # certified bracket (decimal strings, rounded outward)
    upper: str
    flag: str
    reason: str
    seconds: float
    call: str
    claims: str = "upper"  # what `reported` claims: "upper" | "lower" | "estimate" (the adapter's declaration)

    def as_dict(self) -> dict:
        out = asdict(self)
        if out["reported"] is not None and not math.isfinite(out["reported"]):
            out["reported"] = str(out["reported"])  # JSON has no NaN/inf
        return out


@contextlib.contextmanager
def _fd1_to_stderr():
    """In-process calls: file descriptor 1 points at stderr for the block (restored after), for output written
    below Python; sys.stdout itself is redirected by Accountant.run."""
    try:
        sys.stdout.flush()  # verialloc's own pending output keeps its place on stdout
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):
        yield  # no usable descriptors (embedded interpreters): the Python-level redirect still applies
        return
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _call_here(acc: Accountant, entry: dict):
    with _fd1_to_stderr():
        return _call(acc, entry)


def _call(acc: Accountant, entry: dict):
    """One adapter call; its stdout goes to stderr and its warnings are captured (adapters.quiet via run)."""
    return acc.run(config_of(entry), entry["quantity"], float(exact(entry["target"])))


def _call_limited(acc: Accountant, entry: dict, timeout: float):
    """`_call` in a child process with a time limit (runtime.child: its stdout kept off ours)."""
    return child.run(_call, acc, entry, timeout=timeout, quiet_stdout=True)


def audit_one(
    acc: Accountant, entry: dict, loose_percent: float = DEFAULT_LOOSE_PERCENT, timeout: float | None = None
) -> Row:
    """Call `acc` on `entry` and flag its answer by what it claims (`acc.claims`, flags.classify); an exception
    becomes an ERROR row, no answer within `timeout` seconds (the call then running in a child process) a
    TIMEOUT row. NotInstalled propagates."""
    lower, upper = entry["brackets"][acc.direction]
    start = time.perf_counter()
    if not acc.installed():
        raise NotInstalled(acc.name, acc.package)
    try:
        value = _call_here(acc, entry) if timeout is None else _call_limited(acc, entry, timeout)
    except Exception as exc:
        seconds = time.perf_counter() - start
        reason = str(exc) if isinstance(exc, ChildFailure) else f"{type(exc).__name__}: {exc}"
        flag = TIMEOUT if isinstance(exc, ChildTimeout) else ERROR
        return Row(
            acc.name,
            entry["id"],
            entry["quantity"],
            entry["target"],
            acc.direction,
            None,
            lower,
            upper,
            flag,
            reason,
            seconds,
            acc.call,
            getattr(acc, "claims", "upper"),
        )
    seconds = time.perf_counter() - start
    claims = getattr(acc, "claims", "upper")
    flag, reason = classify(value, lower, upper, loose_percent, claims)
    try:
        reported = float(value)
    except (TypeError, ValueError):
        reported = None
    return Row(
        acc.name,
        entry["id"],
        entry["quantity"],
        entry["target"],
        acc.direction,
        reported,
        lower,
        upper,
        flag,
        reason,
        seconds,
        acc.call,
        claims,
    )


def audit(
    accountants: list[Accountant],
    entries: list[dict],
    loose_percent: float = DEFAULT_LOOSE_PERCENT,
    progress=None,
    timeout: float | None = None,
    executor="local",
    scheduler: str | None = None,
    workers: int | None = None,
    on_row=None,
) -> list[Row]:
    """Rows for every (accountant, entry) pair the accountant serves, in accountant order; `on_row(row)` is called
    as each row completes (a checkpoint: stability.checkpoint). Elsewhere than "local"
    (certify.executor: "process", "dask", or an Executor) each pair is a task naming a registered accountant, which
    the worker looks up in its own registry (adapters hold lambdas, which do not pickle); the `timeout` child is
    forked inside the worker."""
    pairs = [
        (acc, entry) for acc in accountants for entry in entries if acc.serves(config_of(entry), entry["quantity"])
    ]
    if executor == "local":
        fn, tasks = _local_task, [(acc, entry, loose_percent, timeout) for acc, entry in pairs]
    else:
        known = registry()
        for acc, _ in pairs:
            if acc.name not in known:
                raise UnsupportedRequest(
                    "executor",
                    executor,
                    f"accountant {acc.name!r} is not a registered adapter; "
                    "a function of this process runs with executor local",
                )
        fn, tasks = _registered_task, [(acc.name, entry, loose_percent, timeout) for acc, entry in pairs]
    rows: list[Row | None] = [None] * len(tasks)
    for i, row in completed(fn, tasks, executor, scheduler=scheduler, workers=workers):
        rows[i] = row
        if on_row is not None:
            on_row(row)
        if progress:
            progress(f"{row.accountant} {row.entry}")
    return rows


def _local_task(task) -> Row:
    acc, entry, loose_percent, timeout = task
    return audit_one(acc, entry, loose_percent, timeout)


def _registered_task(task) -> Row:
    """One audit task in a worker: the accountant by its registered name."""
    name, entry, loose_percent, timeout = task
    return audit_one(registry()[name], entry, loose_percent, timeout)
