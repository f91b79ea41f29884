"""verialloc: certified privacy accounting for random allocation, Poisson subsampling and composition.

Floors, lowest first; a module imports only from its own floor or lower ones (docs/architecture.md):
foundation (mechanisms, config, errors, …) -> exact | numeric -> api, cost -> certify, audit, stability -> cli, testing.
"""
from . import api
from .config import Config
from .errors import InvalidParameter, UnsupportedRequest, UsageError, VeriallocError
from .mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from .result import Bracket

__all__ = [
    "Bracket", "Config", "DiscretePair", "Gaussian", "InvalidParameter", "Laplace",
    "RandomizedResponse", "UnsupportedRequest", "UsageError", "VeriallocError", "api",
]
__version__ = "0.1.0"
