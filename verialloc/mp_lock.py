"""One lock for mpmath's working precision, which is one global per process (`mp.prec` is not thread-local): two
threads inside `mp.workdps` blocks would compute at each other's precision, and the last to leave would restore
the wrong one — a bound computed at fewer digits than its error budget assumes. The public entry points that may
reach mpmath (verialloc.api, certify) and the executor's tasks hold MPMATH (re-entrant), so calls from several
threads run one at a time; processes give parallelism.
"""

import functools
import threading

MPMATH = threading.RLock()


def serialized(fn):
    """`fn` holding MPMATH for the whole call."""

    @functools.wraps(fn)
    def held(*args, **kwargs):
        with MPMATH:
            return fn(*args, **kwargs)

    return held
