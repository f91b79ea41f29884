"""Hypothesis strategies for privacy-accounting inputs: mechanisms, configurations, queries and PLD realizations.

Every number is drawn as an exact `Fraction` (decimal grids), so the exact layer reads it without rounding.
`cheap=True` keeps every configuration inside what the exact layer serves in well under a second: finite pairs
with ≤ 4 outputs, t ≤ 4, E ≤ 2; continuous mechanisms only on the closed-form / one-dimensional quadrature
routes (allocation k = 1 with t ≤ 2, Gaussian with every step used, Poisson with t·E ≤ 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from ..config import Config
from ..mechanisms import DiscretePair, Gaussian, Laplace, Mechanism, RandomizedResponse
from ..numeric.pld.pld import PLD

#: grid of drawn losses, epsilons and mechanism parameters (exact in binary floating point)
GRID = Fraction(1, 8)


@st.composite
def probability_pairs(draw, max_atoms: int = 6, max_weight: int = 6):
    """(p, q): two exact probability vectors (Fractions) of equal length; zeros allowed on either side,
    so P may put mass where Q has none (loss +inf) and vice versa."""
    n = draw(st.integers(1, max_atoms))
    a = draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n).filter(any))
    b = draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n).filter(any))
    return [Fraction(x, sum(a)) for x in a], [Fraction(y, sum(b)) for y in b]


def _grid_values(lo: Fraction, hi: Fraction):
    return st.integers(math.ceil(lo / GRID), math.floor(hi / GRID)).map(lambda n: n * GRID)


# --- mechanisms ------------------------------------------------------------------------------------
def gaussians(min_sigma=Fraction(1, 2), max_sigma=Fraction(4)):
    """Gaussian(σ), σ on the 1/8 grid of [min_sigma, max_sigma]."""
    return _grid_values(Fraction(min_sigma), Fraction(max_sigma)).filter(lambda s: s > 0).map(Gaussian)


def laplaces(min_scale=Fraction(1, 2), max_scale=Fraction(4)):
    """Laplace(b), b on the 1/8 grid of [min_scale, max_scale]."""
    return _grid_values(Fraction(min_scale), Fraction(max_scale)).filter(lambda s: s > 0).map(Laplace)


def randomized_responses(min_eps0=Fraction(1, 8), max_eps0=Fraction(3)):
    """RandomizedResponse(ε0), ε0 on the 1/8 grid of [min_eps0, max_eps0]."""
    return _grid_values(Fraction(min_eps0), Fraction(max_eps0)).filter(lambda e: e > 0).map(RandomizedResponse)


def discrete_pairs(max_atoms: int = 4, max_weight: int = 6, allow_disjoint: bool = False):
    """DiscretePair(p, q) with exact rational entries, zero masses allowed on either side (losses ±inf).

    allow_disjoint=False requires one output with P > 0 and Q > 0 (a finite loss), which float accountants need.
    """
    pairs = probability_pairs(max_atoms, max_weight)
    if not allow_disjoint:
        pairs = pairs.filter(lambda pq: any(x > 0 and y > 0 for x, y in zip(*pq)))
    return pairs.map(lambda pq: DiscretePair(*pq))


def finite_mechanisms(max_atoms: int = 4):
    """Randomized response or a random discrete pair."""
    return st.one_of(randomized_responses(), discrete_pairs(max_atoms))


def mechanisms(continuous: bool = True, max_atoms: int = 4):
    """Any mechanism: finite pairs, and Gaussian / Laplace when `continuous`."""
    finite = finite_mechanisms(max_atoms)
    return st.one_of(finite, gaussians(), laplaces()) if continuous else finite


# --- accounting inputs -----------------------------------------------------------------------------
def rates(max_denominator: int = 10):
    """A Poisson rate λ ∈ (0, 1] as an exact fraction n/d, d ≤ max_denominator."""
    return st.integers(1, max_denominator).flatmap(lambda d: st.integers(1, d).map(lambda n: Fraction(n, d)))


def epsilons(min_value=Fraction(-1), max_value=Fraction(3)):
    """ε on the 1/8 grid (negative values included: domination needs all ε ∈ ℝ, F2)."""
    return _grid_values(Fraction(min_value), Fraction(max_value))


def deltas(min_exponent: int = 1, max_exponent: int = 8):
    """δ = m·10^{−e}, m ∈ 1..9, e ∈ [min_exponent, max_exponent], as an exact fraction."""
    return st.builds(lambda m, e: Fraction(m, 10**e), st.integers(1, 9), st.integers(min_exponent, max_exponent))


def directions(both: bool = True):
    """ "remove" | "add" (| "both")."""
    return st.sampled_from(("remove", "add", "both") if both else ("remove", "add"))


@st.composite
def configs(
    draw, mechanism=None, schemes=("allocation", "poisson"), max_steps: int = 4, max_epochs: int = 2, cheap: bool = True
):
    """A `Config` (scheme, t, k, E, λ) for a mechanism drawn from `mechanism` (default: `mechanisms()`).

    cheap=True restricts continuous mechanisms to the exact layer's fast routes (module docstring).
    """
    mech: Mechanism = draw(mechanism if mechanism is not None else mechanisms())
    scheme = draw(st.sampled_from(schemes))
    if cheap and mech.finite_pairs() is None:  # no enumeration: the exact layer's closed forms or quadrature
        return draw(_cheap_continuous(mech, scheme, max_steps, max_epochs))
    t = draw(st.integers(1, max_steps))
    epochs = draw(st.integers(1, max_epochs))
    if scheme == "poisson":
        return Config(mech, "poisson", steps=t, epochs=epochs, rate=draw(rates()))
    return Config(mech, "allocation", steps=t, k=draw(st.integers(1, t)), epochs=epochs)


def _cheap_continuous(mech, scheme, max_steps, max_epochs):
    if scheme == "poisson":
        return st.sampled_from(((1, 1), (1, 2), (2, 1))).flatmap(
            lambda te: rates().map(lambda lam: Config(mech, "poisson", steps=te[0], epochs=te[1], rate=lam))
        )
    single = st.integers(1, min(2, max_steps)).map(lambda t: Config(mech, "allocation", steps=t))
    if mech.composed(1) is None:  # no closed-form composition (F13): k = t is no cheap route
        return single
    every_step = st.builds(
        lambda t, e: Config(mech, "allocation", steps=t, k=t, epochs=e),
        st.integers(1, max_steps),
        st.integers(1, max_epochs),
    )
    return st.one_of(single, every_step)


@dataclass(frozen=True)
class Query:
    """One accounting question: δ(ε) (quantity "delta", value ε) or ε(δ) (quantity "epsilon", value δ)."""

    config: Config
    quantity: str
    value: Fraction
    direction: str

    def ask(self, api_module, method: str, **options):
        """The Bracket `method` answers (`api_module` is `verialloc.api`)."""
        fn = api_module.delta if self.quantity == "delta" else api_module.epsilon
        return fn(self.config, self.value, direction=self.direction, method=method, **options)


@st.composite
def queries(draw, config=None, quantities=("delta", "epsilon"), both: bool = True):
    """A `Query` on a configuration from `config` (default: `configs()`)."""
    cfg = draw(config if config is not None else configs())
    quantity = draw(st.sampled_from(quantities))
    value = draw(epsilons() if quantity == "delta" else deltas(1, 6))
    return Query(cfg, quantity, value, draw(directions(both)))


# --- PLD realizations and laws ---------------------------------------------------------------------
def pld_realizations(max_atoms: int = 5, with_inf: bool = True, span: int = 3):
    """Valid float64 PLD realizations (F7): losses on the 1/8 grid of [−span, span + shift] (exact in float64, so
    they compose on that grid), masses summing to 1 with an optional +inf atom, no −inf atom, E[e^{−L}] ≤ 1
    (a random law shifted up by the least multiple of 1/8 that achieves it)."""
    return st.builds(
        _shifted_pld,
        st.lists(_grid_values(Fraction(-span), Fraction(span)), min_size=1, max_size=max_atoms, unique=True).map(
            sorted
        ),
        st.lists(st.integers(1, 8), min_size=max_atoms + 1, max_size=max_atoms + 1),
        st.booleans() if with_inf else st.just(False),
    )


def _shifted_pld(values, weights, inf) -> PLD:
    weights = weights[: len(values) + 1] if inf else weights[: len(values)]
    total = sum(weights)
    masses = np.array([w / total for w in weights[: len(values)]])
    losses = np.array([float(v) for v in values])
    tilt = float(np.sum(masses * np.exp(-losses)))
    steps = max(0, math.ceil(math.log(tilt) / float(GRID) + 1e-9)) if tilt > 0 else 0
    return PLD(losses + steps * float(GRID), masses, inf_mass=weights[-1] / total if inf else 0.0)


@st.composite
def exp_laws(draw, max_atoms: int = 5, max_weight: int = 8, with_inf: bool = True, realization: bool = True):
    """An exact law of e^L as {x: mass}: x a positive Fraction (or math.inf for L = +inf), Fraction masses
    summing to 1. With `realization`, values are scaled so that E[e^{−L}] = Σ m/x ≤ 1 (F7). In this exp-space
    form, duals (F7), subsampling (F47), allocation (F26) and H_κ for rational κ are all exact rationals."""
    n = draw(st.integers(1, max_atoms))
    values = draw(st.lists(st.integers(1, 24).map(lambda i: Fraction(i, 4)), min_size=n, max_size=n, unique=True))
    if with_inf and draw(st.booleans()):
        values.append(math.inf)
    weights = draw(st.lists(st.integers(1, max_weight), min_size=len(values), max_size=len(values)))
    law = {x: Fraction(w, sum(weights)) for x, w in zip(values, weights)}
    tilt = sum(m / x for x, m in law.items() if x != math.inf)
    if realization and tilt > 1:
        law = {(x * tilt if x != math.inf else x): m for x, m in law.items()}
    return law


@st.composite
def ordered_exp_laws(draw, max_atoms: int = 5):
    """(V, U), exact exp-space realizations with V ⪯ U (U stochastically dominates V, F10): U moves parts of
    V's atoms up by a factor 1 + j/4 or to +inf. U is again a realization (F7 (vi), Claim B.1)."""
    v = draw(exp_laws(max_atoms))
    u: dict = {}
    for x, mass in v.items():
        part = mass * Fraction(draw(st.integers(0, 4)), 4)
        lift = math.inf if draw(st.integers(0, 5)) == 0 else x * (1 + Fraction(draw(st.integers(1, 8)), 4))
        for target, m in ((x, mass - part), (lift, part)):
            if m:
                u[target] = u.get(target, 0) + m
    return v, u


def exp_law_to_pld(law: dict, bound: str = "exact") -> PLD:
    """The float64 `PLD` of an exp-space law {x: mass} (losses ln x; x = math.inf goes to the +inf atom)."""
    finite = sorted(x for x in law if x != math.inf)
    return PLD(
        np.log(np.array([float(x) for x in finite])),
        np.array([float(law[x]) for x in finite]),
        inf_mass=float(law.get(math.inf, 0)),
        bound=bound,
    )
