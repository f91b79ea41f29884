"""The random-allocation papers' analytic UPPER bounds on δ(ε), one module per bound (docs/analytic.md); the
method "analytic" is analytic_accountant. The Poisson ingredient (poisson_profile) comes from the PLD route.

Each bound module (BOUNDS) has NAME and `delta(config, epsilon, direction, options) -> BoundValue` for direction
remove|add; outside its theorem's conditions it raises `UnsupportedRequest` (never a silent value).
"""

from . import asymptotic, decomposition, direct_add, recursive, truncated_poisson
from .base import BoundValue, Options

#: all bounds, in the order they are reported
BOUNDS = (truncated_poisson, recursive, decomposition, direct_add, asymptotic)

__all__ = ["BOUNDS", "BoundValue", "Options"]
