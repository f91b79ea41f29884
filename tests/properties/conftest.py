"""Shared fixture: ask every certified method in api.METHODS, each within a time limit (a hang fails loudly)."""

import signal

import pytest

from verialloc import api
from verialloc.errors import UnsupportedRequest
from verialloc.numeric.pld.pld_accountant import Settings

#: error kinds whose [lower, upper] is a sound bracket (mc's "statistical" confidence intervals are not)
CERTIFIED = {"exact", "quadrature", "bound"}
#: per-method options that keep the suite fast (coarser than the defaults, still sound)
FAST = Settings(loss_step=1e-2, tail=1e-10, grid_step=2e-2)
OPTIONS = {"pld": {"settings": FAST}, "best": {"settings": FAST}}
#: not asked at all: mc's brackets are confidence intervals (error_kind "statistical") and sampling them would
#: dominate the run time; its own suite checks coverage
NOT_ASKED = {"mc"}
#: CPU seconds a method may take for one small query before the test fails (CPU, not wall-clock, time: a loaded
#: machine stretched a 1.9 s rdp query past a 10 s wall-clock limit, seed-runs 236); a wall-clock backstop of
#: WALL_FACTOR times as much catches a hang that does not burn CPU
LIMIT = 10
WALL_FACTOR = 6


def _ask(ask, method: str, what: str, limit: int = LIMIT):
    """ask(method, **options) → Bracket, None when unsupported or not certified; pytest.fail after `limit` CPU s."""
    if method in NOT_ASKED:
        return None

    def expire(*_):
        raise TimeoutError

    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, limit)
    signal.setitimer(signal.ITIMER_REAL, limit * WALL_FACTOR)
    try:
        bracket = ask(method, **OPTIONS.get(method, {}))
    except UnsupportedRequest:
        return None
    except TimeoutError:
        pytest.fail(f"method {method!r} did not answer within {limit} CPU s: {what}", pytrace=False)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return bracket if bracket.error_kind in CERTIFIED else None


@pytest.fixture(scope="session")
def certified():
    """certified(ask, exclude=(), what="") → {method: Bracket} over api.METHODS but those that choose another
    (auto repeats exact or best); ask(method, **options) runs one query, `what` describes it in a timeout failure."""

    def collect(ask, exclude=(), what=""):
        out = {}
        for method, m in api.METHODS.items():
            if m.chooses:
                continue
            if method not in exclude and (bracket := _ask(ask, method, what)) is not None:
                out[method] = bracket
        return out

    return collect
