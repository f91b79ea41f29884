"""The authors' PLD accountant for random allocation (`pld-accounting` 2.0, module PLD_accounting).

gaussian_allocation_epsilon_range(delta=δ, sigma=σ, num_steps=t, num_selected=k, num_epochs=E) → (upper,
lower) after adaptive refinement (default accuracy); the upper value is audited, against both directions
(add-or-remove). Gaussian allocation only.
"""

from __future__ import annotations

from . import Accountant, gaussian, sigma

PACKAGE, MODULE = "pld-accounting", ("PLD_accounting",)


def _epsilon(config, delta: float) -> float:
    import PLD_accounting as pa

    upper, _lower = pa.gaussian_allocation_epsilon_range(
        delta=delta, sigma=sigma(config), num_steps=config.steps, num_selected=config.k, num_epochs=config.epochs
    )
    return upper


def _serves(config) -> bool:
    return gaussian(config) and config.scheme == "allocation"


ACCOUNTANTS = [
    Accountant(
        "pld_accounting.range",
        PACKAGE,
        MODULE,
        "both",
        _serves,
        "gaussian_allocation_epsilon_range(delta, sigma, num_steps, num_selected, num_epochs)[0] (upper)",
        epsilon=_epsilon,
        claims="upper",
    ),
]
