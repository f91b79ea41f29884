"""Hypothesis profiles. The default is derandomized, so `make test` gives the same result on every machine
(whether or not CI=true):

* `ci` (default): derandomized, 25 examples per test;
* `deep` (`make test-all`): derandomized, 150 examples per test;
* `random` (HYPOTHESIS_PROFILE=random): random seeds, 40 examples per test — to hunt for new failures
  (reproduce one with `-p hypothesis --hypothesis-seed=N`, which pytest prints with the failure).

`dev` is kept as an alias of `random` for existing habits.
"""

import os
import signal

import mpmath
import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("ci", derandomize=True, max_examples=25, print_blob=True, **_COMMON)
settings.register_profile("deep", derandomize=True, max_examples=150, print_blob=True, **_COMMON)
settings.register_profile("random", derandomize=False, max_examples=40, print_blob=True, **_COMMON)
settings.register_profile("dev", parent=settings.get_profile("random"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "ci")


@pytest.fixture(autouse=True)
def _mpmath_precision_is_restored():
    """Every test leaves mpmath's global precisions as it found them: a leaked `mp.dps = 40` once broke
    tests/exact/test_quadrature's containment checks in whole-suite runs only. A leak fails the leaking test."""
    before = mpmath.mp.prec, mpmath.iv.prec
    yield
    after = mpmath.mp.prec, mpmath.iv.prec
    mpmath.mp.prec, mpmath.iv.prec = before
    assert after == before, f"mpmath (mp.prec, iv.prec) changed from {before} to {after}"


@pytest.fixture(autouse=True)
def _sigint_handler_is_restored():
    """Every test leaves the SIGINT handler as it found it (a Ctrl-C test installs Python's own for itself: a
    shell's background job, such as a `.ci/seed-runs` run, starts with SIGINT ignored). A leak fails the leaking
    test."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, before)
    assert after == before, f"the SIGINT handler changed from {before} to {after}"
