"""Method "pld": sound float64 lower and upper bounds from PLD realizations (F55, PLD route).

The PLDs of a configuration come from numeric.pld.table (Poisson: subsampled, discretized, composed; allocation:
the convex-order allocation PLDs, the unequal-blocks upper end for k > 1, epochs composed) and every rule that
turns a request into certified ends — tail, tail-accurate mode, window, finer epochs, grid chain, the tightened
lower ends — is the one pipeline's (numeric.pld.pipeline), which certify's refinement runs too. This module makes
the method's brackets from its answers: `direction="both"` is the maximum over the two directions (F3).
"""

from __future__ import annotations

import mpmath as mp

from ...config import Config
from ...errors import UnsupportedRequest
from ...result import Bracket, max_bracket
from ...validation import as_float, direction as check_direction, open_unit, real
from . import pipeline
from .settings import Settings

METHOD = "pld"


def delta(
    config, epsilon, direction: str = "both", digits: int = 30, settings: Settings = Settings(), progress=None
) -> Bracket:
    """Bracket [lower, upper] for δ(ε) from the lower and upper PLDs (F2), float budget applied outward; `config` a
    Config or a Ledger of events."""
    as_float("epsilon", epsilon)  # beyond float64 (an int 10**5000): InvalidParameter, not OverflowError
    return query("delta", config, real("epsilon", epsilon), direction, settings, progress)


def epsilon(
    config, delta, direction: str = "both", digits: int = 30, settings: Settings = Settings(), progress=None
) -> Bracket:
    """Bracket [lower, upper] for ε(δ): the upper PLD's ε satisfies δ_upper(ε) ≤ delta (F2, I1)."""
    as_float("delta", delta, open_unit)  # 0.99999999999999999 is 1.0 in float64: refused naming delta
    return query("epsilon", config, open_unit("delta", delta), direction, settings, progress)


def rdp(config: Config, alpha, digits: int = 30):
    raise UnsupportedRequest("method", METHOD, "pld answers delta and epsilon queries; use --method exact for rdp")


def _bracket(quantity: str, answer: pipeline.Answer, direction: str) -> Bracket:
    table = answer.table
    per = []
    for d, end in answer.ends.items():
        plds = {b: table[d, b] for b in ("lower", "upper")}
        details = {
            "truncated": {b: p.truncated for b, p in plds.items()},
            "float_error": {b: p.float_error for b, p in plds.items()},
            "notes": list(table.notes) + list(end.notes),
        }
        per.append(Bracket(quantity, mp.mpf(end.lower), mp.mpf(end.upper), METHOD, d.value, "bound", details))
    return per[0] if len(per) == 1 else max_bracket(*per)


def query(quantity: str, accounted, value, direction: str, settings: Settings, progress=None, builds=None) -> Bracket:
    """The bracket of one query from the pipeline's answer; `builds`: a compiled ledger's tables (pipeline.Builds)."""
    d = check_direction(direction)
    answer = pipeline.answer(accounted, quantity, value, d, settings, progress=progress, builds=builds)
    return _bracket(quantity, answer, d)
