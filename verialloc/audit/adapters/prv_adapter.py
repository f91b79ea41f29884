"""Microsoft's prv_accountant (0.2.0) for Poisson DP-SGD (and k = t compositions).

PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(σ, q)], max_self_compositions=[T], eps_error=0.01,
delta_error=δ/1000) — the settings of prv_accountant's own DP-SGD `Accountant` — then
compute_epsilon(δ, [T]) → (lower, estimate, upper). For δ(ε) the accountant is built with delta_error=1e-10
and compute_delta(ε, [T]) → (lower, estimate, upper). Each of the three numbers is audited as a row and claims
what its name says: prv.upper "upper" (the guarantee the library offers), prv.lower "lower" (its declared lower
end), prv.estimate "estimate".
"""

from __future__ import annotations

from . import Accountant, composition, dpsgd, poisson

PACKAGE, MODULE = "prv-accountant", ("prv_accountant",)
EPS_ERROR = 0.01
DELTA_ERROR_FOR_DELTA = 1e-10
PARTS = ("lower", "estimate", "upper")  # the tuple order; also the claims


def _accountant(config, delta_error: float):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    s, q, t = dpsgd(config)
    prv = PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)
    return PRVAccountant(prvs=[prv], max_self_compositions=[t], eps_error=EPS_ERROR, delta_error=delta_error), t


def _epsilon(part: int):
    def run(config, delta: float) -> float:
        acc, t = _accountant(config, delta / 1000)
        return acc.compute_epsilon(delta=delta, num_self_compositions=[t])[part]

    return run


def _delta(part: int):
    def run(config, epsilon: float) -> float:
        acc, t = _accountant(config, DELTA_ERROR_FOR_DELTA)
        return acc.compute_delta(epsilon=epsilon, num_self_compositions=[t])[part]

    return run


def _serves(config) -> bool:
    return poisson(config) or composition(config)


ACCOUNTANTS = [
    Accountant(
        f"prv.{name}",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        f"PRVAccountant(eps_error={EPS_ERROR}, delta_error=δ/1000 or {DELTA_ERROR_FOR_DELTA:g})"
        f".compute_epsilon/compute_delta(...)[{i}] ({name})",
        epsilon=_epsilon(i),
        delta=_delta(i),
        claims=name,
    )
    for i, name in enumerate(PARTS)
]
