"""Method "mc": Monte Carlo *estimates* of δ(ε) and ε(δ) for Gaussian 1-out-of-t allocation (F25, E12).

The brackets are confidence intervals (error_kind "statistical", details["certified"] = False), never bounds:
they hold with probability ≥ `confidence` over the random draws (see montecarlo.py for the assumptions).
Directions: remove and add are estimated separately (F25); "both" is the max over the two (F3), each direction
estimated at confidence 1 − (1 − confidence)/2 so that the max holds jointly at `confidence` (union bound).
Supported: Gaussian mechanism, allocation, k = 1, one epoch. Cost ∝ samples·t; default samples = 1e7/t clamped
to [2000, 200000] (about a second).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ...config import Config
from ...errors import InvalidParameter, UnsupportedRequest
from ...mechanisms import Gaussian
from ...rounding import trivial_epsilon_lower
from ...result import Bracket, max_bracket
from ...validation import as_float, direction as check_direction, integer, open_unit
from . import montecarlo as mc

METHOD = "mc"
DEFAULT_SEED = 20240601
ESTIMATOR = "importance-sampled F25 expectation (remove: shifted step of P̄_t; add: tilted Q^t)"
STREAMS = {"remove": 0, "add": 1}
#: hard caps on the work of one query: samples (16 bytes each, twice) and drawn matrix entries samples·t
MAX_SAMPLES = 2 * 10**8
MAX_ENTRIES = 10**11
#: search range for ε(δ); beyond it the upper end is reported as +inf
EPS_CAP = 200.0


def delta(
    config: Config,
    epsilon,
    direction: str = "both",
    digits: int = 30,
    *,
    samples=None,
    seed=DEFAULT_SEED,
    confidence=0.95,
    interval: str = "bernstein",
    proposal: str = "auto",
) -> Bracket:
    """Confidence interval for δ(ε) (estimate, not a bound), clipped to [0, 1]."""
    eps = as_float("epsilon", epsilon)
    opts = _options(config, samples, seed, confidence, interval, proposal)

    def one(d: str, conf: float) -> Bracket:
        draws = _draws(config, d, eps, opts, conf)
        stats = mc.intervals(draws, eps, conf)
        lo, hi = stats[opts["interval"]]
        return _bracket("delta", max(lo, 0.0), min(hi, 1.0), d, draws, stats["estimate"], conf, opts, stats)

    return _per_direction(check_direction(direction), one, opts)


def epsilon(
    config: Config,
    delta,
    direction: str = "both",
    digits: int = 30,
    *,
    samples=None,
    seed=DEFAULT_SEED,
    confidence=0.95,
    interval: str = "bernstein",
    proposal: str = "auto",
) -> Bracket:
    """Interval for ε(δ) by inverting the δ interval on one fixed set of draws (statistical, not a bound).

    upper = inf{ε : δ_upper(ε) ≤ delta} (+inf if none up to EPS_CAP), lower = inf{ε : δ_lower(ε) ≤ delta}, both by
    bisection; lower never below ln(1 − delta), since δ(ε) ≥ 1 − e^ε (I1). If the δ interval covers δ at the true ε*,
    ε* lies in the reported interval.
    """
    target = as_float("delta", delta, open_unit)
    opts = _options(config, samples, seed, confidence, interval, proposal)
    eps_min = trivial_epsilon_lower(open_unit("delta", delta))  # from δ itself, not its nearest float

    def one(d: str, conf: float) -> Bracket:
        draws = _draws_for_target(config, d, target, eps_min, opts, conf)

        def side(k: int):
            return lambda e: mc.intervals(draws, e, conf)[opts["interval"]][k]

        hi = _first_below(side(1), target, eps_min)
        lo = min(_first_below(side(0), target, eps_min, beyond=EPS_CAP), hi)
        point = _first_below(lambda e: draws.moments(e)[0], target, eps_min)
        stats = {"delta_target": target}
        return _bracket("epsilon", lo, hi, d, draws, point, conf, opts, stats)

    return _per_direction(check_direction(direction), one, opts)


def rdp(config: Config, alpha, digits: int = 30):
    raise UnsupportedRequest("method", METHOD, "mc estimates delta and epsilon; use --method exact for rdp")


def default_samples(steps: int) -> int:
    """Draws when none are asked for: 1e7/steps clamped to [2000, 200000] (about a second)."""
    return min(200_000, max(2_000, 10_000_000 // steps))


def _options(config: Config, samples, seed, confidence, interval, proposal) -> dict:
    if not isinstance(config.mechanism, Gaussian):
        raise UnsupportedRequest(
            "mechanism",
            config.mechanism.name,
            "mc estimates the Gaussian mechanism only (F25); use --method pld or exact",
        )
    if config.scheme != "allocation":
        raise UnsupportedRequest("scheme", config.scheme, "mc estimates random allocation only (F25); use --method pld")
    if config.k != 1:
        raise UnsupportedRequest("k", config.k, "mc covers k = 1 only (F25); use --method pld for k > 1")
    if config.epochs != 1:
        raise UnsupportedRequest("epochs", config.epochs, "mc covers one epoch (an estimate cannot be composed)")
    if samples is None:
        samples = default_samples(config.steps)
    n = integer("samples", samples, lo=100)
    if n * config.steps > MAX_ENTRIES or n > MAX_SAMPLES:  # bounded here too, for callers that skip api's cost check
        top = min(MAX_SAMPLES, MAX_ENTRIES // config.steps)
        raise InvalidParameter(
            "samples",
            samples,
            f"must be an integer in [100, {top}] at steps={config.steps} "
            f"(at most {MAX_ENTRIES:.0e} draws of one step; see the cost model)",
        )
    conf = as_float("confidence", confidence, open_unit)
    if interval not in mc.INTERVALS:
        raise InvalidParameter("interval", interval, "must be one of " + "|".join(mc.INTERVALS))
    if proposal not in ("auto", "plain"):
        raise InvalidParameter("proposal", proposal, "must be auto (importance sampling) or plain")
    return {
        "samples": n,
        "seed": integer("seed", seed, lo=0),
        "confidence": conf,
        "interval": interval,
        "proposal": proposal,
        "pilot": max(1_000, n // 20),
    }


def _sigma(config: Config) -> float:
    return config.mechanism.noise_multiplier


def _plain(direction: str) -> float:
    return 1.0 if direction == "remove" else 0.0


def _rng(opts: dict, direction: str, stage: str) -> np.random.Generator:
    """Independent, reproducible streams per (seed, direction, stage): the pilot never reuses the main draws."""
    stage_id = {"locate": 0, "pilot": 1, "main": 2}[stage]
    return np.random.default_rng([opts["seed"], STREAMS[direction], stage_id])


def _draws(config: Config, d: str, eps: float, opts: dict, conf: float) -> mc.Draws:
    sigma, t = _sigma(config), config.steps
    shift = _plain(d)
    if opts["proposal"] == "auto":
        shift = mc.choose_shift(d, sigma, t, eps, opts["pilot"], opts["samples"], conf, _rng(opts, d, "pilot"))
    return mc.draw(d, sigma, t, shift, opts["samples"], _rng(opts, d, "main"))


def _draws_for_target(config: Config, d: str, target: float, eps_min: float, opts: dict, conf: float) -> mc.Draws:
    """Main draws for an ε(δ) query; the proposal minimizes the pilot's predicted upper ε (reference points: the
    plain pilot's point estimate ε0 and the larger 2ε0 + 1, 4ε0 + 3, where rare-event proposals pay off)."""
    sigma, t = _sigma(config), config.steps
    shift = _plain(d)
    if opts["proposal"] == "auto":
        locate = mc.draw(d, sigma, t, shift, opts["pilot"], _rng(opts, d, "locate"))
        eps0 = max(_first_below(lambda e: locate.moments(e)[0], target, eps_min), 0.0)
        refs = [eps0, 2 * eps0 + 1, 4 * eps0 + 3]
        shift = mc.choose_shift_for_target(
            d,
            sigma,
            t,
            refs,
            target,
            opts["pilot"],
            opts["samples"],
            conf,
            _rng(opts, d, "pilot"),
            lambda fn, y: _first_below(fn, y, eps_min),
        )
    return mc.draw(d, sigma, t, shift, opts["samples"], _rng(opts, d, "main"))


def _first_below(fn, target: float, eps_min: float, beyond: float = math.inf) -> float:
    """inf{ε ≥ eps_min : fn(ε) ≤ target} for fn non-increasing (bisection to 1e-7). If fn > target up to EPS_CAP the
    infimum is only known to be ≥ EPS_CAP: `beyond` is returned, +inf for an upper end and EPS_CAP for a lower one
    (a lower end of +inf claimed ε = +inf: σ = 0.003, t = 1, δ = 0.5 has ε ≈ 55554.6)."""
    if fn(eps_min) <= target:
        return eps_min
    lo, hi = eps_min, max(eps_min, 0.0) + 1.0
    while fn(hi) > target:
        if hi >= EPS_CAP:
            return beyond
        lo, hi = hi, min(2 * hi, EPS_CAP)
    while hi - lo > 1e-7 * max(1.0, abs(hi)):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fn(mid) <= target else (mid, hi)
    return hi


def _per_direction(d: str, one, opts: dict) -> Bracket:
    if d != "both":
        return one(d, opts["confidence"])
    split = 1 - (1 - opts["confidence"]) / 2
    both = max_bracket(one("remove", split), one("add", split))
    note = f"max of remove and add, each at confidence {split:g} (joint {opts['confidence']:g} by the union bound)"
    details = {**both.details, **_common(opts, opts["confidence"]), "notes": [note]}
    return Bracket(both.quantity, both.lower, both.upper, METHOD, "both", "statistical", details)


def _common(opts: dict, conf: float) -> dict:
    return {
        "certified": False,
        "estimator": ESTIMATOR,
        "interval": opts["interval"],
        "samples": opts["samples"],
        "seed": opts["seed"],
        "confidence": conf,
    }


def _bracket(
    quantity: str, lo: float, hi: float, d: str, draws: mc.Draws, point: float, conf: float, opts: dict, stats: dict
) -> Bracket:
    details = {
        **_common(opts, conf),
        "estimate": point,
        "proposal_shift": draws.shift,
        **stats,
        "notes": [
            "statistical estimate, not a certified bound: the interval fails with probability up to "
            f"{1 - conf:.3g}, and is only as good as its assumptions (i.i.d. ideal sampling)"
        ],
    }
    return Bracket(quantity, mp.mpf(lo), mp.mpf(hi), METHOD, d, "statistical", details)
