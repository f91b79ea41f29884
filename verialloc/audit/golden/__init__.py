"""Golden tables: certified ε / δ brackets (remove, add, both) shipped as package data, loaded with
importlib.resources. Regenerate with `python -m verialloc.audit.golden.generate` (docs/audit.md).
"""

from __future__ import annotations

import json
from importlib import resources

import mpmath as mp

from ...config import Config
from ...errors import InvalidParameter
from ...mechanisms import Gaussian

TABLES = ("default",)


def entry_brackets(b, digits: int) -> dict:
    """{both, remove, add: [lower, upper]} of a direction-"both" bracket and its per-direction ones, as decimal
    strings rounded outward (lower down, upper up): the `brackets` field of an entry."""
    from ...formatting import decimal

    directed = (("both", b), *((d, b.details[d]) for d in ("remove", "add") if d in b.details))
    return {d: [decimal(x.lower, digits, "down"), decimal(x.upper, digits, "up")] for d, x in directed}


def load(name: str = "default") -> dict:
    """The golden table `name` ({"versions", "date", "digits", "entries"})."""
    if name not in TABLES:
        raise InvalidParameter("golden table", name, "must be one of " + "|".join(TABLES))
    return json.loads(resources.files(__package__).joinpath(f"{name}.json").read_text())


def config_of(entry: dict) -> Config:
    """The verialloc Config of an entry's "config" spec (Gaussian mechanism)."""
    c = entry["config"]
    if c["mechanism"] != "gaussian":
        raise InvalidParameter("mechanism", c["mechanism"], "golden tables hold Gaussian configurations")
    return Config(
        Gaussian(c["sigma"]), scheme=c["scheme"], steps=c["steps"], k=c["k"], epochs=c["epochs"], rate=c.get("rate")
    )


def bracket(entry: dict, direction: str = "both") -> tuple[mp.mpf, mp.mpf]:
    """Certified (lower, upper) of `entry` for `direction` (remove | add | both), as mpf."""
    lo, hi = entry["brackets"][direction]
    return mp.mpf(lo), mp.mpf(hi)
