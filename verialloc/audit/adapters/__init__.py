"""Adapters: each maps a verialloc `Config` (Gaussian mechanism) and a target δ (or ε) to one call of a
third-party accountant and returns that library's ε (or δ) as a float, untouched.

One module per library; each defines `ACCOUNTANTS`, a list of `Accountant`. Libraries are imported lazily,
inside the call; a missing one raises `NotInstalled` ("pip install 'verialloc[audit]'").
`direction` is the neighbouring relation the library's number claims to cover (F3: "both" = add-or-remove DP),
so it is compared with the certified bracket of that direction. `claims` is what the number claims about the
true value, as the library presents it: "upper" (a guarantee: truth ≤ value), "lower" (a declared lower end:
truth ≥ value) or "estimate" (a point estimate with no direction); the audit flag follows from it (flags.py).

Every call (`Accountant.run`) runs with stdout redirected to stderr and Python warnings captured: the libraries'
own prints ("Potential alpha underflow/overflow...") and warnings land on stderr, one line per distinct warning
("verialloc audit: <accountant>: <Category>: <message>"), so stdout holds only verialloc's output (strict JSON
with --json).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import warnings
from dataclasses import dataclass
from typing import Callable

from ...config import Config
from ...errors import UnsupportedRequest
from ...mechanisms import Gaussian
from ..flags import CLAIMS

MODULES = (
    "dp_accounting_adapter",
    "prv_adapter",
    "opacus_adapter",
    "pld_accounting_adapter",
    "random_allocation_adapter",
)


class NotInstalled(UnsupportedRequest):
    """The accountant's library is not importable."""

    def __init__(self, accountant: str, package: str):
        extra = "audit-random-allocation" if package == "random-allocation" else "audit"
        super().__init__("accountant", accountant, f"needs {package}, not installed (pip install 'verialloc[{extra}]')")


@dataclass(frozen=True)
class Accountant:
    """One audited call. epsilon(config, delta) / delta(config, epsilon) return the library's float."""

    name: str
    package: str  # pip distribution name
    modules: tuple  # import names that must be importable (the library and any undeclared dependency)
    direction: str  # "both" | "remove" | "add"
    supports: Callable[[Config], bool]
    call: str  # the library call, for reports and docs
    epsilon: Callable[[Config, float], float] | None = None
    delta: Callable[[Config, float], float] | None = None
    claims: str = "upper"  # "upper" | "lower" | "estimate": what the returned value claims (flags.CLAIMS)

    def __post_init__(self):
        if self.claims not in CLAIMS:
            raise ValueError(f"Accountant {self.name}: claims must be one of {', '.join(CLAIMS)}, not {self.claims!r}")

    def installed(self) -> bool:
        return all(importlib.util.find_spec(m) is not None for m in self.modules)

    def serves(self, config: Config, quantity: str) -> bool:
        return getattr(self, quantity) is not None and self.supports(config)

    def run(self, config: Config, quantity: str, target: float) -> float:
        """The library's answer for ε(δ = target) or δ(ε = target); NotInstalled if its package is missing."""
        if not self.installed():
            raise NotInstalled(self.name, self.package)
        with quiet(self.name):
            return getattr(self, quantity)(config, target)


@contextlib.contextmanager
def quiet(name: str):
    """Within the block: stdout goes to stderr, and warnings are captured and then written to stderr, one line
    per distinct (category, message), prefixed "verialloc audit: <name>:" (also when the block raises)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(sys.stderr):
                yield
        finally:
            seen = set()
            for w in caught:
                line = f"verialloc audit: {name}: {w.category.__name__}: {' '.join(str(w.message).split())}"
                if line not in seen:
                    seen.add(line)
                    try:
                        print(line, file=sys.stderr)
                    except (OSError, ValueError):
                        pass  # a closed stderr must not hide the call's outcome


def sigma(config: Config) -> float:
    return config.mechanism.noise_multiplier


def gaussian(config: Config) -> bool:
    return isinstance(config.mechanism, Gaussian)


def poisson(config: Config) -> bool:
    """Gaussian Poisson-subsampled DP-SGD (a plain Gaussian composition when the rate is 1)."""
    return gaussian(config) and config.scheme == "poisson"


def composition(config: Config) -> bool:
    """Gaussian allocation with k = t: every step used, i.e. Poisson with rate 1."""
    return gaussian(config) and config.scheme == "allocation" and config.k == config.steps


def dpsgd(config: Config) -> tuple[float, float, int]:
    """(σ, q, T) of a Poisson or k = t configuration: T = steps · epochs compositions."""
    q = float(config.rate) if config.scheme == "poisson" else 1.0
    return sigma(config), q, config.steps * config.epochs


def registry() -> dict[str, Accountant]:
    """All accountants of all adapter modules, by name (importing the adapters, not the libraries)."""
    out: dict[str, Accountant] = {}
    for name in MODULES:
        for acc in importlib.import_module(f"{__name__}.{name}").ACCOUNTANTS:
            out[acc.name] = acc
    return out
