"""Files users name: read as UTF-8 text, only regular files and only up to a size limit (never an unbounded read)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InvalidParameter
from . import json_input

#: largest file read (a configuration, a --pair file, inline --pair text) unless the caller sets its own limit
MAX_BYTES = 10 * 2**20


def read_limited(path, name: str, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text (byte-order mark dropped) of a regular file of at most `limit` bytes; anything else (a
    directory, /dev/zero, a FIFO, a larger file, other bytes) raises InvalidParameter naming `name`. Reads at most
    limit + 1 bytes, never the whole stream."""
    p = Path(path)
    special = "must be a regular file (not a device, FIFO or directory)"
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):  # before opening: opening a FIFO would block
            raise InvalidParameter(name, path, special)
        with open(p, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InvalidParameter(name, path, special)
            if info.st_size > limit:
                raise InvalidParameter(name, path, f"is {info.st_size} bytes; at most {limit} bytes are read")
            data = fh.read(limit + 1)
    except IsADirectoryError:
        raise InvalidParameter(name, path, special) from None
    except OSError as exc:
        raise InvalidParameter(name, path, f"must be a readable file ({type(exc).__name__})") from None
    if len(data) > limit:
        raise InvalidParameter(name, path, f"is larger than {limit} bytes (the most that is read)")
    try:
        return json_input.decode(data)
    except UnicodeDecodeError as exc:
        raise InvalidParameter(name, path, json_input.not_utf8(data, exc)) from None
