"""verialloc: certified privacy accounting for random allocation, Poisson subsampling and composition.

Floors, lowest first; a module imports only from its own floor or lower ones (docs/architecture.md):
foundation (mechanisms, config, errors, …) -> exact | numeric -> api, cost -> certify, audit, stability -> cli, testing.

The names below load on first use (PEP 562): the pytest plugin (verialloc.testing.plugin) imports this package in
every pytest run of every project where verialloc is installed, and must not pull in sympy, scipy and every method.
"""

from __future__ import annotations

import importlib

#: public name -> the module that defines it
_LAZY = {
    "api": None,
    "Config": "config",
    "Ledger": "ledger",
    "DiscreteGaussian": "mechanisms",
    "Bracket": "result",
    "InvalidParameter": "errors",
    "UnsupportedRequest": "errors",
    "UsageError": "errors",
    "VeriallocError": "errors",
    "DiscretePair": "mechanisms",
    "Gaussian": "mechanisms",
    "Laplace": "mechanisms",
    "RandomizedResponse": "mechanisms",
}
__all__ = sorted(_LAZY)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'verialloc' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
