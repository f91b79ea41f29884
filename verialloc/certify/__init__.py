"""Certify a privacy claim (budgeted refinement to a verdict) and calibrate the Gaussian noise (docs/certify.md)."""

from .batch import load_results
from .calibrate import Calibration, calibrate
from ..io.config_file import load_config
from .refine import Certificate, certify
from .report import certificate_json, write_report
from .verdict import Claim, make_claim

__all__ = [
    "Calibration",
    "Certificate",
    "Claim",
    "calibrate",
    "certificate_json",
    "certify",
    "load_config",
    "load_results",
    "make_claim",
    "write_report",
]
