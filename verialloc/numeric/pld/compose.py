"""Composition of PLDs on a common grid {k·step}: exact convolution of the masses (F6, F48, I16).

Every convolution also returns a per-entry bound b_s ≥ |ĉ_s − c_s| on its float64 error, which is absorbed
into the masses in the direction of the result (F10, F49):
  upper: masses ĉ + b (so every tail sum dominates the exact one), the surplus Σb taken off the lowest entries
         (moving mass up), so the total stays Σa·Σb;
  lower: masses max(ĉ − b, 0) (entrywise below the exact convolution, a sub-probability);
  exact: masses ĉ, and Σb is added to `float_error`.
Error bounds (u = 2^−53):
  direct (np.convolve; sums of at most n' = min(n, m) non-negative products): b_s = (n' + 2)·u·1.01·ĉ_s + n'·TINY;
  FFT of length N = 2^p via rfft/irfft: ‖ĉ − c‖_∞ ≤ ‖ĉ − c‖_2 ≤ E(x, y) := 2·(3ρ_N + 3u)·max(‖x‖_2‖y‖_1, ‖x‖_1‖y‖_2)
  with ρ_N = (p + 2)η/(1 − (p + 2)η), η = u + γ_4(√2 + u), γ_4 = 4u/(1 − 4u) (Higham, Accuracy and Stability
  of Numerical Algorithms, Thm 24.2, for each of the three transforms; p + 2 covers the real-input pass; the factor
  2 covers second-order terms), plus 8u·ĉ_s and 2·TINY for rounding and underflow of the output (TINY = the
  smallest subnormal).
Exponential tilting (F54 numerical stability): c_s = e^{−θs}·(x e^{θi} ∗ y e^{θj})_s, so a tilted transform has
per-entry error e^{−θs}·E(x̃, ỹ) (plus the rounding of the tilt, see `_fft_run`), far below E(x, y) in the upper
tail. Tilts are added while some upper-tail sum
above `floor` has an error bound exceeding RHO times itself; each entry keeps the run with the smallest bound.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import fft

from ...errors import InvalidParameter
from ...rounding import rounded_sum
from ...validation import integer
from .grid import check_step, check_tail, grid_index, trim, truncate
from .pld import PLD

U = np.finfo(np.float64).eps / 2
#: underflow: every product or weight below it may be lost
TINY = np.finfo(np.float64).smallest_subnormal
#: direct convolution when n·m is at most this (or the shorter input is tiny)
DIRECT_LIMIT = 4_000_000
DIRECT_SHORT = 64
#: relative accuracy sought for upper-tail sums above `floor`
RHO = 1e-3
DEFAULT_TAIL = 1e-15
DEFAULT_FLOOR = DEFAULT_TAIL
MAX_TILTS = 8
#: chunks each input is pooled into to choose a tilt (`_tilt_for`): the moments' cost per Newton step
TILT_CHUNKS = 4096


def fft_error_bound(x: np.ndarray, y: np.ndarray, size: int) -> float:
    """E(x, y): bound on ‖ĉ − x∗y‖_2 (hence on every entry) for rfft/irfft convolution of length `size` = 2^p."""
    gamma4 = 4 * U / (1 - 4 * U)
    eta = U + gamma4 * (np.sqrt(2) + U)
    passes = np.log2(size) + 2
    rho = passes * eta / (1 - passes * eta)
    # ‖·‖₂ by einsum (OpenBLAS's dot, under np.linalg.norm, took 5–10× as long on these lengths)
    l2x, l2y = math.sqrt(np.einsum("i,i->", x, x)), math.sqrt(np.einsum("i,i->", y, y))
    norms = max(l2x * np.sum(np.abs(y)), np.sum(np.abs(x)) * l2y)
    return 2 * (3 * rho + 3 * U) * norms


def _fft_run(x: np.ndarray, y: np.ndarray, size: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """One (tilted) FFT convolution: (ĉ ≥ 0, per-entry error bound); theta = 0 is the plain transform.

    Tilted inputs x̃_i = e^{ln x_i + θi − s_x} (max 1) carry a relative error ≤ u·(bound on the rounding of their
    exponent); the tilt factors cancel in exact arithmetic, so these become a relative error `rel` of each c_s.
    Products lost to underflow (x̃_i or ỹ_j below TINY) cost at most min(n, m)·TINY per tilted entry; the weight
    e^{exponent} itself is within relative `rel` plus an absolute TINY (it may underflow to 0 or a subnormal), which
    costs at most (|raw| + absolute)·TINY per entry — so an underflowed weight never yields c = 0 with a near-zero
    error bound (issue #10 item 9: up to min(n, m)·TINY of upper mass was lost unaccounted).
    """
    length = x.size + y.size - 1
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if theta:
            lx = np.log(x) + theta * np.arange(x.size)
            ly = lx if y is x else np.log(y) + theta * np.arange(y.size)
            sx, sy = np.max(lx), np.max(ly)
            xt = np.exp(lx - sx)
            yt = xt if y is x else np.exp(ly - sy)
            exponent = sx + sy - theta * np.arange(length)
            weight = np.exp(exponent)
            magnitude = np.max(np.abs(lx[x > 0])) + abs(sx) + np.max(np.abs(ly[y > 0])) + abs(sy)
            rel = (4 * magnitude + 2 * np.max(np.abs(exponent)) + 16) * U
        else:
            xt, yt, weight, rel = x, y, np.ones(length), 8 * U
        fx = fft.rfft(xt, size)
        raw = fft.irfft(fx * (fx if yt is xt else fft.rfft(yt, size)), size)[:length]  # squaring: one transform
        c = np.maximum(raw, 0.0) * weight
        absolute = fft_error_bound(xt, yt, size) + 2 * min(x.size, y.size) * TINY
        err = absolute * weight + 1.01 * rel * c + (np.abs(raw) + absolute) * TINY + 2 * TINY
    return np.where(np.isfinite(err), c, 0.0), np.where(np.isfinite(err), err, np.inf)


def _frontier(c: np.ndarray, err: np.ndarray, floor: float) -> int | None:
    """First upper-tail index s (past the mode) where Σ_{j≥s} err > RHO·Σ_{j≥s} c while that tail exceeds floor."""
    tail_c, tail_e = np.cumsum(c[::-1])[::-1], np.cumsum(err[::-1])[::-1]
    need = (tail_e > RHO * tail_c) & (tail_c + tail_e > floor)
    need[: int(np.argmax(c)) + 1] = False
    hits = np.flatnonzero(need)
    return int(hits[0]) if hits.size else None


def convolve(x: np.ndarray, y: np.ndarray, floor: float = DEFAULT_FLOOR) -> tuple[np.ndarray, np.ndarray]:
    """(ĉ, b): the convolution of non-negative x, y with a per-entry bound b_s ≥ |ĉ_s − (x∗y)_s| (module docstring)."""
    if x.size * y.size <= DIRECT_LIMIT or min(x.size, y.size) <= DIRECT_SHORT:
        c = np.convolve(x, y)
        short = min(x.size, y.size)
        return c, (short + 2) * U * 1.01 * c + short * TINY
    size = 1 << int(np.ceil(np.log2(x.size + y.size - 1)))
    c, err = _fft_run(x, y, size, 0.0)
    previous = -1
    for _ in range(MAX_TILTS):
        front = _frontier(c, err, floor)
        if front is None or front <= previous:
            break
        ct, et = _fft_run(x, y, size, _tilt_for(x, y, front))
        better = et < err
        c, err = np.where(better, ct, c), np.where(better, et, err)
        previous = front
    return c, err


def _tilt_for(x: np.ndarray, y: np.ndarray, target: int) -> float:
    """θ > 0 whose tilted convolution has its mean at index `target` (tilted means add, and so do their variances,
    the mean's derivative in θ): Newton from a barely tilted start, each step at most ×64 while no θ above the
    target is known, then kept inside the bracket (else a geometric bisection), to 5 % in θ or about half a chunk.
    The moments are those of each input pooled into at most TILT_CHUNKS chunks (its mass and mass-weighted index
    per chunk), so that a step costs O(TILT_CHUNKS), not O(n). The tilt only steers accuracy (every tilted run
    carries its own error bound), so any θ is sound."""
    parts = [_chunks(v) for v in (x, y)]
    tolerance = 0.5 * max(max(v.size for v in (x, y)) / TILT_CHUNKS, 1.0)

    def moments(theta: float) -> tuple[float, float]:
        mean = var = 0.0
        for index, logs in parts:
            a = logs + theta * index
            w = np.exp(a - a.max())
            w /= w.sum()
            m = float(np.dot(w, index))
            mean, var = mean + m, var + float(np.dot(w, (index - m) ** 2))
        return mean, var

    theta = lo = 1.0 / (x.size + y.size)
    hi = math.inf
    mean, var = moments(theta)
    if mean >= target:  # a barely tilted transform already centres past the target
        return theta
    while hi > 1.05 * lo and lo < 1e4:
        step = theta + (target - mean) / var if var > 0 else 2 * theta
        theta = min(step, 64 * theta) if math.isinf(hi) else (step if lo < step < hi else math.sqrt(lo * hi))
        mean, var = moments(theta)
        if abs(mean - target) <= tolerance:
            return theta
        lo, hi = (theta, hi) if mean < target else (lo, theta)
    return lo if math.isinf(hi) else hi


def _absorb(c: np.ndarray, err: np.ndarray, total: float, bound: str) -> tuple[np.ndarray, float]:
    """Masses carrying the error bound in the result's direction, and the float_error left over (exact only)."""
    if bound == "lower":
        return np.maximum(c - err, 0.0), 0.0
    if bound == "exact":
        return c, float(np.sum(err))
    masses = c + err
    surplus = rounded_sum(masses) - total  # exact sums: a trim by np.sum's drift lost ~1e-13 of upper mass (fuzz)
    if surplus > 0:  # take it off the lowest entries: stochastically the mass only moves up
        cut = int(np.searchsorted(np.cumsum(masses), surplus))
        while cut < masses.size and math.fsum(masses[: cut + 1]) < surplus:  # cumsum may round past the spot
            cut += 1
        if cut >= masses.size:
            raise InvalidParameter("masses", "float64 error", "the convolution error bound exceeds the total mass")
        masses[cut] = math.fsum(masses[: cut + 1]) - surplus
        masses[:cut] = 0.0
    return masses, 0.0


def _weaker(a: str, b: str) -> str:
    if "exact" in (a, b):
        return b if a == "exact" else a
    if a != b:
        raise InvalidParameter("bound", f"{a}+{b}", "cannot compose an upper with a lower PLD")
    return a


def _infer_step(a: PLD, b: PLD) -> float | None:
    """The smallest gap between consecutive values, refined by least squares over all values (None: no gap)."""
    gaps = np.concatenate([np.diff(a.losses), np.diff(b.losses)])
    if not gaps.size:
        return None
    values = np.concatenate([a.losses, b.losses])
    k = np.rint(values / np.min(gaps))
    if not np.any(k):
        raise InvalidParameter("step", None, "cannot be inferred from these values; pass the common grid step")
    return float(np.dot(k, values) / np.dot(k, k))


def _dense(pld: PLD, step: float) -> tuple[int, np.ndarray]:
    k = grid_index(pld.losses, step, "snap")
    dense = np.zeros(int(k[-1] - k[0]) + 1)
    dense[k - k[0]] = pld.masses
    return int(k[0]), dense


def compose(a: PLD, b: PLD, step=None, *, floor: float = DEFAULT_FLOOR) -> PLD:
    """The PLD of the product pair: independent sum A + B (F6, F48; I16), on the common grid {k·step}.

    `step` defaults to the smallest gap between consecutive values of either input, refined by least squares
    (pass it when the grids have holes: an inconsistent guess is refused). Masses: exact convolution (direct for
    small sizes, FFT with tilting otherwise), error bound absorbed as in the module docstring.
    +inf: P(A = inf or B = inf) = a∞ + b∞ − a∞b∞ for upper/exact; for lower
    (sub-probabilities, missing mass at −inf) only the pairs with a finite or +inf partner count,
    a∞(ΣB + b∞) + ΣA·b∞. bound: the weaker of the two (exact < upper/lower; upper with lower is refused).
    `truncated` adds up; `float_error` (an ℓ1 bound on mass perturbations) combines as fa + fb + fa·fb.
    """
    bound = _weaker(a.bound, b.bound)
    for pld in (a, b):
        if pld.neg_inf_mass > 0:
            raise InvalidParameter("neg_inf_mass", pld.neg_inf_mass, "composition needs realizations (no -inf mass)")
    total_a, total_b = a.exact_total, b.exact_total  # correctly rounded (np.sum drifts by n·u)
    if bound == "lower":
        inf = a.inf_mass * (total_b + b.inf_mass) + total_a * b.inf_mass
    else:
        inf = a.inf_mass + b.inf_mass - a.inf_mass * b.inf_mass
    float_error = a.float_error + b.float_error + a.float_error * b.float_error
    truncated = a.truncated + b.truncated
    if a.masses.size == 0 or b.masses.size == 0:
        return PLD(np.empty(0), np.empty(0), inf, 0.0, truncated, float_error, bound)
    step = check_step(step) if step is not None else _infer_step(a, b)
    if step is None:  # two single points: no grid needed
        return PLD(a.losses + b.losses, a.masses * b.masses, inf, 0.0, truncated, float_error, bound)
    ka, x = _dense(a, step)
    kb, y = (ka, x) if b is a else _dense(b, step)  # squaring: one array (and one transform, _fft_run)
    c, err = convolve(x, y, floor)
    total = total_a * total_b
    if bound == "upper":  # trim to the exact total rounded up, never below it (an upper PLD keeps its mass)
        total *= 1 + 2 * U
        inf *= 1 + 4 * U
    masses, extra = _absorb(c, err, total, bound)
    losses = (ka + kb + np.arange(masses.size)).astype(np.float64) * step
    return trim(PLD(losses, masses, inf, 0.0, truncated, float_error + extra, bound))


def self_compose(pld: PLD, n, tail=DEFAULT_TAIL, step=None, *, floor: float | None = None) -> PLD:
    """n-fold composition by exponentiation by squaring (F53 Alg. 3 with E14: square on every iteration but the last).

    After each convolution both tails holding at most `tail` mass are truncated in the safe direction
    (F54; `truncate`), so at most 2⌈log2 n⌉ truncations add to `truncated`. An exact PLD needs tail = 0.
    `floor` (default: `tail`, or DEFAULT_FLOOR when tail = 0) is passed to `compose`: tilting keeps the error
    bound of the upper tail below the truncation level, so that truncation can cut it.
    """
    n = integer("n", n)
    tail = check_tail(tail)
    floor = (tail or DEFAULT_FLOOR) if floor is None else floor
    step = check_step(step) if step is not None else _infer_step(pld, pld)
    result, base = None, pld
    while True:
        if n & 1:
            result = base if result is None else truncate(compose(result, base, step, floor=floor), tail)
        n >>= 1
        if not n:
            return result
        base = truncate(compose(base, base, step, floor=floor), tail)


def _chunks(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mass-weighted index, log mass) of the non-empty chunks of `v` cut into at most TILT_CHUNKS equal runs."""
    width = max(1, -(-v.size // TILT_CHUNKS))
    starts = np.arange(0, v.size, width)
    mass = np.add.reduceat(v, starts)
    centre = np.add.reduceat(v * np.arange(v.size, dtype=float), starts)
    keep = mass > 0
    return centre[keep] / mass[keep], np.log(mass[keep])
