"""opacus (1.x) bridge: an accountant's history in, verialloc's Config or Ledger and certificate out. Needs no opacus.

opacus's accountants (RDPAccountant, PRVAccountant, GaussianAccountant; opacus/accountants/accountant.py, rdp.py,
prv.py, gdp.py) keep `accountant.history`: a list of (noise_multiplier, sample_rate, num_steps) tuples, one per run
of identical consecutive `step(noise_multiplier=σ, sample_rate=q)` calls. Each step of opacus's DP-SGD is the
Gaussian mechanism with noise multiplier σ = noise std / clipping norm on a Poisson sample at rate q (F11, F16).

| opacus | verialloc |
|---|---|
| `noise_multiplier` σ | `Gaussian(σ)`: pair N(1, σ²) vs N(0, σ²) (F16) |
| `sample_rate` q | `scheme="poisson"`, `rate=q` |
| `num_steps` T of each entry | `steps` = the sum of T over the entries with the same (σ, q) (Poisson steps are independent) |
| entries with different (σ, q) (a schedule) | a `Ledger` composing one event per (σ, q) (F21, F48) |

`from_opacus_history(source)` gives the Config (one (σ, q)) or Ledger (a schedule) of a history.
`history_of(source)` reads a history from an accountant (anything with `.history`), a PrivacyEngine (anything with
`.accountant.history`), a list of triples, or a JSON file (`[[σ, q, T], ...]` or `{"history": [...]}`, at most
MAX_HISTORY_BYTES). Numbers are read exactly: a file's as written (0.0100000000000000000001 is not 0.01, 1e3 steps is
1000 but 1.0000000000000000001e3 is no integer), floats (Python, numpy) through their shortest decimal repr (0.01 is
1/100), Decimals as written, as everywhere in verialloc (`validation.to_fraction`).
"""

from __future__ import annotations

import numbers
import os
from decimal import Decimal
from fractions import Fraction

from ..io import json_input
from ..certify import certify, make_claim
from ..certify.refine import DEFAULT_BUDGET, Certificate
from ..config import Config
from ..ledger import Ledger
from ..errors import InvalidParameter
from ..mechanisms import Gaussian
from ..io.files import read_limited
from ..validation import abbreviated, check_number_text, integer, open_unit, positive, rate

MAX_HISTORY_BYTES = 2**20
FIELDS = ("noise_multiplier", "sample_rate", "num_steps")


def history_of(source) -> list:
    """The raw history of an accountant, a PrivacyEngine, a list of (σ, q, T) triples or a JSON file's path."""
    if isinstance(source, (str, os.PathLike)):
        return load_history(source)
    if hasattr(source, "history"):
        return source.history
    if hasattr(getattr(source, "accountant", None), "history"):
        return source.accountant.history
    if isinstance(source, (list, tuple)):
        return source
    raise InvalidParameter(
        "history",
        abbreviated(source),
        "must be an opacus accountant (with .history), a PrivacyEngine, a list of (σ, q, steps) or a JSON file",
    )


def load_history(path) -> list:
    """The history in a JSON file: `[[σ, q, T], ...]` or `{"history": [...]}` (parsed by json only, bounded)."""
    data = json_input.loads(
        read_limited(path, "opacus-history", MAX_HISTORY_BYTES),
        "opacus-history",
        path,
        "must be a readable JSON file",
        exact=True,
    )  # 0.0100000000000000000001 as written
    if isinstance(data, dict):  # opacus's own accountant.state_dict(): {"history": [...], "mechanism": "rdp"}
        if "history" not in data or not set(data) <= {"history", "mechanism"}:
            raise InvalidParameter(
                "opacus-history",
                path,
                'an object must hold the key "history" (and may hold "mechanism", as opacus\'s '
                "accountant.state_dict() writes; keys: " + abbreviated(", ".join(map(str, data)), 200) + ")",
            )
        data = data["history"]
    if not isinstance(data, list):
        raise InvalidParameter(
            "opacus-history",
            path,
            'must hold a list [[noise_multiplier, sample_rate, num_steps], ...] or {"history": [...]}',
        )
    return data


def certify_opacus(
    source,
    delta,
    claimed_epsilon=None,
    *,
    direction: str = "both",
    budget=DEFAULT_BUDGET,
    progress=None,
    strict: bool = False,
) -> Certificate:
    """verialloc's certificate (bracket of ε(δ), verdict) for the claim ε(δ) <= claimed_epsilon about the history
    of `source`. Without a claim, the claim is `source.get_epsilon(delta)` (what the opacus accountant or
    PrivacyEngine reports); a bare history or file needs `claimed_epsilon`. Options as `verialloc.certify`."""
    if claimed_epsilon is None:
        if not callable(getattr(source, "get_epsilon", None)):
            raise InvalidParameter(
                "claimed_epsilon",
                "(missing)",
                "give the ε to certify (what accountant.get_epsilon(delta) reported), or pass the accountant itself",
            )
        claimed_epsilon = source.get_epsilon(delta=float(open_unit("delta", delta)))
    claim = make_claim(delta=delta, claimed_epsilon=claimed_epsilon)
    return certify(from_opacus_history(source), claim, direction, budget, progress=progress, strict=strict)


def _entry(i: int, entry) -> tuple[Fraction, Fraction, int]:
    where = f"history[{i}]"
    if not isinstance(entry, (list, tuple)) or len(entry) != 3:
        raise InvalidParameter(where, abbreviated(entry), "must be (noise_multiplier, sample_rate, num_steps)")
    for field, value in zip(FIELDS, entry):
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, str, Decimal)):
            raise InvalidParameter(f"{where}.{field}", abbreviated(value), "must be a number or a decimal string")
        check_number_text(f"{where}.{field}", value)
    sigma, q, steps = entry
    return (
        positive(f"{where}.noise_multiplier", sigma),
        rate(f"{where}.sample_rate", q),
        integer(f"{where}.num_steps", steps, lo=1),
    )


def _show(entry) -> str:
    return abbreviated(tuple(entry) if isinstance(entry, list) else entry, 80)


def from_opacus_history(source):
    """What a history accounts (module docstring): Poisson DP-SGD steps at rate q with noise multiplier σ — one
    Config when every entry has the same (σ, q) (steps = Σ num_steps), else a Ledger composing one event per
    (σ, q) of the schedule."""
    history = history_of(source)
    if not isinstance(history, (list, tuple)) or not history:
        raise InvalidParameter(
            "history", abbreviated(history), "must be a non-empty list of (noise_multiplier, sample_rate, num_steps)"
        )
    entries = [_entry(i, e) for i, e in enumerate(history)]
    ledger = Ledger.of(*(Config(Gaussian(s), "poisson", steps=t, rate=q) for s, q, t in entries))
    return ledger.single if ledger.single is not None else ledger
