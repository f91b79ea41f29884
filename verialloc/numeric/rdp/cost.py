"""Cost of a float64 rdp query before it runs (numeric.rdp.rdp_accountant): C_RDP·N² seconds for the orders up to N
(the Miller recurrence, n <= t), C_RDP·N²·(2·log2 t + 1) where the binary-powering route serves t < N (measured,
CPU time: Laplace t = 1e6, N = 10⁴: 2.2 s; t = 10³, N = 2048: 1.5 s). An ε or δ query without --alpha-max runs
the adaptive search (rdp_accountant._search: N = 256, 512, … up to its cap), estimated as every one of its rounds
(the search may stop earlier); its driver is --alpha-max, the keyword that bounds it."""

from __future__ import annotations

import math

from ...budget import BASE_MEMORY, BASE_SECONDS, Estimate, float_or
from ...config import Config
from ...errors import UnsupportedRequest
from .log_moments import MAX_ORDER

#: the adaptive search of rdp_accountant._search: first largest order, and its cap when some t/k < MAX_ORDER
DEFAULT_ALPHA_MAX, SMALL_T_CAP = 256, 2048

#: seconds per α_max² (Miller recurrence)
C_RDP = 2e-8


def estimate(config: Config, query: str, value, alpha_max=None) -> Estimate:
    """Estimated cost of an rdp query at order `value` (query "rdp") or of an ε/δ search up to `alpha_max`
    (None: the adaptive search)."""
    if query == "rdp":
        if float_or(value, 2.0) > MAX_ORDER:  # the float64 orders end there: no estimate at a capped order
            raise UnsupportedRequest(
                "alpha", value, f"--method rdp (float64) supports orders alpha <= {MAX_ORDER}; use --method exact"
            )
        n = min(max(2, math.ceil(float_or(value, 2.0))), MAX_ORDER)
        return Estimate(BASE_SECONDS + _seconds(config, n), BASE_MEMORY + 64.0 * n, "alpha", n)
    if alpha_max is not None:
        n = alpha_max
        seconds = _seconds(config, n)
    else:  # the adaptive search's rounds, each a full curve
        fast = config.scheme == "poisson" or config.steps // config.k >= MAX_ORDER
        cap, n, seconds = (MAX_ORDER if fast else SMALL_T_CAP), DEFAULT_ALPHA_MAX, 0.0
        while True:
            seconds += _seconds(config, n)
            if n >= cap:
                break
            n = min(2 * n, cap)
    return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + 64.0 * n, "alpha_max", n)


def _seconds(config: Config, n: int) -> float:
    """One curve of orders up to n: per allocation block size (⌊t/k⌋, and ⌈t/k⌉ when k does not divide t)."""
    if config.scheme != "allocation":
        return C_RDP * n * n
    block, r = divmod(config.steps, config.k)
    sizes = [block] + ([block + 1] if r else [])
    return sum(C_RDP * n * n * (1 if n <= t else 2 * math.log2(max(t, 2)) + 1) for t in sizes)
