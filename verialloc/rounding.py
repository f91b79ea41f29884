"""Directed rounding of the float64 values that become bound endpoints.

A lower end must be <= the quantity it bounds and an upper end >= it, also after rounding to float64, so every
endpoint is rounded in its bound's direction (never to nearest):

* `round_down(x)` / `round_up(x)`: one step of `nextafter` towards −inf / +inf (floats or numpy arrays; ±inf and
  NaN unchanged). Use them on a float result of round-to-nearest operations whose exact value is the bound.
* `float_down(v)` / `float_up(v)`: the largest float <= v / smallest float >= v, exactly, for v an int, Fraction,
  float or mpf (no step when v is a float already).
* `trivial_delta_lower(eps)`: a float <= max(0, 1 − e^ε) (the trivial lower bound on δ(ε), I1).
* `trivial_epsilon_lower(delta)`: a float <= ln(1 − δ) (the trivial lower bound on ε(δ), I1).
* `rounded_sum(values)`: Σ values correctly rounded, equal to `math.fsum` and ~5× faster on PLD masses (below).
* `exp_up(x)`: an mpf >= e^x with a 53-bit mantissa and unbounded exponent (upper δ from an upper ln δ, kept
  positive below the float64 range).

Transcendental values are enclosed by mpmath interval arithmetic at 160 bits, widened by 2^-100 relative on each
side, or, for arguments below 2^-30, by exact series bounds in rationals. mpmath's interval functions are not
rigorous enclosures: measured against 400-digit values, `iv.exp` at 160 bits missed the truth by up to ~2^-170
relative (x = 66.07, −1.21e-7) and returned [1, 1] for e^x at x = 2.6e-53 (every |x| below ~1e-26 sampled
failed); the widening covers the former with 2^70 to spare and stays far below one float64 ulp (2^-52).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

__all__ = ["round_down", "round_up", "float_down", "float_up", "trivial_delta_lower", "trivial_epsilon_lower", "exp_up"]

#: bits of the interval enclosures (their relative width is far below one float64 ulp)
_PREC = 160
#: below this |argument|, the series bounds are used (their relative gap is < 2^-60)
_SMALL = Fraction(1, 2**30)
#: relative widening of each interval endpoint (module docstring)
_WIDEN = Fraction(1, 2**100)
_ONE_PLUS_WIDEN = mp.libmp.from_man_exp(2**100 + 1, -100)  # 1 + _WIDEN as a raw mpf (exact)


def round_down(x):
    """nextafter(x, −inf) for a float or numpy array; ±inf and NaN are returned unchanged."""
    if isinstance(x, np.ndarray):
        return np.where(np.isfinite(x), np.nextafter(x, -np.inf), x)
    x = float(x)
    return math.nextafter(x, -math.inf) if math.isfinite(x) else x


def round_up(x):
    """nextafter(x, +inf) for a float or numpy array; ±inf and NaN are returned unchanged."""
    if isinstance(x, np.ndarray):
        return np.where(np.isfinite(x), np.nextafter(x, np.inf), x)
    x = float(x)
    return math.nextafter(x, math.inf) if math.isfinite(x) else x


#: an mpf of magnitude below 2^TINY_MAG lies strictly between 0 and half the smallest subnormal; above 2^HUGE_MAG
#: beyond the largest float64 (mp.mag(x) bounds log2|x| from above, within one)
TINY_MAG, HUGE_MAG = -1075, 1026


def _exact(v) -> Fraction | float:
    """v as an exact Fraction (±inf / NaN as floats). An mpf far outside the float64 range is returned as a
    stand-in of the same sign and float rounding, never as its exact Fraction (a δ of 1e-20000000 would take a
    2^66000000 denominator, 25 s per value: hostile-user pass, analytic at σ = 1e4)."""
    if isinstance(v, mp.mpf):
        if not mp.isfinite(v):
            return float(v)
        mag = mp.mag(v) if v else 0
        if mag < TINY_MAG:
            return Fraction(1 if v > 0 else -1, 2**1076)  # rounds like v: to 0 or ±2^-1074, never in between
        if mag > HUGE_MAG:
            return Fraction(2**1100 if v > 0 else -(2**1100))  # rounds like v: to ±inf or ±max float
        return _raw_fraction(v._mpf_)
    if isinstance(v, float) and not math.isfinite(v):
        return v
    return Fraction(v)


def float_down(v) -> float:
    """The largest float64 <= v (v: int, Fraction, float or mpf; exact comparison, no double rounding)."""
    x = _exact(v)
    if isinstance(x, float):
        return x
    f = _nearest(x)
    if (Fraction(f) > x) if math.isfinite(f) else f > 0:
        f = math.nextafter(f, -math.inf)
    return f


def float_up(v) -> float:
    """The smallest float64 >= v (v: int, Fraction, float or mpf)."""
    x = _exact(v)
    if isinstance(x, float):
        return x
    f = _nearest(x)
    if (Fraction(f) < x) if math.isfinite(f) else f < 0:
        f = math.nextafter(f, math.inf)
    return f


def _nearest(x: Fraction) -> float:
    """x rounded to nearest (correctly rounded, subnormals included); ±inf beyond the float64 range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _raw_fraction(raw) -> Fraction:
    """A finite raw mpf tuple as an exact Fraction (not through mp.mpf, which would round to mp.prec)."""
    sign, man, exp, _ = raw
    return Fraction((-1) ** sign * man) * Fraction(2) ** exp


def _interval(fn, x: Fraction) -> tuple:
    """The raw mpf endpoints of fn(X) at _PREC bits, X an interval containing the rational x (not yet widened)."""
    old = mp.iv.prec
    mp.iv.prec = _PREC
    try:
        return fn(mp.iv, mp.iv.mpf(x.numerator) / mp.iv.mpf(x.denominator))._mpi_
    finally:
        mp.iv.prec = old


def _enclose(fn, x) -> tuple[Fraction, Fraction]:
    """(lower, upper) Fractions enclosing fn(x) for a rational x with |x| >= 2^-30: the interval endpoints
    of fn(X), X an interval containing x, each moved outward by _WIDEN of its magnitude (module docstring)."""
    lo, hi = (_raw_fraction(end) for end in _interval(fn, x))
    return lo - abs(lo) * _WIDEN, hi + abs(hi) * _WIDEN


def trivial_delta_lower(eps) -> float:
    """A float64 <= max(0, 1 − e^ε): the trivial lower bound on δ(ε) (I1), rounded down.

    |ε| < 2^-30: 1 − e^ε >= −ε − ε²/2 (e^x <= 1 + x + x²/2 for x <= 0); else an interval enclosure of 1 − e^ε.
    """
    x = _exact(eps)
    if isinstance(x, float):  # ±inf (NaN is rejected by the callers' validation)
        return 1.0 if x < 0 else 0.0
    if x >= 0:
        return 0.0
    if -x < _SMALL:
        low = -x - x * x / 2
    else:
        low = _enclose(lambda ctx, a: 1 - ctx.exp(a), x)[0]
    return max(0.0, float_down(low))


def trivial_epsilon_lower(delta) -> float:
    """A float64 <= ln(1 − δ), δ in [0, 1): the trivial lower bound on ε(δ) (I1), rounded down.

    δ < 2^-30: ln(1 − δ) >= −δ − δ²/2 − δ³/(3(1 − δ)) (tail of the series bounded by a geometric one);
    else an interval enclosure."""
    x = _exact(delta)
    if not 0 <= x < 1:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if x == 0:
        return 0.0
    if x < _SMALL:
        low = -x - x * x / 2 - x**3 / (3 * (1 - x))
    else:
        low = _enclose(lambda ctx, a: ctx.log(1 - a), x)[0]
    return float_down(low)


def exp_up(x) -> mp.mpf:
    """An mpf >= e^x (x a float or Fraction, possibly ±inf) with a 53-bit mantissa: e^x rounded up, without the
    float64 exponent range (so an upper bound below 1e-308 stays positive).

    |x| < 2^-30: e^x <= 1 + x + x² (the remainder Σ_{j≥2} x^j/j! is at most x²(e − 2) for |x| <= 1); else the
    widened interval enclosure."""
    v = _exact(x)
    if isinstance(v, float):
        return mp.inf if v > 0 else mp.mpf(0)
    if abs(v) < _SMALL:
        hi = 1 + v + v * v
        return mp.make_mpf(mp.libmp.from_rational(hi.numerator, hi.denominator, 53, "c"))
    # the upper interval endpoint times (1 + _WIDEN), rounded up, in mpf: as a Fraction, e^{−7e6} has a denominator
    # of 10⁷ bits and rounding it took 132 s (rdp δ at ε = 700 of a pair with a 1e-20 mass; hostile-user pass)
    top = _interval(lambda ctx, a: ctx.exp(a), v)[1]
    return mp.make_mpf(mp.libmp.mpf_mul(top, _ONE_PLUS_WIDEN, 53, "c"))


_CHUNK = 1 << 25  # |high part| ≤ 2^27: 2^25 of them sum below 2^52, exactly representable
_FSUM_BELOW = 64  # below this many terms math.fsum is as fast


def rounded_sum(values) -> float:
    """Σ values correctly rounded to nearest (equal to math.fsum(values)); inf/nan follow math.fsum.

    Each x = M·2^(e−53) with an integer significand |M| < 2^53 (np.frexp); M splits into a high part of ≤ 27 bits and a
    low part of 26 bits, and np.bincount adds the parts of equal exponent in float64, where every partial sum is an
    integer below 2^53 (chunks of at most 2^25 terms) and so exact. The per-exponent integers are added in Python's
    exact integers and divided by a power of two once: CPython's int true division rounds correctly (half to even).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < _FSUM_BELOW or not np.isfinite(x).all():
        return math.fsum(x.tolist())
    mant, expo = np.frexp(x)
    high = np.floor(mant * 2.0**27)  # exact: |mant| < 1 has 53 significant bits, all kept by the two parts
    low = mant * 2.0**53 - high * 2.0**26  # an integer in [0, 2^26)
    emin = int(expo.min())
    index = expo - emin
    total = 0
    for start in range(0, x.size, _CHUNK):
        idx = index[start : start + _CHUNK]
        hs = np.bincount(idx, weights=high[start : start + _CHUNK])
        ls = np.bincount(idx, weights=low[start : start + _CHUNK])
        for j in np.flatnonzero((hs != 0) | (ls != 0)).tolist():
            total += ((int(hs[j]) << 26) + int(ls[j])) << j
    shift = emin - 53
    return float(total << shift) if shift >= 0 else total / (1 << -shift)
