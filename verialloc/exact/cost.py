"""Cost of the exact method (verialloc.exact) before it runs: seconds and bytes from the configuration alone, with
constants timed on a 2-core machine (docs/cli.md, "Cost model and budgets"); rough (within a factor of about 10
where timed), on the expensive side for sizes that grow without bound.

* rdp: allocation generating function, C_GENFUNC·α² (scaled by the working digits; pairs without closed-form
  moments 1.5 times that); Poisson binomial expansion, big-integer weights of about α·log2(denominator of λ) bits
  each (α² of them in total).
* δ/ε: finite pairs by the atoms of the composed pair (C_ATOM to build, C_QUERY to query, per direction and working
  precision, `_finite`); closed-form compositions (F13): δ a closed form, ε a bisection costing
  C_F13_SEARCH·(d + 20)³ at d digits; quadrature (F25 allocation t ≤ 3, F46 Poisson t ≤ 2) one δ evaluation per
  direction for δ and QUAD_SEARCH_EVALS for ε, each QUAD_BASE + C_QUAD·(d + 5)^QUAD_POWER at t = 2 and
  C_NESTED·(d + 5)²·(1 + z) at t = 3 (nested, d ≤ 12, z the tail depth `_tail_depth`), plus C_HUGE·bits^2.5 for a
  privacy loss of that many bits (Laplace b = 1e-4000: 1/b has 13 288).
"""

from __future__ import annotations

import math

import mpmath as mp

from ..budget import BASE_MEMORY, BASE_SECONDS, Estimate, fraction_or_none, int_or_none, small
from ..config import Config
from . import discrete_profiles, quadrature
from .accountant import composition, quadrature_route

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


def estimate(query: str, config: Config, value, digits: int, direction: str = "both") -> Estimate:
    """Estimated cost of an exact `query` ("delta", "epsilon", "rdp") at `value` (ε, δ or α)."""
    if query == "rdp":
        alpha = int_or_none(value)
        if alpha is None or alpha < 2:
            return small("alpha")  # the method itself refuses it
        return _rdp(config, alpha, digits)
    pairs = config.mechanism.finite_pairs()
    if pairs is not None:
        lower, upper = (_finite(pair, query, config, digits, direction) for pair in pairs)
        return lower if pairs[0] is pairs[1] else lower + upper
    route = quadrature_route(config)
    if route is None or route[1] < 2:  # closed-form composition (F13), t = 1, or refused by the exact layer
        if query == "epsilon" and composition(config) is not None:  # F13 solved by bisection at d digits
            return Estimate(BASE_SECONDS + C_F13_SEARCH * (digits + 20) ** 3, BASE_MEMORY, "digits", digits)
        return small("steps")
    return _quadrature(query, config, route[1], value, digits, direction)


def _finite(pair, query: str, config: Config, digits: int, direction: str) -> Estimate:
    """Exact finite pair (verialloc.exact.discrete_profiles): per direction asked, the pair of N atoms is built and
    queried at two working precisions d (`working_digits`), each C_ATOM·(1 + splits/4) per atom to build (the
    k-subset terms of allocation) plus C_QUERY for δ or C_QUERY·(1 + log2(N)/8) for ε (atoms sorted by ratio), all
    × (1 + d/150); memory ATOM_BYTES + ATOM_DIGIT_BYTES·d per atom. Sizes beyond the exact layer's caps are refused
    there before any work (its message names them)."""
    t, e = config.steps, config.epochs
    atoms, splits, composed = discrete_profiles.composition_sizes(pair, config.scheme, t, k=config.k, epochs=e)
    if max(atoms, composed) > discrete_profiles.MAX_ATOMS or atoms * splits > discrete_profiles.MAX_TERMS:
        return small("steps")
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
    """Bits of the privacy-loss scale the quadrature exponentiates (`ContinuousMechanism.loss_scale`: 1/σ² for the
    Gaussian, F15; 1/b for Laplace); else 0."""
    scale = mech.loss_scale()
    return max(scale.numerator.bit_length() - scale.denominator.bit_length(), 0) if scale is not None else 0


def _tail_depth(query: str, mech, t: int, value, direction: str) -> float:
    """How far in the tail the δ evaluations of 1-of-t allocation lie, in standard deviations (the nested
    quadrature's cost grows with it). δ at ε (F25): remove E[(Ū − e^ε)_+], add E[(1 − e^ε·Ū)_+], Ū the mean of
    t copies of U = P/Q under Q (variance χ²/t, χ² = D_2 − 1, F5): z = (e^ε − 1)/√(χ²/t) resp. (1 − e^{−ε})/√(χ²/t);
    in the remove direction at most the pair's own bound where it has one (`ContinuousMechanism.allocation_depth`: the
    Gaussian's σ·ln(t·e^ε) + 1/(2σ), one U reaching t·e^ε alone, F15).
    ε queries: 1.5·√(2 ln(1/δ)) (the normal depth of δ, with the search's upper end beyond the root)."""
    x = fraction_or_none(value)
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
            bound = mech.allocation_depth(eps, t) if direction == "remove" else None
            if bound is not None:
                z = min(z, bound)
        return float(min(z, DEPTH_CAP))


def _rdp(config: Config, alpha: int, digits: int) -> Estimate:
    scale = max(1.0, (digits + 15 + len(str(alpha))) / 45)
    a = float(min(alpha, 10**150))  # only its magnitude matters (α² must stay a finite float)
    if config.scheme == "allocation":
        seconds = C_GENFUNC * a**2 * scale
        memory = 64.0 * a * (digits + 25 + len(str(alpha)))  # α mpf moments and coefficients
        if not config.mechanism.closed_form_moments:
            seconds *= 1.5
        return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + memory, "alpha", alpha)
    bits = a * (math.log2(config.rate.denominator) + 1)  # one weight C(α,j)·num^j·(den−num)^(α−j)
    seconds = C_BINOMIAL * a**2 * scale + 1e-10 * a * bits
    memory = a * bits / 8 + 64.0 * a * (digits + 25)
    return Estimate(BASE_SECONDS + seconds, BASE_MEMORY + memory, "alpha", alpha)


def fewer_digits(query, config, value, budget, digits, direction) -> tuple:
    """(name, value, advice) for an exact quadrature over the budget: the most digits (>= 5) that fit, else steps."""
    fits = lambda d: estimate(query, config, value, d, direction).fits(budget)
    other = "use --method pld or --method best (float64 bounds)"
    if not fits(5):
        t = quadrature_route(config)[1]
        return "steps", config.steps, f"the quadrature over {t} steps does not fit even at digits=5; {other}"
    lo, hi = 5, digits  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return "digits", digits, f"the nearest feasible setting is digits <= {lo}; or {other}"


def serves(query: str, ledger) -> bool:
    """Whether the exact layer has a route for `query` of `ledger` (verialloc.ledger.Ledger), from the configuration
    alone: rdp of allocation k = 1 and of Poisson; δ/ε of finite pairs within the exact layer's size caps
    (discrete_profiles.MAX_ATOMS, MAX_TERMS), of F13 compositions (one event's or the ledger's), and of the
    quadrature routes (`quadrature_route`). The estimate of a request it serves is meaningful; one it does not is
    refused by the exact layer (method "auto" then asks best)."""
    events = ledger.events
    if query == "rdp":
        return all(e.scheme == "poisson" or e.k == 1 for e in events)
    if ledger.single is None:
        from .accountant import ledger_composition

        if ledger_composition(ledger) is not None:
            return True
        return all(e.mechanism.finite_pairs() is not None and _finite_fits(e) for e in events)
    config = ledger.single
    if config.mechanism.finite_pairs() is not None:
        return _finite_fits(config)
    return composition(config) is not None or quadrature_route(config) is not None


def _finite_fits(config: Config) -> bool:
    for pair in config.mechanism.finite_pairs():
        atoms, splits, composed = discrete_profiles.composition_sizes(
            pair, config.scheme, config.steps, k=config.k, epochs=config.epochs
        )
        if max(atoms, composed) > discrete_profiles.MAX_ATOMS or atoms * splits > discrete_profiles.MAX_TERMS:
            return False
    return True
