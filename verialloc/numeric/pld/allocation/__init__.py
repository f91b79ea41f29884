"""Random allocation (k = 1) in float64: sound lower and upper PLDs and δ in both directions (F2, F8, F22–F26).

The allocation pair (P̄_t, Q^t) (F23) has likelihood ratio S/t with S = X_1 + … + X_t, X_i iid copies of the
exp-PLD X = e^ℓ under Q, and singular P-mass P_s = P(Q = 0) (F24, F26). Every hockey-stick query in both
directions is an expectation of a convex function of S/t plus P_s (F2, F25):
    remove δ(ε) = E[(S/t − κ)_+] + P_s,   add δ(ε) = E[(1 − κ S/t)_+],   κ = e^ε.
Upper: X is replaced by a mean-preserving spread X' on a grid (exp_grid.spread, X ≤_cx X'); lower: by a
contraction X_c (exp_grid.contract, X_c ≤_cx X). Independent sums keep the order, so S_c ≤_cx S ≤_cx S' with
no accumulation of rounding shifts over t (unlike rounding every summand, F50/F52). The t-fold sum is exact
on the grid (exponentiation by squaring, F53 Alg. 3 with every squaring done), restricted to windows:

* values above a node's window go into a top bin with their exact excess moment (in the upper pair it is read
  as Q-mass at the window top plus P-mass at ratio +inf carrying the excess moment — a limit of mean-preserving
  spreads; in the lower pair as P̄-mass moved down to the window top);
* partial sums of m summands below a Bernstein cut m·E[Y] − c·sqrt(m·E[Y²]) (Y = X − o ≥ 0, one-sided
  Bernstein for non-negative summands) are dropped and accounted explicitly: in the upper pair their Q-mass
  goes to S = 0 and their P̄-weight to ratio +inf (dominating, like a truncation in F8's post-processing sense);
  the lower PLDs simply lose them (recorded in `truncated`).

Float64: each convolution is direct (relative error γ_n per entry), split (the bulk direct, the small-mass rest
by FFT) or a plain FFT (absolute error from the FFT error model, Higham 2002 Thm 24.2, times FFT_SAFETY).
Relative errors are absorbed into the PLD masses (upper: inflated, the surplus trimmed from the lowest losses;
lower: deflated); absolute ones are propagated as ℓ1 bounds into `float_error`, together with an estimate for
the single-step CDF evaluations (the loss law's accuracy contract, through Wasserstein-1) and one δ evaluation's
rounding.
That budget (~1e-11 … 1e-10 at t = 1000) makes upper ε infinite for δ below ~1e-10.

Tail-accurate mode (`delta_floor`): every node array is a directed bound of the exact one — entrywise above it
for the upper pair, below it for the lower pair (δ is linear with non-negative weights in the Q-law of S, so
this is sound without any absolute term). The single-step masses are moved by their per-entry evaluation
estimate (`_envelope`); each convolution adds (upper) or subtracts (lower) a per-entry error bound that keeps
relative accuracy in both tails (`_convolve_tail`: exact scalings for top bins, lattice compression, direct
products, or block pairs with tilted FFTs); one δ evaluation's rounding is absorbed into the masses (`_pld`).
Relative errors compound to about 2tρ (ρ per convolution); tails below `floor` (≈ ρ·delta_floor/(2t·window/t))
are left unresolved, still within the directed bounds. No absolute float term remains above the floor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import fft

from ....errors import InternalError, InvalidParameter
from ....validation import direction as check_direction
from ....validation import integer
from ..compose import TINY, fft_error_bound
from .exp_grid import GridLaw, contract, spread
from ..loss_law import LossLaw
from ..pld import PLD

_U = np.finfo(float).eps / 2
#: smallest grid offset used (below: 0, which is always ≤ min X); far above the subnormal range
_OFFSET_MIN = 1e-290
#: default grid step: GRID_REL·sd(X), but at most GRID_REL_T·t (resolves S ≤ t for small t)
GRID_REL = 0.15
GRID_REL_T = 2e-3
#: default mass budget: Bernstein cuts per node and the upper window's single-step quantile
TAIL = 1e-12
#: largest array (grid points) a node may hold; beyond it the grid step is enlarged
MAX_POINTS = 1 << 21
#: direct convolution (relative error per entry) when the work is at most this
DIRECT_WORK = 4_000_000
#: split convolutions: heads hold all but this fraction of the mass; direct head×head up to SPLIT_WORK products
HEAD_TAIL = 1e-6
SPLIT_WORK = 300_000_000
#: safety factor on the FFT error model (mixed radix, real transforms)
FFT_SAFETY = 4.0
#: tail-accurate mode (delta_floor): relative accuracy ρ sought per convolution for tail sums above the floor,
#: ρ = REL_TARGET/t clipped to [REL_MIN, REL_MAX] (relative errors add up to about 2tρ over the t-fold sum)
REL_TARGET, REL_MIN, REL_MAX = 1e-4, 1e-9, 1e-6
#: tail-accurate mode: largest tail mass, as a share of delta_floor
TAIL_SHARE = 1e-3
#: blocked convolution: block length, direct work limit, pairs of blocks recomputed directly per convolution
BLOCK = 4096
REL_DIRECT_WORK = 16_000_000
DIRECT_PAIRS = 48
#: resolution of the tail-sum check (`_unresolved`)
SUBBLOCK = 64


@dataclass(frozen=True)
class Budget:
    """Error budget of one allocation computation (both bounds).

    grid step h and offset o (grid o + j·h); window: top of S (value units); single_top: single-step top bin
    o + T·h with its Q-mass and P-weight E_Q[X; X ≥ o + T·h] in the upper law (the analogue of a truncation
    point G); dropped: Q-mass removed by the Bernstein cuts and the single-step contraction (upper, lower);
    overflow: Q-mass of S in the top bin (upper, lower); float_error: per PLD, keyed (direction, bound);
    warnings: anything that limits the attainable accuracy (window reduced, grid step enlarged);
    window_reduced: the window had to end below the single-step tail quantile (heavy tails);
    delta_floor: smallest δ built for relative accuracy (0: default mode, absolute float budget).
    """

    grid_step: float
    offset: float
    window: float
    single_top: float
    single_top_mass: float
    single_top_weight: float
    dropped: tuple[float, float]
    overflow: tuple[float, float]
    float_error: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    window_reduced: bool = False
    delta_floor: float = 0.0


@dataclass(frozen=True)
class Allocation:
    """Lower and upper PLDs of the allocation pair, keyed (direction, bound), and the error budget."""

    steps: int
    plds: dict
    budget: Budget

    def delta(self, epsilons, direction: str) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) δ(ε) (F2) with the float budget applied in the safe direction; "both" = max."""
        eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
        directions = ("remove", "add") if check_direction(direction) == "both" else (direction,)
        lower = np.max([self.plds[d, "lower"].delta_bound(eps) for d in directions], axis=0)
        upper = np.max([self.plds[d, "upper"].delta_bound(eps) for d in directions], axis=0)
        return lower, upper

    def limits(self, epsilons, direction: str, rtol: float = 1e-2) -> tuple[str, ...]:
        """Why (lower, upper) at these ε may not be resolved to relative rtol: float budget, δ below the
        delta_floor of the tail-accurate mode, or window too small."""
        eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
        directions = ("remove", "add") if check_direction(direction) == "both" else (direction,)
        notes = []
        _, upper = self.delta(eps, direction)
        budget = max(self.plds[d, b].float_error for d in directions for b in ("lower", "upper"))
        floor = self.budget.delta_floor
        for e, u in zip(eps, upper):
            if 2 * budget > rtol * u:
                notes.append(f"eps={e:g}: float64 budget {2 * budget:.2e} exceeds {rtol:g} of delta {u:.2e}")
            if u < (1 - rtol) * floor:
                notes.append(f"eps={e:g}: delta {u:.2e} lies below delta_floor {floor:.2e}, the relative accuracy "
                             "of the tails is not tracked there")
            if self.steps * math.exp(abs(e)) > self.budget.window:
                notes.append(f"eps={e:g}: t*exp(|eps|) lies beyond the window {self.budget.window:.6g}")
        return tuple(notes)

    def epsilon(self, delta: float, direction: str) -> tuple[float, float]:
        """(lower, upper) ε(δ) (F2, I1); "both" = max over directions."""
        directions = ("remove", "add") if check_direction(direction) == "both" else (direction,)
        return (max(self.plds[d, "lower"].epsilon(delta) for d in directions),
                max(self.plds[d, "upper"].epsilon(delta) for d in directions))


def allocation(law: LossLaw, steps, *, epsilon_max: float = 0.0, grid_step: float | None = None,
               tail: float = TAIL, max_points: int = MAX_POINTS, delta_floor: float | None = None) -> Allocation:
    """Lower and upper PLDs of 1-out-of-t random allocation (F23–F26) for both directions, with the budget.

    epsilon_max: largest |ε| that must lie inside the window (S up to t·e^{|ε|}); grid_step: h in units of X
    (default GRID_REL·sd(X), at most GRID_REL_T·t, shrunk to divide the span of a law with atoms at both ends);
    tail: mass budget of the Bernstein cuts and of the single-step quantile that widens the window;
    max_points: cap on the grid length (the window shrinks first, then h grows; both are reported).
    delta_floor: tail-accurate mode (module docstring) — δ values down to delta_floor keep relative accuracy;
    tail is lowered to TAIL_SHARE·delta_floor if larger. `float_error` then only holds rel·dropped terms (far
    below tail). Slower than the default mode, whose absolute float budget is ~1e-11 … 1e-10 at t = 1000.
    """
    t = integer("steps", steps)
    if not (isinstance(tail, float | int) and 0 < tail < 1e-3):
        raise InvalidParameter("tail", tail, "must lie in (0, 1e-3)")
    if delta_floor is not None and not (isinstance(delta_floor, float | int) and 0 < delta_floor < 1):
        raise InvalidParameter("delta_floor", delta_floor, "must lie in (0, 1)")
    if delta_floor is not None:
        tail = min(tail, TAIL_SHARE * delta_floor)
    if not math.isfinite(epsilon_max):
        raise InvalidParameter("epsilon_max", epsilon_max, "must be finite")
    if not (isinstance(max_points, int) and max_points >= 64):
        raise InvalidParameter("max_points", max_points, "must be an integer >= 64")
    offset, span = _support(law)
    mean = 1.0 - law.p_inf - offset
    second, x_tail = _moments(law, tail)
    second = max(second + offset * offset - 2 * offset * (1.0 - law.p_inf), 0.0)  # E[(X − o)²]
    warnings = []
    if grid_step is None:
        h = _default_step(second - mean * mean, t, span)
    else:
        h = float(grid_step)
        if not (math.isfinite(h) and h > 0):
            raise InvalidParameter("grid_step", grid_step, "must be a finite number > 0")
    c = math.sqrt(2.0 * math.log(2 * t.bit_length() / tail))
    # what the sum needs (Bernstein range) and the single-step tail, then the ε range asked for; when the arrays
    # would pass max_points, the ε range is given up first (ε beyond the window are still answered soundly from
    # the top bin, loosely), then the single-step tail (window_reduced), and only then is h enlarged — never
    # because of ε alone (a huge h makes the contraction's class arithmetic meaningless, issue #10 item 2)
    needed = t * mean + c * math.sqrt(t * second) + h
    with_tail = needed + max(x_tail - offset, 0.0)
    window = max(with_tail, t * math.exp(min(abs(epsilon_max), 700.0)) - t * offset + h)
    window_reduced = False
    while True:
        plan = _plan(t, h, window, mean, second, c)
        longest = max(hi - lo + 1 for lo, hi in plan.windows.values())
        if longest <= max_points:
            break
        cut = window - 1.05 * (longest - max_points) * h
        if window > with_tail:
            window = max(with_tail, cut)
            warnings.append("window ends below t*exp(|epsilon_max|): larger epsilons are bounded from the top bin "
                            "(sound, not tight)")
        elif window > needed:
            window = max(needed, cut)
            window_reduced = True
            warnings.append("window reduced below the single-step tail quantile: the lower remove bound loses "
                            "the mass beyond it")
        else:
            h *= 1.05 * longest / max_points
            warnings.append("grid_step enlarged to keep arrays within max_points")
    up_law = spread(law, h, plan.single_top, offset)
    low_law = contract(law, h, plan.single_top, offset)
    if delta_floor is None:
        up, low = _power(up_law, plan, None), _power(low_law, plan, None)
    else:
        up_law, low_law = _envelope(law, up_law), _envelope(law, low_law)
        rho = min(REL_MAX, max(REL_MIN, REL_TARGET / t))
        floor = rho * delta_floor / (2 * t * max(1.0, offset + plan.window_index * h / t))
        modes = _Tail(True, rho, floor), _Tail(False, rho, floor)
        up, low = _power(up_law, plan, modes[0]), _power(low_law, plan, modes[1])
        if any(mode.unresolved for mode in modes):
            warnings.append(f"tail-accurate mode: {sum(mode.unresolved for mode in modes)} output blocks kept tail "
                            f"sums less accurate than 10*rho={10 * rho:.0e} (still valid bounds; the bracket shows it)")
    plds, float_errors = {}, {}
    for d in ("remove", "add"):
        for b, node, grid_law in (("upper", up, up_law), ("lower", low, low_law)):
            pld = _pld(node, grid_law, t, d, b, delta_floor is not None)
            plds[d, b] = pld
            float_errors[d, b] = pld.float_error
    top_weight = (offset + plan.single_top * h) * float(up_law.masses[-1]) + up_law.top_excess
    budget = Budget(
        grid_step=h, offset=offset, window=t * offset + plan.window_index * h,
        single_top=offset + plan.single_top * h, single_top_mass=float(up_law.masses[-1]), single_top_weight=top_weight,
        dropped=(up.dropped, low.dropped), overflow=(float(up.arr[-1]), float(low.arr[-1])),
        float_error=float_errors, warnings=tuple(dict.fromkeys(warnings)), delta_floor=delta_floor or 0.0,
        window_reduced=window_reduced,
    )
    return Allocation(t, plds, budget)


def allocation_delta(law: LossLaw, steps, epsilons, direction: str = "both", *, grid_step: float | None = None,
                     tail: float = TAIL, max_points: int = MAX_POINTS,
                     delta_floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) arrays of δ(ε) of one epoch of random allocation, k = 1 (F2, F23, F25).

    The window covers every requested ε; see `allocation` for the parameters and the soundness argument.
    """
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if eps.size == 0 or not np.all(np.isfinite(eps)):
        raise InvalidParameter("epsilons", epsilons, "must be a non-empty array of finite numbers")
    result = allocation(law, steps, epsilon_max=float(np.max(np.abs(eps))), grid_step=grid_step, tail=tail,
                        max_points=max_points, delta_floor=delta_floor)
    return result.delta(eps, direction)


def allocation_plds(law: LossLaw, steps, *, epsilon_max: float = 0.0, grid_step: float | None = None,
                    tail: float = TAIL, max_points: int = MAX_POINTS, delta_floor: float | None = None) -> dict:
    """{(direction, bound): PLD} for direction in remove|add and bound in upper|lower (F7, F26).

    remove: law of ln(S/t) under P̄_t (masses (s/t)·q(s), +inf atom P_s plus the moved moments);
    add: law of −ln(S/t) under Q^t (S = 0 → +inf). Upper ones keep all mass, lower ones drop (`truncated`).
    """
    return allocation(law, steps, epsilon_max=epsilon_max, grid_step=grid_step, tail=tail,
                      max_points=max_points, delta_floor=delta_floor).plds


# ------------------------------------------------------------------------------------------ choices


#: planning (`_moments`, `_support`) only looks at losses up to this: e^ℓ stays finite in float64, and a single-step
#: tail beyond it cannot be held by any window (nor by the geometric fallback's grid), so it does not reduce the
#: window; that mass goes to the top bin (upper: +inf) or to `_extreme_atoms` (lower)
_PLAN_LOSS = 300.0


def _moments(law: LossLaw, tail: float) -> tuple[float, float]:
    """Estimate of E_Q[X²] = E_P[e^ℓ] (only used to choose h and the cuts) and the upper quantile of X.

    P-masses of ℓ-cells (−inf, a], (a, ·], … (atoms included) weighted by e^{right end}, plus the tail beyond b.
    """
    a, b = law.quantile_range(tail)
    if b > _PLAN_LOSS:  # e^b beyond float64: that mass goes to the top bin / `_pld`'s high atoms; underestimating
        # the moments here only moves the window and the Bernstein cuts, both accounted for soundly
        grid = np.linspace(min(a, _PLAN_LOSS), _PLAN_LOSS, 4001)
        cells = np.diff(np.concatenate([[0.0], np.asarray(law.cdf_p(grid), float)]))
        return float(np.dot(np.maximum(cells, 0.0), np.exp(grid))), 0.0
    grid = np.linspace(a, b, 4001)
    cells = np.diff(np.concatenate([[0.0], np.asarray(law.cdf_p(grid), float)]))
    second = float(np.dot(np.maximum(cells, 0.0), np.exp(grid))) + float(law.sf_p(b)) * math.exp(b)
    return second, math.exp(b)


def _support(law: LossLaw) -> tuple[float, float]:
    """Grid offset o = min X (0 if X has an atom at 0 or no positive lower bound) and the span to align.

    span > 0 when the extreme values of X are atoms (finite pairs, Laplace): the default step then divides it,
    so both extreme atoms are grid points (exact for two-point laws such as randomized response).
    The offset is 0 once e^lo leaves the normal float range: a subnormal e^lo carries few correct bits, and an
    offset above the smallest X put its Q-mass above it, lowering the upper add δ (pair with P = 1e-315 against
    Q = 1/3: upper 0.00999999999006 < exact 0.00999999999999; found by test_extreme_losses).
    """
    lo, hi = law.support()
    values, _, _ = law.atoms()
    offset = 0.0 if law.q_neg_inf > 0 or not math.isfinite(lo) else math.exp(lo)
    if offset < _OFFSET_MIN:
        offset = 0.0
    ends = values.size and float(values[-1]) == hi and (law.q_neg_inf > 0 or float(values[0]) == lo)
    return offset, (math.exp(hi) - offset if ends and hi <= _PLAN_LOSS else 0.0)


def _default_step(variance: float, t: int, span: float) -> float:
    h = GRID_REL * min(math.sqrt(max(variance, 0.0)) or 1.0, GRID_REL_T / GRID_REL * t)
    return span / math.ceil(span / h) if span > 0 else h


@dataclass(frozen=True)
class _Plan:
    """Exponentiation by squaring (F53 Alg. 3, E14): node windows [lo, hi] in grid indices, keyed by name."""

    bits: tuple[int, ...]
    windows: dict
    single_top: int
    window_index: int


def _plan(t: int, h: float, window: float, mean: float, second: float, c: float) -> _Plan:
    """Windows: node of m summands keeps [L(m), H]; H is set top-down so a top bin always lands in a top bin."""
    def cut(m: int) -> int:
        return max(0, int(math.floor((m * mean - c * math.sqrt(m * second)) / h)))

    top_bit = t.bit_length() - 1
    bits = tuple(j for j in range(top_bit + 1) if t >> j & 1)
    counts = [sum(1 << j for j in bits[:i + 1]) for i in range(len(bits))]
    w = int(math.ceil(window / h))
    hi_acc = [0] * len(bits)
    need = {j: 0 for j in range(top_bit + 1)}
    hi_acc[-1] = w
    for i in range(len(bits) - 1, 0, -1):
        hi_acc[i - 1] = max(hi_acc[i] - cut(1 << bits[i]), cut(counts[i - 1]))
        need[bits[i]] = max(need[bits[i]], hi_acc[i] - cut(counts[i - 1]))
    need[bits[0]] = max(need[bits[0]], hi_acc[0])
    hi_pow = [0] * (top_bit + 1)
    hi_pow[top_bit] = need[top_bit]
    for j in range(top_bit - 1, -1, -1):
        hi_pow[j] = max(need[j], hi_pow[j + 1] - cut(1 << j))
    windows = {("P", j): (cut(1 << j), max(hi_pow[j], cut(1 << j) + 1)) for j in range(top_bit + 1)}
    for i in range(len(bits)):
        windows["A", i] = (cut(counts[i]), max(hi_acc[i], cut(counts[i]) + 1))
    return _Plan(bits, windows, windows["P", 0][1], w)


# ------------------------------------------------------------------------------------ convolution


@dataclass
class _Node:
    """Q-law of a partial sum on grid indices lo..hi; the entry at hi is the top bin (values ≥ hi·h).

    top_excess = E[S − hi·h; top bin]; dropped / dropped_moment: Q-mass and E[S; ·] cut so far.
    Float bounds against the same computation in exact arithmetic on the same single-step law: every mass and
    moment has relative error ≤ rel plus an absolute part, ℓ1 ≤ err over all masses and ≤ err_moment over all
    moments.
    """

    arr: np.ndarray
    lo: int
    top_excess: float
    dropped: float
    dropped_moment: float
    rel: float
    err: float
    err_moment: float

    @property
    def hi(self) -> int:
        return self.lo + self.arr.size - 1

    def kept_moment(self, h: float) -> float:
        return h * _dot(self.arr, np.arange(self.lo, self.hi + 1, dtype=float)) + self.top_excess


def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a·b of non-negative arrays by pairwise summation: relative error ≤ γ_{⌈log2 n⌉+1}."""
    return float(np.sum(a * b))


def _pairwise(n: int) -> float:
    return _gamma(max(1, math.ceil(math.log2(max(n, 2)))) + 1)


def _fft_rel(n: int) -> float:
    """Relative 2-norm error ρ of one length-n FFT (Higham Thm 24.2 with twiddle error u), times FFT_SAFETY."""
    levels = max(1, math.ceil(math.log2(n)))
    gamma4 = _gamma(4)
    eta = _U + gamma4 * (math.sqrt(2) + _U)
    return FFT_SAFETY * levels * eta / (1 - levels * eta)


def _fft_bound(n_fft: int, size: int, pairs) -> float:
    """ℓ1 bound of the round-off of Σ x*y over `pairs` computed with length-n_fft transforms.

    Per product: ‖ĉ − c‖₂ ≤ (2ρ + 2ρ²√N + 4γ₂)(‖x‖₁‖y‖₂ + ‖x‖₂‖y‖₁) (FFT model: ρ per transform, √2γ₂ per complex
    product, ‖x̂‖_∞ ≤ ‖x‖₁); ‖·‖₁ ≤ √size ‖·‖₂.
    """
    rho = _fft_rel(n_fft)
    k = 2 * rho + 2 * rho * rho * math.sqrt(n_fft) + 4 * _gamma(2)
    total = sum(float(x.sum()) * math.sqrt(float(np.dot(y, y))) + math.sqrt(float(np.dot(x, x))) * float(y.sum())
                for x, y in pairs)
    return math.sqrt(size) * k * total


def _head(a: np.ndarray) -> tuple[int, int]:
    """Shortest index range [i, j) outside which a has mass ≤ HEAD_TAIL·Σa (half at each end)."""
    cut = 0.5 * HEAD_TAIL * float(a.sum())
    i = int(np.searchsorted(np.cumsum(a), cut, side="right"))
    j = a.size - int(np.searchsorted(np.cumsum(a[::-1]), cut, side="right"))
    return (i, j) if i < j else (0, a.size)


def _convolve(a: np.ndarray, b: np.ndarray | None) -> tuple[np.ndarray, float, float]:
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
        return np.convolve(a, bb), _gamma(min(na, nb) + 1), 0.0
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
    c[i0 + j0:i0 + j0 + head.size] += head
    return c, _gamma(min(i1 - i0, j1 - j0) + 2), _fft_bound(n_fft, size, pairs)


@dataclass
class _Tail:
    """Tail-accurate mode: direction of the node arrays, accuracy ρ per convolution, negligible tail mass, and a
    count of the output blocks left unresolved (`_blocked`)."""

    upper: bool
    rho: float
    floor: float
    unresolved: int = 0


def _convolve_tail(a: np.ndarray, b: np.ndarray | None, tail: _Tail, limit: int) -> tuple[np.ndarray, float]:
    """Directed convolution of non-negative arrays (b None: a*a): (c, rel) with a*b ≤ (1 + rel)·c entrywise for
    tail.upper, c ≤ (1 + rel)·a*b otherwise. Entries from `limit` on are only used through their sums (top bin).

    The last entries (top bins, which may hold far more mass than their neighbours) enter as exact scalings of
    the other array; the rest goes through `_directed`.
    """
    bb = a if b is None else b
    out = np.zeros(a.size + bb.size - 1)
    if a.size > 1 and bb.size > 1:
        out[:a.size + bb.size - 3] = _directed(a[:-1], None if b is None else bb[:-1], tail, limit)
    out[a.size - 1:] += a[-1] * bb
    out[bb.size - 1:a.size + bb.size - 2] += bb[-1] * a[:-1]
    return out, _gamma(4)


def _directed(a: np.ndarray, b: np.ndarray | None, tail: _Tail, limit: int) -> np.ndarray:
    """a*b (b None: a*a) moved by its error bound: up (tail.upper) or down (clipped at 0), up to a relative 2u.

    Lattice arrays (all non-zero entries on a common period) are convolved on the period. Short inputs are
    convolved directly (error ≤ (n + 2)·1.01u·ĉ + n·TINY per entry), long ones blockwise (`_blocked`), so
    relative accuracy in both tails carries over.
    """
    bb = a if b is None else b
    out = np.zeros(a.size + bb.size - 1)
    ia, ib = np.flatnonzero(a), np.flatnonzero(bb)
    if ia.size == 0 or ib.size == 0:
        return out
    d = max(1, math.gcd(int(np.gcd.reduce(ia - ia[0])), int(np.gcd.reduce(ib - ib[0]))))
    x, y = a[ia[0]:ia[-1] + 1:d], bb[ib[0]:ib[-1] + 1:d]
    if x.size * y.size <= REL_DIRECT_WORK or min(x.size, y.size) <= 64:
        c = np.convolve(x, y)
        short = min(x.size, y.size)
        err, missing = (short + 2) * 1.01 * _U * c + short * TINY, 0.0
    else:
        c, err, missing = _blocked(x, None if b is None else y, tail, max(0, -(-(limit - ia[0] - ib[0]) // d)))
    c = c + err + missing if tail.upper else np.maximum(c - err, 0.0)
    start = ia[0] + ib[0]
    out[start:start + d * c.size:d] = c
    return out


@dataclass(frozen=True)
class _Blocks:
    """An array cut into rows of BLOCK entries (zero padded) with their logs and per-row mass, largest entry,
    largest |log| of the positive entries and least-squares slope of log x over them — 0 unless the largest
    entry is the first or last positive one (a row with a mode inside is not flattened by any tilt)."""

    rows: np.ndarray
    logs: np.ndarray
    mass: np.ndarray
    top: np.ndarray
    log_size: np.ndarray
    slope: np.ndarray

    @staticmethod
    def of(x: np.ndarray) -> "_Blocks":
        rows = np.zeros(-(-x.size // BLOCK) * BLOCK)
        rows[:x.size] = x
        rows = rows.reshape(-1, BLOCK)
        positive = rows > 0
        with np.errstate(divide="ignore"):
            logs = np.log(rows)
        finite = np.where(positive, logs, 0.0)
        at = np.where(positive, np.arange(BLOCK, dtype=float), 0.0)
        n, sa, sl = positive.sum(1), at.sum(1), finite.sum(1)
        denominator = n * (at * at).sum(1) - sa * sa
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(denominator > 0, (n * (at * finite).sum(1) - sa * sl) / denominator, 0.0)
        where, last = np.argmax(rows, axis=1), BLOCK - 1 - np.argmax(positive[:, ::-1], axis=1)
        slope[(where != np.argmax(positive, axis=1)) & (where != last)] = 0.0
        return _Blocks(rows, logs, rows.sum(1), rows.max(1), np.abs(finite).max(1), slope)


def _window_min(xb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per block: running minima from each entry to the block end (suffix) and from the block start (prefix)."""
    return np.minimum.accumulate(xb[:, ::-1], axis=1)[:, ::-1], np.minimum.accumulate(xb, axis=1)


def _min_from(minima: tuple[np.ndarray, np.ndarray], start: np.ndarray) -> np.ndarray:
    """min(x[b : b + BLOCK]) for every b in `start` (0 where the window leaves the array)."""
    suffix, prefix = minima
    rows = suffix.shape[0]
    q, r = np.divmod(start, BLOCK)
    inside = (start >= 0) & (q < rows) & ((r == 0) | (q + 1 < rows))
    q, r = np.where(inside, q, 0), np.where(inside, r, 0)
    rest = np.where(r > 0, prefix[np.minimum(q + 1, rows - 1), np.maximum(r - 1, 0)], np.inf)
    return np.where(inside, np.minimum(suffix[q, r], rest), 0.0)


def _block_floor(xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
    """Lower bounds of x*y on output blocks: c_s ≥ x_a·min(y[s − a]) with a each block's largest entry (both ways)."""
    starts = np.arange(xb.shape[0] + yb.shape[0] + 1) * BLOCK
    out = np.zeros(starts.size)
    pairs = ((xb, _window_min(yb)),) if xb is yb else ((xb, _window_min(yb)), (yb, _window_min(xb)))
    for ab, minima in pairs:
        arg = np.argmax(ab, axis=1)
        top = ab[np.arange(ab.shape[0]), arg]
        where = arg + np.arange(ab.shape[0]) * BLOCK
        out = np.maximum(out, np.max(top[:, None] * _min_from(minima, starts[None, :] - where[:, None]), axis=0))
    return out


def _tilted(x: _Blocks, y: _Blocks, i: np.ndarray, j: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tilted FFT convolutions of the block pairs (x_i, y_j), tilt θ per pair, with compose's per-entry error model
    (`_fft_run`, vectorized): rows of (ĉ, err) of length 2·BLOCK (last entry 0), |ĉ − c| ≤ err.

    The exponent of a tilted entry, ln x_a + θa − max, is rounded with error ≤ u·(|ln x_a| + |θ|·BLOCK + |max|)
    per operation; the largest of these per pair is `magnitude`."""
    size = 2 * BLOCK
    shift = theta[:, None] * np.arange(BLOCK)
    with np.errstate(over="ignore", invalid="ignore"):
        lx, ly = x.logs[i] + shift, y.logs[j] + shift
        sx, sy = lx.max(1), ly.max(1)
        xt, yt = np.exp(lx - sx[:, None]), np.exp(ly - sy[:, None])
        exponent = (sx + sy)[:, None] - theta[:, None] * np.arange(size)
        magnitude = x.log_size[i] + y.log_size[j] + 2 * np.abs(theta) * BLOCK + np.abs(sx) + np.abs(sy)
        rel = (4 * magnitude + 2 * np.maximum(np.abs(exponent[:, 0]), np.abs(exponent[:, -1])) + 16) * _U
        raw = fft.irfft(fft.rfft(xt, size) * fft.rfft(yt, size), size)
        raw[:, -1] = 0.0
        np.maximum(raw, 0.0, out=raw)
        norms = np.maximum(np.sqrt((xt * xt).sum(1)) * yt.sum(1), xt.sum(1) * np.sqrt((yt * yt).sum(1)))
        unit = fft_error_bound(np.ones(1), np.ones(1), size)  # compose's bound per unit of the norms
        # untilt in log space: raw underflows exactly where e^exponent overflows (0·inf would be NaN)
        with np.errstate(divide="ignore"):
            value = np.exp(np.log(raw) + exponent)
            err = (np.exp(np.log(unit * norms + 2 * BLOCK * TINY)[:, None] + exponent)
                   + np.exp(np.log(1.01 * rel[:, None] * raw) + exponent) + 2 * TINY)
    return value, err


def _blocked(x: np.ndarray, y: np.ndarray | None, tail: _Tail,
             limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x*y (y None: x*x) from pairs of blocks of length BLOCK: (ĉ, err, missing), |ĉ − c| ≤ err per entry and
    c − ĉ ≤ err + missing (missing: bounds of the pairs left out, non-negative contributions).

    Pair (i, j) adds to output blocks i + j and i + j + 1, each entry at most M_ij = min(Σx_i·max y_j, max x_i·Σy_j).
    It is left out when M_ij is below ρ/(8·pairs per block) of the lower bound of those blocks (`_block_floor`),
    or when its 2·BLOCK·M_ij belongs to the smallest ones summing to at most the floor. Kept pairs are one tilted
    FFT each (`_tilted`), the tilt flattening the block of smaller mass (the other one mostly scales it): a block
    is nearly log-linear even where the array is not log-concave (heavy tails, where no global tilt works).
    Output blocks below `limit` whose upper or lower tail sums stay unresolved (`_unresolved`) are recomputed from
    direct convolutions of their pairs, as long as these number at most DIRECT_PAIRS.
    """
    xb = _Blocks.of(x)
    yb = xb if y is None else _Blocks.of(y)
    nx, ny = xb.rows.shape[0], yb.rows.shape[0]
    k = np.add.outer(np.arange(nx), np.arange(ny))
    weight = np.ones((nx, ny)) if y is not None else 2 * np.triu(np.ones((nx, nx)), 1) + np.eye(nx)  # x*x: i ≤ j
    bound = np.minimum(np.outer(xb.mass, yb.top), np.outer(xb.top, yb.mass)) * weight
    lower = _block_floor(xb.rows, yb.rows)
    candidate = bound > 0
    keep = candidate & (bound > tail.rho / (8 * (min(nx, ny) + 1)) * np.minimum(lower[k], lower[k + 1]))
    index = np.flatnonzero(keep)
    order = index[np.argsort(bound.flat[index])]
    keep.flat[order[np.cumsum(2 * BLOCK * bound.flat[order]) <= tail.floor]] = False
    left = candidate & ~keep
    missing = np.zeros(nx + ny + 1)
    np.add.at(missing, k[left], bound[left])
    np.add.at(missing, k[left] + 1, bound[left])
    c, err = np.zeros((nx + ny + 1, BLOCK)), np.zeros((nx + ny + 1, BLOCK))
    rows, cols = np.nonzero(keep)
    theta = -np.where(xb.mass[rows] <= yb.mass[cols], xb.slope[rows], yb.slope[cols])
    for start in range(0, rows.size, 64):
        i, j, tilt = rows[start:start + 64], cols[start:start + 64], theta[start:start + 64]
        ci, ei = _tilted(xb, yb, i, j, tilt)
        flat = ~np.isfinite(ei).all(1)
        if flat.any():
            ci[flat], ei[flat] = _tilted(xb, yb, i[flat], j[flat], np.zeros(int(flat.sum())))
        double = weight[i, j] > 1
        ci[double] *= 2.0
        ei[double] *= 2.0
        for p, b in enumerate((i + j).tolist()):
            c[b] += ci[p, :BLOCK]
            c[b + 1] += ci[p, BLOCK:]
            err[b] += ei[p, :BLOCK]
            err[b + 1] += ei[p, BLOCK:]
    redo = _unresolved(c, err, missing, tail, tail.rho, limit)
    by_block = {}
    for i, j in zip(rows.tolist(), cols.tolist()):
        by_block.setdefault(i + j, []).append((i, j))
    chosen, direct = set(), set()
    for b in redo.tolist():
        touching = set(by_block.get(b, []) + by_block.get(b - 1, []))
        if len(direct | touching) <= DIRECT_PAIRS:
            chosen.add(b)
            direct |= touching
    for b in chosen:
        c[b], err[b] = 0.0, 0.0
    for i, j in direct:
        ci = np.append(np.convolve(xb.rows[i], yb.rows[j]), 0.0).reshape(2, BLOCK)
        ei = (BLOCK + 2) * 1.01 * _U * ci + BLOCK * TINY
        for b in (i + j, i + j + 1):
            if b in chosen:
                c[b] += weight[i, j] * ci[b - i - j]
                err[b] += weight[i, j] * ei[b - i - j]
    if redo.size > len(chosen):
        tail.unresolved += _unresolved(c, err, missing, tail, 10 * tail.rho, limit).size
    n = x.size + (x if y is None else y).size - 1
    terms = min(nx, ny) + 2
    c, err, missing = c.ravel()[:n], err.ravel()[:n], np.repeat(missing, BLOCK)[:n]
    return c, err * (1 + 2 * _gamma(terms)) + 2 * _gamma(terms) * c, missing


def _unresolved(c: np.ndarray, err: np.ndarray, missing: np.ndarray, tail: _Tail, rho: float,
                limit: int) -> np.ndarray:
    """Output blocks holding a cell of SUBBLOCK entries, below `limit`, whose upper tail sum (from it up) or lower
    tail sum has error above rho times itself, unless that tail (with its error) is below the floor."""
    cells = (c.size // SUBBLOCK, SUBBLOCK)
    low, bad = np.maximum(c - err, 0.0).reshape(cells).sum(1), (err + missing[:, None]).reshape(cells).sum(1)
    up_c, up_e = np.cumsum(low[::-1])[::-1], np.cumsum(bad[::-1])[::-1]
    down_c, down_e = np.cumsum(low), np.cumsum(bad)
    flagged = (((up_e > rho * up_c) & (up_c + up_e > tail.floor))
               | ((down_e > rho * down_c) & (down_c + down_e > tail.floor)))
    flagged[limit // SUBBLOCK + 1:] = False
    return np.unique(np.flatnonzero(flagged) // (BLOCK // SUBBLOCK))


def _combine(x: _Node, y: _Node | None, lo: int, hi: int, h: float, tail: _Tail | None) -> _Node:
    """Node of X + Y (y None: X + X') on [lo, hi]: exact linear convolution, cut below lo, top bin at hi.

    Requires x.hi + y.lo ≥ hi and y.hi + x.lo ≥ hi (guaranteed by `_plan`), so every product involving a top
    bin lands in the new top bin; the new top excess adds the input excesses weighted by the other side's mass.
    Every accumulated quantity is a sum of non-negative terms (relative errors compose multiplicatively).
    In the tail-accurate mode (`tail`) the arrays are directed bounds (`_convolve_tail`), err stays 0.
    """
    yy = x if y is None else y
    if tail is None:
        c, rel_c, err_c = _convolve(x.arr, None if y is None else y.arr)
    else:
        (c, rel_c), err_c = _convolve_tail(x.arr, None if y is None else y.arr, tail, hi - x.lo - yy.lo), 0.0
    base = x.lo + yy.lo
    lo = max(lo, base)
    i_lo, i_hi = lo - base, hi - base
    idx = np.arange(base, base + c.size, dtype=float)
    low, high = c[:i_lo], c[i_hi:]
    arr = np.empty(hi - lo + 1)
    arr[:-1] = c[i_lo:i_hi]
    arr[-1] = float(high.sum())
    sx, sy = float(x.arr.sum()), float(yy.arr.sum())
    tx, ty = sx + x.dropped, sy + yy.dropped
    kx, ky = x.kept_moment(h), yy.kept_moment(h)
    mx, my = kx + x.dropped_moment, ky + yy.dropped_moment
    top_excess = h * _dot(high, idx[i_hi:] - hi) + x.top_excess * sy + yy.top_excess * sx
    dropped = x.dropped * ty + sx * yy.dropped + float(low.sum())
    dropped_moment = (x.dropped_moment * ty + x.dropped * my + kx * yy.dropped + sx * yy.dropped_moment
                      + h * _dot(low, idx[:i_lo]))
    rel = (1 + x.rel) * (1 + yy.rel) * (1 + rel_c) * (1 + _pairwise(c.size)) ** 2 * (1 + _gamma(4)) - 1
    err = x.err * (ty + yy.err) + yy.err * (tx + x.err) + err_c
    err_moment = (x.err_moment * (ty + yy.err) + yy.err_moment * (tx + x.err) + x.err * my + yy.err * mx
                  + err_c * h * float(idx[-1]))
    return _Node(arr, lo, top_excess, dropped, dropped_moment, rel, err, err_moment)


def _power(law: GridLaw, plan: _Plan, tail: _Tail | None) -> _Node:
    """t-fold sum by squaring (every squaring is done, E14), windows from the plan."""
    h = law.h
    node = _Node(law.masses.copy(), 0, law.top_excess, law.dropped, law.dropped_moment, 0.0, 0.0, 0.0)
    acc = None
    top_bit = max(j for kind, j in plan.windows if kind == "P")
    for j in range(top_bit + 1):
        if j > 0:
            node = _combine(node, None, *plan.windows["P", j], h, tail)
        if j in plan.bits:
            i = plan.bits.index(j)
            acc = node if acc is None else _combine(acc, node, *plan.windows["A", i], h, tail)
    return acc


def _envelope(law: LossLaw, grid_law: GridLaw) -> GridLaw:
    """Tail-accurate mode: the single-step law moved by its estimated evaluation error entry by entry (upper: +,
    lower: −, clipped at 0), so that error stays relative to each mass instead of entering a W1 budget.

    Cell Q-masses q and moments m = E_Q[X; cell] are off by at most `_evaluation_errors` (Δq, Δm). Spread: the mass
    sent up, (m − g_j·q)/h, is off by (Δm + g_j·Δq)/h + Δq plus its rounding 8u·g_{j+1}·q/h (q ≤ the two end
    masses); each point collects the errors of its two cells. Contraction: a cell's conditional mean moves by
    (Δm + g·Δq)/q, shifting (Δm + g·Δq)/h (plus the same rounding) between classes; it is charged to the cell's
    point and both neighbours (an estimate: `_merge` may also borrow further down). The top bin adds the tail
    errors (its excess Δm + T·h·Δq); every mass adds 8u for its own rounding.
    """
    h, o, top = grid_law.h, grid_law.offset, grid_law.masses.size - 1
    g = o + h * np.arange(top + 1)
    upper = grid_law.bound == "upper"
    edges = g if upper else o + h * np.concatenate([[0.0], np.arange(top) + 0.5])
    (dq, dq_tail), (dm, dm_tail), below = _evaluation_errors(law, edges)
    masses = grid_law.masses
    err = 8 * _U * masses
    err[0] += below
    err[-1] += dq_tail
    rounding = 8 * _U * g[1:] * (masses[:-1] + masses[1:]) / h
    if upper:
        shift = (dm + g[:-1] * dq) / h + dq + rounding
        err[:-1] += dq + shift
        err[1:] += shift
    else:
        shift = dq + (dm + edges[1:] * dq) / h + rounding
        err[:-1] += shift
        err[1:] += shift
        err[:-2] += shift[1:]
    excess = dm_tail + g[-1] * dq_tail + 8 * _U * grid_law.top_excess
    if upper:
        return replace(grid_law, masses=masses + err, top_excess=grid_law.top_excess + excess, w1_error=0.0)
    return replace(grid_law, masses=np.maximum(masses - err, 0.0), top_excess=max(grid_law.top_excess - excess, 0.0),
                   w1_error=0.0)


def _evaluation_errors(law: LossLaw, edges: np.ndarray):
    """Bounds on the evaluation error of the Q-mass and of E_Q[X; ·] (= P-mass) of each cell (e_i, e_{i+1}] and of
    the tail beyond the last edge, and of the Q-mass at or below the first edge: the loss law's accuracy contract
    (LossLaw.eval_rtol, eval_abs) at the values the CDF differences use at the edges (the smaller of CDF and SF).
    A purely atomic law has exact (zero) differences over cells without atoms: only cells holding atoms keep an
    error there.
    """
    with np.errstate(divide="ignore"):
        y = np.log(edges)
    rtol = np.asarray(law.eval_rtol(y), float)
    out = []
    for cdf, sf in ((law.cdf_q, law.sf_q), (law.cdf_p, law.sf_p)):
        w = rtol * np.minimum(np.asarray(cdf(y), float), np.asarray(sf(y), float)) + law.eval_abs
        out.append([w[:-1] + w[1:], float(w[-1])])
    below = (rtol[0] * float(np.asarray(law.cdf_q(y[0]), float)) + law.eval_abs) if np.isfinite(y[0]) else 0.0
    values, p_at, q_at = law.atoms()
    if values.size and abs(q_at.sum() + law.q_neg_inf - 1) + abs(p_at.sum() + law.p_inf - 1) < 1e-12:
        # atoms with y[i−1] < value ≤ y[i] (as the CDFs count them) lie in cell i − 1; index edges.size: the tail
        counts = np.bincount(np.searchsorted(y, values, side="left"), minlength=edges.size + 1)
        for pair in out:
            pair[0] = np.where(counts[1:edges.size] > 0, pair[0], 0.0)
            pair[1] = pair[1] if counts[edges.size] > 0 else 0.0
    return out[0], out[1], below


# ---------------------------------------------------------------------------------------------- PLDs


def _pld(node: _Node, law: GridLaw, t: int, direction: str, bound: str, relative: bool) -> PLD:
    """PLD of the discretized allocation pair (F7, F24): remove ln(S/t) under P̄_t, add −ln(S/t) under Q^t.

    upper: the top bin is Q-mass at the window top plus P-mass at +inf carrying its excess moment; cut mass is
    Q-mass at S = 0 plus P-mass at +inf carrying its moment (limits of mean-preserving spreads: the pair
    dominates). The relative float error is absorbed: masses × (1 + 2·rel), then the surplus over total 1 is
    removed from the lowest losses (the survival function stays above the exact one: stochastic domination).
    lower: remove keeps the top bin's Q-mass at the window top (its P̄-mass moved down, its excess P̄-weight
    dropped, so E[e^{−L}] ≤ 1 stays exact), add drops the top bin; cut mass is dropped; masses × (1 − 2·rel)
    (entrywise below the exact ones).
    float_error: the absolute convolution part + the single-step W1 estimate (Lipschitz 1 for remove, window/t
    for add over the window's ε range) + the rounding of one δ evaluation. `relative` (tail-accurate mode): the
    losses are moved outward by their rounding (upper: up, lower: down), after which each term of a δ evaluation
    has a relative error κ; that rounding is absorbed — all masses × (1 ± κ), the upper trimmed to total 1 + κ
    (it then dominates (1 + κ) times the exact PLD), so no absolute term remains for it.
    """
    h, o = law.h, law.offset
    idx = np.arange(node.lo, node.hi + 1, dtype=float)
    q = node.arr
    positive = (idx > 0) | (o > 0)
    ratio = o + idx[positive] * (h / t)  # S/t with S = t·o + idx·h
    logs = np.log(ratio) if o > 0 else np.log(idx[positive]) + math.log(h / t)
    q_pos = q[positive]
    zero_mass = float(q[~positive].sum())
    window_ratio = o + node.hi * h / t
    dropped_moment = node.dropped_moment + t * o * node.dropped  # E[S; cut] from E[S − t·o; cut]
    scale = 1 + 2 * node.rel if bound == "upper" else max(0.0, 1 - 2 * node.rel)
    if direction == "remove":
        masses = q_pos * ratio
        if bound == "upper":
            truncated = (node.top_excess + dropped_moment) / t * scale
            inf_mass = law.singular + truncated
        else:
            masses[-1] = window_ratio * float(q[-1])
            truncated = (node.top_excess + dropped_moment) / t
            inf_mass = law.singular
        float_error = window_ratio * (node.err + node.rel * node.dropped) + node.err_moment / t + law.w1_error
        losses = logs
    else:
        masses = q_pos[::-1].copy()
        if bound == "upper":
            truncated = node.dropped * scale
            inf_mass = zero_mass * scale + truncated
        else:
            masses[0] = 0.0
            inf_mass = zero_mass * scale
            truncated = node.dropped + float(q[-1])
        float_error = node.err + max(1.0, window_ratio) * law.w1_error
        losses = -logs[::-1]
    masses = masses * scale
    # evaluating δ(ε) = Σ m(1 − e^{ε−l}) + inf_mass itself: non-negative terms, pairwise summation
    kappa = (math.log2(masses.size + 1) + 6) * _U
    if relative:  # losses (log of a rounded ratio) moved outward by their rounding, masses (q·ratio) by 4u more
        sign = 1.0 if bound == "upper" else -1.0
        losses = losses + sign * 8 * _U * (1 + np.abs(losses) + abs(math.log(h / t)))
        kappa += 4 * _U
        masses, inf_mass = masses * (1 + sign * kappa), inf_mass * (1 + sign * kappa)
    if bound == "upper":
        masses, inf_mass = _trim(masses, inf_mass, 1 + kappa if relative else 1.0)
    if not relative:
        float_error += kappa * (float(masses.sum()) + inf_mass)
    if bound == "lower":
        losses, masses = _extreme_atoms(losses, masses, law, t, direction, kappa)
    return PLD(losses, masses, inf_mass=inf_mass, truncated=truncated, float_error=float_error, bound=bound)


def _extreme_atoms(losses: np.ndarray, masses: np.ndarray, law: GridLaw, t: int, direction: str,
                   kappa: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower PLDs: the single-step outcomes `contract` left out because e^ℓ is beyond float64 (GridLaw.high /
    low) come back as atoms at losses no larger than their true ones (F2, F24; a LOWER bound only).

    The lower law is a sub-pair without those outcomes D (every hockey-stick term is ≥ 0, so the outcomes of the
    t-fold pair with a coordinate in D only add to δ). remove: under the component of P̄_t whose own step
    falls in D at an atom of loss v, ln(S/t) ≥ ln(e^v/t) = v − ln t, a P-mass p_v (in δ = E_P̄[(1 − e^{ε−L})_+],
    non-decreasing in L). add: when all t steps fall in D's low part (Q-mass w^t), S/t ≤ max e^ℓ ≤ e^{low_top},
    so −ln(S/t) ≥ −low_top. Losses are rounded down and masses lowered by their rounding (`kappa`).
    """
    if direction == "remove" and law.high_masses.size:
        extra = law.high_losses - math.log(t)
        extra_m = law.high_masses
    elif direction == "add" and law.low_mass > 0 and math.isfinite(law.low_top):
        extra = np.array([-law.low_top])
        extra_m = np.array([law.low_mass ** t])
    else:
        return losses, masses
    extra = extra - 8 * _U * (1.0 + np.abs(extra) + math.log(t))
    extra_m = extra_m * (1.0 - kappa - 8 * _U)
    keep = extra_m > 0
    if not np.any(keep):
        return losses, masses
    uniq, index = np.unique(np.concatenate([losses, extra[keep]]), return_inverse=True)
    return uniq, np.bincount(index, weights=np.concatenate([masses, extra_m[keep]]), minlength=uniq.size)


def _trim(masses: np.ndarray, inf_mass: float, total: float) -> tuple[np.ndarray, float]:
    """Remove the surplus over `total` from the lowest losses (keeps the survival function ≥ the exact one).

    Computed from the top: the highest losses (and the +inf atom) are kept while their sum stays ≤ total and the
    next lower entry gets the rest, so the kept mass is `total` even when the surplus dwarfs it (directed error
    bounds of 1e14 in the tail-accurate mode once made a prefix cumsum round the whole PLD away: an upper PLD
    with no mass and ε = −inf; found by verialloc fuzz --seed 7)."""
    if not (np.all(np.isfinite(masses)) and math.isfinite(inf_mass)):
        raise InternalError("allocation: non-finite masses in an upper PLD")
    if math.fsum(masses) + inf_mass <= total:
        return masses, inf_mass
    if inf_mass >= total:
        return np.zeros_like(masses), total
    suffix = np.cumsum(masses[::-1])[::-1] + inf_mass  # suffix[j] = Σ_{i ≥ j} m_i + inf (small terms first)
    j = int(np.searchsorted(-suffix, -total, side="left"))  # first index with suffix[j] ≤ total
    out = masses.copy()
    out[:j] = 0.0
    if j > 0:
        kept = math.fsum(out[j:]) + inf_mass
        out[j - 1] = max(total - kept, 0.0)
    return out, inf_mass
