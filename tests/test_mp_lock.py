"""verialloc.mp_lock: mpmath's precision is process-global, so the public entry points hold one re-entrant lock
and calls from threads run one at a time, each at its own precision."""

from concurrent.futures import ThreadPoolExecutor

import mpmath as mp

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.certify import certify, make_claim
from verialloc.mp_lock import MPMATH


def held_elsewhere() -> bool:
    """Whether another thread holds MPMATH now (a non-blocking attempt from a fresh thread fails)."""

    def attempt():
        got = MPMATH.acquire(blocking=False)
        if got:
            MPMATH.release()
        return got

    with ThreadPoolExecutor(1) as other:
        return not other.submit(attempt).result()


def test_queries_and_certify_hold_the_lock_while_they_compute():
    seen = []
    config = Config(Gaussian(1), steps=10)
    api.delta(config, 1, method="pld", progress=lambda stage: seen.append(held_elsewhere()))
    api.epsilon(config, "1e-5", method="pld", progress=lambda stage: seen.append(held_elsewhere()))
    certify(
        config,
        make_claim(delta="1e-5", claimed_epsilon="3"),
        progress=lambda stage: seen.append(held_elsewhere()),
        use_exact=False,
    )
    assert seen and all(seen)
    assert not held_elsewhere()  # and released after


def test_concurrent_exact_queries_match_sequential_ones():
    """Exact queries at 20 to 70 digits from six threads: the same digits as one after the other, and the global
    precision is the one before."""
    jobs = [
        (RandomizedResponse(e0), t, digits) for e0, t in (("0.875", 6), ("1", 9), ("0.3", 12)) for digits in (20, 70)
    ]

    def run(job):
        mech, t, digits = job
        return str(api.delta(Config(mech, steps=t), "0.5", method="exact", digits=digits).upper)

    alone = [run(j) for j in jobs]
    saved = mp.mp.prec
    with ThreadPoolExecutor(6) as pool:
        together = list(pool.map(run, jobs * 3))
    assert together == alone * 3
    assert mp.mp.prec == saved
