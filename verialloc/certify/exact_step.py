"""Step 1 of certify's schedule (refine): the exact method when it is cheap, its bracket widened outward for the
printed digits, at EXACT_DIGITS and then, while the claim lies within that widening and the budget allows, at
ESCALATED_DIGITS (a claim 1e-12 away from the exact value is decided at 30 digits, not left inconclusive)."""

from __future__ import annotations

import time

import mpmath as mp

from ..config import Config
from ..errors import UnsupportedRequest
from ..exact import accountant as exact_accountant
from ..exact.discrete_profiles import composition_sizes
from ..ledger import ledger_of
from .verdict import Claim

EXACT_DIGITS = 12
#: the digits of the exact step's retries while the claim lies within the widening (each about as fast as the first
#: for finite pairs; the schedule retries only while the budget left exceeds GROWTH times the last try)
ESCALATED_DIGITS = (30, 60)
#: finite pairs go exact when the composed pair has at most this many atoms and its allocation k-subset terms are at
#: most EXACT_TERMS_PER_ATOM times that (each atom is built and queried about 4 times, 0.1–0.3 ms in all: ≤ 5 s)
EXACT_MAX_COUNTS = 20_000
EXACT_TERMS_PER_ATOM = 4
#: worst first: the kind a combined bracket inherits from its parts
KIND_RANK = ("statistical", "quadrature", "bound", "exact")


def widening(digits: int) -> mp.mpf:
    """The relative widening of an exact value computed to `digits` digits: 10^(2 − digits)."""
    return mp.mpf(10) ** (2 - digits)


def widen(x: mp.mpf, sign: int, digits: int = EXACT_DIGITS) -> mp.mpf:
    """x moved outward by the relative `widening(digits)`, at the caller's working precision (which must exceed
    `digits`); ±inf and 0 stay (inf·widen would turn inf − inf into NaN)."""
    return x if mp.isinf(x) or x == 0 else x + sign * abs(x) * widening(digits)


def exact_bracket(config: Config, claim: Claim, direction: str, digits: int):
    """(lower, upper, error kind, seconds) of the exact method at `digits`, widened outward (δ clipped to [0, 1]);
    None when the exact method does not serve the request."""
    t0 = time.perf_counter()
    query = exact_accountant.epsilon if claim.quantity == "epsilon" else exact_accountant.delta
    try:
        b = query(config, claim.at, direction, digits)
    except UnsupportedRequest:
        return None
    with mp.workdps(digits + 10):  # at 53 bits the widening of a 30-digit value (1e-28) would round away
        lo, hi = widen(mp.mpf(b.lower), -1, digits), widen(mp.mpf(b.upper), +1, digits)
        if claim.quantity == "delta":
            lo, hi = max(lo, mp.mpf(0)), min(hi, mp.mpf(1))
    return lo, hi, _kind(b), time.perf_counter() - t0


def _kind(b) -> str:
    """The worst error kind of a bracket and of every bracket nested in its details (KIND_RANK)."""
    kinds = {b.error_kind} | {_kind(v) for v in b.details.values() if isinstance(v, type(b))}
    return next((k for k in KIND_RANK if k in kinds), b.error_kind)


def exact_is_cheap(config) -> bool:
    """Cheap exact routes: finite pairs whose composed pair has at most EXACT_MAX_COUNTS atoms (C(t + m − 1, m − 1)
    count vectors for m outputs, C(N + E − 1, E) after E epochs: the count of t·E steps undercounted epochs, 601
    for t = 2, E = 300 against 45 451 atoms) and at most EXACT_TERMS_PER_ATOM·EXACT_MAX_COUNTS k-subset terms
    (`discrete_profiles.composition_sizes`); F13 compositions; continuous pairs with t·E ≤ 2. A Ledger: its events
    in closed form together (exact.accountant.ledger_composition), or all finite with at most EXACT_MAX_COUNTS atoms
    in their composition (the product of the events' sizes)."""
    ledger = ledger_of(config)
    if ledger.single is None:
        if exact_accountant.ledger_composition(ledger) is not None:
            return True
        total = 1
        for e in ledger.events:
            pairs = e.mechanism.finite_pairs()
            if pairs is None or not _finite_is_cheap(e, pairs):
                return False
            total *= max(composition_sizes(p, e.scheme, e.steps, k=e.k, epochs=e.epochs)[2] for p in pairs)
        return total <= EXACT_MAX_COUNTS
    config = ledger.single
    n = config.steps * config.epochs
    pairs = config.mechanism.finite_pairs()
    if pairs is not None:
        return _finite_is_cheap(config, pairs)
    if exact_accountant.composition(config) is not None:
        return True
    return n <= 2 and (config.scheme == "poisson" or config.k in (1, config.steps))


def _finite_is_cheap(config: Config, pairs) -> bool:
    sizes = [composition_sizes(pair, config.scheme, config.steps, k=config.k, epochs=config.epochs) for pair in pairs]
    return all(
        composed <= EXACT_MAX_COUNTS and atoms * splits <= EXACT_TERMS_PER_ATOM * EXACT_MAX_COUNTS
        for atoms, splits, composed in sizes
    )
