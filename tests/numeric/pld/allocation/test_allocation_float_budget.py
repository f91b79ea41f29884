"""Issue #16 item 3: the allocation combine step's float budget, replayed in exact rationals (F24, F25).

`_combine` returns a `_Node` whose masses carry the contract of its docstring: against the same computation in
exact arithmetic, every mass has relative error ≤ rel plus an absolute part whose ℓ1 norm is ≤ err. Here inputs
are exact (rel = err = 0, non-dyadic float masses), the reference convolution, window cut and top bin are
computed in Fractions from the same float inputs, and the excess of each realized error over rel·exact must sum
to at most err. Each of the three convolution algorithms is reached (direct; split head/tail with FFT tails;
plain FFT) on small arrays by lowering the module's work thresholds (the code paths large sizes take). The cut bookkeeping (dropped Q-mass below the window) is checked
against the exact sum with the same contract.
"""

from fractions import Fraction

import numpy as np
import pytest

from verialloc.numeric.pld.allocation import convolution
from verialloc.numeric.pld.allocation.squaring import _combine, _Node

H = 0.125


def _exact_conv(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _arrays(kind: str, n: int, rng) -> np.ndarray:
    if kind == "flat":
        a = rng.random(n)
    else:  # a peak holding most of the mass and long thin tails: the split path's shape
        a = np.exp(-0.5 * ((np.arange(n) - n / 2) / (n / 40)) ** 2) + 1e-9 * rng.random(n)
    return a / a.sum()


# (path, thresholds): direct by default; split = heads direct, tails by FFT; fft = the whole product by FFT
PATHS = {"direct": {}, "split": {"DIRECT_WORK": 0}, "fft": {"DIRECT_WORK": 0, "SPLIT_WORK": 0}}
CASES = [("flat", 40), ("flat", 300), ("peaked", 300)]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind,n", CASES)
@pytest.mark.parametrize("square", [True, False])
def test_combine_error_within_its_reported_budget(path, kind, n, square, monkeypatch):
    """Would catch: a γ_n factor too small in the direct path, an FFT bound not added, a cut mass not recorded."""
    for name, value in PATHS[path].items():
        monkeypatch.setattr(convolution, name, value)
    rng = np.random.default_rng(n + square)
    xa = _arrays(kind, n, rng)
    ya = xa if square else _arrays(kind, n, rng)
    x = _Node(xa, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    y = None if square else _Node(ya, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    lo, hi = n // 4, 2 * n - 2 - n // 3  # a window cutting both ends: some mass below lo, a top bin at hi
    node = _combine(x, y, lo, hi, H, None)
    exact = _exact_conv(list(map(Fraction, xa.tolist())), list(map(Fraction, ya.tolist())))
    reference = exact[lo:hi] + [sum(exact[hi:], Fraction(0))]
    got = list(map(Fraction, node.arr.tolist()))
    assert len(got) == len(reference)
    rel, err = Fraction(node.rel), Fraction(node.err)
    excess = sum((max(abs(g - r) - rel * r, Fraction(0)) for g, r in zip(got, reference)), Fraction(0))
    assert excess <= err, (float(excess), node.err, node.rel)
    dropped = sum(exact[:lo], Fraction(0))
    assert dropped > 0
    assert abs(Fraction(node.dropped) - dropped) <= rel * dropped + err, (node.dropped, float(dropped))
    # power: the realized error is not zero, so a budget of zero (rel = err = 0) would be caught
    assert any(g != r for g, r in zip(got, reference))
