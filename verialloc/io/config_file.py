"""Configuration files (`--config FILE.json|FILE.toml`): parsed by `json` / `tomllib` only, never evaluated.

One schema for every command that takes a configuration (rdp, delta, epsilon, certify, calibrate, audit; docs/cli.md):
    mechanism = "gaussian" | "laplace" | ... (a name of mechanisms.registry.MECHANISMS; required)
    sigma | scale | eps0 | ...   (the mechanism's one parameter; number or decimal/p-q string)
    pair = {p = [...], q = [...]}   (discrete; or an inline JSON object string, or a path to a JSON file: a regular
                                     file of at most 10 MB)
    steps (required), scheme, k, epochs, rate
or, for a run of several phases (a composition: verialloc.ledger), only
    phases = [{mechanism = ..., sigma = ..., scheme = ..., steps = ..., ...}, ...]   (each phase the keys above)
The file holds the configuration only; the query (ε, δ, α, direction, method and its flags) stays on the command line.
Unknown keys, unparseable files and bad values raise InvalidParameter naming the key. A number is read as the text
it is written with (JSON and TOML alike), so `sigma = 0.10000000000000000001` or `1e-400` means exactly that, as the
same text given as a flag would.

`flag_values` turns a file's keys into the text the matching command-line flags would carry (ints as written, floats
through their shortest repr), and `config_from_values` builds the Config from either: the CLI's flags and a config
file go through the same validation.
"""

from __future__ import annotations

import difflib

import datetime
import tomllib
from pathlib import Path

from ..config import SCHEMES, Config
from ..ledger import Ledger
from ..errors import InvalidParameter
from ..mechanisms.finite import PAIR_FORMAT
from ..mechanisms.registry import MECHANISMS, PARAMETERS, implied_mechanism, owners
from ..validation import abbreviated, check_number_text
from . import json_input
from .files import MAX_BYTES, read_limited

#: most phases a configuration file lists
MAX_PHASES = 10_000
#: the configuration keys: the mechanism, its parameter (mechanisms.registry), the scheme and its sizes
KEYS = ("mechanism", *PARAMETERS, "scheme", "steps", "k", "epochs", "rate")
#: parameters given as an object, inline JSON or a JSON file path (the others are numbers)
JSON_KEYS = tuple(dict.fromkeys(cls.parameter for cls in MECHANISMS.values() if cls.parameter_kind == "json"))
NUMERIC_KEYS = tuple(k for k in KEYS if k not in ("mechanism", "scheme") + JSON_KEYS)
#: query and output settings: command-line flags only (a hint when one turns up in a file)
QUERY_KEYS = (
    "epsilon",
    "delta",
    "alpha",
    "direction",
    "method",
    "digits",
    "loss_step",
    "loss-step",
    "grid_step",
    "grid-step",
    "tail",
    "samples",
    "seed",
    "confidence",
    "alpha_max",
    "alpha-max",
    "search_tol",
    "search-tol",
    "target_gap",
    "target-gap",
    "claimed_epsilon",
    "claimed-epsilon",
    "claimed_delta",
    "claimed-delta",
    "budget",
    "json",
)


def load_config(path):
    """Read a JSON (.json) or TOML (.toml) configuration file: a Config, or a Ledger when it lists `phases`."""
    return accounted_from_values(file_values(path))


def file_values(path) -> dict:
    """The configuration keys of a file as flag values (see flag_values); a file of phases gives {"phases": [...]},
    each phase's keys as flag values (`phase_values`)."""
    data = read_mapping(path)
    if "phases" not in data:
        return flag_values(data)
    extra = [k for k in data if k != "phases"]
    if extra:
        raise InvalidParameter(
            str(extra[0]), _shown(data[extra[0]]), "a file of phases holds only `phases`: give every key in each phase"
        )
    return phase_values(data["phases"])


def read_mapping(path) -> dict:
    p = Path(path)
    kind = p.suffix.lower()
    if kind not in (".json", ".toml"):
        raise InvalidParameter("config", path, "must be a .json or .toml file")
    text = read_limited(p, "config")  # a regular file of at most 10 MB, never an unbounded read
    if kind == ".json":
        data = json_input.loads(text, "config", path, "must be a readable JSON file", exact=True)
    else:
        data = _toml(text, path)
    if not isinstance(data, dict):
        raise InvalidParameter("config", path, "must hold one object/table of configuration keys")
    return data


def _toml(text: str, path) -> dict:
    try:
        return tomllib.loads(text, parse_float=_toml_float)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise InvalidParameter(
            "config", path, f"must be a readable TOML file ({type(exc).__name__}: {abbreviated(str(exc), 200)})"
        ) from None
    except ValueError:  # int() of more than 4300 digits (sys.int_max_str_digits)
        raise InvalidParameter(
            "config", path, "must be a readable TOML file: it holds an integer of more than 4300 digits"
        ) from None


def _toml_float(text: str) -> str:
    """A TOML float as its text, read exactly like a flag; TOML's digit separators (1_000.5) dropped."""
    return text.replace("_", "")


def flag_values(data: dict) -> dict:
    """Check a file's keys and value types; returns {key: value as the flag's text} (a pair table stays a mapping)."""
    for key in data:
        if key not in KEYS:
            hint = (
                f"{key} belongs to the query: give it on the command line"
                if key in QUERY_KEYS
                else "unknown configuration key" + _did_you_mean(str(key))
            )
            raise InvalidParameter(str(key), _shown(data[key]), f"{hint}; configuration keys: " + ", ".join(KEYS))
    out = {}
    for key, value in data.items():
        if key in ("mechanism", "scheme"):
            if not isinstance(value, str):
                choices = MECHANISMS if key == "mechanism" else SCHEMES
                raise InvalidParameter(key, _shown(value), "must be a string, one of " + "|".join(choices))
            out[key] = value
        elif key in JSON_KEYS:
            if not isinstance(value, (str, dict)):
                raise InvalidParameter(
                    key,
                    _shown(value),
                    "{p = [...], q = [...]}, an inline JSON object string or the path of a JSON file",
                )
            out[key] = value
        else:
            out[key] = _number_text(key, value)
    return out


def config_from_mapping(data: dict, source: str = "config") -> Config:
    """A Config from a parsed file's mapping (`source` is kept for callers; messages name the key)."""
    return config_from_values(flag_values(data))


def config_from_values(values: dict) -> Config:
    """A Config from flag values {key: text} (None = not given): the command line's flags and a config file's keys
    (flag_values) alike. Errors name the key and its valid range."""
    given = {k: v for k, v in values.items() if v is not None}
    name = given.get("mechanism")
    if name is None:
        name = implied_mechanism(given)
    if name is None:
        raise InvalidParameter(
            "mechanism",
            "(missing)",
            "must be given: --mechanism " + "|".join(MECHANISMS) + ", or mechanism = ... in --config FILE",
        )
    if not isinstance(name, str) or name not in MECHANISMS:
        raise InvalidParameter("mechanism", abbreviated(name), "must be one of " + "|".join(MECHANISMS))
    cls = MECHANISMS[name]
    param = cls.parameter
    for other in PARAMETERS:
        if other != param and other in given:
            raise InvalidParameter(
                other, abbreviated(given[other]), "applies only to mechanism " + "|".join(owners(other))
            )
    if param not in given:
        raise InvalidParameter(
            param, "(missing)", f"must be given for mechanism {name}: --{param}, or {param} = ... in --config FILE"
        )
    if "steps" not in given:
        raise InvalidParameter("steps", "(missing)", "must be given: --steps T (>= 1), or steps = T in --config FILE")
    scheme = given.get("scheme", "allocation" if "rate" not in given else "poisson")  # only Poisson has a rate
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise InvalidParameter("scheme", abbreviated(scheme), "must be one of " + "|".join(SCHEMES))
    for key in NUMERIC_KEYS:
        if key in given:
            check_number_text(key, given[key])
    value = given[param]
    if cls.parameter_kind == "json":
        mechanism = cls.from_parameter(*json_parameter(param, value))
    else:
        mechanism = cls.from_parameter(value)
    return Config(
        mechanism,
        scheme=scheme,
        steps=given["steps"],
        k=given.get("k", "1"),
        epochs=given.get("epochs", "1"),
        rate=given.get("rate"),
    )


#: other libraries' names for configuration keys (dp_accounting, opacus; the CLI takes them as flag aliases)
KEY_ALIASES = {"num_steps": "steps", "sample_rate": "rate", "sampling_probability": "rate"}


def _did_you_mean(key: str) -> str:
    """`; did you mean sigma?` for another library's name (noise_multiplier) or a near miss of a key."""
    name = key.lower().replace("-", "_")
    aliases = {**KEY_ALIASES}
    for cls in MECHANISMS.values():
        aliases.update({a.replace("-", "_"): cls.parameter for a in cls.parameter_aliases})
    close = aliases.get(name) or next(iter(difflib.get_close_matches(name, KEYS, n=1, cutoff=0.75)), None)
    return f" (did you mean {close}?)" if close else ""


def _shown(value) -> str:
    """A file's value as an error line shows it: tables, arrays and TOML dates by kind, not by Python repr."""
    if isinstance(value, dict):
        return "(a table/object)"
    if isinstance(value, list):
        return "(an array)"
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return f"{value.isoformat()} (a TOML date/time)"
    return abbreviated(value)


def _number_text(name: str, value) -> str:
    """A file's number as the text a flag would carry: ints as written, other numbers as their text (the parsers
    keep it; a float from a caller's mapping through its shortest repr; nan, inf are refused by the validation
    that follows), strings unchanged."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidParameter(name, _shown(value), "must be a number or a decimal/p-q string")
    if isinstance(value, str):
        check_number_text(name, value)
        return value
    return repr(value) if isinstance(value, float) else str(value)


def json_parameter(name: str, value) -> tuple:
    """(object, how errors show it) of a JSON-kind parameter (the discrete pair's `--pair`): a mapping as it is, an
    inline JSON object (text starting with `{` after whitespace, at most MAX_BYTES bytes, parsed by `json` only),
    or the path of a JSON file holding one (a regular file of at most MAX_BYTES)."""
    if isinstance(value, dict):
        return value, abbreviated(value)
    if not isinstance(value, str):
        raise InvalidParameter(name, abbreviated(value), PAIR_FORMAT + " or the path of such a JSON file")
    if value.lstrip().startswith("[") and not Path(value).exists():
        raise InvalidParameter(name, abbreviated(value), PAIR_FORMAT)  # a JSON array, not a file name
    if not value.lstrip().startswith("{"):
        return json_input.loads(read_limited(value, name), name, value, PAIR_FORMAT, exact=True), value
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise InvalidParameter(name, abbreviated(value), f"inline JSON is {size} bytes; at most {MAX_BYTES}")
    shown = abbreviated(value)
    return json_input.loads(value, name, shown, PAIR_FORMAT, exact=True), shown


def accounted_from_values(values: dict):
    """A Config from flag values (config_from_values), or for {"phases": [...]} the Ledger composing one event per
    phase (verialloc.ledger), each validated like a configuration (errors name phases[i].key)."""
    if "phases" not in values:
        return config_from_values(values)
    events = []
    for i, phase in enumerate(values["phases"]):
        try:
            events.append(config_from_values(phase))
        except InvalidParameter as e:
            raise InvalidParameter(f"phases[{i}].{e.name}", e.value, e.valid) from None
    return Ledger.of(*events)


def phase_values(phases) -> dict:
    """{"phases": [flag values of each phase]} from a list of mappings, or from its JSON text (a batch row's cell);
    errors name phases[i].key."""
    if isinstance(phases, str):
        phases = json_input.loads(phases, "phases", abbreviated(phases), "must be a JSON list of objects", exact=True)
    if not isinstance(phases, list) or not phases or not all(isinstance(p, dict) for p in phases):
        raise InvalidParameter(
            "phases", _shown(phases), "must be a non-empty list of tables/objects of configuration keys"
        )
    if len(phases) > MAX_PHASES:
        raise InvalidParameter("phases", f"{len(phases)} phases", f"at most {MAX_PHASES} phases (merge repeated ones)")
    out = []
    for i, phase in enumerate(phases):
        try:
            out.append(flag_values(phase))
        except InvalidParameter as e:
            raise InvalidParameter(f"phases[{i}].{e.name}", e.value, e.valid) from None
    return {"phases": out}
