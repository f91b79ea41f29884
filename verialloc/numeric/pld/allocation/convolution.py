"""Default-mode convolutions of the allocation (`convolve`: direct, split or plain FFT, each with its relative and
absolute float64 error) and the γ_n error model the other allocation modules share. How the errors reach the
PLDs: the package docstring ("Float64").
"""

from __future__ import annotations

import math

import numpy as np
from scipy import fft

U = np.finfo(float).eps / 2
#: direct convolution (relative error per entry) when the work is at most this
DIRECT_WORK = 4_000_000
#: split convolutions: heads hold all but this fraction of the mass; direct head×head up to SPLIT_WORK products
HEAD_TAIL = 1e-6
SPLIT_WORK = 300_000_000
#: safety factor on the FFT error model (mixed radix, real transforms)
FFT_SAFETY = 4.0


def gamma(n: int) -> float:
    return n * U / (1 - n * U)


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a·b of non-negative arrays by pairwise summation: relative error ≤ γ_{⌈log2 n⌉+1}."""
    return float(np.sum(a * b))


def pairwise(n: int) -> float:
    return gamma(max(1, math.ceil(math.log2(max(n, 2)))) + 1)


def _fft_rel(n: int) -> float:
    """Relative 2-norm error ρ of one length-n FFT (Higham Thm 24.2 with twiddle error u), times FFT_SAFETY."""
    levels = max(1, math.ceil(math.log2(n)))
    gamma4 = gamma(4)
    eta = U + gamma4 * (math.sqrt(2) + U)
    return FFT_SAFETY * levels * eta / (1 - levels * eta)


def _fft_bound(n_fft: int, size: int, pairs) -> float:
    """ℓ1 bound of the round-off of Σ x*y over `pairs` computed with length-n_fft transforms.

    Per product: ‖ĉ − c‖₂ ≤ (2ρ + 2ρ²√N + 4γ₂)(‖x‖₁‖y‖₂ + ‖x‖₂‖y‖₁) (FFT model: ρ per transform, √2γ₂ per complex
    product, ‖x̂‖_∞ ≤ ‖x‖₁); ‖·‖₁ ≤ √size ‖·‖₂.
    """
    rho = _fft_rel(n_fft)
    k = 2 * rho + 2 * rho * rho * math.sqrt(n_fft) + 4 * gamma(2)
    total = sum(
        float(x.sum()) * math.sqrt(float(np.dot(y, y))) + math.sqrt(float(np.dot(x, x))) * float(y.sum())
        for x, y in pairs
    )
    return math.sqrt(size) * k * total


def _head(a: np.ndarray) -> tuple[int, int]:
    """Shortest index range [i, j) outside which a has mass ≤ HEAD_TAIL·Σa (half at each end)."""
    cut = 0.5 * HEAD_TAIL * float(a.sum())
    i = int(np.searchsorted(np.cumsum(a), cut, side="right"))
    j = a.size - int(np.searchsorted(np.cumsum(a[::-1]), cut, side="right"))
    return (i, j) if i < j else (0, a.size)


def convolve(a: np.ndarray, b: np.ndarray | None) -> tuple[np.ndarray, float, float]:
    """Linear convolution of non-negative arrays (b None: a*a): (c, rel, err) with |ĉ − c| ≤ rel·c + e, ‖e‖₁ ≤ err.

    * direct (small): every entry is a sum of ≤ n products of non-negatives, relative error γ_n;
    * split: heads a_h, b_h (all but HEAD_TAIL of the mass) are convolved directly (relative error), the rest
      a*b_t + a_t*b_h by FFT, whose absolute error scales with the small tail norms (`_fft_bound`);
    * plain FFT when the heads are too long (late squarings, where errors are amplified little).
    Negative outputs are clipped to 0 (the exact values are ≥ 0, so clipping never increases an error).
    """
    bb = a if b is None else b
    na, nb = a.size, bb.size
    if na * nb <= DIRECT_WORK or min(na, nb) <= 32:
        return np.convolve(a, bb), gamma(min(na, nb) + 1), 0.0
    size = na + nb - 1
    n_fft = fft.next_fast_len(size, real=True)
    (i0, i1), (j0, j1) = _head(a), _head(bb)
    if (i1 - i0) * (j1 - j0) > SPLIT_WORK:
        fa = fft.rfft(a, n_fft)
        c = fft.irfft(fa * (fa if b is None else fft.rfft(bb, n_fft)), n_fft)[:size]
        np.maximum(c, 0.0, out=c)
        return c, 0.0, _fft_bound(n_fft, size, [(a, bb)])
    ha, ta = np.zeros(na), a.copy()
    ha[i0:i1], ta[i0:i1] = a[i0:i1], 0.0
    if b is None:
        pairs = [(ta, a + ha)]
    else:
        hb, tb = np.zeros(nb), bb.copy()
        hb[j0:j1], tb[j0:j1] = bb[j0:j1], 0.0
        pairs = [(a, tb), (ta, hb)]
    spectrum = sum(fft.rfft(x, n_fft) * fft.rfft(y, n_fft) for x, y in pairs)
    c = fft.irfft(spectrum, n_fft)[:size]
    np.maximum(c, 0.0, out=c)
    head = np.convolve(a[i0:i1], bb[j0:j1])
    c[i0 + j0 : i0 + j0 + head.size] += head
    return c, gamma(min(i1 - i0, j1 - j0) + 2), _fft_bound(n_fft, size, pairs)
