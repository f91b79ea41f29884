"""Cost of a float64 rdp query before it runs (numeric.rdp.rdp_accountant): C_RDP·N_α² seconds for the orders up to
N_α (Miller recurrence; three times that where the binary-powering route serves t < N_α), bounded by the method
itself at MAX_ORDER."""

from __future__ import annotations

import math

from ...budget import BASE_MEMORY, BASE_SECONDS, Estimate, float_or
from ...config import Config
from .log_moments import MAX_ORDER

#: seconds per α_max²
C_RDP = 2e-8


def estimate(config: Config, query: str, value, alpha_max=None) -> Estimate:
    """Estimated cost of an rdp query at order `value` (query "rdp") or of an ε/δ search up to `alpha_max`."""
    if query == "rdp":
        n = min(max(2, math.ceil(float_or(value, 2.0))), MAX_ORDER)
    else:
        n = alpha_max or MAX_ORDER
    factor = 3 if config.scheme == "allocation" and config.steps // config.k < n else 1
    return Estimate(BASE_SECONDS + C_RDP * n**2 * factor, BASE_MEMORY + 64.0 * n, "alpha", n)
