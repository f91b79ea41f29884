"""Run one call in a forked child process with a time limit: the one way verialloc stops work it cannot interrupt
(an audited accountant that hangs, a calibrate probe at the budget's end, a fuzz case).

`run(fn, *args, timeout=...)` returns fn(*args) computed in a child, or raises: the child's own exception when it
pickles (else ChildFailure with its type and text), ChildTimeout when no answer came within `timeout` seconds (the
child is killed), ChildFailure when the child died without an answer (out of memory, a native crash). Options:
`progress` — fn gets a last argument tick(stage) whose stages are passed to `progress` here as they come;
`memory` — an address-space limit (bytes) in the child; `quiet_stdout` — the child's file descriptor 1 becomes a
copy of 2, so nothing it prints (C extensions included) reaches this process's stdout. Without the "fork" start
method the call runs in this process, without the time limit.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import resource
import sys
import time

#: seconds between checks of the child while it works
POLL = 0.2


class ChildFailure(RuntimeError):
    """The child gave no value: its exception did not pickle (the text is kept) or it died without an answer."""


class ChildTimeout(ChildFailure):
    """No answer within the time limit (the child was killed)."""


def run(fn, *args, timeout: float, progress=None, memory: int | None = None, quiet_stdout: bool = False):
    """fn(*args) (and tick, when `progress` is given) in a forked child, within `timeout` seconds."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return fn(*args, progress) if progress is not None else fn(*args)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args, progress is not None, memory, quiet_stdout), daemon=True)
    deadline = time.perf_counter() + timeout
    proc.start()
    child.close()
    try:
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise ChildTimeout(f"timeout: no answer within {timeout:g} s")
            if not parent.poll(min(POLL, remaining)):
                if not proc.is_alive() and not parent.poll(0):
                    raise ChildFailure(f"the child process ended without an answer (exit code {proc.exitcode})")
                continue
            try:
                kind, payload = parent.recv()
            except (EOFError, OSError):
                proc.join()
                raise ChildFailure(f"the child process ended without an answer (exit code {proc.exitcode})") from None
            if kind == "progress":
                progress(payload)
            elif kind == "ok":
                return payload
            elif kind == "raise":
                raise payload
            else:
                raise ChildFailure(payload)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()


def _child(conn, fn, args, ticks: bool, memory, quiet_stdout: bool) -> None:
    if memory is not None:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ValueError, OSError):
            pass
    if quiet_stdout:
        _stdout_to_stderr()
    try:
        extra = (lambda stage: conn.send(("progress", str(stage))),) if ticks else ()
        conn.send(("ok", fn(*args, *extra)))
    except BaseException as exc:  # noqa: BLE001 — whatever happened is the answer
        try:
            pickle.loads(pickle.dumps(exc))
            conn.send(("raise", exc))
        except Exception:  # noqa: BLE001 — library exceptions need not pickle: send the text
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _stdout_to_stderr() -> None:
    """In the forked child only: file descriptor 1 becomes a copy of 2, so that even output written below Python
    (C extensions, subprocesses) cannot reach the parent's stdout, and sys.stdout becomes sys.stderr. The inherited
    stdout buffer is not flushed: it is a copy of the parent's pending output, which the parent writes itself."""
    sys.stdout = sys.stderr
    try:
        os.dup2(2, 1)
    except OSError:
        pass
