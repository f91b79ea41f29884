"""Opacus accountants (opacus.accountants) for Poisson DP-SGD: the history [(σ, q, T)] is set directly
(the state T calls of `step(noise_multiplier=σ, sample_rate=q)` produce), then get_epsilon(delta=δ).

* opacus.rdp: RDPAccountant (default orders);
* opacus.prv: PRVAccountant (eps_error=0.01, delta_error=δ/1000; returns the PRV upper bound);
* opacus.gdp: GaussianAccountant (Gaussian-DP CLT approximation, poisson=True) — opacus itself warns that it
  can underestimate.
All three claim "upper": opacus returns each through the same `get_epsilon` that `make_private` reports as the
training run's guarantee (GDP included, its warning notwithstanding), so a value below the truth is UNSAFE.
"""

from __future__ import annotations

import warnings

from . import Accountant, composition, dpsgd, poisson

PACKAGE, MODULE = "opacus", ("opacus",)


def _epsilon(kind: str):
    def run(config, delta: float) -> float:
        from opacus import accountants

        cls = {
            "rdp": accountants.RDPAccountant,
            "prv": accountants.PRVAccountant,
            "gdp": accountants.GaussianAccountant,
        }[kind]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # GDP's "experimental" warning; the audit flags the value itself
            acc = cls()
        s, q, t = dpsgd(config)
        acc.history = [(s, q, t)]
        return acc.get_epsilon(delta=delta)

    return run


def _serves(config) -> bool:
    return poisson(config) or composition(config)


ACCOUNTANTS = [
    Accountant(
        f"opacus.{kind}",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        f"{cls}(); history=[(σ, q, T)]; get_epsilon(δ)",
        epsilon=_epsilon(kind),
        claims="upper",
    )
    for kind, cls in (("rdp", "RDPAccountant"), ("prv", "PRVAccountant"), ("gdp", "GaussianAccountant"))
]
