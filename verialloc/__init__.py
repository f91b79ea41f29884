"""verialloc: certified privacy accounting for random allocation, Poisson subsampling and composition.

Layers (data flows one way): mechanisms -> exact | numeric -> certify/audit -> interfaces (api, cli, testing).
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
