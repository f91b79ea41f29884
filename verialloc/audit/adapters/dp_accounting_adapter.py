"""Google's dp_accounting (0.6.0): PLD and RDP accountants for Poisson DP-SGD (and k = t compositions).

* dp_accounting.pld: PLDAccountant(value_discretization_interval=1e-4) composing
  SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T); get_epsilon(δ) / get_delta(ε).
  A pessimistic estimate (claims an upper bound on add-or-remove DP).
* dp_accounting.pld-optimistic: from_gaussian_mechanism(σ, sampling_prob=q, pessimistic_estimate=False,
  use_connect_dots=False) self-composed T times, get_epsilon_for_delta — the optimistic discretization, a
  declared lower end (claims "lower": unsafe only above the certified upper).
* dp_accounting.rdp: RdpAccountant() on the same event, get_epsilon(δ).
dp_accounting 0.6.0 ships no random-allocation accountant; allocation is served only with k = t.
"""

from __future__ import annotations

from . import Accountant, composition, dpsgd, poisson

PACKAGE, MODULE = "dp-accounting", ("dp_accounting",)
DISCRETIZATION = 1e-4


def _event(config):
    import dp_accounting

    s, q, t = dpsgd(config)
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), t
    )


def _pld(config):
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=DISCRETIZATION)
    return acc.compose(_event(config))


def _optimistic_epsilon(config, delta: float) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pld

    s, q, t = dpsgd(config)
    single = pld.from_gaussian_mechanism(
        standard_deviation=s,
        sampling_prob=q,
        pessimistic_estimate=False,
        value_discretization_interval=DISCRETIZATION,
        use_connect_dots=False,
    )
    return single.self_compose(t).get_epsilon_for_delta(delta)


def _rdp_epsilon(config, delta: float) -> float:
    from dp_accounting.rdp import rdp_privacy_accountant

    return rdp_privacy_accountant.RdpAccountant().compose(_event(config)).get_epsilon(delta)


def _serves(config) -> bool:
    return poisson(config) or composition(config)


ACCOUNTANTS = [
    Accountant(
        "dp_accounting.pld",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        f"PLDAccountant(value_discretization_interval={DISCRETIZATION:g}).compose(Poisson Gaussian event)",
        epsilon=lambda c, d: _pld(c).get_epsilon(d),
        delta=lambda c, e: _pld(c).get_delta(e),
        claims="upper",
    ),
    Accountant(
        "dp_accounting.pld-optimistic",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "from_gaussian_mechanism(pessimistic_estimate=False, use_connect_dots=False).self_compose(T)",
        epsilon=_optimistic_epsilon,
        claims="lower",
    ),
    Accountant(
        "dp_accounting.rdp",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "RdpAccountant().compose(Poisson Gaussian event).get_epsilon",
        epsilon=_rdp_epsilon,
        claims="upper",
    ),
]
