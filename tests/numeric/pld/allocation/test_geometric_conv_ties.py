"""Issue #16 item 8: geometric-grid convolution (Alg. 4/5 of [003], F52/F53, erratum E15) at near-ties.

`conv(x, y, "upper")` must put each pairwise exp-space sum e^{a+iα} + e^{b+jα} at a grid point e^{c+kα} ≥ it
(c = the float log_start of the output, Alg. 5), "lower" at one ≤ it, so the output stochastically dominates /
is dominated by the exact law of X + Y (F10). The inputs are crafted so that the sums land exactly on, or within
an ulp of, grid points — where the implementation's tie tolerance decides:

* b = −α, j = i + 2: e^{iα}(1 + e^{α}) = (1 + e^{−α})·e^{(i+1)α} is in the reals exactly the output grid point
  i + 1 — up to the rounding of c = fl(ln(1 + e^{−α})); b and a are also moved by ±1 and ±2 ulps;
* j = i (d = 0): (e^{a} + e^{b})·e^{iα} is grid point i exactly only if c = ln(e^{a} + e^{b}) is exact in float;
* a zero atom in x: each e^{b+jα} alone is placed on the grid; with c = b it is exactly a grid point.

References are exact: single values are compared through their exponents as Fractions of the float parameters;
two-term sums with mpmath interval arithmetic (mp.iv) at 256 bits (raised to 1024 if undecided), never with the
float values the code computes. Point-mass inputs make the output masses exact (products of 1.0).
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc.numeric.pld.allocation.geometric_conv import GeometricDist, conv

N = 7


def ulps(x, k):
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


def point(log_start, step, i, n=N):
    masses = np.zeros(n)
    masses[i] = 1.0
    return GeometricDist(log_start, step, masses)


def only_index(out):
    nz = np.flatnonzero(out.masses)
    assert out.zero == 0 and out.inf == 0 and nz.size == 1 and out.masses[nz[0]] == 1.0, (out.masses, out.zero, out.inf)
    return int(nz[0])


def compare_sum(a, b, step, i, j, c, k):
    """Sign of e^{a+iα} + e^{b+jα} − e^{c+kα} for the exact reals given by the float parameters (mp.iv)."""
    saved = mp.iv.prec
    try:
        for prec in (256, 1024):
            mp.iv.prec = prec
            s = mp.iv.exp(mp.iv.mpf(a) + i * mp.iv.mpf(step)) + mp.iv.exp(mp.iv.mpf(b) + j * mp.iv.mpf(step))
            g = mp.iv.exp(mp.iv.mpf(c) + k * mp.iv.mpf(step))
            diff = s - g
            if diff.b < 0:
                return -1
            if diff.a > 0:
                return 1
    finally:
        mp.iv.prec = saved
    raise AssertionError(f"undecided tie a={a!r} b={b!r} step={step!r} i={i} j={j} c={c!r} k={k}")


def check_pair(a, b, step, i, j, n=N):
    """Upper places the sum at a grid point ≥ it, lower at one ≤ it; both at most 2 points away (tightness)."""
    x, y = point(a, step, i, n), point(b, step, j, n)
    for bound in ("upper", "lower"):
        out = conv(x, y, bound)
        c = out.log_start
        if bound == "upper" and out.inf == 1.0:  # beyond the grid: +inf dominates everything
            continue
        if bound == "lower" and out.zero == 1.0:
            continue
        k = only_index(out)
        sign = compare_sum(a, b, step, i, j, c, k)
        if bound == "upper":
            assert sign < 0, f"upper: sum above its grid point (a={a!r}, b={b!r}, α={step!r}, i={i}, j={j}, k={k})"
            assert k == 0 or compare_sum(a, b, step, i, j, c, k - 2) > 0, "upper rounded up by more than 2 points"
        else:
            assert sign > 0, f"lower: sum below its grid point (a={a!r}, b={b!r}, α={step!r}, i={i}, j={j}, k={k})"
            assert k == n - 1 or compare_sum(a, b, step, i, j, c, k + 2) < 0, "lower rounded down by > 2 points"


STEPS = [0.01, 0.3, math.log(2), 1.1, 2.5]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("da", [0, 1, -1, 2, -2])
@pytest.mark.parametrize("db", [0, 1, -1, 2, -2])
def test_sums_on_and_beside_grid_points_d2(step, da, db):
    """b = −α, j = i + 2: the sum is (within ulps) grid point i + 1 (module docstring); every i."""
    a, b = ulps(0.0, da) if da else 0.0, ulps(-step, db)
    for i in range(N - 2):
        check_pair(a, b, step, i, i + 2)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("a,b", [(0.0, 0.0), (1.0, 1.0), (0.0, -0.5), (-3.0, 2.0), (0.7, 0.7)])
def test_all_pairs_of_point_masses(step, a, b):
    """Every (i, j), the diagonal d = j − i = 0 included."""
    for i in range(N):
        for j in range(N):
            check_pair(a, b, step, i, j)


#: d = j − i = 0 was a bug: conv placed (e^a + e^b)·r^i at offset 0 on a grid starting at fl(ln(e^a + e^b)),
#: rounded to nearest — below the sum for the upper output (a = b = 0: 2 − 4.6e−17), above it for the lower
#: (a = b = 1). The grid start is now directed (range_renorm(x, y, bound)).


def test_d0_premises():
    """The two regression tests below rely on these round-to-nearest roundings of ln(e^a + e^b)."""
    with mp.workprec(200):
        assert mp.mpf(float(np.logaddexp(0.0, 0.0))) < mp.log(2)  # fl(ln 2) < ln 2
        assert mp.mpf(float(np.logaddexp(1.0, 1.0))) > 1 + mp.log(2)  # fl(1 + ln 2) > 1 + ln 2


def test_d0_upper_with_log_start_rounded_down():
    """a = b = 0: e^0 + e^0 = 2, the output grid starts at e^{fl(ln 2)} = 2 − 4.6e−17 < 2 (upper must be ≥)."""
    for i in range(N):
        check_pair(0.0, 0.0, 0.5, i, i)


def test_d0_lower_with_log_start_rounded_up():
    """a = b = 1: the output grid starts at e^{fl(1 + ln 2)} > 2e (lower must be ≤)."""
    for i in range(N):
        check_pair(1.0, 1.0, 0.5, i, i)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("db", [0, 1, -1])
def test_zero_atom_places_single_values_exactly(step, db):
    """x = the value 0 only (far-away, massless grid start a = −60, so c = fl(logaddexp(−60, b)) = b): the sum
    is e^{b+jα} alone; its grid index follows from comparing exponents b + jα vs c + kα as Fractions."""
    b = ulps(0.4, db)
    x = GeometricDist(-60.0, step, np.zeros(N), zero=1.0)
    for j in range(N):
        y = point(b, step, j)
        for bound in ("upper", "lower"):
            out = conv(x, y, bound)
            if bound == "upper" and out.inf == 1.0 or bound == "lower" and out.zero == 1.0:
                continue  # moved to the atom +inf (upper) or to the value 0 (lower): safe
            k = only_index(out)
            value = Fraction(b) + j * Fraction(step)
            grid = Fraction(out.log_start) + k * Fraction(step)
            if bound == "upper":
                assert value <= grid, (bound, j, k, out.log_start)
                assert k == 0 or value > grid - 2 * Fraction(step)
            else:
                assert value >= grid, (bound, j, k, out.log_start)
                assert k == N - 1 or value < grid + 2 * Fraction(step)


@pytest.mark.parametrize("step", [0.3, math.log(2)])
def test_mixed_masses_stochastic_domination_exact(step):
    """Several masses per input (even indices in x, odd in y) at near-tie positions (b = −α ± ulps): the output CCDF at every output grid point
    against the exact CCDF of X + Y (pair sums compared with mp.iv, masses as Fractions of the floats, slack =
    the output's own float `error` bound)."""
    rng = np.random.default_rng(16)
    for db in (0, 1, -1):
        a, b = 0.0, ulps(-step, db)
        fx, fy = rng.random(N), rng.random(N)
        fx[1::2], fy[0::2] = 0.0, 0.0  # disjoint supports: no pair with d = j − i = 0 (the known bug above)
        fx, fy = fx / fx.sum(), fy / fy.sum()
        x, y = GeometricDist(a, step, fx), GeometricDist(b, step, fy)
        for bound in ("upper", "lower"):
            out = conv(x, y, bound)
            c = out.log_start
            slack = Fraction(out.error) + Fraction(1, 10**15)
            for k in range(N):
                # exact P(X + Y > g_k) (upper must have ≥) or P(X + Y ≥ g_k) (lower must have ≤), g_k = e^{c+kα}
                exact_gt, exact_ge = Fraction(0), Fraction(0)
                for i in range(N):
                    for j in range(N):
                        s = compare_sum(a, b, step, i, j, c, k)
                        w = Fraction(float(fx[i])) * Fraction(float(fy[j]))
                        exact_gt += w if s > 0 else 0
                        exact_ge += w if s >= 0 else 0
                out_gt = sum(Fraction(float(m)) for m in out.masses[k + 1 :]) + Fraction(out.inf)
                out_ge = sum(Fraction(float(m)) for m in out.masses[k:]) + Fraction(out.inf)
                if bound == "upper":
                    assert out_gt + slack >= exact_gt, (db, k)
                else:
                    assert out_ge - slack <= exact_ge, (db, k)
