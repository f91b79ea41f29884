"""LOWER bounds on δ(ε) and ε(δ) of random allocation A_{t,k}, any 1 ≤ k ≤ t, from a separable statistic (F8, F22).

Post-processing (F8): for any function g of one step's output, S = Σ_i g(ω_i) over the t released outputs of an
epoch is a function of the whole output, so the pair (law of S under P̄_{t,k}, law of S under Q^t) is a post-processing of
the allocation pair (F22, F23) and its hockey-stick divergence is at most the allocation's, in both directions:
    remove δ(ε) ≥ Σ_s [P_S(s) − e^ε Q_S(s)]_+ ,   add δ(ε) ≥ Σ_s [Q_S(s) − e^ε P_S(s)]_+ .
g is taken as a function of the single-step loss ℓ(ω) = ln P/Q(ω) (itself a function of ω) with values on a
lattice {j·h}: bin j = {y_j < ℓ ≤ y_{j+1}} ↦ j, the end bins take every finite loss beyond the cuts, and the
atoms ℓ = ±inf get bins of their own beyond those — any cuts give a valid bound; they only decide how tight it is. Then the law
of S is exactly a convolution of single-step lattice laws: under Q^t the t-fold power of the Q-law u of g;
under P̄_{t,k} (by symmetry over the k-subsets) the k-fold power of the P-law v times the (t−k)-fold power of u.
Over E epochs either one statistic sums all t·E outputs (the same convolutions with tE, kE and (t−k)E copies;
cheap while t·E is small, where the choice of g is searched), or the E statistics S_1, …, S_E are kept apart:
their pair is the E-fold product, bounded below by composing one epoch's directed laws as a lower PLD
(allocation.epoch_product; at least as tight in exact arithmetic, less the loss grid's rounding). The cuts follow the statistic g_p(ℓ) = ln(1 + p(e^ℓ − 1))/p (p = 0: e^ℓ − 1), the log-likelihood ratio of
Poisson subsampling at rate p: p = 0 is the k = 1 likelihood ratio Σ e^{ℓ_i} (F24), p = 1 the summed loss (for
the Gaussian, the summed output, F13 — exact at k = t), p ≈ k/t the separable approximation of the k-subset
likelihood ratio e_k(e^{ℓ_1}, …)/C(t, k). Every candidate is a valid lower bound; `lower_bound` keeps the best.

Float64 (every error pushed down): each single-step bin mass is a difference of CDF values (below the law's
median) or of survival functions (above it), with the loss law's accuracy contract (`LossLaw.eval_rtol`,
`eval_abs`) plus the subtraction's rounding as its error; the convolutions (`compose.convolve`: direct, or FFT
with the Higham error bound) return a per-entry error bound; powers are taken by squaring, and after every
convolution both tails holding at most `tail` mass are dropped. All of this is carried as one ℓ1 bound per law
(`_Law.err` ≥ ‖computed − exact‖₁; a convolution adds ‖b‖₁ + err_x·(‖y‖₁ + err_y) + ‖x‖₁·err_y; a dropped tail
adds its mass). The hockey-stick sum is 1-Lipschitz in ℓ1 in its first law and e^ε-Lipschitz in its second, so
    δ_lower = Σ_s [P̂_s − κQ̂_s]_+ − err_P − κ·err_Q − (rounding of the sum and of κ = e^ε)
is a lower bound of the exact post-processed divergence, hence of the allocation's. ε_lower(δ) is the largest ε
found by bisection with δ_lower(ε) > δ (strictly, verified at the returned value): the exact profile is
non-increasing, so δ(ε') > δ for every ε' ≤ ε and ε(δ) ≥ ε.
The absolute budget (~1e-13 … 1e-11) makes the bound weak below δ ≈ 1e-10 — never wrong.

Why this module is long: the statistic's lattice laws, their convolutions over epochs, the search over statistics
and the readout carry one ℓ1 error budget (`_Law.err`) through every step; split apart, a step could drop its
share of it unnoticed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....errors import InvalidParameter
from ....validation import direction as check_direction
from ....validation import integer
from ..compose import convolve
from ....mechanisms.loss_law import LossLaw
from .epoch_product import EpochProduct

_U = np.finfo(float).eps / 2
#: smallest δ resolved by default; the tails below follow it (`_tails`)
DELTA_FLOOR = 1e-10
#: at most this mass is dropped from each tail after every convolution (counted in the ℓ1 budget) …
TAIL = 1e-14
#: … and losses beyond the single-step quantiles at most SINGLE_TAIL (of P and Q) share the end bins
SINGLE_TAIL = 1e-12
#: lattice step h = sd_Q(g)/resolution (at most the width of the cut range / MIN_BINS): first pass, refinement
RESOLUTION, REFINED = 12.0, 24.0
MIN_BINS = 64
#: largest single-step lattice (the step is enlarged beyond it)
MAX_BINS = 20_000
#: cut range at most [−LOSS_CAP, LOSS_CAP] in loss (e^ℓ stays finite)
LOSS_CAP = 700.0
#: statistics tried by `lower_bound`: p = 0 (k = 1 ratio), p = k/t·multipliers, p = 1 (summed loss) …
P_MULTIPLIERS = (0.5, 0.75, 1.0, 1.5)
#: … while t·E is at most this; beyond, p = k/t alone at RESOLUTION, per epoch (σ = 1, k = 4, t = 10³, 10⁴: the
#: candidates' ε agree within 1e-4 relative, refinement gains 1.5e-4, and each costs as much as the whole bound)
SEARCH_MAX_COPIES = 2_000


@dataclass(frozen=True)
class _Law:
    """A directed bound on a law on the lattice {j·h}: masses[i] at index lo + i.

    bound "lower": masses ≤ exact entrywise (err = 0); "upper": exact ≤ masses + m for a non-negative m with
    ‖m‖₁ ≤ err (m: the tails dropped by truncation).
    """

    masses: np.ndarray
    lo: int
    err: float
    bound: str


def _one(bound: str) -> _Law:
    return _Law(np.ones(1), 0, 0.0, bound)


def statistic(p: float, losses) -> np.ndarray:
    """g_p(ℓ) = ln(1 + p(e^ℓ − 1))/p, p ∈ (0, 1]; g_0(ℓ) = e^ℓ − 1 (non-decreasing in ℓ)."""
    y = np.asarray(losses, float)
    with np.errstate(over="ignore"):
        if p == 0:
            return np.expm1(y)
        if p == 1:
            return y.copy()
        return np.log1p(p * np.expm1(y)) / p


def _inverse(p: float, g) -> np.ndarray:
    """The loss ℓ with g_p(ℓ) = g (−inf below the range of g_p)."""
    g = np.asarray(g, float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 1:
            return g.copy()
        inner = np.expm1(g) if p == 0 else np.expm1(p * g) / p
        return np.where(inner > -1, np.log1p(np.maximum(inner, -1)), -np.inf)


def _masses(law: LossLaw, cuts: np.ndarray, side: str) -> tuple[np.ndarray, np.ndarray]:
    """Masses of the finite losses in (−inf, c_1], (c_1, c_2], …, (c_n, inf) under P (side "p") or Q ("q"), and a
    per-bin bound on their float error (accuracy contract + the roundings of each difference)."""
    cdf, sf = (law.cdf_p, law.sf_p) if side == "p" else (law.cdf_q, law.sf_q)
    c, s = np.asarray(cdf(cuts), float), np.asarray(sf(cuts), float)
    rtol = np.asarray(law.eval_rtol(cuts), float)
    c_ext = np.concatenate([[0.0], c, [1.0]])
    s_ext = np.concatenate([[1.0], s, [0.0]])
    r_ext = np.concatenate([[0.0], rtol, [0.0]])
    low = c_ext[1:] <= 0.5  # below the median: difference of CDFs, else of survival functions
    low[0], low[-1] = True, False  # end bins: CDF at the first cut, survival at the last (no "1 −" needed)
    diff_c, diff_s = c_ext[1:] - c_ext[:-1], s_ext[:-1] - s_ext[1:]
    masses = np.maximum(np.where(low, diff_c, diff_s), 0.0)
    val_lo, val_hi = np.where(low, c_ext[:-1], s_ext[:-1]), np.where(low, c_ext[1:], s_ext[1:])
    err = 2 * (r_ext[:-1] * val_lo + r_ext[1:] * val_hi) + 2 * law.eval_abs + _U * masses
    return masses, (err + 2 * _U * masses) * (1 + 1e-6) + 2 * law.eval_abs


def _with_infinite_atoms(law: LossLaw, masses: np.ndarray, err: np.ndarray, side: str):
    """Bins of their own for ℓ = −inf (Q-mass where P = 0) below and ℓ = +inf (P-mass where Q = 0) above the
    finite bins, when present: sharing an end bin with finite losses blurs the very outcomes that decide δ
    (add δ 0.024 against the exact 0.212 on P = (3/5, 0, 2/5), Q = (2/5, 2/5, 1/5), t = 5, k = 2, ε = 0.5).
    Returns (masses, err, bins added below). Each atom mass is within 4u of the exact one (LossLaw.p_inf)."""
    below = [law.q_neg_inf if side == "q" else 0.0] if law.q_neg_inf > 0 else []
    above = [law.p_inf if side == "p" else 0.0] if law.p_inf > 0 else []
    atom_err = [5 * _U * m + 2 * law.eval_abs for m in below], [5 * _U * m + 2 * law.eval_abs for m in above]
    return (np.concatenate([below, masses, above]), np.concatenate([atom_err[0], err, atom_err[1]]), len(below))


def _moments(law: LossLaw, p: float, a: float, b: float) -> tuple[float, float]:
    """(sd_Q(g_p), sd_P(g_p)) on [a, b], from a fine preliminary partition (only steers the lattice step)."""
    cuts = np.linspace(a, b, 4001)
    mids = statistic(p, np.concatenate([[a], 0.5 * (cuts[1:] + cuts[:-1]), [b]]))
    out = []
    for side in ("q", "p"):
        m, _ = _masses(law, cuts, side)
        m = m / max(m.sum(), 1e-300)
        mean = float(np.dot(m, mids))
        out.append(math.sqrt(max(float(np.dot(m, (mids - mean) ** 2)), 0.0)))
    return out[0], out[1]


def single_step(
    law: LossLaw,
    p: float,
    *,
    resolution: float = RESOLUTION,
    single_tail: float = SINGLE_TAIL,
    step: float | None = None,
) -> tuple[dict, float]:
    """Directed single-step laws {(side, bound): _Law} (side "p"/"q", bound "lower"/"upper") of the lattice
    statistic j(ω) with bins (y_j, y_{j+1}] ↦ j, y_j = g_p⁻¹((j − ½)h), and the step h.

    Cut range: the law's `single_tail` quantiles; h = sd_Q(g_p)/resolution unless `step` is given. Each bin mass
    is moved by its error bound (lower: down, clipped at 0; upper: up).
    """
    if not 0 <= p <= 1:
        raise InvalidParameter("p", p, "must lie in [0, 1]")
    a, b = law.quantile_range(single_tail)
    a, b = (min(max(v, -LOSS_CAP), LOSS_CAP) for v in (a, b))  # beyond: the end bins (g_p finite in float64)
    ga, gb = (float(v) for v in statistic(p, np.array([a, b])))
    if step is not None:
        h = float(step)
        if not (math.isfinite(h) and h > 0):
            raise InvalidParameter("step", step, "must be a finite number > 0")
    elif gb > ga:
        sd_q, _ = _moments(law, p, a, b)
        h = min(sd_q / resolution if sd_q > 0 else math.inf, (gb - ga) / MIN_BINS)
        h = max(h, (gb - ga) / MAX_BINS)
    else:  # a single finite loss value: two bins (finite / infinite atoms) still say something
        h = 1.0
    j_lo, j_hi = math.floor(ga / h + 0.5), math.ceil(gb / h - 0.5)
    j_hi = max(j_hi, j_lo + 1)
    cuts = _inverse(p, (np.arange(j_lo + 1, j_hi + 1) - 0.5) * h)
    cuts = np.maximum.accumulate(np.maximum(cuts, a))  # any non-decreasing cuts define a partition
    out = {}
    for side in ("p", "q"):
        masses, err, added = _with_infinite_atoms(law, *_masses(law, cuts, side), side)
        out[side, "lower"] = _Law(np.maximum(masses - err, 0.0), j_lo - added, 0.0, "lower")
        out[side, "upper"] = _Law(masses + err, j_lo - added, 0.0, "upper")
    return out, h


def _convolve(x: _Law, y: _Law, tail: float, floor: float) -> _Law:
    """Directed x ∗ y (`compose.convolve` and its per-entry bound b: lower ĉ − b clipped at 0, upper ĉ + b); then
    both tails of at most `tail` mass are dropped (lower: free; upper: their mass joins err). `floor`: tilted
    transforms keep the upper-tail sums above it relatively accurate, so their FFT error floor can be cut."""
    if x.bound != y.bound:
        raise InvalidParameter("bound", f"{x.bound}+{y.bound}", "cannot convolve a lower with an upper law")
    c, bound = convolve(x.masses, y.masses, floor=floor)
    upper = x.bound == "upper"
    # exact ≤ x̂ + m_x, y ≤ ŷ + m_y  ⇒  x∗y ≤ x̂∗ŷ + m_x∗(ŷ + m_y) + x̂∗m_y, of ℓ1 ≤ err_x(Σŷ + err_y) + Σx̂·err_y
    err = (x.err * (_total(y) + y.err) + _total(x) * y.err) * (1 + 4 * _U) if upper else 0.0
    c = c + bound if upper else np.maximum(c - bound, 0.0)
    lo = x.lo + y.lo
    if tail > 0 and c.size > 1:
        i = int(np.searchsorted(np.cumsum(c), tail, side="right"))
        j = int(np.searchsorted(np.cumsum(c[::-1]), tail, side="right"))
        i = min(i, c.size - 1)
        j = min(j, c.size - 1 - i)
        if upper and (i or j):  # the dropped mass, summed exactly and rounded up, is charged in full
            err += (math.fsum(c[:i]) + math.fsum(c[c.size - j :])) * (1 + 2 * _U)
        c, lo = c[i : c.size - j], lo + i
    nz = np.flatnonzero(c)
    if nz.size:
        c, lo = c[nz[0] : nz[-1] + 1], lo + int(nz[0])
    return _Law(c, lo, err, x.bound)


def _total(x: _Law) -> float:
    return math.fsum(x.masses) * (1 + 2 * _U)


def _powers(base: _Law, exponents: list[int], tail: float, floor: float) -> list[_Law]:
    """base^{∗n} for every n in `exponents`, sharing the squarings (F53 Alg. 3, every squaring done, E14)."""
    out = [_one(base.bound) if n == 0 else None for n in exponents]
    square, bit = base, 0
    while any(n >> bit for n in exponents):
        for i, n in enumerate(exponents):
            if n >> bit & 1:
                out[i] = square if out[i] is None else _convolve(out[i], square, tail, floor)
        bit += 1
        if any(n >> bit for n in exponents):
            square = _convolve(square, square, tail, floor)
    return out


def _aligned(*laws: _Law) -> tuple[np.ndarray, ...]:
    lo = min(x.lo for x in laws)
    hi = max(x.lo + x.masses.size for x in laws)
    out = []
    for x in laws:
        a = np.zeros(hi - lo)
        a[x.lo - lo : x.lo - lo + x.masses.size] = x.masses
        out.append(a)
    return tuple(out)


@dataclass(frozen=True)
class SeparableBound:
    """Directed laws of one epoch's S on a common lattice window: remove uses (P lower, Q upper), add (Q lower,
    P upper); err_q / err_p: ℓ1 bounds of the truncated mass missing from the upper Q- and P-laws; p and h of g;
    epochs E > 1: the bounds are those of the E-fold product (epoch_product, tails dropped at `tail`)."""

    p_lower: np.ndarray
    q_upper: np.ndarray
    q_lower: np.ndarray
    p_upper: np.ndarray
    err_q: float
    err_p: float
    p: float
    step: float
    epochs: int = 1
    tail: float = 0.0
    _products: dict = field(default_factory=dict, compare=False, repr=False)

    def delta(self, epsilon: float, direction: str) -> float:
        """LOWER bound on δ(ε) in `direction` ("remove", "add" or "both" = max), never negative (module docstring):
        Σ[first_lower − κ·second_upper]_+ − κ·err(second) − rounding."""
        d = check_direction(direction)
        if d == "both":
            return max(self.delta(epsilon, "remove"), self.delta(epsilon, "add"))
        first, second, err = (
            (self.p_lower, self.q_upper, self.err_q) if d == "remove" else (self.q_lower, self.p_upper, self.err_p)
        )
        if self.epochs > 1:
            if d not in self._products:
                self._products[d] = EpochProduct(first, second, err, self.epochs, self.tail)
            return self._products[d].delta(epsilon)
        if float(epsilon) > LOSS_CAP:  # κ = e^ε near or beyond the float64 range: 0 is the lower bound offered
            return 0.0
        kappa = math.exp(float(epsilon))
        terms = np.maximum(first - kappa * second, 0.0)
        raw = math.fsum(terms)
        # κ within 2u, κ·Q within u, the subtraction within u of its result: per entry ≤ 4u·κQ + u·P
        rounding = 8 * _U * (kappa * math.fsum(second) + math.fsum(first)) + 2 * _U * raw
        return max(raw - rounding - kappa * err * (1 + 4 * _U), 0.0)

    def epsilon(self, delta: float, direction: str) -> float | None:
        """LOWER bound on ε(δ): the largest ε ≥ 0 found with delta(ε) > δ (checked at the returned value);
        None when even ε = 0 is not certified. "both" = max over directions."""
        d = check_direction(direction)
        if d == "both":
            found = [e for e in (self.epsilon(delta, "remove"), self.epsilon(delta, "add")) if e is not None]
            return max(found) if found else None
        if not self.delta(0.0, d) > delta:
            return None
        lo, hi = 0.0, 1.0
        while self.delta(hi, d) > delta:
            lo, hi = hi, 2 * hi
            if hi > 1e3:
                return lo
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            lo, hi = (mid, hi) if self.delta(mid, d) > delta else (lo, mid)
        return lo if self.delta(lo, d) > delta else None


def _tails(delta_floor: float, k: int, copies: int) -> tuple[float, float]:
    """(tail per convolution, single-step quantile) far below delta_floor: ≤ 4⌈log2⌉ + 4 convolutions per law
    drop ≤ 2·tail each, and the end bins merge at most 2k·E·single_tail of P-mass."""
    convolutions = 4 * max(1, copies).bit_length() + 4
    return (min(TAIL, 1e-4 * delta_floor / (2 * convolutions)), min(SINGLE_TAIL, 1e-4 * delta_floor / (2 * copies)))


def separable_bound(
    law: LossLaw,
    steps,
    k=1,
    *,
    epochs=1,
    p: float | None = None,
    resolution: float = RESOLUTION,
    step: float | None = None,
    delta_floor: float = DELTA_FLOOR,
    per_epoch: bool = False,
) -> SeparableBound:
    """The directed laws of S = Σ g_p(ℓ(ω_i)) (lattice-rounded) under P̄_{t,k} and Q^t over E epochs.

    p defaults to k/t. Under Q^t: u^{∗tE}; under P̄_{t,k}: v^{∗kE} ∗ u^{∗(t−k)E} (u, v the single-step Q- and
    P-laws of the lattice statistic, `single_step`), each as a lower and an upper law. per_epoch: one epoch's laws
    (E = 1 above), whose E-fold product the bound then composes (SeparableBound.epochs). delta_floor: the tails
    dropped or merged are kept far below it (`_tails`); it only steers tightness, never soundness.
    """
    t = integer("steps", steps, lo=1)
    k = integer("k", k, lo=1, hi=t)
    epochs = integer("epochs", epochs, lo=1)
    if not (isinstance(delta_floor, float | int) and 0 < delta_floor < 1):
        raise InvalidParameter("delta_floor", delta_floor, "must lie in (0, 1)")
    p = k / t if p is None else float(p)
    tail, single_tail = _tails(delta_floor, k, t * epochs)
    single, h = single_step(law, p, resolution=resolution, single_tail=single_tail, step=step)
    laws = {}
    summed = 1 if per_epoch else epochs
    for bound in ("lower", "upper"):
        rest, shared = _powers(single["q", bound], [(t - k) * summed, k * summed], tail, tail)
        (held,) = _powers(single["p", bound], [k * summed], tail, tail)
        laws["q", bound] = _convolve(rest, shared, 0.0, tail)
        laws["p", bound] = _convolve(rest, held, 0.0, tail)
    pl, qu, ql, pu = _aligned(laws["p", "lower"], laws["q", "upper"], laws["q", "lower"], laws["p", "upper"])
    return SeparableBound(
        pl, qu, ql, pu, laws["q", "upper"].err, laws["p", "upper"].err, p, h, epochs if per_epoch else 1, tail
    )


def candidates(steps: int, k: int) -> tuple[float, ...]:
    """Statistics p tried by default: k/t times P_MULTIPLIERS (clipped to 1) and 1 (summed loss); 0 (the k = 1
    likelihood ratio) only for k = 1, where its heavy tail is worth the long lattice."""
    ps = {1.0} | {min(1.0, m * k / steps) for m in P_MULTIPLIERS}
    if k == 1:
        ps.add(0.0)
    return tuple(sorted(ps))


def _search(law: LossLaw, steps: int, k: int, epochs: int, delta_floor: float, scores: dict) -> dict:
    """Adaptive choice of the statistic per score ({name: function of a SeparableBound}): every candidate p at
    RESOLUTION, then each score's best p again at REFINED, all summed over the t·E outputs (t·E ≤
    SEARCH_MAX_COPIES); else p = k/t once (each candidate costs as much as the whole bound), per epoch; returns
    {name: best value}. Every candidate is a valid
    lower bound, so the maximum over them is one too."""
    best = {name: (-math.inf, None) for name in scores}
    built = {}

    def consider(p: float, resolution: float) -> None:
        if (p, resolution) not in built:
            built[p, resolution] = separable_bound(
                law, steps, k, epochs=epochs, p=p, resolution=resolution, delta_floor=delta_floor, per_epoch=per_epoch
            )
        for name, score in scores.items():
            value = score(built[p, resolution])
            if value > best[name][0]:
                best[name] = (value, p)

    if per_epoch := steps * epochs > SEARCH_MAX_COPIES:
        consider(k / steps, RESOLUTION)
        return {name: value for name, (value, _) in best.items()}
    for p in candidates(steps, k):
        consider(p, RESOLUTION)
    for name in scores:
        if best[name][1] is not None:
            consider(best[name][1], REFINED)
    return {name: value for name, (value, _) in best.items()}


def _directions(direction: str) -> tuple[str, ...]:
    d = check_direction(direction)
    return ("remove", "add") if d == "both" else (d,)


def delta_lower(
    law: LossLaw, steps, k, epsilon: float, direction: str = "both", *, epochs=1, delta_floor: float = DELTA_FLOOR
) -> dict:
    """LOWER bounds {direction: δ(ε)} of A_{t,k} over E epochs ("both": remove and add), best statistic
    (`_search`; one set of laws serves both directions)."""
    scores = {d: (lambda b, d=d: b.delta(epsilon, d)) for d in _directions(direction)}
    return _search(law, steps, k, epochs, delta_floor, scores)


def epsilon_lower(law: LossLaw, steps, k, delta: float, direction: str = "both", *, epochs=1) -> dict:
    """LOWER bounds {direction: ε(δ)} of A_{t,k} over E epochs ("both": remove and add), best statistic
    (`_search`); a direction maps to None when no statistic certifies an ε ≥ 0 there."""
    if not 0 < delta < 1:
        raise InvalidParameter("delta", delta, "must lie in (0, 1)")

    def score(bound: SeparableBound, d: str) -> float:
        value = bound.epsilon(delta, d)
        return -math.inf if value is None else value

    scores = {d: (lambda b, d=d: score(b, d)) for d in _directions(direction)}
    found = _search(law, steps, k, epochs, min(delta, DELTA_FLOOR * 1e4), scores)
    return {d: (None if v == -math.inf else v) for d, v in found.items()}
