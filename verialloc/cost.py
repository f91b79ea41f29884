"""Cost model: estimated time and memory of a query *before* it starts, and the per-query budget it must fit.

Every size the user controls (steps t, k, epochs E, Rényi order α, Monte Carlo samples, the loss step Δ and grid
step h, the range of σ and ε) reaches a loop or an array of a method. `estimate` predicts seconds and bytes from the
configuration alone, with constants calibrated roughly by timing runs on a 2-core machine (docs/cli.md, "Cost
model and budgets"); `check` refuses a request whose estimate exceeds the budget with `BudgetExceeded` (an
UnsupportedRequest) naming the parameter that drives the cost and the nearest setting that fits, and refuses
parameters outside the range a float64 method can represent (`parameter_range`). The estimates are deliberately
rough (within a factor of about 10 for the configurations timed) and err on the expensive side for the sizes that
grow without bound.

Models (n = number of composed copies: t·E for Poisson, k·E for allocation; N = grid points of the composed PLD):
* exact rdp: allocation generating function, C_GENFUNC·α² (scaled by the working digits); Poisson binomial
  expansion, big-integer weights of about α·log2(denominator of λ) bits each (α² of them in total).
* exact δ/ε: finite pairs by the atoms of the composed pair (C_ATOM to build, C_QUERY to query, per direction and
  working precision, `_finite_exact`); Gaussian compositions (F13): δ is a closed form, ε a bisection costing
  C_F13_SEARCH·(d + 20)³ at d digits; quadrature (F25 allocation t ≤ 3, F46 Poisson t ≤ 2) costs one δ
  evaluation per direction for δ and QUAD_SEARCH_EVALS for ε, each QUAD_BASE + C_QUAD·(d + 5)^QUAD_POWER at t = 2
  and C_NESTED·(d + 5)²·(1 + z) at t = 3 (nested, d ≤ 12, z the tail depth `_tail_depth`), plus C_HUGE·bits^2.5 for
  a privacy loss of that many bits (Laplace b = 1e-4000: 1/b has 13 288).
* pld (and best, analytic for Poisson): the allocation part from its plan (C_POINTS per array entry of the
  exp-grid, C_GEOMETRIC·n²·L for the geometric grid of heavy tails, C_SEPARABLE for k > 1's lower end), and the
  composition costs C_FFT·N·log2 N·(log2 n + 1) per direction and bound, N = (n·μ + 12·√(n·v) + s)/Δ with μ, v, s
  the mean, variance and span of one copy's privacy loss; memory BYTES_PER_POINT·N.
* mc: C_MC per matrix entry (samples·t), 16 bytes per sample plus the 4e6-entry chunk.
* rdp (float64): orders up to 10⁴, C_RDP·N_α² (bounded by the method itself).

Why this module is long: it is one model. The per-method estimates and the checks share the constants
calibrated together above, and the checks re-run the estimates to name the nearest setting that fits; split
apart, each constant would sit away from one of its two users.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import mpmath as mp

from .config import Config
from .errors import GridTooLarge, InvalidParameter, UnsupportedRequest
from .exact import accountant as exact_accountant, discrete_profiles, quadrature
from .numeric.pld import pld_accountant
from .numeric.pld.allocation import separable
from .mechanisms import FinitePair, Gaussian, Laplace, RandomizedResponse
from .mechanisms.base import mpq

#: default per-query budget
DEFAULT_SECONDS = 600.0
DEFAULT_MEMORY = 8 * 2 ** 30
#: fixed overhead of a query (imports excluded), seconds, and resident baseline, bytes
BASE_SECONDS = 0.05
BASE_MEMORY = 150 * 2 ** 20
#: exact allocation RDP (generating function): seconds per α² at 45 working digits (α = 1600: 4.9 s)
C_GENFUNC = 2.0e-6
#: exact Poisson RDP: seconds per α² (α = 1600: 0.24 s) and per α²·bit of the big-integer weights
C_BINOMIAL = 1.0e-7
#: exact finite pairs (`_finite_exact`): seconds per atom built and per atom queried at few working digits, bytes
#: per atom (two pairs alive while the second precision is built, labels, the ε query's sorted ladder) and per
#: working digit of each atom. Timed per atom and evaluation: 16–86 µs built (30–300 digits, up to 10 k-subset
#: terms), 3–32 µs queried; end to end (2 cores under load) 2.0–3.6 times below the estimate, e.g. randomized
#: response t = 3e5, ε(1e-5): 47.6 s and 717 MB (estimated 155 s, 1.1 GB); 1.2–2.5 KB per atom
C_ATOM, C_QUERY, ATOM_BYTES, ATOM_DIGIT_BYTES = 40e-6, 12e-6, 3000, 4
#: exact quadrature, seconds per δ evaluation at d digits. t = 2 (one level): QUAD_BASE + C_QUAD·(d + 5)^QUAD_POWER
#: (measured 0.1–0.9 s at d = 12, 1.3–6.3 s at 100, 44 s at 300, > 170 s at 1000). t = 3 (a quadrature of
#: quadratures, d ≤ MAX_DIGITS_T3): C_NESTED·(d + 5)²·(1 + z), z = _tail_depth (measured 6–98 s at d = 5, 17–106 s
#: at d = 12, > 170 s at d = 5 for σ = 20, ε = 1 and σ = 1e6; each at most 0.88 of the estimate)
QUAD_BASE, C_QUAD, QUAD_POWER, C_NESTED = 1.0, 6e-5, 2.5, 0.15
#: exact quadrature with a huge privacy loss L (Laplace b = 1e-1000: L = 1/b has 3322 bits): every node exponentiates
#: it, C_HUGE·bits(L)^QUAD_POWER more seconds per δ evaluation (t = 2, one direction: 0.79 s at 3322 bits, 4.0 s at
#: 6644, 24–31 s at 13 288); at t = 3 a factor (1 + that) on the nested cost (not timed)
C_HUGE = 2e-9
#: δ evaluations of one exact ε search per direction (bracket, Illinois, verification; 11–16 measured at t = 2)
QUAD_SEARCH_EVALS = 20
#: exact ε of a Gaussian (composition, F13): bisection to ~8·prec halvings of d-digit Φ evaluations, ∝ (d + 20)³ s
#: (measured on 2 loaded cores, σ = 1 t = 1 and σ = 0.3 rate 1 t = 50, δ = 1e-5: d = 100: 0.7–3.7 s, d = 200:
#: 3.0–19.8 s, d = 300: 18.7 s; the estimate 2.6 s, 26.6 s, 82 s)
C_F13_SEARCH = 2.5e-6
#: tail depth cap (the estimate stays a finite float; z beyond it is refused at any budget anyway)
DEPTH_CAP = 1e12
#: pld allocation part, from its plan (pld_accountant.allocation_runs): ≈ 1 + C_POINTS·entries + C_ALLOC_LINEAR·t s
#: on the uniform exp-grid, the entries' part TAIL_MODE times in tail-accurate mode (measured: 9.7e6 entries 5.6 s,
#: 6.5e6 2.5 s, 4.7e5 0.28 s; tail mode 3.5e7 entries 39.5 s). Where no plan can be made, the former
#: 1 + C_ALLOC·t^0.45 + C_ALLOC_LINEAR·t (it said 4.9 s for σ = 1, t = 1e5, δ = 1e-30, and 1.4 s for σ = 0.7,
#: t = 10³: 39.5 s and 5.6 s measured); memory ALLOC_BYTES per step (t = 1e8: 957 MB)
C_POINTS, TAIL_MODE = 6e-7, 2.0
C_ALLOC, ALLOC_EXPONENT, C_ALLOC_LINEAR, ALLOC_BYTES = 0.02, 0.45, 2.6e-6, 8
#: the separable lower end of 1 < k < t (pld_accountant.SEPARABLE_MAX_COPIES): ≈ C_SEPARABLE·(t·E)^0.7 s for its
#: search over statistics (5 s at t·E = 10³), C_SEPARABLE_ONE·t^0.7 + C_SEPARABLE_EPOCH·log2(E) s for one
#: statistic per epoch beyond separable.SEARCH_MAX_COPIES, its epochs composed (σ = 1, k = 4: 1.7 s at t = 10⁴,
#: 5.7 s at t = 10⁵; t = 10³, E = 100: 6.8 s; t = 10⁵, E = 100: 15.5 s)
C_SEPARABLE, C_SEPARABLE_ONE, C_SEPARABLE_EPOCH, SEPARABLE_EXPONENT = 0.04, 0.0035, 1.0, 0.7
#: heavy tails take the geometric-grid algorithm instead (pld_accountant.allocation_runs plans which): n points per
#: exp-PLD, L = 2⌈log2 t⌉ + 1 levels, ~L convolutions of O(n²): 1 + C_GEOMETRIC·n²·L s for its four PLDs (σ = 0.5:
#: t = 10, n = 27544: 2–3 s; t = 10³, n = 69067: 29–32 s; t = 1e5: 138 s; σ = 0.8, t = 10³, δ = 1e-30, n = 66174:
#: 28.5 s). A flat 30× the uniform grid's time, for σ < 0.8 only, estimated 68 s for σ = 0.5, t = 10, k = 4 (7 s
#: measured) and 1.5 s for σ = 0.8, t = 10³, δ = 1e-30 (250 s then)
C_GEOMETRIC = 3.2e-10
#: pld composition: seconds per N·log2 N·(log2 n + 1), per direction and bound (t = 1e3, E = 1e5: 61 s)
C_FFT = 2.0e-8
#: pld memory per composed grid point (E = 1e5: 700 MB at N ≈ 2.4e6)
BYTES_PER_POINT = 300
#: mc: seconds per drawn matrix entry, bytes per sample (log weight + loss) and of one chunk
C_MC, MC_SAMPLE_BYTES, MC_CHUNK_BYTES = 3e-8, 16, 4_000_000 * 8 * 4
#: float64 rdp: seconds per α_max² (Miller recurrence) and its adaptive cap
C_RDP, RDP_MAX_ORDER = 2e-8, 10_000
#: ranges the float64 methods represent (outside: refused, naming the range; the exact method serves more)
FLOAT_SIGMA = (Fraction(1, 1000), Fraction(10 ** 8))
FLOAT_EPSILON = 700
FLOAT_DELTA_MIN = Fraction(1, 10 ** 300)
FLOAT_COUNT_MAX = 2 ** 53
FLOAT_METHODS = ("pld", "rdp", "analytic", "mc", "best")
#: defaults of the float methods, as the method modules use them
DEFAULT_LOSS_STEP, DEFAULT_MC_SAMPLES = 1e-4, (2_000, 200_000, 10_000_000)
#: tail quantile (in standard deviations) of a truncated loss distribution at tail 1e-15
Z_TAIL = 8.5


class BudgetExceeded(UnsupportedRequest):
    """The estimated time or memory of a request exceeds its budget; raised before any work starts."""

    def __init__(self, name: str, value, supported: str, estimate: "Estimate", budget: "Budget"):
        self.estimate, self.budget = estimate, budget
        super().__init__(name, value, supported)

    def __reduce__(self):
        return type(self), (self.name, self.value, self.supported, self.estimate, self.budget)


@dataclass(frozen=True)
class Budget:
    """Seconds and bytes one query may use (defaults: DEFAULT_SECONDS, DEFAULT_MEMORY)."""

    seconds: float = DEFAULT_SECONDS
    memory: float = DEFAULT_MEMORY

    @classmethod
    def of(cls, value) -> "Budget":
        """A Budget from None (default), a Budget, or a number of seconds."""
        if value is None:
            return cls()
        if isinstance(value, Budget):
            return value
        if isinstance(value, bool):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0")
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0") from None
        if not (math.isfinite(seconds) and seconds > 0):
            raise InvalidParameter("budget", value, "must be a number of seconds > 0")
        return cls(seconds=seconds)


@dataclass(frozen=True)
class Estimate:
    """Predicted seconds and bytes, and the user-controlled parameter that drives them (`driver`)."""

    seconds: float
    memory: float
    driver: str
    value: object = None

    def __add__(self, other: "Estimate") -> "Estimate":
        big = self if self.seconds >= other.seconds else other
        return Estimate(self.seconds + other.seconds, max(self.memory, other.memory), big.driver, big.value)

    def fits(self, budget: Budget) -> bool:
        return self.seconds <= budget.seconds and self.memory <= budget.memory

    def describe(self) -> str:
        return f"about {_seconds(self.seconds)} and {_bytes(self.memory)}"


def _seconds(s: float) -> str:
    return f"{s:.3g} s" if s < 1e6 else f"{s:.2e} s"


def _bytes(b: float) -> str:
    return f"{b / 2 ** 30:.3g} GiB" if b >= 2 ** 30 else f"{b / 2 ** 20:.3g} MiB"


# --------------------------------------------------------------------------------------------- estimates


def estimate(query: str, config: Config, method: str = "exact", value=None, options: dict | None = None,
             digits: int = 30, direction: str = "both") -> Estimate:
    """Estimated cost of `query` ("delta", "epsilon", "rdp") of `config` by `method` (`value`: ε, δ or α;
    `options`: the method keywords as passed to the API; `direction`: remove, add or both)."""
    options = options or {}
    if method == "exact":
        return _exact(query, config, value, digits, direction)
    if method == "pld":
        return _pld(config, options.get("settings"), query=query, value=value)
    if method == "rdp":
        return _rdp_float(config, query, value, options)
    if method == "analytic":
        opts = options.get("options")
        settings = getattr(opts, "pld", None)
        return _pld(config, settings, allocation_part=False) if config.scheme == "poisson" else _small("steps")
    if method == "mc":
        return _mc(config, options.get("samples"))
    if method == "best":
        if query == "rdp":
            return _rdp_float(config, query, value, options)
        try:
            pld_part = _pld(config, options.get("settings"), query=query, value=value)
        except UnsupportedRequest:  # best skips a method that cannot serve the request
            pld_part = _small("steps")
        return (pld_part + _rdp_float(config, query, None, {})
                + (_pld(config, None, allocation_part=False) if config.scheme == "poisson" else _small("steps")))
    return _small("method")


def _small(driver: str) -> Estimate:
    return Estimate(BASE_SECONDS, BASE_MEMORY, driver)


def _exact(query: str, config: Config, value, digits: int, direction: str = "both") -> Estimate:
    if query == "rdp":
        alpha = _int_or_none(value)
        if alpha is None or alpha < 2:
            return _small("alpha")  # the method itself refuses it
        return _exact_rdp(config, alpha, digits)
    mech = config.mechanism
    if isinstance(mech, FinitePair):
        return _finite_exact(query, config, digits, direction)
    route = exact_accountant.quadrature_route(config)
    if route is None or route[1] < 2:  # F13 composition, closed form (t = 1), or refused by the exact layer
        if query == "epsilon" and isinstance(mech, Gaussian):  # F13 solved by bisection at d digits
            return Estimate(BASE_SECONDS + C_F13_SEARCH * (digits + 20) ** 3, BASE_MEMORY, "digits", digits)
        return _small("steps")
    return _quadrature(query, config, route[1], value, digits, direction)


def _finite_exact(query: str, config: Config, digits: int, direction: str) -> Estimate:
    """Exact finite pair (verialloc.exact.discrete_profiles): per direction asked, the pair of N atoms is built and
    queried at two working precisions d (`working_digits`), each C_ATOM·(1 + splits/4) per atom to build (the
    k-subset terms of allocation) plus C_QUERY for δ or C_QUERY·(1 + log2(N)/8) for ε (atoms sorted by ratio), all
    × (1 + d/150); memory ATOM_BYTES + ATOM_DIGIT_BYTES·d per atom. Sizes beyond the exact layer's caps are refused
    there before any work (its message names them)."""
    t, e = config.steps, config.epochs
    atoms, splits, composed = discrete_profiles.composition_sizes(config.mechanism, config.scheme, t, k=config.k,
                                                                  epochs=e)
    if max(atoms, composed) > discrete_profiles.MAX_ATOMS or atoms * splits > discrete_profiles.MAX_TERMS:
        return _small("steps")
    build = atoms * (1 + splits / 4) + (composed if e > 1 else 0)
    query_cost = composed * (1 + (math.log2(composed) / 8 if query == "epsilon" else 0))
    directions = 1 if direction in ("remove", "add") else 2
    working = discrete_profiles.working_digits(t, e, digits)
    seconds = directions * sum((C_ATOM * build + C_QUERY * query_cost) * (1 + d / 150) for d in working)
    memory = (ATOM_BYTES + ATOM_DIGIT_BYTES * working[-1]) * max(atoms, composed)
    driver = ("epochs", e) if composed > atoms else ("steps", t)
    return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + memory, *driver)


def _quadrature(query: str, config: Config, t: int, value, digits: int, direction: str) -> Estimate:
    """Exact quadrature (F25 allocation, F46 Poisson): δ evaluations × seconds per evaluation (C_QUAD, C_NESTED)."""
    directions = ("remove", "add") if direction not in ("remove", "add") else (direction,)
    evals = 1 if query == "delta" else QUAD_SEARCH_EVALS
    seconds = 0.0
    huge = C_HUGE * _loss_bits(config.mechanism) ** QUAD_POWER  # exponentials of a privacy loss of that many bits
    for d in directions:
        if t == 2:
            one = QUAD_BASE + C_QUAD * (digits + 5) ** QUAD_POWER + huge
        else:
            nested = min(digits, quadrature.MAX_DIGITS_T3)  # the exact layer caps t = 3 at these digits
            one = C_NESTED * (nested + 5) ** 2 * (1 + _tail_depth(query, config.mechanism, t, value, d)) * (1 + huge)
        seconds += evals * one
    return Estimate(BASE_SECONDS + seconds, BASE_MEMORY, "digits", digits)


def _loss_bits(mech) -> int:
    """Bits of the privacy-loss scale the quadrature exponentiates: 1/σ² (Gaussian, F15), 1/b (Laplace); else 0."""
    scale = 1 / mech.sigma ** 2 if isinstance(mech, Gaussian) else 1 / mech.scale if isinstance(mech, Laplace) else None
    return max(scale.numerator.bit_length() - scale.denominator.bit_length(), 0) if scale is not None else 0


def _tail_depth(query: str, mech, t: int, value, direction: str) -> float:
    """How far in the tail the δ evaluations of 1-of-t allocation lie, in standard deviations (the nested
    quadrature's cost grows with it). δ at ε (F25): remove E[(Ū − e^ε)_+], add E[(1 − e^ε·Ū)_+], Ū the mean of
    t copies of U = P/Q under Q (variance χ²/t, χ² = D_2 − 1, F5): z = (e^ε − 1)/√(χ²/t) resp. (1 − e^{−ε})/√(χ²/t);
    for the Gaussian (remove) at most the depth σ·ln(t·e^ε) + 1/(2σ) of one U reaching t·e^ε alone (F15).
    ε queries: 1.5·√(2 ln(1/δ)) (the normal depth of δ, with the search's upper end beyond the root)."""
    x = _fraction_or_none(value)
    if x is None:
        return 0.0  # the method validates it and names it
    with mp.workdps(15):
        if query == "epsilon":
            if not 0 < x < 1:
                return 0.0
            z = 1.5 * mp.sqrt(2 * (mp.log(x.denominator) - mp.log(x.numerator)))
        else:
            eps = mp.mpf(x.numerator) / x.denominator
            chi2 = mech.moment(2) - 1
            spread = mp.sqrt(chi2 / t) if chi2 > 0 else mp.mpf(0)
            gap = mp.expm1(eps) if direction == "remove" else -mp.expm1(-eps)
            if gap <= 0:
                return 0.0
            z = gap / spread if spread > 0 else mp.inf
            if direction == "remove" and isinstance(mech, Gaussian):
                s = mpq(mech.sigma)
                z = min(z, s * (eps + mp.log(t)) + 1 / (2 * s))
        return float(min(z, DEPTH_CAP))


def _exact_rdp(config: Config, alpha: int, digits: int) -> Estimate:
    scale = max(1.0, (digits + 15 + len(str(alpha))) / 45)
    a = float(min(alpha, 10 ** 150))  # only its magnitude matters (α² must stay a finite float)
    if config.scheme == "allocation":
        seconds = C_GENFUNC * a ** 2 * scale
        memory = 64.0 * a * (digits + 25 + len(str(alpha)))  # α mpf moments and coefficients
        if isinstance(config.mechanism, FinitePair) or not isinstance(config.mechanism, Gaussian):
            seconds *= 1.5
        return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + memory, "alpha", alpha)
    bits = a * (math.log2(config.rate.denominator) + 1)  # one weight C(α,j)·num^j·(den−num)^(α−j)
    seconds = C_BINOMIAL * a ** 2 * scale + 1e-10 * a * bits
    memory = a * bits / 8 + 64.0 * a * (digits + 25)
    return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + memory, "alpha", alpha)


def _loss_stats(config: Config, rate: float | None) -> tuple[float, float, float]:
    """(mean, variance, span) of one step's privacy loss, remove direction (the larger of the two for the
    heavier direction), optionally Poisson-subsampled at `rate` (mean ≤ λ·KL and ≤ λ²χ²/2)."""
    mech = config.mechanism
    if isinstance(mech, Gaussian):
        s = float(mech.sigma)
        mean, var, span = 0.5 / s ** 2, 1 / s ** 2, 2 * Z_TAIL / s + 1 / s ** 2
        chi2 = math.expm1(min(1 / s ** 2, 700.0))
    elif isinstance(mech, Laplace):
        e0 = 1 / float(mech.scale)
        mean, var, span, chi2 = e0, e0 ** 2, 2 * e0, math.expm1(min(2 * e0, 700.0))
    elif isinstance(mech, RandomizedResponse):
        e0 = float(mech.eps0)
        mean, var, span, chi2 = e0 * math.tanh(e0 / 2), e0 ** 2, 2 * e0, math.expm1(min(2 * e0, 700.0))
    else:
        losses = _finite_losses(mech)
        big = max(losses) if losses else 1.0
        mean, var, span, chi2 = big, big ** 2, 2 * big, math.expm1(min(2 * big, 700.0))
    if rate is None or rate >= 1:
        return mean, var, span
    return min(rate * mean, rate ** 2 * chi2 / 2), min(rate * (var + mean ** 2), rate ** 2 * chi2), span


def _finite_losses(mech) -> list[float]:
    p, q = mech.exact_probabilities() or (None, None)
    if p is None:
        return [2 * float(getattr(mech, "eps0", 1))]
    out = []
    for pi, qi in zip(p, q):
        if pi > 0 and qi > 0:  # logs of the exact rationals (a mass of 1e-400 is no float)
            out.append(abs(_log(Fraction(pi)) - _log(Fraction(qi))))
    return out


def _log(x: Fraction) -> float:
    return math.log(x.numerator) - math.log(x.denominator)


def _pld(config: Config, settings, allocation_part: bool = True, query: str = "epsilon", value=None) -> Estimate:
    delta_step = float(getattr(settings, "loss_step", None) or DEFAULT_LOSS_STEP)
    if config.scheme == "poisson":
        copies = config.steps * config.epochs
        mean, var, span = _loss_stats(config, float(config.rate))
        driver = ("epochs", config.epochs) if config.epochs > config.steps else ("steps", config.steps)
        alloc_seconds = 0.0
    else:
        t = config.steps // config.k
        copies = config.k * config.epochs
        mean1, var1, span = _loss_stats(config, 1 / t)
        mean, var = t * mean1, t * var1  # one allocation PLD behaves like t Poisson steps at rate 1/t
        alloc_seconds = 0.0
        if allocation_part:
            copies_all = config.steps * config.epochs
            if 1 < config.k < config.steps and config.steps <= pld_accountant.SEPARABLE_MAX_COPIES:
                alloc_seconds += (C_SEPARABLE * copies_all ** SEPARABLE_EXPONENT
                                  if copies_all <= separable.SEARCH_MAX_COPIES else
                                  C_SEPARABLE_ONE * config.steps ** SEPARABLE_EXPONENT
                                  + C_SEPARABLE_EPOCH * math.log2(config.epochs))
            runs = _allocation_runs(config, settings, query, value)
            if runs:
                alloc_seconds += sum(_planned_seconds(*run) for run in runs)
            else:
                alloc_seconds += sum(_alloc_seconds(n) for n in [t] + ([config.steps] if 1 < config.k < config.steps
                                                                        else []))
        driver = max((("epochs", config.epochs), ("k", config.k), ("steps", config.steps)),
                     key=lambda kv: kv[1] if kv[0] != "steps" else kv[1] / 1000)
    width = copies * mean + 12 * math.sqrt(copies * var) + span
    points = max(width / delta_step, 1.0)
    log_n = math.log2(points) if points > 2 else 1.0
    compose = 4 * C_FFT * points * log_n * (math.log2(copies) + 1 if copies > 1 else 1)
    if config.scheme == "allocation" and copies == 1:  # one allocation PLD is used as built: no loss grid
        compose, points = 0.0, 0.0
    elif config.scheme == "allocation":  # epochs may be composed again on a finer step (pld_accountant.finer_epochs)
        fine = min(points * pld_accountant.EPOCH_REFINE_MAX, pld_accountant.EPOCH_MAX_POINTS)
        compose += 4 * C_FFT * fine * math.log2(max(fine, 2.0)) * (math.log2(copies) + 1)
        points = max(points, fine)
    alloc_memory = ALLOC_BYTES * config.steps if config.scheme == "allocation" and allocation_part else 0.0
    return Estimate(BASE_SECONDS + alloc_seconds + compose, BASE_MEMORY + BYTES_PER_POINT * points + alloc_memory,
                    *driver)


def _alloc_seconds(t: int) -> float:
    return 1 + C_ALLOC * t ** ALLOC_EXPONENT + C_ALLOC_LINEAR * t


def _planned_seconds(t: int, kind: str, size: int) -> float:
    if kind == "geometric":
        return 1 + C_GEOMETRIC * size ** 2 * (2 * (t - 1).bit_length() + 1)
    return 1 + C_POINTS * size * (TAIL_MODE if kind == "uniform-tail" else 1) + C_ALLOC_LINEAR * t


def _allocation_runs(config: Config, settings, query: str, value) -> list:
    """The planned allocations (pld_accountant.allocation_runs) at the query's ε or δ; none where the value is not
    a usable number yet (the method names it) or the plan cannot be made in float64."""
    x = _float_or(value, math.nan)
    if query not in ("delta", "epsilon") or not math.isfinite(x) or (query == "epsilon" and not 0 < x < 1):
        return []
    try:
        return pld_accountant.allocation_runs(config, query, x, settings)
    except GridTooLarge as exc:
        raise UnsupportedRequest("method", "pld", f"the heavy loss tails of {config.mechanism.name} at "
                                 f"steps={config.steps}: {exc.supported}; use {_milder(config.mechanism)}, or "
                                 "--method rdp or analytic (upper ends)") from None
    except (InvalidParameter, UnsupportedRequest, OverflowError, ValueError):
        return []


def _milder(mech) -> str:
    """How to shorten a mechanism's loss tails, for a refusal."""
    if isinstance(mech, Gaussian):
        return "a larger sigma"
    if isinstance(mech, Laplace):
        return "a larger scale"
    if isinstance(mech, RandomizedResponse):
        return "a smaller eps0"
    return "a pair with a narrower loss range"


def _rdp_float(config: Config, query: str, value, options: dict) -> Estimate:
    if query == "rdp":
        n = min(max(2, math.ceil(_float_or(value, 2.0))), RDP_MAX_ORDER)
    else:
        n = options.get("alpha_max") or RDP_MAX_ORDER
    factor = 3 if config.scheme == "allocation" and config.steps // config.k < n else 1
    return Estimate(BASE_SECONDS + C_RDP * n ** 2 * factor, BASE_MEMORY + 64.0 * n, "alpha", n)


def _mc(config: Config, samples) -> Estimate:
    t = config.steps
    lo, hi, total = DEFAULT_MC_SAMPLES
    n = _int_or_none(samples)
    if n is None:
        n = min(hi, max(lo, total // t))
    counted = min(n, 2 ** 64)  # beyond: refused all the same, and the float estimate stays finite
    entries = 2 * counted * t * 1.1  # two directions, pilot draws (≈ 5 %) included
    return Estimate(BASE_SECONDS + C_MC * entries, BASE_MEMORY + MC_SAMPLE_BYTES * counted * 3 + MC_CHUNK_BYTES,
                    "samples", n)


def _int_or_none(value):
    try:
        x = Fraction(str(value).strip()) if isinstance(value, str) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return int(x) if x.denominator == 1 else math.ceil(x)


def _float_or(value, default: float) -> float:
    try:
        return float(Fraction(str(value).strip()) if isinstance(value, str) else value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return default


# --------------------------------------------------------------------------------------------- checks


def check(query: str, config: Config, method: str = "exact", value=None, options: dict | None = None,
          budget=None, digits: int = 30, direction: str = "both") -> Estimate:
    """Refuse (before any work) parameters a method cannot represent and requests whose estimated cost exceeds
    `budget` (a Budget, seconds, or None for the default); returns the estimate otherwise."""
    budget = Budget.of(budget)
    parameter_range(query, config, method, value)
    est = estimate(query, config, method, value, options, digits, direction)
    if est.fits(budget):
        return est
    name, current = est.driver, est.value
    if name == "digits":
        name, current, hint = _fewer_digits(query, config, value, budget, digits, direction)
    else:
        hint = _nearest(query, config, method, value, options, budget, digits, name, current)
    what = (f"estimated {est.describe()} exceeds the budget of {_seconds(budget.seconds)} and "
            f"{_bytes(budget.memory)}")
    shown = _short(Fraction(current)) if isinstance(current, int) else current
    raise BudgetExceeded(name, shown, f"{method} {query}: {what}; {hint}", est, budget)


def _nearest(query, config, method, value, options, budget, digits, name, current) -> str:
    """The largest value of the driving parameter (by halving) whose estimate fits, as advice."""
    if not isinstance(current, int) or current <= 1:
        return "reduce the problem size" + ("" if method == "exact" else " or raise the budget")
    lo, hi = 1, current
    fits = lambda x: _with(query, config, method, value, options, digits, name, x).fits(budget)
    if not fits(lo):
        coarser = _coarser_loss_step(query, config, method, value, options, budget, digits)
        return f"even {name}=1 does not fit{coarser}; choose another --method or a larger --budget"
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    alternative = {"exact": "; or use --method rdp (float64, orders <= 10000)" if query == "rdp" else
                   "; or use --method pld (float64 bounds) or a larger --budget",
                   "mc": "", "pld": "; or use --method rdp / analytic (cheaper upper bounds)"}.get(method, "")
    return f"the nearest feasible setting is {name} <= {_round_down(lo)}{alternative}"


def _coarser_loss_step(query, config, method, value, options, budget, digits) -> str:
    """For pld/best whose one step does not fit: the privacy loss range itself is too wide for the loss step (a
    1e-324 mass spans ±745); the advice names the smallest power-of-ten multiple of the step that fits, if any."""
    if method not in ("pld", "best"):
        return ""
    settings = (options or {}).get("settings") or pld_accountant.Settings()
    for factor in (10, 100, 1000):
        step = settings.loss_step * factor
        trial = {**(options or {}), "settings": replace(settings, loss_step=step)}
        if estimate(query, config, method, value, trial, digits).fits(budget):
            return f" at --loss-step {settings.loss_step:g} (the privacy loss range is wide); --loss-step {step:g} fits"
    return ""


def _fewer_digits(query, config, value, budget, digits, direction) -> tuple:
    """(name, value, advice) for an exact quadrature over the budget: the most digits (>= 5) that fit, else steps."""
    fits = lambda d: _exact(query, config, value, d, direction).fits(budget)
    other = "use --method pld or --method best (float64 bounds) or a larger --budget"
    if not fits(5):
        t = exact_accountant.quadrature_route(config)[1]
        return "steps", config.steps, f"the quadrature over {t} steps does not fit even at digits=5; {other}"
    lo, hi = 5, digits  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return "digits", digits, f"the nearest feasible setting is digits <= {lo}; or {other}"


def _round_down(x: int) -> int:
    """x rounded down to two significant digits (a readable suggestion)."""
    if x < 100:
        return x
    p = 10 ** (len(str(x)) - 2)
    return x // p * p


def _with(query, config, method, value, options, digits, name, x) -> Estimate:
    if name == "alpha":
        return estimate(query, config, method, x, options, digits)
    if name == "samples":
        return estimate(query, config, method, value, {**(options or {}), "samples": x}, digits)
    fields = {"steps": config.steps, "k": config.k, "epochs": config.epochs}
    fields[name] = x
    if fields["k"] > fields["steps"]:
        fields["k"] = fields["steps"]
    try:
        trial = Config(config.mechanism, config.scheme, fields["steps"], fields["k"], fields["epochs"],
                       config.rate)
    except (InvalidParameter, UnsupportedRequest):
        return Estimate(math.inf, math.inf, name, x)
    return estimate(query, trial, method, value, options, digits)


def parameter_range(query: str, config: Config, method: str, value=None) -> None:
    """Refuse parameters outside what a float64 method represents, naming the parameter and the range
    (the exact method works in arbitrary precision and serves them, or refuses with its own message)."""
    if method not in FLOAT_METHODS:
        return
    for name in ("steps", "epochs"):  # float64 counts are exact integers only up to 2^53
        if getattr(config, name) > FLOAT_COUNT_MAX:
            raise UnsupportedRequest(name, _short(Fraction(getattr(config, name))),
                                     f"--method {method} (float64) supports {name} <= 2^53")
    mech = config.mechanism
    if isinstance(mech, Gaussian) and not FLOAT_SIGMA[0] <= mech.sigma <= FLOAT_SIGMA[1]:
        raise UnsupportedRequest("sigma", _short(mech.sigma),
                                 f"--method {method} (float64) supports sigma in [{float(FLOAT_SIGMA[0]):g}, "
                                 f"{float(FLOAT_SIGMA[1]):g}]; use --method exact")
    if query == "delta" and value is not None and method != "pld":  # pld answers any ε soundly
        eps = _fraction_or_none(value)
        if eps is not None and abs(eps) > FLOAT_EPSILON:
            raise UnsupportedRequest("epsilon", _short(eps), f"--method {method} (float64) supports epsilon in "
                                     f"[-{FLOAT_EPSILON}, {FLOAT_EPSILON}]; use --method exact")
    if query == "epsilon" and value is not None:
        d = _fraction_or_none(value)
        if d is not None and 0 < d < FLOAT_DELTA_MIN:
            raise UnsupportedRequest("delta", _short(d), f"--method {method} (float64) supports delta >= 1e-300; "
                                     "use --method exact")


def _fraction_or_none(value):
    try:
        return Fraction(str(value).strip()) if isinstance(value, str) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None  # the method validates it and names it


def _short(x: Fraction) -> str:
    """A readable form of a possibly huge exact number (1e300 as '1e+300', not 301 digits)."""
    if x.denominator == 1 and abs(x) < 10 ** 15:
        return str(x)
    try:
        f = float(x)
    except OverflowError:
        f = math.inf
    if f != 0 and math.isfinite(f):
        return f"{f:.6g}"
    digits = round((abs(x.numerator).bit_length() - x.denominator.bit_length()) * math.log10(2))
    return f"~1e{digits}"  # from bit lengths: str() of an int beyond 4300 digits raises
