"""Configuration files (`--config FILE.json|FILE.toml`): parsed by `json` / `tomllib` only, never evaluated.

Keys (all optional except mechanism and steps, same meaning and valid ranges as the CLI flags, docs/cli.md):
    mechanism = "gaussian" | "laplace" | "randomized-response" | "discrete"
    sigma | scale | eps0      (the mechanism's one parameter; number or decimal string)
    pair = {p = [...], q = [...]}   (discrete; or a path to a JSON file: a regular file of at most 10 MB)
    scheme, steps, k, epochs, rate
Unknown keys, unparseable files and bad values raise InvalidParameter naming the key.
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

from ..config import Config
from ..errors import InvalidParameter
from ..mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from ..mechanisms.finite import read_limited

MECHANISMS = {"gaussian": (Gaussian, "sigma"), "laplace": (Laplace, "scale"),
              "randomized-response": (RandomizedResponse, "eps0"), "discrete": (None, "pair")}
KEYS = ("mechanism", "sigma", "scale", "eps0", "pair", "scheme", "steps", "k", "epochs", "rate")


def load_config(path) -> Config:
    """Read a JSON (.json) or TOML (.toml) configuration file into a Config."""
    return config_from_mapping(read_mapping(path), source=str(path))


def read_mapping(path) -> dict:
    p = Path(path)
    kind = p.suffix.lower()
    if kind not in (".json", ".toml"):
        raise InvalidParameter("config", path, "must be a .json or .toml file")
    try:
        text = read_limited(p, "config")  # a regular file of at most 10 MB, never an unbounded read
        data = json.loads(text) if kind == ".json" else tomllib.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise InvalidParameter("config", path, f"must be a readable {kind[1:].upper()} file ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict):
        raise InvalidParameter("config", path, "must hold one object/table of configuration keys")
    return data


def config_from_mapping(data: dict, source: str = "config") -> Config:
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise InvalidParameter(unknown[0], data[unknown[0]], "unknown configuration key; valid keys: " + ", ".join(KEYS))
    for required in ("mechanism", "steps"):
        if required not in data:
            raise InvalidParameter(required, "(missing)", f"is required in {source}")
    name = data["mechanism"]
    if name not in MECHANISMS:
        raise InvalidParameter("mechanism", name, "must be one of " + "|".join(MECHANISMS))
    make, param = MECHANISMS[name]
    for other in {p for _, p in MECHANISMS.values()} - {param}:
        if other in data:
            raise InvalidParameter(other, data[other], f"does not apply to mechanism {name}")
    if param not in data:
        raise InvalidParameter(param, "(missing)", f"is required for mechanism {name}")
    mechanism = _pair(data[param]) if name == "discrete" else make(_number(param, data[param]))
    return Config(mechanism, scheme=data.get("scheme", "allocation"), steps=_number("steps", data["steps"]),
                  k=_number("k", data.get("k", 1)), epochs=_number("epochs", data.get("epochs", 1)),
                  rate=None if data.get("rate") is None else _number("rate", data["rate"]))


def _number(name: str, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidParameter(name, value, "must be a number or a decimal string")
    return value


def _pair(value) -> DiscretePair:
    if isinstance(value, str):
        return DiscretePair.from_json(value)
    if not isinstance(value, dict) or set(value) != {"p", "q"}:
        raise InvalidParameter("pair", value, 'must be {"p": [...], "q": [...]} or a path to such a JSON file')
    return DiscretePair(value["p"], value["q"])
