"""Assertion helpers that compare accountants' outputs with clear failure messages."""
from __future__ import annotations

import numpy as np

from ..numeric.pld import PLD


def _merge_ties(pld: PLD, atol: float) -> PLD:
    """Merge values closer than atol: exact ties among float64 log-ratios may land a few ulps apart."""
    if pld.losses.size == 0:
        return pld
    group = np.concatenate([[0], np.cumsum(np.diff(pld.losses) > atol)])
    firsts = np.flatnonzero(np.diff(np.concatenate([[-1], group])))
    return PLD(pld.losses[firsts], np.bincount(group, pld.masses), pld.inf_mass)


def _drop_negligible(pld: PLD, tol: float) -> PLD:
    """Atoms with mass ≤ tol are rounding noise (e.g. (1−λ)(1 − E[e^{−L}]) ≈ 1e-16 when E[e^{−L}] = 1)."""
    keep = pld.masses > tol
    return PLD(pld.losses[keep], pld.masses[keep], pld.inf_mass)


def assert_same_pld(a: PLD, b: PLD, tol: float = 1e-13, loss_atol: float = 1e-12) -> None:
    """Assert two PLDs are the same law: same support (within loss_atol), masses and +inf atom within tol."""
    a, b = (_drop_negligible(_merge_ties(x, loss_atol), tol) for x in (a, b))
    assert a.losses.size == b.losses.size, f"supports differ: {a.losses} vs {b.losses}"
    np.testing.assert_allclose(a.losses, b.losses, rtol=0, atol=loss_atol, err_msg="loss values differ")
    np.testing.assert_allclose(a.masses, b.masses, rtol=0, atol=tol, err_msg="masses differ")
    assert abs(a.inf_mass - b.inf_mass) <= tol, f"+inf atoms differ: {a.inf_mass} vs {b.inf_mass}"
