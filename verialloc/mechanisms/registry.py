"""The mechanisms by the name the command line and configuration files use (`--mechanism NAME`): one entry per
mechanism module. Everything else a layer needs from a mechanism, the mechanism declares itself
(mechanisms.base.Mechanism)."""

from __future__ import annotations

from .base import Mechanism
from .discrete_gaussian import DiscreteGaussian
from .finite import DiscretePair, RandomizedResponse
from .gaussian import Gaussian
from .laplace import Laplace

#: --mechanism value -> mechanism class
MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (Gaussian, Laplace, RandomizedResponse, DiscretePair, DiscreteGaussian)
}
#: every parameter key a mechanism takes, in registry order, each once (the CLI's flags, the configuration keys)
PARAMETERS: tuple[str, ...] = tuple(dict.fromkeys(cls.parameter for cls in MECHANISMS.values()))


def owners(parameter: str) -> list[str]:
    """The names of the mechanisms that take `parameter`."""
    return [name for name, cls in MECHANISMS.items() if cls.parameter == parameter]


def implied_mechanism(given) -> str | None:
    """The mechanism a parameter alone names, when no mechanism is given: the first in registry order that takes
    the one mechanism parameter given (`--sigma` / `--noise-multiplier` alone: gaussian, as in dp_accounting and
    opacus); None when none or several mechanism parameters are given."""
    params = [p for p in PARAMETERS if p in given]
    return owners(params[0])[0] if len(params) == 1 else None
