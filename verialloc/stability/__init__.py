"""Stability explorer: where float64 paths drift from their arbitrary-precision twins (docs/stability.md)."""

from .probes import PROBES, Probe
from .sweep import Point, classify, regions, run

__all__ = ["PROBES", "Probe", "Point", "classify", "regions", "run"]
