"""Random allocation (k = 1) on geometric grids: Algorithms 1–7 of [003] (F52, F53), errata E14, E15, E17 fixed.

The allocation loss is the log of a sum of exp-PLDs (F26), so the t-fold sum is computed in exp-space on
geometric grids [e^{s + iα'}] (ratio r = e^{α'}): two such grids of equal length n sum into the grid of length n
starting at the sum of the first points (Alg. 5), so n never grows. Every rounding is one-sided:

* "upper" output (dominates the allocation PLD): remove rounds every exp-space sum UP (Alg. 1); add rounds
  DOWN because the final map x ↦ −ln(x/t) is decreasing (Alg. 2, F52);
* "lower" output (Remark 4.7): every rounding direction switched.

Exp-space atoms: the value 0 (e^{−∞}: the +∞ atom of D(L) in Alg. 1 and of L in Alg. 2, E17) and the value +∞.
Both are carried exactly through the convolutions; they are never folded into the grid or into each other.

Validity of the upper remove output is in the hockey-stick sense (F8, F49): it stochastically dominates
ψ→_t(L′) for the discretized realization L′ (Thm 4.6 (1) as proved), and the pair (f_{L′}, f_{−D(L′)})
dominates (P, Q). It need not stochastically dominate ψ→_t(L→) itself: e^{−D(L′)} replaces each value e^{ℓ}
(ℓ under Q, ℓ ≤ l_n) by e^{l_i} ≥ e^{ℓ} or by 0 with the same mean, a spread rather than an upper bound (cf.
F51). The add output and both lower outputs are stochastic bounds of the exact law.

Tightness (Thm 4.6 (2), I12) assumes the exp-PLDs have (almost) no mass at the value 0: a sum x + 0 below the
Alg. 5 grid start can only go to that start (upper) or to 0 (lower). The dual's rounding deficit in Alg. 1 is
O(α') and harmless; a pair with Q(P = 0) of order one (an atom of L← at +inf, of D(L→) at +inf) yields
valid but loose bounds. P(Q = 0) is harmless: it is the value +inf, carried exactly.

Float64: masses carry a relative error bound and an ℓ1 one (`GeometricDist.rel`, `.error`; geometric_conv's
docstring): the output masses are scaled by the relative bound in the PLD's direction and the ℓ1 bound becomes
`PLD.float_error`, so tail masses far below 1e-11 keep their relative accuracy (tiny δ, #13); grid points are
e^{s + iα'} for float s, α', so losses are exact up to ~1e-15 relative, and sums within ~1e-10 grid steps of
a grid point are rounded one step further in the safe direction.

Modules: this one holds the input laws, their discretization (Alg. 6) and Alg. 1, 2; the exp-space convolutions
(Alg. 3–5) are in geometric_conv. The pld method uses this algorithm as its heavy-tail fallback, when the
uniform exp-grid of the allocation had to end its window below the single-step tail.

Why this module is long: Algorithms 1, 2, 6 and 7 and their (α, β) report share one grid convention (a
`GeometricDist`'s start, ratio, exp-space atoms and float budgets); the convolution (Alg. 4/5) is geometric_conv.
Split further, each algorithm would restate the convention its rounding directions depend on.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ....errors import GridTooLarge, InvalidParameter
from ....mechanisms import Mechanism
from ....validation import direction as check_direction
from ....validation import integer, open_unit, positive
from ....mechanisms.loss_law import LossLaw
from ..pld import PLD
from .geometric_conv import GeometricDist, conv, exp_space, self_conv

BOUNDS = ("upper", "lower")
#: largest grid (points per exp-PLD) accepted: each convolution costs O(n²)
MAX_GRID = 200_000
#: unit roundoff of float64
_U = np.finfo(np.float64).eps / 2
#: cap on bisection steps of the quantile search (adjacent floats are reached after ~1100 at worst)
_SEARCH_ITER = 2000
#: largest per-mass relative error carried as relative; a mass whose error bound exceeds this share of it (a
#: difference of two close CDF values) keeps its error in the ℓ1 budget
_REL_CAP = 1e-6
#: slack for the float evaluation of the budgets themselves (n·u ≪ 1e-9 for every supported grid)
_SLACK = 1 + 1e-9


# ------------------------------------------------------------------------------------------ input laws


class LossVariable:
    """Law of one privacy-loss variable X (F1, F7): finite-part CDF/SF, finite atoms and atoms at ±inf."""

    def __init__(
        self,
        cdf: Callable,
        sf: Callable,
        atom_values,
        atom_masses,
        support: tuple[float, float],
        pos_inf: float = 0.0,
        neg_inf: float = 0.0,
        *,
        law: LossLaw,
        mirrored: bool = False,
    ):
        self.cdf, self.sf = cdf, sf  # P(−inf < X ≤ y), P(y < X < inf)
        self.law, self.mirrored = law, mirrored  # X = ℓ, or X = −ℓ (mirrored: its functions use the law at −y)
        self.atom_values = np.asarray(atom_values, dtype=np.float64)
        self.atom_masses = np.asarray(atom_masses, dtype=np.float64)
        self.support = support
        self.pos_inf, self.neg_inf = float(pos_inf), float(neg_inf)

    @classmethod
    def remove(cls, law: LossLaw) -> "LossVariable":
        """L→ = L_{P,Q}: ℓ under P (F6); +inf atom P(Q = 0)."""
        values, pm, _ = law.atoms()
        return cls(law.cdf_p, law.sf_p, values, pm, law.support(), pos_inf=law.p_inf, law=law)

    @classmethod
    def remove_dual(cls, law: LossLaw) -> "LossVariable":
        """−D(L_{P,Q}) = −L_{Q,P}: ℓ under Q (F7 (ii)); −inf atom Q(P = 0)."""
        values, _, qm = law.atoms()
        return cls(law.cdf_q, law.sf_q, values, qm, law.support(), neg_inf=law.q_neg_inf, law=law)

    @classmethod
    def add(cls, law: LossLaw) -> "LossVariable":
        """L← = L_{Q,P}: −ℓ under Q (F3, F6); +inf atom Q(P = 0)."""
        values, _, qm = law.atoms()
        neg_values, neg_masses = -values[::-1], qm[::-1]

        def at(y):
            return _atom_mass(neg_values, neg_masses, y)

        def cdf(y):
            return law.sf_q(-np.asarray(y, float)) + at(y)

        def sf(y):
            return np.maximum(law.cdf_q(-np.asarray(y, float)) - at(y), 0.0)

        lo, hi = law.support()
        return cls(cdf, sf, neg_values, neg_masses, (-hi, -lo), pos_inf=law.q_neg_inf, law=law, mirrored=True)

    def errors(self, y: np.ndarray, cdf: np.ndarray, sf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on the float error of cdf(y) and sf(y): the loss law's accuracy contract (LossLaw.eval_rtol,
        eval_abs; issue #10 item 10) at ±y, and for a mirrored variable the atom added to (CDF) or taken from
        (SF) the law's value, each a float within u of its probability, with that operation's own rounding."""
        rtol = np.asarray(self.law.eval_rtol(-y if self.mirrored else y), float)
        if not self.mirrored:
            return rtol * cdf + self.law.eval_abs, rtol * sf + self.law.eval_abs
        at = np.asarray(self.atom(y), float)
        return ((rtol + 2 * _U) * cdf + self.law.eval_abs, (rtol + 2 * _U) * (sf + at) + self.law.eval_abs)

    def atom(self, y):
        """Mass of the finite atom at y (0 where there is none)."""
        return _atom_mass(self.atom_values, self.atom_masses, y)


def _atom_mass(values: np.ndarray, masses: np.ndarray, y):
    y = np.asarray(y, float)
    if values.size == 0:
        return np.zeros(y.shape) if y.ndim else 0.0
    i = np.clip(np.searchsorted(values, y), 0, values.size - 1)
    return np.where(values[i] == y, masses[i], 0.0)


def _first_true(pred: Callable[[float], bool], var: LossVariable) -> float:
    """Smallest float y with pred(y), pred monotone False → True (bisection to adjacent floats, so a jump at
    an atom returns the atom itself)."""
    lo_s, hi_s = var.support
    if np.isfinite(lo_s) and pred(lo_s):
        return float(lo_s)
    a = lo_s if np.isfinite(lo_s) else None
    b = hi_s if np.isfinite(hi_s) else None
    step = 1.0
    if a is None:
        a = (min(0.0, b) if b is not None else 0.0) - step
        while pred(a):
            step *= 2
            a -= step
    if b is None:
        b, step = max(a, 0.0) + 1.0, 1.0
        while not pred(b):
            step *= 2
            b += step
    for _ in range(_SEARCH_ITER):  # invariant: not pred(a), pred(b)
        mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        if pred(mid):
            b = mid
        else:
            a = mid
    return float(b)


def _range(var: LossVariable, tail: float) -> tuple[float, float]:
    """[q(tail), q(1 − tail)] of the finite part (Alg. 6, line 1): P(X < lo) ≲ tail, P(hi < X < inf) ≤ tail."""
    lo = _first_true(lambda y: float(var.cdf(y)) + var.neg_inf >= tail, var)
    hi = _first_true(lambda y: float(var.sf(y)) <= tail, var)
    return lo, max(lo, hi)


# ------------------------------------------------------------------------------------------ Alg. 6


def _grid_size(lo: float, hi: float, alpha: float) -> int:
    """n = ⌈(hi − lo)/α⌉ + 1 (Alg. 6), raised until the float grid reaches hi."""
    width = (hi - lo) / alpha
    if width > MAX_GRID:
        raise GridTooLarge("alpha", alpha, f"a geometric grid of {width:.3g} points is needed (at most {MAX_GRID})")
    n = int(math.ceil(width)) + 1
    while lo + (n - 1) * alpha < hi:
        n += 1
    return n


def _discretize(
    var: LossVariable, start: float, alpha: float, size: int, bound: str
) -> tuple[PLD, np.ndarray, tuple[float, float]]:
    """Alg. 6 on the grid [start + iα]_{i<size}, rounding up ("upper") or down ("lower"); F53, I21.

    upper: finite mass in (l_{i−1}, l_i] → l_i, ≤ l_1 → l_1, > l_n → +inf;
    lower: finite mass in [l_i, l_{i+1}) → l_i, ≥ l_n → l_n, < l_1 → −inf.
    Atoms of X at ±inf stay where they are (exact; a realization has none at −inf, so upper keeps f(−inf) = 0).
    `truncated` is the finite tail sent to ±inf. Each mass is a difference of the smaller tail function (CDF
    below the median, SF above). Also returned: a bound on each mass's float error (the errors of its two
    operands, `LossVariable.errors`, plus the subtraction's rounding) and on the errors of the +inf and −inf
    atoms (the tail joins one; the law's own atoms are within 4u + eval_abs); their sum is `float_error`.
    """
    grid = start + alpha * np.arange(size)
    cdf = np.asarray(var.cdf(grid), dtype=np.float64)
    sf = np.asarray(var.sf(grid), dtype=np.float64)
    e_cdf, e_sf = var.errors(grid, cdf, sf)
    if bound == "upper":
        use_cdf = cdf <= sf
        masses = np.where(use_cdf, np.diff(cdf, prepend=0.0), np.concatenate([[cdf[0]], sf[:-1] - sf[1:]]))
        operand_errors = np.where(
            use_cdf, e_cdf + np.concatenate([[0.0], e_cdf[:-1]]), np.concatenate([[e_cdf[0]], e_sf[:-1] + e_sf[1:]])
        )
        tail, inf_mass, neg_inf_mass = float(sf[-1]), float(sf[-1]) + var.pos_inf, var.neg_inf
        atom_errors = (
            float(e_sf[-1]) + _U * inf_mass + 4 * _U * var.pos_inf + var.law.eval_abs,
            4 * _U * var.neg_inf + var.law.eval_abs,
        )
    else:
        atoms = var.atom(grid)
        at_least = sf + atoms  # P(l_i ≤ X < inf); the atom a float within u, the sum rounded
        below = cdf - atoms  # P(−inf < X < l_i)
        e_least = e_sf + _U * (atoms + at_least)
        e_below = e_cdf + _U * (atoms + np.abs(below))
        use_cdf = below <= at_least
        masses = np.where(
            use_cdf, np.append(np.diff(below), at_least[-1]), np.append(at_least[:-1] - at_least[1:], at_least[-1])
        )
        operand_errors = np.where(
            use_cdf,
            np.append(e_below[1:] + e_below[:-1], e_least[-1]),
            np.append(e_least[:-1] + e_least[1:], e_least[-1]),
        )
        tail = max(float(below[0]), 0.0)
        inf_mass, neg_inf_mass = var.pos_inf, tail + var.neg_inf
        atom_errors = (
            4 * _U * var.pos_inf + var.law.eval_abs,
            float(e_below[0]) + _U * neg_inf_mass + 4 * _U * var.neg_inf + var.law.eval_abs,
        )
    masses = np.maximum(masses, 0.0)
    errors = operand_errors + _U * masses
    pld = PLD(
        grid,
        masses,
        inf_mass=inf_mass,
        neg_inf_mass=neg_inf_mass,
        truncated=tail,
        float_error=float(np.sum(errors)) + sum(atom_errors),
        bound=bound,
    )
    return pld, errors, atom_errors


def _split(masses: np.ndarray, errors: np.ndarray) -> tuple[float, float]:
    """(rel, absolute): each error_i ≤ rel·mass_i, or error_i counts in `absolute` (ℓ1)."""
    covered = (masses > 0) & (errors <= _REL_CAP * masses)
    ratio = float(np.max(errors[covered] / masses[covered], initial=0.0))
    return ratio * _SLACK, float(np.sum(errors[~covered])) * _SLACK


def _relative_input(var: LossVariable, start: float, alpha: float, size: int, bound: str) -> tuple[PLD, float]:
    """`_discretize` with its float budget split (`_split`, the ±inf atoms as two more masses): the PLD's
    float_error is the ℓ1 part only."""
    disc, errors, atom_errors = _discretize(var, start, alpha, size, bound)
    rel, absolute = _split(np.append(disc.masses, [disc.inf_mass, disc.neg_inf_mass]), np.append(errors, atom_errors))
    return replace(disc, float_error=absolute), rel


def _dual_space(disc: PLD, rel: float, log_start: float, alpha: float, negligible: float) -> GeometricDist:
    """e^{−D(L)} of a discretized L with relative error rel (Alg. 7 = PLD.dual, E17): masses e^{−l}·f gain 3u; the
    +inf atom 1 − Σ e^{−l}f has error E (masses', weights', sum's), relative to the atom where negligible < E ≤
    _REL_CAP·atom, else ℓ1 (one rel covers all masses: E/atom = 1.2e-10 gave 1.2e-9 excess mass at β = 1e-9)."""
    dual = disc.dual()
    weighted = float(np.sum(dual.masses))
    largest = max(1.0, math.exp(-float(disc.losses[0])) * (1 + 2 * _U)) if disc.losses.size else 1.0  # max e^{−l}
    abs_part = disc.float_error * largest
    atom_error = (
        rel * weighted + abs_part + 1.01 * (3 + dual.masses.size.bit_length() + 2) * _U * (weighted + 1.0)
    ) * _SLACK
    rel_masses = ((1 + rel) * (1 + 3 * _U) - 1) * _SLACK
    atom = dual.inf_mass
    if atom > 0 and negligible < atom_error <= _REL_CAP * atom:
        rel_out, error = max(rel_masses, atom_error / atom * _SLACK), abs_part
    else:
        rel_out, error = rel_masses, abs_part + atom_error
    return exp_space(replace(dual, float_error=error), log_start, alpha, negate=True, rel=rel_out)


def disc_dist(var: LossVariable, alpha: float, beta: float, bound: str) -> PLD:
    """Alg. 6: grid of width α over [q(β), q(1 − β)], rounded in direction `bound` (F53, I21)."""
    lo, hi = _range(var, beta)
    return _discretize(var, lo, alpha, _grid_size(lo, hi, alpha), bound)[0]


# ------------------------------------------------------------------------------------------ Alg. 1, 2


@dataclass(frozen=True)
class GeometricReport:
    """What `allocation_pld_geometric` did.

    alpha, beta: the requested (α, β) — Thm 4.6 (F52) tightness: α' = α/(2⌈log2 t⌉+1) per discretization,
    β' = β/t truncated at each end of each of the t inputs; alpha_used = α'(1 + convolutions) ≤ α is the
    shift the roundings actually accumulate. grid_size: points per exp-PLD (constant through Alg. 5);
    truncated: finite mass of the input L→ (remove) or L← (add) outside its grid [q(β'), q(1 − β')], per copy
    (≤ 2β'); seconds: wall time.
    """

    direction: str
    bound: str
    steps: int
    alpha: float
    beta: float
    alpha_prime: float
    beta_prime: float
    alpha_used: float
    grid_size: int
    convolutions: int
    truncated: float
    seconds: float


def _to_pld(u: GeometricDist, t: int, negate: bool, bound: str, exact_inf: float) -> PLD:
    """Back from exp-space: ln(u/t) (remove, Alg. 1) or −ln(u/t) (add, Alg. 2). The value mapped to a loss of
    −inf is dropped (a lower bound only; `truncated`); for "upper", `truncated` is inf_mass − exact_inf."""
    losses = u.log_start + u.step * np.arange(u.size) - math.log(t)
    scale = 1 + 2 * u.rel + 4 * _U if bound == "upper" else 1 - 2 * u.rel - 4 * _U  # the relative budget, directed
    masses = u.masses * scale
    inf_mass, neg = (u.inf, u.zero) if not negate else (u.zero, u.inf)
    inf_mass *= scale
    if negate:
        losses, masses = -losses[::-1], masses[::-1]
    nz = np.flatnonzero(masses)
    if nz.size:
        losses, masses = losses[nz[0] : nz[-1] + 1], masses[nz[0] : nz[-1] + 1]
    else:
        losses, masses = losses[:0], masses[:0]
    if bound == "upper":
        truncated = max(0.0, inf_mass - exact_inf)
    else:
        truncated = neg
    return PLD(losses, masses, inf_mass=inf_mass, truncated=truncated, float_error=u.error, bound=bound)


def _outside(var: LossVariable, disc: PLD) -> float:
    """Finite mass of X outside the grid range: P(X < l_1) + P(l_n < X < inf)."""
    first, last = float(disc.losses[0]), float(disc.losses[-1])
    return float(var.cdf(first) - var.atom(first) + var.sf(last))


def _rand_alloc_rem(law: LossLaw, t: int, alpha: float, beta: float, bound: str) -> tuple[PLD, int, int, float]:
    """Alg. 1 (upper): U1 = e^{L}, V1 = e^{−D(L)} with L = disc-dist(L→) and D = PLD-dual(L) (Alg. 7 =
    PLD.dual); the +inf atom of D(L) is the value 0 (E17). Lower (Remark 4.7): the dual of a rounded-down
    realization is no distribution (Σ e^{−l} f can exceed 1), so ℓ under Q (= −D(L→), F7 (ii)) is rounded
    down directly on a grid of the same length."""
    p_var = LossVariable.remove(law)
    if bound == "upper":
        lo, hi = _range(p_var, beta)
        size = _grid_size(lo, hi, alpha)
        disc, rel = _relative_input(p_var, lo, alpha, size, "upper")
        u1 = exp_space(disc, lo, alpha, negate=False, rel=rel)
        v1 = _dual_space(disc, rel, lo, alpha, 1e-3 * beta)
    else:
        q_var = LossVariable.remove_dual(law)
        (lo, hi), (lo_q, hi_q) = _range(p_var, beta), _range(q_var, beta)
        size = max(_grid_size(lo, hi, alpha), _grid_size(lo_q, hi_q, alpha))
        disc, rel = _relative_input(p_var, lo, alpha, size, "lower")
        disc_q, rel_q = _relative_input(q_var, lo_q, alpha, size, "lower")
        u1 = exp_space(disc, lo, alpha, negate=False, rel=rel)
        v1 = exp_space(disc_q, lo_q, alpha, negate=False, rel=rel_q)
    count = 0
    if t > 1:
        v, count = self_conv(v1, t - 1, bound)
        u1 = conv(v, u1, bound)
        count += 1
    return _to_pld(u1, t, False, bound, law.p_inf), size, count, _outside(p_var, disc)


def _rand_alloc_add(law: LossLaw, t: int, alpha: float, beta: float, bound: str) -> tuple[PLD, int, int, float]:
    """Alg. 2 (upper): U = e^{−L} with L = disc-dist(L←, upper), self-convolved with DOWNWARD rounding since
    −ln(x/t) is decreasing (F52); the +inf atom of L is the value 0 (E17). Lower: every direction switched."""
    var = LossVariable.add(law)
    lo, hi = _range(var, beta)
    size = _grid_size(lo, hi, alpha)
    disc, rel = _relative_input(var, lo, alpha, size, bound)
    u = exp_space(disc, -(lo + (size - 1) * alpha), alpha, negate=True, rel=rel)
    inner = "lower" if bound == "upper" else "upper"
    u, count = self_conv(u, t, inner)
    return _to_pld(u, t, True, bound, law.q_neg_inf**t), size, count, _outside(var, disc)


def grid_points(law: LossLaw, steps: int, alpha: float, beta: float) -> int:
    """Points per exp-PLD of `allocation_pld_geometric` (its largest input grid), for cost estimates."""
    t = integer("steps", steps)
    a_p, b_p = alpha / (2 * (t - 1).bit_length() + 1), beta / t
    variables = (LossVariable.remove(law), LossVariable.remove_dual(law), LossVariable.add(law))
    return max(_grid_size(*_range(var, b_p), a_p) for var in variables)


def allocation_pld_geometric(
    mech_or_law: Mechanism | LossLaw, steps, direction: str, bound: str = "upper", *, alpha, beta
) -> tuple[PLD, GeometricReport]:
    """PLD of 1-out-of-t random allocation by Alg. 1 (remove) / Alg. 2 (add) of [003] (F26, F52, F53).

    remove: law of ln(P̄_t/Q^t) under P̄_t; add: law of ln(Q^t/P̄_t) under Q^t. "upper" dominates it
    (hockey-stick sense, F49), "lower" is dominated (Remark 4.7); (α, β)-tight per Thm 4.6 (see the module
    docstring for exp-space zero atoms). α' = α/(2⌈log2 t⌉+1), β' = β/t.
    """
    law = mech_or_law if isinstance(mech_or_law, LossLaw) else mech_or_law.loss_law()
    t = integer("steps", steps)
    d = check_direction(direction, allow_both=False)
    if bound not in BOUNDS:
        raise InvalidParameter("bound", bound, "must be one of " + "|".join(BOUNDS))
    a = float(positive("alpha", alpha))
    b = float(open_unit("beta", beta))
    levels = 2 * (t - 1).bit_length() + 1  # 2⌈log2 t⌉ + 1
    a_p, b_p = a / levels, b / t
    started = time.perf_counter()
    run = _rand_alloc_rem if d == "remove" else _rand_alloc_add
    pld, size, count, truncated = run(law, t, a_p, b_p, bound)
    report = GeometricReport(
        d, bound, t, a, b, a_p, b_p, a_p * (1 + count), size, count, truncated, time.perf_counter() - started
    )
    return pld, report
