"""Poisson subsampling in float64 (F46, F47, F53 Alg. 8/9 with E16).

For a pair (P, Q) and rate λ, P_λ = λP + (1−λ)Q; the remove pair of the subsampled mechanism is (P_λ, Q) and
the add pair is (Q, P_λ) (F46). Its loss is the monotone image ℓ_λ = g_λ(ℓ), g_λ(x) = ln(1 + λ(e^x − 1)) (F47),
with g_λ(−inf) = ln(1−λ) and g_λ(+inf) = +inf; the add variable −ℓ_λ is h_λ(−ℓ), h_λ(x) = −g_λ(−x).
"""

from __future__ import annotations

from dataclasses import replace

import mpmath as mp
import numpy as np

from ...errors import InvalidParameter, UnsupportedRequest
from ...rounding import float_down, float_up
from ...validation import rate as check_rate
from .grid import check_bound
from ...mechanisms.loss_law import LossLaw
from .pld import PLD

_U = np.finfo(np.float64).eps / 2


def _rate(rate) -> float:
    return float(check_rate("rate", rate))


def subsampled_law(law: LossLaw, rate, bound: str) -> LossLaw:
    """The loss law at the exact rate λ rounded to float64 up (bound "upper") or down ("lower"): δ is
    non-decreasing in λ in both directions (I6), so the rounded law bounds the exact one on its side (rounded to
    nearest, λ = 1 − 10⁻¹⁶ became 1 − 1.1·10⁻¹⁶ and the upper ε fell 0.3 % below the exact one; fuzz seed 12).
    A λ rounded up to 1 is the base law itself."""
    exact = check_rate("rate", rate)
    lam = float_up(exact) if check_bound(bound) == "upper" else float_down(exact)
    if lam == 0:
        shown = mp.nstr(mp.mpf(exact.numerator) / exact.denominator, 6)
        raise InvalidParameter(
            "rate", shown, "must be at least 5e-324 (the smallest positive float64) for the float64 methods"
        )
    return law if lam >= 1 else SubsampledLoss(law, lam)


def subsampled_loss(x, lam: float) -> np.ndarray:
    """g_λ(x) = ln(1 + λ(e^x − 1)) (F47), stable for every x in [−inf, inf]; g_λ(−inf) = ln(1−λ).
    Beyond x = 700: x + ln(λ + (1−λ)e^{−x}) as a log-sum-exp — as x + log1p((1−λ)·expm1(−x)) it was
    x + log1p(−1) = −inf for λ ≲ 1e-16, where 1 − λ rounds to 1 (λ = 1e-300, loss 736).
    Where g < −1/2 (1 + λ(e^x − 1) cancels: λ near 1, x ≪ 0) it is ln((1−λ) + λe^x), also a log-sum-exp: through
    log1p, λ = 1 − 2⁻⁵³ lost the λe^x = 1e-20 next to 1 − λ = 1.1e-16 (a loss 1e-4 off)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_lam, log_keep = np.log(lam), np.log1p(-lam)  # ln λ, ln(1 − λ)
        capped, big = np.minimum(x, 700.0), np.maximum(x, 700.0)
        direct = np.log1p(lam * np.expm1(capped))  # accurate wherever e^x does not overflow
        small = np.logaddexp(log_keep, log_lam + capped)
        large = big + np.logaddexp(log_lam, log_keep - big)
    return np.where(x <= 700.0, np.where(direct > -0.5, direct, small), large)


def subsampled_inverse(y, lam: float) -> np.ndarray:
    """φ_λ(y) = g_λ^{−1}(y) = ln(1 + (e^y − 1)/λ) (F47); −inf for y ≤ ln(1−λ)."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        direct = np.log1p(np.maximum(np.expm1(y) / lam, -1.0))  # accurate wherever (e^y − 1)/λ does not overflow
        large = y - np.log(lam) + np.log1p(-(1.0 - lam) * np.exp(-np.maximum(y, 0.0)))
    return np.where((y <= 0) | np.isfinite(direct), direct, large)


class SubsampledLoss(LossLaw):
    """The loss law of the pair (P_λ, Q), P_λ = λP + (1−λ)Q, built exactly from a base law (F46, F47).

    With ℓ_λ = g_λ(ℓ) monotone: P_λ(ℓ_λ ≤ y) = λP(ℓ ≤ φ(y)) + (1−λ)Q(ℓ ≤ φ(y)) and Q(ℓ_λ ≤ y) = Q(ℓ ≤ φ(y)), where
    Q(ℓ ≤ ·) includes the −inf atom Q(P=0): that atom becomes a finite atom at ln(1−λ) with P_λ-mass (1−λ)Q(P=0)
    and Q-mass Q(P=0) (E16); P_λ(Q=0) = λP(Q=0). Remove = the law under P_λ, add = the law of −ℓ_λ under Q,
    which is L_{Q,P_λ}, the add pair of F46. λ = 1 gives the base law.
    """

    def __init__(self, law: LossLaw, rate):
        self.base, self.lam = law, _rate(rate)
        self.low = float(np.log1p(-self.lam)) if self.lam < 1 else -np.inf  # g_λ(−inf)
        self.low_atom = law.q_neg_inf if self.lam < 1 else 0.0  # Q-mass of the finite atom at ln(1−λ)
        self.p_inf = self.lam * law.p_inf
        self.q_neg_inf = law.q_neg_inf - self.low_atom
        self._base_values = law.atoms()[0]
        self._images = subsampled_loss(self._base_values, self.lam)
        self.eval_abs = law.eval_abs * 2

    def finite_p(self) -> float:
        """P_λ(ℓ_λ < inf) = λ·P(ℓ < inf) + (1 − λ)·Q(everything): the base's finite mass, not 1 − λ·p_inf."""
        return self.lam * self.base.finite_p() + (1.0 - self.lam)

    def finite_q(self) -> float:
        """Q(ℓ_λ > −inf): the base's finite mass plus the atom moved to ln(1 − λ)."""
        return self.base.finite_q() + self.low_atom

    def _inverse(self, y) -> np.ndarray:
        """φ_λ(y), nudged so that the base atoms with g_λ(v) ≤ y are exactly those with v ≤ φ_λ(y)."""
        y = np.asarray(y, dtype=np.float64)
        x = subsampled_inverse(y, self.lam)
        if self._images.size:
            i = np.searchsorted(self._images, y, side="right")  # atoms with image ≤ y: indices < i
            below = self._base_values[np.maximum(i - 1, 0)]
            x = np.where(i > 0, np.maximum(x, below), x)
            above = self._base_values[np.minimum(i, self._images.size - 1)]
            x = np.where(i < self._images.size, np.minimum(x, np.nextafter(above, -np.inf)), x)
        return x

    def eval_rtol(self, y):
        """Base contract at x = φ_λ(y), plus the argument error moved through the base's log-slope, plus 6u for the
        mixture λF + (1 − λ)G. |x̂ − x| ≤ 4u(|x| + |y| + |ln λ| + 1 + |1 − e^{−x}|): t = expm1(y)/λ is within 4u
        relatively (λ from the float rate included) and log1p has condition |t/(1 + t)| = |1 − e^{−x}|; the large-y
        branch y − ln λ + log1p(·) is within 4u(|y| + |ln λ| + 1). Atoms of a finite base are matched exactly
        (`_inverse`), so only a continuous base pays the slope term."""
        y = np.asarray(y, float)
        x = self._inverse(y)
        ok = np.isfinite(x)
        xs = np.where(ok, x, 0.0)
        with np.errstate(over="ignore"):
            cond = np.abs(-np.expm1(-np.minimum(xs, 700.0)))
            dx = 4 * _U * (np.abs(xs) + np.abs(np.where(np.isfinite(y), y, 0.0)) + abs(np.log(self.lam)) + 1.0 + cond)
            slope = self.base.log_slope(xs)
            moved = np.where(slope == 0, 0.0, slope * dx)
        rtol = self.base.eval_rtol(xs) + moved + 6 * _U
        return np.where(ok, np.minimum(rtol, 1e300), 6 * _U)

    def _low(self, y, at_or_above: bool) -> np.ndarray:
        y = np.asarray(y, dtype=np.float64)
        return self.low_atom * ((y >= self.low) if at_or_above else (y < self.low))

    def cdf_p(self, y):
        x = self._inverse(y)
        return self.lam * self.base.cdf_p(x) + (1 - self.lam) * (self.base.cdf_q(x) + self._low(y, True))

    def sf_p(self, y):
        x = self._inverse(y)
        return self.lam * self.base.sf_p(x) + (1 - self.lam) * (self.base.sf_q(x) + self._low(y, False))

    def cdf_q(self, y):
        return self.base.cdf_q(self._inverse(y)) + self._low(y, True)

    def sf_q(self, y):
        return self.base.sf_q(self._inverse(y)) + self._low(y, False)

    def support(self):
        lo, hi = self.base.support()
        lo_img, hi_img = subsampled_loss(np.array([lo, hi]), self.lam)
        return (self.low if self.low_atom > 0 else float(lo_img)), float(hi_img)

    def atoms(self):
        _, p, q = self.base.atoms()
        pm, qm = self.lam * p + (1 - self.lam) * q, q
        images = self._images
        if self.low_atom > 0:
            images = np.concatenate([[self.low], images])
            pm = np.concatenate([[(1 - self.lam) * self.low_atom], pm])
            qm = np.concatenate([[self.low_atom], qm])
        uniq, index = np.unique(images, return_inverse=True)
        return uniq, np.bincount(index, pm, uniq.size), np.bincount(index, qm, uniq.size)


def _merged(values: np.ndarray, masses: np.ndarray, extra: tuple[float, float], pld: PLD, inf_mass: float) -> PLD:
    """PLD on the distinct `values` (equal values merged) plus the atom extra = (value, mass) when its mass is > 0."""
    if extra[1] > 0:
        values, masses = np.append(values, extra[0]), np.append(masses, extra[1])
    uniq, index = np.unique(values, return_inverse=True)
    return replace(pld, losses=uniq, masses=np.bincount(index, masses, uniq.size), inf_mass=inf_mass)


def subsample_remove(pld: PLD, rate) -> PLD:
    """→φ_λ(L) (F47; F53 Alg. 8 with E16): the PLD of (P_λ, Q) from a realization L of (P, Q).

    Push-forward form: w.p. λ g_λ(L), w.p. 1−λ g_λ(−D(L)); the −inf atom of −D(L), of mass 1 − E[e^{−L}] (F7),
    lands at ln(1−λ) (the mass Alg. 8 drops), λ·f_L(+inf) stays at +inf. Equal values are merged.
    Direction: exact → exact; upper → upper in the hockey-stick sense (F46 via F7 Claim A.2; stochastic
    domination is not preserved, F51 B.2(2)). `float_error` is carried: H_κ(→φ_λ(L)) = λH_{κ'}(L) for ε ≥ ln(1−λ).
    A lower PLD is refused: →φ_λ does not preserve stochastic domination from below (F51 B.2(2)); build the
    lower law as discretize(SubsampledLoss(law, λ), ..., bound="lower") instead.
    """
    lam = _rate(rate)
    if pld.bound == "lower":
        raise UnsupportedRequest(
            "bound",
            "lower",
            "remove-direction subsampling of a lower PLD is not a lower bound "
            "(F51 B.2(2)); discretize SubsampledLoss(law, rate) with bound='lower' instead",
        )
    if lam == 1:
        return pld
    dual = pld.dual()  # raises on −inf mass
    with np.errstate(divide="ignore"):
        tilted = np.exp(np.log(pld.masses) - pld.losses)  # f_{−D(L)}(l) = f_L(l) e^{−l}, without overflow
    masses = lam * pld.masses + (1 - lam) * tilted
    low = (float(np.log1p(-lam)), (1 - lam) * dual.inf_mass)
    return _merged(subsampled_loss(pld.losses, lam), masses, low, pld, lam * pld.inf_mass)


def subsample_add(pld: PLD, rate) -> PLD:
    """←φ_λ(L) (F47; F53 Alg. 9 with E16): the PLD of (Q, P_λ) from a realization L of (Q, P).

    Push-forward by the increasing map h_λ(x) = −ln(1 + λ(e^{−x} − 1)); f_L(+inf) goes exactly to h_λ(+inf) =
    −ln(1−λ). Being monotone, it preserves stochastic domination both ways: same `bound`, `truncated` and
    `float_error` as the input.
    """
    lam = _rate(rate)
    if pld.neg_inf_mass > 0:
        raise InvalidParameter("neg_inf_mass", pld.neg_inf_mass, "subsampling needs a realization (no -inf mass)")
    if lam == 1:
        return pld
    top = (-float(np.log1p(-lam)), pld.inf_mass)
    return _merged(-subsampled_loss(-pld.losses, lam), pld.masses, top, pld, 0.0)
