"""Files users name: read as UTF-8 text, only regular files and only up to a size limit (never an unbounded read);
written only as regular files (or a character device such as /dev/null) in a directory that exists."""

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


def output_file(name: str, path, devices: bool = True) -> Path:
    """An output file `path` checked before any work: not a directory, not a FIFO, socket or block device (opening
    a FIFO to write blocks until a reader comes), in a directory that exists (none is created). A character device
    (/dev/null) is allowed when `devices` (a full one fails when written: exit 2, not a bug); a report written after
    minutes of work asks devices=False, so that /dev/full is refused before the work, not after it."""
    p = Path(path)
    if p.is_dir():
        raise InvalidParameter(name, str(path), "must be a file name, not a directory")
    if p.exists() and not (stat.S_ISREG(mode := os.stat(p).st_mode) or (devices and stat.S_ISCHR(mode))):
        kinds = "a FIFO, socket or block device" if devices else "a device, FIFO or socket"
        raise InvalidParameter(name, str(path), f"must be a regular file (not {kinds})")
    if not p.parent.exists():
        raise InvalidParameter(name, str(path), f"the directory {str(p.parent)!r} does not exist (create it first)")
    if not p.parent.is_dir():
        raise InvalidParameter(name, str(path), f"{str(p.parent)!r} is not a directory")
    return p
