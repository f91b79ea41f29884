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
estimate (`tail_accurate.envelope`); each convolution adds (upper) or subtracts (lower) a per-entry error bound
that keeps relative accuracy in both tails (`tail_accurate.convolve_tail`: exact scalings for top bins, lattice
compression, direct products, or block pairs with tilted FFTs); one δ evaluation's rounding is absorbed into the
masses (`readout.read_pld`).
Relative errors compound to about 2tρ (ρ per convolution); tails below `floor` (≈ ρ·delta_floor/(2t·window/t))
are left unresolved, still within the directed bounds. No absolute float term remains above the floor.

Modules: this one holds the entry (`allocation`, `Allocation`, `Budget`) and the choice of grid and window;
exp_grid the single-step spread and contraction, squaring the windowed t-fold sum, convolution the default-mode
convolutions, tail_accurate the tail-accurate mode, readout the PLDs read off the sum. geometric (with
geometric_conv) is the geometric-grid algorithm of [003] (F52, F53), the heavy-tail fallback of the pld method
when the window had to end below the single-step tail (`Budget.window_reduced`).

Why this module is long: the entry plans the windows, chooses the mode and the grid, and reads the PLDs off
under one error `Budget`, which the `Allocation` it returns carries; the steps themselves live in the modules
named above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....errors import InvalidParameter
from ....validation import direction as check_direction
from ....validation import integer
from ....mechanisms.loss_law import LossLaw
from .exp_grid import contract, spread
from .readout import read_pld
from .squaring import power, window_plan
from .tail_accurate import REL_MAX, REL_MIN, REL_TARGET, TAIL_SHARE, Tail, envelope

#: smallest grid offset used (below: 0, which is always ≤ min X); far above the subnormal range
_OFFSET_MIN = 1e-290
#: default grid step: GRID_REL·sd(X), but at most GRID_REL_T·t (resolves S ≤ t for small t)
GRID_REL = 0.15
GRID_REL_T = 2e-3
#: default mass budget: Bernstein cuts per node and the upper window's single-step quantile
TAIL = 1e-12
#: largest array (grid points) a node may hold; beyond it the grid step is enlarged
MAX_POINTS = 1 << 21
#: tail-accurate mode only while t times the single-step mass its envelope moves stays below this: beyond, the
#: envelopes compound to no relative accuracy (randomized response at ε0 = 1e-12: 0.023 per step, an upper PLD with
#: 6e65 truncated mass at t = 10⁴; at 0.1 the default mode's absolute budget already gave the tighter brackets)
ENVELOPE_DRIFT_MAX = 0.1


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
                notes.append(
                    f"eps={e:g}: delta {u:.2e} lies below delta_floor {floor:.2e}, the relative accuracy "
                    "of the tails is not tracked there"
                )
            if self.steps * math.exp(abs(e)) > self.budget.window:
                notes.append(f"eps={e:g}: t*exp(|eps|) lies beyond the window {self.budget.window:.6g}")
        return tuple(notes)

    def epsilon(self, delta: float, direction: str) -> tuple[float, float]:
        """(lower, upper) ε(δ) (F2, I1); "both" = max over directions."""
        directions = ("remove", "add") if check_direction(direction) == "both" else (direction,)
        return (
            max(self.plds[d, "lower"].epsilon(delta) for d in directions),
            max(self.plds[d, "upper"].epsilon(delta) for d in directions),
        )


def allocation(
    law: LossLaw,
    steps,
    *,
    epsilon_max: float = 0.0,
    grid_step: float | None = None,
    tail: float = TAIL,
    max_points: int = MAX_POINTS,
    delta_floor: float | None = None,
) -> Allocation:
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
    layout = _layout(law, t, tail, epsilon_max, grid_step, max_points)
    offset, h, plan, warnings = layout.offset, layout.h, layout.plan, list(layout.warnings)
    up_law = spread(law, h, plan.single_top, offset)
    low_law = contract(law, h, plan.single_top, offset)
    if delta_floor is not None:
        moved = envelope(law, up_law), envelope(law, low_law)
        drift = max(abs(math.fsum(m.masses) - math.fsum(g.masses)) for m, g in zip(moved, (up_law, low_law)))
        if t * drift > ENVELOPE_DRIFT_MAX:
            warnings.append(
                f"tail-accurate mode not used: the single-step masses carry float64 evaluation errors of {drift:.2g} "
                f"(losses far below the float64 resolution of e^loss) that would compound over t = {t} steps; "
                "default mode (absolute float budget)"
            )
            delta_floor = None
        else:
            up_law, low_law = moved
    if delta_floor is None:
        up, low = power(up_law, plan, None), power(low_law, plan, None)
    else:
        rho = min(REL_MAX, max(REL_MIN, REL_TARGET / t))
        floor = rho * delta_floor / (2 * t * max(1.0, offset + plan.window_index * h / t))
        modes = Tail(True, rho, floor), Tail(False, rho, floor)
        up, low = power(up_law, plan, modes[0]), power(low_law, plan, modes[1])
        if any(mode.unresolved for mode in modes):
            warnings.append(
                f"tail-accurate mode: {sum(mode.unresolved for mode in modes)} output blocks kept tail "
                f"sums less accurate than 10*rho={10 * rho:.0e} (still valid bounds; the bracket shows it)"
            )
    plds, float_errors = {}, {}
    for d in ("remove", "add"):
        for b, node, grid_law in (("upper", up, up_law), ("lower", low, low_law)):
            pld = read_pld(node, grid_law, t, d, b, delta_floor is not None)
            plds[d, b] = pld
            float_errors[d, b] = pld.float_error
    top_weight = (offset + plan.single_top * h) * float(up_law.masses[-1]) + up_law.top_excess
    budget = Budget(
        grid_step=h,
        offset=offset,
        window=t * offset + plan.window_index * h,
        single_top=offset + plan.single_top * h,
        single_top_mass=float(up_law.masses[-1]),
        single_top_weight=top_weight,
        dropped=(up.dropped, low.dropped),
        overflow=(float(up.arr[-1]), float(low.arr[-1])),
        float_error=float_errors,
        warnings=tuple(dict.fromkeys(warnings)),
        delta_floor=delta_floor or 0.0,
        window_reduced=layout.window_reduced,
    )
    return Allocation(t, plds, budget)


def allocation_delta(
    law: LossLaw,
    steps,
    epsilons,
    direction: str = "both",
    *,
    grid_step: float | None = None,
    tail: float = TAIL,
    max_points: int = MAX_POINTS,
    delta_floor: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) arrays of δ(ε) of one epoch of random allocation, k = 1 (F2, F23, F25).

    The window covers every requested ε; see `allocation` for the parameters and the soundness argument.
    """
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if eps.size == 0 or not np.all(np.isfinite(eps)):
        raise InvalidParameter("epsilons", epsilons, "must be a non-empty array of finite numbers")
    result = allocation(
        law,
        steps,
        epsilon_max=float(np.max(np.abs(eps))),
        grid_step=grid_step,
        tail=tail,
        max_points=max_points,
        delta_floor=delta_floor,
    )
    return result.delta(eps, direction)


def allocation_plds(
    law: LossLaw,
    steps,
    *,
    epsilon_max: float = 0.0,
    grid_step: float | None = None,
    tail: float = TAIL,
    max_points: int = MAX_POINTS,
    delta_floor: float | None = None,
) -> dict:
    """{(direction, bound): PLD} for direction in remove|add and bound in upper|lower (F7, F26).

    remove: law of ln(S/t) under P̄_t (masses (s/t)·q(s), +inf atom P_s plus the moved moments);
    add: law of −ln(S/t) under Q^t (S = 0 → +inf). Upper ones keep all mass, lower ones drop (`truncated`).
    """
    return allocation(
        law,
        steps,
        epsilon_max=epsilon_max,
        grid_step=grid_step,
        tail=tail,
        max_points=max_points,
        delta_floor=delta_floor,
    ).plds


@dataclass(frozen=True)
class _Layout:
    """The grid of one allocation: offset o, step h, the plan of its windows, whether the window had to end below
    the single-step tail (heavy tails: pld then uses the geometric-grid fallback), and what was given up."""

    offset: float
    h: float
    plan: object
    window_reduced: bool
    warnings: tuple


def planned(
    law: LossLaw,
    steps: int,
    *,
    epsilon_max: float = 0.0,
    grid_step: float | None = None,
    tail: float = TAIL,
    max_points: int = MAX_POINTS,
    delta_floor: float | None = None,
) -> tuple[bool, int]:
    """(window reduced, array entries) of `allocation` with these arguments, from its plan alone (no arrays):
    whether the window would end below the single-step tail (heavy tails: the pld method then uses the
    geometric-grid algorithm instead), and the entries of all its windows (its time is about proportional)."""
    if delta_floor is not None:
        tail = min(tail, TAIL_SHARE * delta_floor)
    layout = _layout(law, integer("steps", steps), tail, epsilon_max, grid_step, max_points)
    return layout.window_reduced, sum(hi - lo + 1 for lo, hi in layout.plan.windows.values())


def default_grid_step(law: LossLaw, steps: int, *, tail: float = TAIL) -> float:
    """The exp-grid step h `allocation` picks when grid_step is None (from the plan alone, no arrays)."""
    return _layout(law, integer("steps", steps), tail, 0.0, None, MAX_POINTS).h


def _layout(law: LossLaw, t: int, tail: float, epsilon_max: float, grid_step, max_points: int) -> _Layout:
    """Offset, step h and windows of `allocation` (arguments as there, already checked)."""
    offset, span = _support(law)
    mean = law.finite_p() - offset
    second, x_tail = _moments(law, tail, offset)
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
        plan = window_plan(t, h, window, mean, second, c)
        longest = max(hi - lo + 1 for lo, hi in plan.windows.values())
        if longest <= max_points:
            break
        cut = window - 1.05 * (longest - max_points) * h
        if window > with_tail:
            window = max(with_tail, cut)
            warnings.append(
                "window ends below t*exp(|epsilon_max|): larger epsilons are bounded from the top bin "
                "(sound, not tight)"
            )
        elif window > needed:
            window = max(needed, cut)
            window_reduced = True
            warnings.append(
                "window reduced below the single-step tail quantile: the lower remove bound loses the mass beyond it"
            )
        else:
            h *= 1.05 * longest / max_points
            warnings.append("grid_step enlarged to keep arrays within max_points")
    return _Layout(offset, h, plan, window_reduced, tuple(warnings))


# ------------------------------------------------------------------------------------------ choices


#: planning (`_moments`, `_support`) only looks at losses up to this: e^ℓ stays finite in float64, and a single-step
#: tail beyond it cannot be held by any window (nor by the geometric fallback's grid), so it does not reduce the
#: window; that mass goes to the top bin (upper: +inf) or to `readout._extreme_atoms` (lower)
_PLAN_LOSS = 300.0


def _moments(law: LossLaw, tail: float, offset: float) -> tuple[float, float]:
    """Estimate of E_Q[(X − o)²] = E_P[e^ℓ(1 − o·e^{−ℓ})²] (only used to choose h and the cuts) and the upper
    quantile of X.

    P-masses of ℓ-cells (−inf, a], (a, ·], … (atoms included) weighted at their right ends g by
    e^g·expm1(ln o − g)², plus the tail beyond b: never E_Q[X²] − 2o·E_Q[X] + o², whose terms cancel when the losses
    are far below one (X ≈ o ≈ 1: randomized response at ε0 = 1e-9 got E_Q[(X − o)²] = 0 instead of 1e-18, cuts
    that dropped all the mass and an upper ε of +inf; hostile-user pass).
    """
    a, b = law.quantile_range(tail)

    def weight(g):
        g = np.asarray(g, float)
        return np.exp(g) * np.expm1(math.log(offset) - g) ** 2 if offset > 0 else np.exp(g)

    if b > _PLAN_LOSS:  # e^b beyond float64: that mass goes to the top bin / `read_pld`'s high atoms; underestimating
        # the moments here only moves the window and the Bernstein cuts, both accounted for soundly
        grid = np.linspace(min(a, _PLAN_LOSS), _PLAN_LOSS, 4001)
        cells = np.diff(np.concatenate([[0.0], np.asarray(law.cdf_p(grid), float)]))
        return float(np.dot(np.maximum(cells, 0.0), weight(grid))), 0.0
    grid = np.linspace(a, b, 4001)
    cells = np.diff(np.concatenate([[0.0], np.asarray(law.cdf_p(grid), float)]))
    second = float(np.dot(np.maximum(cells, 0.0), weight(grid))) + float(law.sf_p(b)) * float(weight(b))
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
