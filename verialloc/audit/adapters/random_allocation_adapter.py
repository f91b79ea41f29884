"""The authors' analytic bounds for random allocation (`random-allocation` 1.0.5; it imports pandas).

PrivacyParams(sigma=σ, num_steps=t, num_selected=k, num_epochs=E, delta=δ) and
* random_allocation.direct-add: allocation_epsilon_direct(params, SchemeConfig(), Direction.ADD) — the add
  direction, F42 with erratum E6: ε_N(σ√(t'/(kE)), δ) + (1 − 1/t')/(2σ²), t' = ⌊t/k⌋. The package adds the
  shift once; composing k·E copies of the per-round bound needs it k·E times, so for k·E > 1 the value can fall
  below the true add-direction ε (audit: UNSAFE at σ = 1, t = 10, E = 10, δ = 1e-6);
* random_allocation.direct: the same with Direction.BOTH and allocation_direct_alpha_orders = 2..60
  (remove direction by the RDP of F38/F39 + conversion), the maximum of the two directions;
* random_allocation.rdp-dco: allocation_epsilon_RDP_DCO (BOTH), orders as the package's experiments use.
* random_allocation.combined: allocation_epsilon_combined (BOTH), the package's headline bound: per direction the
  minimum of its local, analytic, direct, recursive and (k = E = 1) decomposition bounds, orders 2..60.
"""

from __future__ import annotations

from . import Accountant, gaussian, sigma

PACKAGE, MODULE = "random-allocation", ("random_allocation", "pandas")  # pandas: imported, not declared
ORDERS = list(range(2, 61))


def _params(config, delta: float):
    from random_allocation.comparisons.structs import PrivacyParams

    return PrivacyParams(
        sigma=sigma(config), num_steps=config.steps, num_selected=config.k, num_epochs=config.epochs, delta=delta
    )


def _direct(direction: str):
    def run(config, delta: float) -> float:
        from random_allocation.comparisons.structs import Direction, SchemeConfig
        from random_allocation.random_allocation_scheme.direct import allocation_epsilon_direct

        scheme = SchemeConfig(allocation_direct_alpha_orders=ORDERS)
        return allocation_epsilon_direct(_params(config, delta), scheme, getattr(Direction, direction))

    return run


def _rdp_dco(config, delta: float) -> float:
    from random_allocation.comparisons.structs import Direction, SchemeConfig
    from random_allocation.random_allocation_scheme.RDP_DCO import allocation_epsilon_RDP_DCO

    scheme = SchemeConfig(allocation_RDP_DCO_alpha_orders=[float(a) for a in ORDERS])
    return allocation_epsilon_RDP_DCO(_params(config, delta), scheme, Direction.BOTH)


def _combined(config, delta: float) -> float:
    from random_allocation.comparisons.structs import Direction, SchemeConfig
    from random_allocation.random_allocation_scheme.combined import allocation_epsilon_combined

    scheme = SchemeConfig(
        allocation_direct_alpha_orders=ORDERS, allocation_RDP_DCO_alpha_orders=[float(a) for a in ORDERS]
    )
    return allocation_epsilon_combined(_params(config, delta), scheme, Direction.BOTH)


def _serves(config) -> bool:
    return gaussian(config) and config.scheme == "allocation"


ACCOUNTANTS = [
    Accountant(
        "random_allocation.direct-add",
        PACKAGE,
        MODULE,
        "add",
        _serves,
        "allocation_epsilon_direct(PrivacyParams(...), SchemeConfig(), Direction.ADD)",
        epsilon=_direct("ADD"),
        claims="upper",
    ),
    Accountant(
        "random_allocation.direct",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "allocation_epsilon_direct(..., SchemeConfig(allocation_direct_alpha_orders=2..60), Direction.BOTH)",
        epsilon=_direct("BOTH"),
        claims="upper",
    ),
    Accountant(
        "random_allocation.rdp-dco",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "allocation_epsilon_RDP_DCO(..., SchemeConfig(allocation_RDP_DCO_alpha_orders=2..60), Direction.BOTH)",
        epsilon=_rdp_dco,
        claims="upper",
    ),
    Accountant(
        "random_allocation.combined",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "allocation_epsilon_combined(..., SchemeConfig(direct and RDP_DCO orders 2..60), Direction.BOTH)",
        epsilon=_combined,
        claims="upper",
    ),
]
