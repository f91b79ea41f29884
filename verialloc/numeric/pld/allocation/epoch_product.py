"""LOWER bound on the hockey-stick divergence of an E-fold product pair, from directed bounds on one factor (F2, F6).

Over E epochs the separable statistics S_1, …, S_E of the epochs (allocation.separable) are a post-processing of
the E-epoch allocation pair (F8), so H_κ(P_S^⊗E ‖ Q_S^⊗E) bounds its δ(ε = ln κ) from below — at least as
tightly as the one statistic ΣS_e, which is a post-processing of (S_1, …, S_E). Given a lower law a ≤ P_S
(entrywise) and an upper law b with Q_S ≤ b + m, m ≥ 0, ‖m‖₁ ≤ err, each term [x − κy]_+ grows with x and
falls with y, so
    H_κ(P_S^⊗E ‖ Q_S^⊗E) ≥ H_κ(a^⊗E ‖ b^⊗E) − κ·‖(b + m)^⊗E − b^⊗E‖₁,
    ‖(b + m)^⊗E − b^⊗E‖₁ = (‖b‖₁ + err)^E − ‖b‖₁^E ≤ E·err·(‖b‖₁ + err)^{E−1}.
H_κ(a^⊗E ‖ b^⊗E) = E_{a^⊗E}[(1 − κe^{−L})_+] with L = Σ ln(a/b)(x_e) (+inf where b = 0) grows with L, so the
losses are rounded down onto {k·step} and the a-law of L composed E times as a LOWER PLD (compose.self_compose,
tails dropped, convolution errors pushed down); δ is then read at ε plus a slack covering the roundings of the
logarithms and of the grid floats (δ is non-increasing in ε).
"""

from __future__ import annotations

import math

import numpy as np

from ..compose import self_compose
from ..grid import onto_grid, truncate
from ..pld import PLD

_U = np.finfo(float).eps / 2
#: loss grid of the epoch composition (the accountant's default loss step)
LOSS_STEP = 1e-4
#: beyond this ε, κ = e^ε is near the float64 range: 0 is the lower bound offered
EPSILON_CAP = 700.0


class EpochProduct:
    """δ lower bounds of the pair (a^⊗E, b^⊗E) corrected for b's missing mass `err` (module docstring)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, err: float, epochs: int, tail: float, step: float = LOSS_STEP):
        one, span = _lower_pld(np.asarray(a, float), np.asarray(b, float), step)
        self.pld = self_compose(truncate(one, tail), epochs, tail, step)
        total = math.fsum(b) * (1 + 2 * _U) + err
        #: ‖(b + m)^⊗E − b^⊗E‖₁ bound, rounded up (pow and products within 1e-12 relative at E ≤ 10⁹)
        self.missing = epochs * err * total ** (epochs - 1) * (1 + 1e-9) if err > 0 else 0.0
        #: roundings of the log ratios (≤ 4u·(|ln a| + |ln b| + |ℓ|) each, ≤ 4u·(2·745 + span)) and of the grid
        #: floats k·step (≤ u·|k·step| each), summed over E epochs, plus the query's own ε
        self.slack = 8 * _U * epochs * (1500.0 + span + step)

    def delta(self, epsilon: float) -> float:
        """LOWER bound on H_{e^ε}(P_S^⊗E ‖ Q_S^⊗E), never negative."""
        eps = float(epsilon)
        if eps > EPSILON_CAP:
            return 0.0
        kappa = math.exp(eps) * (1 + 4 * _U)
        read = float(self.pld.delta_bound(eps + self.slack + 4 * _U * abs(eps)))
        return max(read - kappa * self.missing * (1 + 4 * _U), 0.0)


def _lower_pld(a: np.ndarray, b: np.ndarray, step: float) -> tuple[PLD, float]:
    """LOWER PLD of the measure pair (a, b): a-masses at ln(a/b) rounded down onto {k·step} (grid.onto_grid), +inf
    where b = 0; and max |loss|."""
    finite = (a > 0) & (b > 0)
    inf_mass = math.fsum(a[(a > 0) & (b == 0)]) * (1 - 2 * _U)
    la, lb = np.log(a[finite]), np.log(b[finite])
    losses = la - lb
    losses = losses - 4 * _U * (np.abs(la) + np.abs(lb) + np.abs(losses))
    if losses.size == 0:
        return PLD(np.empty(0), np.empty(0), inf_mass=inf_mass, bound="lower"), 0.0
    grid_losses, masses = onto_grid(losses, a[finite], step, "lower")
    return PLD(grid_losses, masses, inf_mass=inf_mass, bound="lower"), float(np.max(np.abs(losses)))
