"""Float64 log-moments ln D_j and log-excesses ln(D_j − 1) of a dominating pair, j = 0..N, in one pass (F5).

D_j = E_Q[(P/Q)^j] (F5). The allocation and Poisson recurrences (rdp_logspace) work with the excess
D_j − 1 >= 0 (j >= 1, P ≪ Q: ln D_j is convex with ln D_0 = ln D_1 = 0), so that D_α close to 1 (large t)
keeps its relative accuracy. Each mechanism gives its float64 ln D_j (`Mechanism.float_log_moments`: the Gaussian's closed form F14 with its
excess by expm1, Laplace's three-term log-sum-exp, a finite pair's log-sum-exp over atoms of ln Q_i + j ℓ_i).
P-mass where Q = 0 makes D_j = +inf for j >= 2 (and D_1 = P(Q > 0) < 1): `infinite` is set and the callers
return +inf RDP instead of computing with it.
Excesses with ln D_j < 1 (where ln(D_j − 1) from a float ln D_j would lose digits) are taken from the
mechanism's own mpmath moment at a precision raised until D_j − 1 has 20 correct digits.

Every value carries an absolute error bound on its float64 logarithm (`err_log`, `err_excess`), so the
recurrences can report a relative error budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath as mp
import numpy as np

from ...errors import InvalidParameter, UnsupportedRequest
from ...mechanisms import Mechanism

#: unit round-off of float64
U = 2.0**-53
#: largest order served by the float64 path
MAX_ORDER = 10_000
#: digits of D_j − 1 required from the mpmath route
EXCESS_DIGITS = 20
#: working-precision cap of the mpmath route (P and Q equal to this many digits)
MAX_DPS = 2000


@dataclass(frozen=True)
class LogMoments:
    """ln D_j and ln(D_j − 1) for j = 0..n (float64 arrays), with absolute error bounds on each logarithm.

    log_excess[0] = log_excess[1] = −inf (D_0 = D_1 = 1). `infinite`: P is not ≪ Q (every D_j, j >= 2, is
    +inf; the arrays are then not meaningful). `identical`: P = Q (every D_j = 1).
    """

    log_d: np.ndarray
    log_excess: np.ndarray
    err_log: np.ndarray
    err_excess: np.ndarray
    infinite: bool = False
    identical: bool = False


def log_moments(mech: Mechanism, n: int) -> LogMoments:
    """ln D_j(P‖Q) and ln(D_j(P‖Q) − 1), j = 0..n, for the mechanism's dominating pair (F5, F14)."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_ORDER:
        raise InvalidParameter("alpha_max", n, f"must be an integer in [1, {MAX_ORDER}]")
    j = np.arange(n + 1, dtype=np.float64)
    if not mech.absolutely_continuous:
        inf = np.full(n + 1, np.inf)
        return LogMoments(inf, inf, np.zeros(n + 1), np.zeros(n + 1), infinite=True)
    m = mech.float_log_moments(j)
    if m.log_excess is not None:
        return LogMoments(m.log_d, m.log_excess, m.err, m.err_excess, identical=m.identical)
    log_excess, err_excess = _excess(mech, m.log_d, m.err)
    return LogMoments(m.log_d, log_excess, m.err, err_excess)


def _excess(mech: Mechanism, log_d: np.ndarray, err: np.ndarray):
    """ln(D_j − 1): from the float ln D_j where ln D_j >= 1 (factor D/(D − 1) <= e/(e − 1) on its error),
    else from the mechanism's mpmath moment at a precision giving EXCESS_DIGITS digits of D_j − 1."""
    n = log_d.size - 1
    excess = np.full(n + 1, -np.inf)
    err_excess = np.zeros(n + 1)
    big = log_d >= 1
    big[:2] = False
    excess[big] = log_d[big] + np.log1p(-np.exp(-log_d[big]))
    err_excess[big] = 1.6 * err[big] + 4 * U * (1 + np.abs(excess[big]))
    for k in np.flatnonzero(~big):
        if k >= 2:
            excess[k] = _mp_log_excess(mech, int(k))
            err_excess[k] = 4 * U * (1 + abs(excess[k]))
    return excess, err_excess


def _mp_log_excess(mech: Mechanism, k: int) -> float:
    """ln(D_k − 1) to float accuracy from `mech.moment(k)` (relative error ~10^-dps on D_k)."""
    dps = 30
    while dps <= MAX_DPS:
        with mp.workdps(dps):
            excess = mech.moment(k) - 1
            if excess > 0 and -mp.log10(excess) + EXCESS_DIGITS + 5 <= dps:
                return float(mp.log(excess))
        dps *= 2
    raise UnsupportedRequest(
        "mechanism", repr(mech), f"D_{k} − 1 is below 1e-{MAX_DPS - EXCESS_DIGITS} (P and Q nearly equal)"
    )
