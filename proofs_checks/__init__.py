"""Executable checks of the papers' lemmas and errata (formulas.md §10, §13).

Each check is registered with its ID, the statement it checks and its method (symbolic / exact /
numeric / doc-only); it raises AssertionError on failure. `python -m proofs_checks` runs them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Check:
    id: str
    statement: str
    method: str  # "symbolic" | "exact" | "numeric" | "doc-only"
    run: Callable[[], None] | None
    reason: str = ""


CHECKS: list[Check] = []


def check(id: str, statement: str, method: str):
    """Register a function as the check of `id`."""

    def register(fn):
        CHECKS.append(Check(id, statement, method, fn))
        return fn

    return register


def doc_only(id: str, statement: str, reason: str) -> None:
    """Register an erratum with no executable content (typographic, captions, settings)."""
    CHECKS.append(Check(id, statement, "doc-only", None, reason))


def load_all() -> list[Check]:
    """Import every check module once (each registers its checks) and return the checks in ID order."""
    from . import (  # noqa: F401
        allocation_bounds,
        experiments,
        lemmas,
        partition_rdp,
        pld_algorithms,
        shuffle_checkin,
        typographic,
    )

    return sorted(CHECKS, key=_order)


def _order(c: Check):
    """Errata E1, E2, … first, then formulas F…, then invariants I…, numerically by the leading number."""
    digits = re.match(r"\d*", c.id[1:]).group()
    return ("EFI".find(c.id[0]), int(digits) if digits else 0, c.id)
