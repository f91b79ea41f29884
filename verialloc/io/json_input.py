"""JSON from users, read without the silent changes `json.loads` makes: a repeated key (json keeps the last), a
number rounded to float64 (0.10000000000000000001 becomes 0.1, 1e-400 becomes 0.0, 1e400 becomes inf), NaN and
Infinity (not JSON). With `exact=True` a number with a fraction or exponent is kept as its text (read exactly
later, as the same text given as a flag would be); otherwise one beyond float64 is refused. Repeated keys, NaN,
Infinity, nesting too deep for the parser and integers of more than 4300 digits are refused. A leading UTF-8
byte-order mark (Windows editors write one) is dropped by `decode`.
"""

from __future__ import annotations

import codecs
import json
import math

from ..errors import InvalidParameter


class _Refused(Exception):
    """What a parse hook found (caught in `loads`)."""


def _unique_keys(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"the key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value) or (value == 0 and any(c in "123456789" for c in text.lower().split("e")[0])):
        raise _Refused(
            f'the number {text[:40]} is beyond float64; write it as a string, "{text[:40]}", to keep it exact'
        )
    return value


def _constant(text: str):
    raise _Refused(f"{text} is not a JSON number")


def decode(data: bytes) -> str:
    """UTF-8 text of `data` without a leading byte-order mark (UnicodeDecodeError as `bytes.decode`)."""
    return data.decode("utf-8-sig")


#: byte-order marks of the encodings editors save in besides UTF-8 (UTF-32 first: its LE mark starts with UTF-16's)
_OTHER_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """Why `data` is not UTF-8, for a message: the encoding its byte-order mark names, else the first bad byte."""
    for mark, encoding in _OTHER_MARKS:
        if data.startswith(mark):
            return f"must be UTF-8 text: it is {encoding} (its byte-order mark says so); save it as UTF-8"
    return f"must be UTF-8 text (byte {exc.start} is not)"


def loads(text: str, name: str, shown, rule: str, *, exact: bool = False):
    """The JSON value of `text` (numbers with a fraction or exponent as their text when `exact`); anything `json`
    refuses or would silently change raises InvalidParameter(name, shown, f"{rule} (reason)")."""
    try:
        return json.loads(
            text.removeprefix("\ufeff"),
            object_pairs_hook=_unique_keys,
            parse_float=str if exact else _finite_float,
            parse_constant=_constant,
        )
    except _Refused as exc:
        reason = str(exc)
    except json.JSONDecodeError as exc:
        reason = f"JSONDecodeError: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        reason = "nested too deeply"
    except ValueError:  # int() of more than 4300 digits (sys.int_max_str_digits)
        reason = "it holds an integer of more than 4300 digits"
    raise InvalidParameter(name, shown, f"{rule} ({reason})")
