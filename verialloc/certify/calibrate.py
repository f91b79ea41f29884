"""`calibrate`: the smallest Gaussian noise σ whose certified ε(δ) meets a target, by bisection in σ.

Every exact profile of the Gaussian pair (single step, Poisson, allocation, both directions) is non-increasing
in σ (invariant I5: larger σ is a post-processing of smaller σ, F8), hence so is ε(δ). Each probe runs
`certify` with the claim "ε(δ) ≤ target" at that σ:
  certified → ε_upper(σ) ≤ target: σ meets the target (σ_upper moves down to it);
  inconclusive while bracketing → the step factor is square-rooted and the search backs off towards the known side;
  refuted   → ε_lower(σ) > target: σ and, by I5, every smaller σ miss it (σ_lower moves up to it).
So the smallest σ meeting the target lies in (σ_lower, σ_upper]. Bisection (geometric midpoints, rounded to
SIG_DIGITS significant digits) stops when σ_upper/σ_lower − 1 ≤ tolerance, when a probe is inconclusive (the
target is inside that σ's certified bracket), or when the budget is spent. The budget is a hard limit: the
elapsed time is checked before every probe, each probe's `certify` gets only the remaining seconds and runs in a
forked worker process that is killed at the deadline (a step already running cannot overrun the budget), and a
probe whose first step does not fit in them (cost model, verialloc.cost), that is stopped at the deadline, or
that a method refuses (UnsupportedRequest, e.g. pld's grid at a tiny σ) ends the search; what is certified so far is returned with `converged` false and the stop reason. A target ε <= 0 is refused (ε(δ) <= 0 means a total
variation distance <= δ, out of reach within the σ range searched; pure ε = 0 needs σ = ∞).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from fractions import Fraction

import mpmath as mp

from ..config import Config
from ..budget import BudgetExceeded
from ..errors import InvalidParameter, UnsupportedRequest, python_remedies
from ..mechanisms import Gaussian
from ..runtime import child
from ..validation import as_float, positive, to_fraction
from .refine import certify
from .verdict import make_claim

SIG_DIGITS = 7
SIGMA_RANGE = (Fraction(1, 1000), Fraction(10**5))
DEFAULT_TOLERANCE = "1e-3"
DEFAULT_BUDGET = 300


@dataclass
class Calibration:
    """sigma_upper: certified to meet the target (None if none found); sigma_lower: certified to miss it, with
    every smaller σ (None if none found); probes: (σ, verdict, ε lower, ε upper, seconds) in order."""

    target_epsilon: Fraction
    delta: Fraction
    tolerance: Fraction
    sigma_upper: Fraction | None
    sigma_lower: Fraction | None
    probes: list
    reason: str

    @property
    def converged(self) -> bool:
        return self.reason == "tolerance met"


@python_remedies
def calibrate(
    template: Config,
    target_epsilon,
    delta,
    *,
    direction: str = "both",
    tolerance=DEFAULT_TOLERANCE,
    budget=DEFAULT_BUDGET,
    progress=None,
    strict: bool = False,
) -> Calibration:
    """Bracket the smallest σ with certified ε(δ) ≤ target_epsilon for `template` with Gaussian(σ) noise;
    strict=True runs every probe with `certify(strict=True)` (rigorous bounds only)."""
    if not isinstance(template.mechanism, Gaussian):
        raise InvalidParameter("mechanism", template.mechanism.name, "calibrate searches the Gaussian noise σ")
    target = to_fraction("target-epsilon", target_epsilon)
    if target < 0:
        raise InvalidParameter("target-epsilon", target_epsilon, "must be > 0")
    if target == 0:
        raise InvalidParameter(
            "target-epsilon",
            target_epsilon,
            "must be > 0: epsilon = 0 (pure DP) needs sigma = infinity, and at delta > 0 it means "
            "a total variation distance <= delta, far outside the calibrated sigma range",
        )
    claim = make_claim(delta=delta, claimed_epsilon=target_epsilon)
    tol = positive("tolerance", tolerance)
    seconds = as_float("budget", budget, positive)
    start = time.perf_counter()
    hi = lo = None
    probes: list = []
    stopped: list = []  # the σ of a probe stopped at the deadline
    refused: list = []  # why a probe's σ could not be certified (e.g. pld's grid at a tiny σ)

    def probe(sigma: Fraction) -> str:
        """The probe's verdict; "budget" when the remaining seconds cannot hold even its first step, "deadline"
        when it was still running at the end of the budget (stopped there, nothing recorded)."""
        left = seconds - (time.perf_counter() - start)
        t0 = time.perf_counter()
        try:
            result = _run_probe(
                replace(template, mechanism=Gaussian(sigma)), claim, direction, max(left, 1e-3), progress, strict
            )
        except BudgetExceeded:
            if not probes:
                raise  # not even one probe fits the whole budget: refuse, naming the parameter
            return "budget"
        except UnsupportedRequest as exc:
            if not probes:
                raise  # the template's own σ cannot be certified: refuse, naming the parameter
            refused.append(f"the probe at sigma={sigma} is not supported: {exc}")
            return "unsupported"
        if result is None:
            stopped.append(sigma)
            return "deadline"
        verdict, lower, upper = result
        probes.append((sigma, verdict, lower, upper, time.perf_counter() - t0))
        return verdict

    def out(reason: str) -> Calibration:
        return Calibration(claim.value, claim.at, tol, hi, lo, probes, reason)

    sigma, factor = template.mechanism.sigma, 2.0
    while hi is None or lo is None:  # bracketing: halve or double from the template's σ
        if time.perf_counter() - start > seconds:
            return out("budget spent while bracketing")
        if not SIGMA_RANGE[0] <= sigma <= SIGMA_RANGE[1]:
            return out(f"no bracket within sigma in [{SIGMA_RANGE[0]}, {SIGMA_RANGE[1]}]")
        verdict = probe(sigma)
        if verdict == "budget":
            return out("stopped while bracketing: the next probe's estimated cost exceeds the remaining budget")
        if verdict == "deadline":
            return out(f"budget spent while bracketing (the probe at sigma={sigma} was stopped at the deadline)")
        if verdict == "unsupported":
            return out("stopped while bracketing: " + refused[-1])
        if verdict == "inconclusive":  # back off towards the known side with a milder factor
            factor = math.sqrt(factor)
            if (hi is None and lo is None) or factor - 1 <= tol:
                return out(f"inconclusive at sigma={sigma}: the target lies inside its certified bracket")
            sigma = _round(float(hi) / factor) if hi is not None else _round(float(lo) * factor)
        elif verdict == "certified":
            hi, sigma = sigma, _round(float(sigma) / factor)
        else:
            lo, sigma = sigma, _round(float(sigma) * factor)
    while hi / lo - 1 > tol:
        if time.perf_counter() - start > seconds:
            return out("budget spent")
        mid = _round(math.sqrt(float(lo) * float(hi)))
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        verdict = probe(mid)
        if verdict == "budget":
            return out("stopped: the next probe's estimated cost exceeds the remaining budget")
        if verdict == "deadline":
            return out(f"budget spent (the probe at sigma={mid} was stopped at the deadline)")
        if verdict == "unsupported":
            return out("stopped: " + refused[-1])
        if verdict == "inconclusive":
            return out(f"inconclusive at sigma={mid}: the target lies inside its certified bracket")
        if verdict == "certified":
            hi = mid
        else:
            lo = mid
    return out("tolerance met")


#: seconds between checks of a running probe for progress messages and the deadline
def _run_probe(config: Config, claim, direction: str, left: float, progress, strict: bool):
    """(verdict, ε lower, ε upper) of `certify` at `config` within `left` seconds, or None when it was still
    running at the deadline. The probe runs in a child process (runtime.child: killed at the deadline, so a
    certify step already running cannot overrun the budget); its progress stages come back as they happen."""
    try:
        return child.run(
            _probe, config, claim, direction, left, strict, timeout=left, progress=progress or (lambda stage: None)
        )
    except child.ChildTimeout:
        return None


def _probe(config: Config, claim, direction: str, left: float, strict: bool, tick):
    """(verdict, lower, upper) of one certify run (mpf, pickled exactly)."""
    cert = certify(config, claim, direction, left, tick, strict=strict)
    return cert.verdict, cert.lower, cert.upper


def _round(x: float) -> Fraction:
    return Fraction(mp.nstr(mp.mpf(x), SIG_DIGITS))
