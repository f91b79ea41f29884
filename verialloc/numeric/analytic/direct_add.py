"""Direct add bound, F41/F42 ([004] Thm 4.9, Lemma E.3, Cor 4.10) with the sign of ε′ corrected (erratum E6). UPPER, add.

F41: δ←_{A_t}(ε) ≤ H_{e^{ε′}}(R^{⊗t}(⊥) ‖ R_{1/t}^{⊗t}(*)),  ε′ = ε + t ln Z_{1/t} = ε − (t−1) R_{1/t}(P‖Q) ≤ ε
(the papers print ε − t ln Z, i.e. ε′ ≥ ε: not a valid bound). The proof is a pointwise bound on the add loss
(AM–GM), L_A ≤ L′ + (−t ln Z), so it survives composition: n copies shift ε by n·(−t ln Z).
Gaussian (F42, printed correctly in Cor 4.10): R_{1/t}(*) = N(1/t, σ²), −t ln Z_{1/t} = (1 − 1/t)/(2σ²), so for
n = k·E copies of A_m (F27): δ← ≤ δ_{N(σ√(m/n))}(ε − n(1 − 1/m)/(2σ²)) with δ_N from F13, any ε ∈ ℝ.
Only the Gaussian specialization is implemented; other mechanisms are not served here.
"""

from __future__ import annotations

import mpmath as mp

from ...config import Config
from ...mechanisms import Gaussian
from ...mechanisms.gaussian import gaussian_delta
from ...rounding import float_up
from .base import BoundValue, Options, not_applicable
from .poisson_profile import blocks, up

NAME = "direct_add"


def epsilon_shift(sigma, m: int) -> mp.mpf:
    """−m ln Z_{1/m} = (1 − 1/m)/(2σ²) ≥ 0 for the Gaussian (F42; E6: ε′ = ε − shift), at the current precision."""
    s = mp.mpf(sigma.numerator) / sigma.denominator
    return (1 - mp.mpf(1) / m) / (2 * s**2)


def delta(config: Config, epsilon: float, direction: str, options: Options = Options()) -> BoundValue:
    """UPPER bound on the add-direction δ(ε) of the Gaussian allocation (F42, corrected sign E6)."""
    if direction != "add":
        not_applicable("direction", direction, "the direct bound (F41/F42) is for the add direction only")
    mech = config.mechanism
    if not isinstance(mech, Gaussian):
        not_applicable("mechanism", mech.name, "the direct add bound is implemented for the Gaussian (F42) only")
    if mech.copies != 1:
        not_applicable("mechanism", repr(mech), "F42 is implemented for one Gaussian step per allocated step")
    m, n = blocks(config)
    with mp.workdps(40):
        s = mp.mpf(mech.sigma.numerator) / mech.sigma.denominator
        sigma_eff = s * mp.sqrt(mp.mpf(m) / n)
        shifted = mp.mpf(epsilon) - n * epsilon_shift(mech.sigma, m)
        value = float_up(gaussian_delta(sigma_eff, shifted))
    return BoundValue(min(1.0, up(value)), {"sigma_eff": float(sigma_eff), "shifted_epsilon": float(shifted)})
