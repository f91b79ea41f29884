"""Mechanisms as dominating pairs (P, Q): each knows its loss, exact profile and moments."""

from .base import ContinuousMechanism, Mechanism, SymbolicMoments
from .discrete_gaussian import DiscreteGaussian
from .finite import DiscretePair, FinitePair, RandomizedResponse
from .gaussian import Gaussian
from .laplace import Laplace

__all__ = [
    "ContinuousMechanism",
    "DiscreteGaussian",
    "DiscretePair",
    "FinitePair",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "RandomizedResponse",
    "SymbolicMoments",
]
