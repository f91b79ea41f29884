"""Audit other accountants against verialloc's certified brackets (`verialloc audit`, docs/audit.md).

    >>> from verialloc.audit import golden, flags
    >>> flags.classify(0.2, "0.3", "0.31")[0]
    'UNSAFE'

Layout: `flags` (OK / LOOSE / UNSAFE / OUTSIDE / ERROR / TIMEOUT, by what each value claims), `adapters` (one module per third-party library, imported
lazily), `golden` (shipped certified tables + their generator), `runner` (rows), `report` (table, JSON,
Markdown).
"""

from .flags import DEFAULT_LOOSE_PERCENT, ERROR, LOOSE, OK, OUTSIDE, TIMEOUT, UNSAFE, classify
from .runner import Row, audit, audit_one

__all__ = [
    "DEFAULT_LOOSE_PERCENT",
    "ERROR",
    "LOOSE",
    "OK",
    "OUTSIDE",
    "Row",
    "TIMEOUT",
    "UNSAFE",
    "audit",
    "audit_one",
    "classify",
]
