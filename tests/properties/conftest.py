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
#: seconds a method may take for one small query before the test fails
LIMIT = 10


def _ask(ask, method: str, what: str, limit: int = LIMIT):
    """ask(method, **options) → Bracket, None when unsupported or not certified; pytest.fail after `limit` s."""
    if method in NOT_ASKED:
        return None

    def expire(*_):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(limit)
    try:
        bracket = ask(method, **OPTIONS.get(method, {}))
    except UnsupportedRequest:
        return None
    except TimeoutError:
        pytest.fail(f"method {method!r} did not answer within {limit} s: {what}", pytrace=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return bracket if bracket.error_kind in CERTIFIED else None


@pytest.fixture(scope="session")
def certified():
    """certified(ask, exclude=(), what="") → {method: Bracket} over api.METHODS; ask(method, **options) runs one
    query, `what` describes it in a timeout failure."""
    def collect(ask, exclude=(), what=""):
        out = {}
        for method in api.METHODS:
            if method not in exclude and (bracket := _ask(ask, method, what)) is not None:
                out[method] = bracket
        return out
    return collect
