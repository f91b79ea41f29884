"""Probes of the stability explorer: a float64 path and its arbitrary-precision reference over two axes.

A probe maps a grid point (x, y) to (lower, upper) from the float64 path (a point value has lower == upper) and
to the reference from the exact layer (mpmath). The sweep classifies each point (sweep.classify).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import mpmath as mp
import numpy as np
from scipy import special

from .. import cost as cost_model
from ..config import Config
from ..budget import Estimate
from ..errors import InvalidParameter
from ..exact import accountant as exact
from ..exact.rdp import allocation_rdp
from ..mechanisms import Gaussian, RandomizedResponse
from ..numeric.pld import pld_accountant as pld
from ..numeric.rdp import rdp_accountant
from ..numeric.rdp.log_moments import MAX_ORDER


@dataclass(frozen=True)
class Probe:
    """name; the two axes (name, default values, log-scale?); float64 path; reference; what it shows."""

    name: str
    x: tuple[str, tuple[float, ...], bool]
    y: tuple[str, tuple[float, ...], bool]
    float_path: Callable[[float, float], tuple[float, float]]
    reference: Callable[[float, float], mp.mpf]
    about: str
    #: (x, y) -> estimated cost of the float path and the reference at that point (verialloc.cost.Estimate)
    cost: Callable[[float, float], "Estimate"] | None = None


def _gaussian_point_cost(sigma: float, epsilon: float) -> Estimate:
    """One F13 evaluation at 40 digits (the series form of Φ keeps any finite σ, ε cheap)."""
    if not sigma > 0:
        raise InvalidParameter("sigma", sigma, "must be > 0")
    return Estimate(1e-3, 0.0, "sigma", sigma)


def _textbook_gaussian_delta(sigma: float, epsilon: float) -> tuple[float, float]:
    """F13 as most accountants write it in float64: Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (cancels at small δ)."""
    a, b = 0.5 / sigma - epsilon * sigma, -0.5 / sigma - epsilon * sigma
    value = float(special.ndtr(a) - math.exp(epsilon) * special.ndtr(b))
    return value, value


def _exact_gaussian_delta(sigma: float, epsilon: float) -> mp.mpf:
    with mp.workdps(40):
        return Gaussian(repr(sigma)).delta(repr(epsilon))


def _pld_rr_epsilon(steps: float, delta: float) -> tuple[float, float]:
    b = pld.epsilon(Config(RandomizedResponse(1), steps=int(steps)), repr(delta), "remove", 15)
    return float(b.lower), float(b.upper)


def _exact_rr_epsilon(steps: float, delta: float) -> mp.mpf:
    return exact.epsilon(Config(RandomizedResponse(1), steps=int(steps)), repr(delta), "remove", 20).upper


def _pld_gaussian_delta(steps: float, epsilon: float) -> tuple[float, float]:
    b = pld.delta(Config(Gaussian(1), steps=int(steps)), repr(epsilon), "remove", 15)
    return float(b.lower), float(b.upper)


def _exact_gaussian_allocation_delta(steps: float, epsilon: float) -> mp.mpf:
    return exact.delta(Config(Gaussian(1), steps=int(steps)), repr(epsilon), "remove", 12).upper


def _linear_float_rdp(alpha: float, steps: float) -> tuple[float, float]:
    """Allocation RDP (Gaussian σ = 1, remove; F38 via the generating function) run in plain float64 linear space,
    as a direct implementation would: D_p = e^{p(p−1)/2} overflows near p = 38 and ln D_α loses digits when
    D_α ≈ 1 (large t)."""
    n, t = int(alpha), int(steps)
    with np.errstate(all="ignore"):
        a = np.array([math.exp(min(p * (p - 1) / 2.0, 1000.0)) / math.gamma(p + 1.0) for p in range(n + 1)])
        b = np.zeros(n + 1)
        b[0] = 1.0
        for m in range(1, n + 1):
            k = np.arange(1, m + 1)
            b[m] = float(np.dot(((t + 1) * k - m) * a[1 : m + 1], b[m - k])) / m
        moment = math.gamma(n + 1.0) * b[n] / float(t) ** n
        value = math.log(moment) / (n - 1) if moment > 0 and math.isfinite(moment) else math.nan
    return value, value


def _logspace_rdp(alpha: float, steps: float) -> tuple[float, float]:
    b = rdp_accountant.rdp(Config(Gaussian(1), steps=int(steps)), int(alpha), 17)
    return float(b.lower), float(b.upper)


def _exact_rdp(alpha: float, steps: float) -> mp.mpf:
    return allocation_rdp(Gaussian(1), int(steps), int(alpha), digits=30)


def _int_axis(name: str, value: float, lo: int) -> int:
    if not (math.isfinite(value) and value == int(value) and value >= lo):
        raise InvalidParameter(name, value, f"must be an integer >= {lo} for this probe")
    return int(value)


def _rr_epsilon_cost(steps: float, delta: float) -> Estimate:
    config = Config(RandomizedResponse(1), steps=_int_axis("steps", steps, 1))
    return cost_model.estimate("epsilon", config, "pld") + cost_model.estimate("epsilon", config, "exact", digits=20)


def _gaussian_delta_cost(steps: float, epsilon: float) -> Estimate:
    config = Config(Gaussian(1), steps=_int_axis("steps", steps, 1))
    return cost_model.estimate("delta", config, "pld") + cost_model.estimate(
        "delta", config, "exact", repr(epsilon), digits=12, direction="remove"
    )


def _rdp_cost(linear: bool):
    def estimate(alpha: float, steps: float) -> Estimate:
        a, t = _int_axis("alpha", alpha, 2), _int_axis("steps", steps, 1)
        config = Config(Gaussian(1), steps=t)
        ref = cost_model.estimate("rdp", config, "exact", a, digits=30)
        if linear:  # a Python loop over α with numpy dot products of length ≤ α
            path = Estimate(5e-6 * a + 1e-9 * a * a, 16.0 * a, "alpha", a)
        else:
            if a > MAX_ORDER:
                raise InvalidParameter("alpha", alpha, f"must be an integer in [2, {MAX_ORDER}] (float64 RDP orders)")
            path = cost_model.estimate("rdp", config, "rdp", a)
        return ref + path

    return estimate


PROBES = {
    p.name: p
    for p in (
        Probe(
            "gaussian-delta",
            ("sigma", (0.3, 0.5, 0.8, 1.0, 2.0, 4.0), True),
            ("epsilon", tuple(float(e) for e in np.linspace(0.5, 12.0, 8)), False),
            _textbook_gaussian_delta,
            _exact_gaussian_delta,
            "the textbook float64 Balle–Wang formula (F13) against mpmath: accurate while its two Φ terms are "
            "normal floats (the cancellation costs log10(εσ²) digits), then δ = 0 once both underflow (optimistic)",
            _gaussian_point_cost,
        ),
        Probe(
            "pld-rr-epsilon",
            ("steps", (10, 100, 1000), True),
            ("delta", (1e-3, 1e-6, 1e-10, 1e-15, 1e-30), True),
            _pld_rr_epsilon,
            _exact_rr_epsilon,
            "verialloc's float64 PLD ε bracket (remove) for randomized response ε0 = 1 under 1-out-of-t allocation, "
            "against exact enumeration",
            _rr_epsilon_cost,
        ),
        Probe(
            "pld-gaussian-delta",
            ("steps", (1, 2), False),
            ("epsilon", (0.0, 0.5, 1.0, 2.0, 4.0), False),
            _pld_gaussian_delta,
            _exact_gaussian_allocation_delta,
            "verialloc's float64 PLD δ bracket (remove) for Gaussian σ = 1 allocation against closed form (t = 1) "
            "and mpmath quadrature (t = 2)",
            _gaussian_delta_cost,
        ),
        Probe(
            "rdp-linear",
            ("alpha", (2, 8, 32, 64, 128, 512), True),
            ("steps", (10, 1000, 10**6, 10**9), True),
            _linear_float_rdp,
            _exact_rdp,
            "allocation RDP (Gaussian σ = 1, remove) by the generating function in plain float64 linear space "
            "against mpmath: overflow of the moments at large α, lost digits of ln D_α at large t",
            _rdp_cost(True),
        ),
        Probe(
            "rdp-logspace",
            ("alpha", (2, 8, 32, 64, 128, 512), True),
            ("steps", (10, 1000, 10**6, 10**9), True),
            _logspace_rdp,
            _exact_rdp,
            "verialloc's log-space float64 allocation RDP (Gaussian σ = 1, remove) with its error budget, "
            "against mpmath",
            _rdp_cost(False),
        ),
    )
}
