"""Batch tables: claims in (CSV with a header, or JSON Lines, by extension), results out, one layout of columns.

Input rows hold the keys of a configuration file (config_file.KEYS) — or `phases`, a JSON list of such objects
for a run of several phases (a composition) — one claim (`delta` + `claimed_epsilon`, or
`epsilon` + `claimed_delta`), optionally `direction`, `budget` (seconds for this row), `strict`, and an `id`. Reading
is bounded (MAX_BYTES, MAX_LINE, MAX_ROWS). A file that cannot be read or parsed — not a regular file, too large,
not UTF-8, a CSV header with an unknown or repeated column, a malformed record or JSON line, a repeated id — raises
InvalidParameter naming the file, the line and the key.

Results: CSV or JSON Lines by the extension of `out`, the columns COLUMNS, one line per row, appended, flushed and
fsynced as each row finishes (`Results`). A row is known by its id, else by a hash of its inputs (`key`); rows
already in `out` are the done ones (a stopped batch resumes; an interrupted last line is dropped), and every stored
row must be a result row as written, else InvalidParameter names the line and the column.

Why this module is long: the reader of claims, the writer of results and the checker of a results file being
resumed share one column layout (COLUMNS, `input_columns`, `_as_text`); split apart, a column added to one would
silently disagree with the others, and a resume would then match or refuse rows wrongly.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import stat
from decimal import Decimal
from pathlib import Path

from ..errors import InvalidParameter
from ..validation import abbreviated
from . import config_file, json_input
from .files import output_file

CLAIM_KEYS = ("delta", "claimed_epsilon", "epsilon", "claimed_delta")
#: the keys a row may hold (besides `id`), in output order
INPUT_KEYS = (*config_file.KEYS, "phases", *CLAIM_KEYS, "direction", "budget", "strict")
RESULT_KEYS = ("verdict", "lower", "upper", "method_lower", "method_upper", "rigorous", "seconds", "error")
#: a result row's verdict (certify's verdicts, or error) and what certified a bracket end
VERDICTS = ("certified", "refuted", "inconclusive", "error")
METHODS = ("exact", "pld", "quadrature", "statistical", "none")
#: a bracket end as certify writes it (formatting.decimal; non-finite ends as mpmath prints them), and seconds
NUMBER = re.compile(r"-?\d+(\.\d+)?(e[+-]?\d+)?|[+-]?inf|nan")
SECONDS = re.compile(r"\d+\.\d+")
#: the end of a refusal of a damaged --out row
DAMAGED = " (a damaged results file: repair or delete that line; a deleted row is computed again)"
COLUMNS = ("id", *INPUT_KEYS, *RESULT_KEYS)
FORMATS = (".csv", ".jsonl")
MAX_BYTES = 64 * 2**20
MAX_LINE = 2**20
MAX_ROWS = 100_000
MAX_ID = 200


def key(values: dict) -> str:
    """A row's name in the output: its id, else "sha256:" and 16 hex digits of its inputs (keys sorted)."""
    if values.get("id"):
        return values["id"]
    text = json.dumps({k: v for k, v in values.items() if k != "id"}, sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def read_rows(path) -> list[tuple[int, dict]]:
    """(line number, {key: text}) of every row of a CSV or JSON Lines file; empty cells and nulls are left out."""
    kind = _format("batch", path)
    rows = _csv_rows(path) if kind == ".csv" else _jsonl_rows(path)
    seen = {}
    for line, values in rows:
        if len(values.get("id", "")) > MAX_ID:
            raise InvalidParameter("id", abbreviated(values["id"]), f"{path} line {line}: at most {MAX_ID} characters")
        name = key(values)
        if name in seen:
            raise InvalidParameter(
                "id", name, f"{path} line {line} repeats the row of line {seen[name]} (give each row a distinct id)"
            )
        seen[name] = line
    return rows


def _format(name: str, path) -> str:
    kind = Path(path).suffix.lower()
    if kind not in FORMATS:
        raise InvalidParameter(name, path, "must be a .csv or .jsonl file")
    return kind


def _lines(path, name: str):
    """(line number, text) of a regular UTF-8 file, reading at most MAX_BYTES (+1) and MAX_LINE per line."""
    refuse = "must be a regular file (not a device, FIFO or directory)"
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # before opening: opening a FIFO would block
            raise InvalidParameter(name, path, refuse)
        if info.st_size > MAX_BYTES:
            raise InvalidParameter(name, path, f"is larger than {MAX_BYTES} bytes")
        fh = open(path, "rb")
    except IsADirectoryError:
        raise InvalidParameter(name, path, refuse) from None
    except OSError as exc:
        raise InvalidParameter(name, path, f"cannot be read ({exc.strerror or exc})") from None
    with fh:
        total, number = 0, 0
        while raw := fh.readline(MAX_LINE + 1):
            number += 1
            total += len(raw)
            if total > MAX_BYTES:  # it grew while being read
                raise InvalidParameter(name, path, f"is larger than {MAX_BYTES} bytes")
            if len(raw) > MAX_LINE:
                raise InvalidParameter(name, path, f"line {number} is longer than {MAX_LINE} bytes")
            if b"\0" in raw:
                raise InvalidParameter(name, path, f"line {number} holds a NUL byte: not a text file")
            try:
                yield number, json_input.decode(raw) if number == 1 else raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidParameter(name, path, f"line {number} is not UTF-8 text") from None


def _column(name: str) -> str:
    return name.strip().replace("-", "_")


def _csv_rows(path) -> list[tuple[int, dict]]:
    lines = _lines(path, "batch")
    reader = csv.reader((text for _, text in lines), strict=True)
    rows, header = [], None
    try:
        for record in reader:
            if not any(cell.strip() for cell in record):
                continue
            if header is None:
                header = [_column(c) for c in record]
                _check_header(path, header, reader.line_num)
                continue
            if len(record) != len(header):
                raise InvalidParameter(
                    "batch", path, f"line {reader.line_num} has {len(record)} fields, the header {len(header)}"
                )
            rows.append((reader.line_num, {k: v.strip() for k, v in zip(header, record) if v.strip()}))
            _check_count(path, rows, reader.line_num)
    except csv.Error as exc:
        raise InvalidParameter("batch", path, f"line {reader.line_num} is not valid CSV ({exc})") from None
    if header is None:
        raise InvalidParameter("batch", path, "is empty: a header row naming the keys is required")
    return rows


def _check_header(path, header: list[str], line: int) -> None:
    for i, name in enumerate(header):
        if name != "id" and name not in INPUT_KEYS:
            raise InvalidParameter(
                "batch",
                path,
                f"line {line}: unknown column {abbreviated(name)!r}; columns: id, " + ", ".join(INPUT_KEYS),
            )
        if name in header[:i]:
            raise InvalidParameter("batch", path, f"line {line}: the column {name!r} appears twice")


def _check_count(path, rows: list, line: int) -> None:
    if len(rows) > MAX_ROWS:
        raise InvalidParameter("batch", path, f"line {line}: more than {MAX_ROWS} rows (split the file)")


def _jsonl_rows(path) -> list[tuple[int, dict]]:
    rows = []
    for line, text in _lines(path, "batch"):
        if not text.strip():
            continue
        data = json_input.loads(
            text, "batch", path, f"line {line} is not a JSON object", exact=True
        )  # numbers as written (0.10000000000000000001 is no 0.1)
        if not isinstance(data, dict):
            raise InvalidParameter("batch", path, f"line {line} is not a JSON object")
        rows.append((line, {str(k).replace("-", "_"): _text(v) for k, v in data.items() if v is not None}))
        _check_count(path, rows, line)
    return rows


def _text(value) -> str:
    """A JSON value as the text a CSV cell would hold (numbers as written, floats through repr, true/false,
    objects and lists as compact JSON); validation happens when the row runs."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def input_columns(task: dict) -> dict:
    """The input columns of a task's output row: its values over the run's defaults, "" where not given."""
    values = {**task["defaults"], **task["values"]}
    return {k: values.get(k, "") for k in INPUT_KEYS}


class Results:
    """The output file: the keys of the rows it already holds, and row-by-row appending (flushed, fsynced)."""

    def __init__(self, path):
        self.path, self.kind = Path(path), _format("out", path)
        if self.path.exists():
            if not stat.S_ISREG(os.stat(self.path).st_mode):
                raise InvalidParameter("out", path, "must be a regular file (not a device, FIFO or directory)")
            self._drop_partial_line()
        else:
            output_file("out", path)  # its directory exists
        self.done = self._keys()

    def _drop_partial_line(self) -> None:
        """A last line without its newline is an interrupted write: cut it (its row runs again)."""
        with open(self.path, "r+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return
            fh.seek(max(0, size - MAX_LINE))
            tail = fh.read()
            if tail.endswith(b"\n"):
                return
            cut = tail.rfind(b"\n")
            if cut < 0 and size > MAX_LINE:
                raise InvalidParameter("out", self.path, f"its last line is longer than {MAX_LINE} bytes")
            fh.truncate(size - len(tail) + cut + 1)

    def _keys(self) -> dict:
        """The rows already in the file by id, each checked to be a result row as `write` writes it (a damaged row
        was taken as done and skipped)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return {}
        lines = _lines(self.path, "out")
        done, first = {}, {}
        for line, row in self._csv_records(lines) if self.kind == ".csv" else self._json_records(lines):
            _check_stored(self.path, line, row)
            if row["id"] in done:
                raise InvalidParameter(
                    "out",
                    self.path,
                    f"line {line}, column id: {abbreviated(row['id'])!r} repeats line {first[row['id']]}{DAMAGED}",
                )
            done[row["id"]], first[row["id"]] = row, line
        return done

    def _csv_records(self, lines):
        reader = csv.reader((text for _, text in lines), strict=True)
        try:
            if tuple(next(reader, ())) != COLUMNS:
                raise InvalidParameter(
                    "out", self.path, "has another header: not a results file of `certify --batch` (choose a new --out)"
                )
            for record in reader:
                if not record:
                    continue
                if len(record) != len(COLUMNS):
                    raise InvalidParameter(
                        "out",
                        self.path,
                        f"line {reader.line_num} has {len(record)} fields, the header {len(COLUMNS)}{DAMAGED}",
                    )
                yield reader.line_num, dict(zip(COLUMNS, record))
        except csv.Error as exc:
            raise InvalidParameter("out", self.path, f"line {reader.line_num} is not valid CSV ({exc})") from None

    def _json_records(self, lines):
        for line, text in lines:
            row = json_input.loads(text, "out", self.path, f"line {line} is not a result row of `certify --batch`")
            if not isinstance(row, dict) or not set(COLUMNS) <= set(row):  # a claims file is not a results file
                raise InvalidParameter(
                    "out", self.path, f"line {line} is not a result row of `certify --batch` (choose a new --out)"
                )
            yield line, _as_text(row)

    def __enter__(self):
        self.fh = None  # opened at the first row: a run that never starts (no scheduler) leaves no file behind
        return self

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()

    def write(self, row: dict) -> None:
        if self.fh is None:
            new = not self.path.exists() or self.path.stat().st_size == 0
            self.fh = open(self.path, "a", encoding="utf-8", newline="")
            if new and self.kind == ".csv":
                self._put(self._csv_line(COLUMNS))
        values = [row[c] for c in COLUMNS]
        self._put(self._csv_line(values) if self.kind == ".csv" else json.dumps(row, ensure_ascii=False) + "\n")
        self.done[row["id"]] = _as_text(row)

    @staticmethod
    def _csv_line(values) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        return buf.getvalue()

    def _put(self, text: str) -> None:
        self.fh.write(text)
        self.fh.flush()
        os.fsync(self.fh.fileno())


def _check_stored(path, line: int, row: dict) -> None:
    """A stored row holds what `certify_row` writes: an id; verdict certified | refuted | inconclusive with numbers
    lower <= upper (decimals as formatting.decimal prints them, ±inf, nan), METHODS, rigorous true | false and no
    error; or verdict error with its reason; and the seconds it took."""

    def refuse(column: str, why: str):
        raise InvalidParameter(
            "out", path, f"line {line}, column {column}: {abbreviated(row[column])!r} {why}{DAMAGED}"
        )

    if not row["id"]:
        refuse("id", "is empty")
    if row["verdict"] not in VERDICTS:
        refuse("verdict", "is not " + " | ".join(VERDICTS))
    if not SECONDS.fullmatch(row["seconds"]):
        refuse("seconds", "is not a number of seconds")
    if row["verdict"] == "error":
        if not row["error"]:
            refuse("error", "is empty for verdict error")
        return
    for column in ("lower", "upper"):
        if not NUMBER.fullmatch(row[column]):
            refuse(column, "is not a number")
    lower, upper = Decimal(row["lower"]), Decimal(row["upper"])
    if not (lower.is_nan() or upper.is_nan()) and lower > upper:
        refuse("upper", f"is below lower = {abbreviated(row['lower'])}")
    for column in ("method_lower", "method_upper"):
        if row[column] not in METHODS:
            refuse(column, "is not " + " | ".join(METHODS))
    if row["rigorous"] not in ("true", "false"):
        refuse("rigorous", "is not true | false")
    if row["error"]:
        refuse("error", f"is set for verdict {row['verdict']}")


def _as_text(row: dict) -> dict:
    """A result row's columns as the text a CSV cell holds (what `_check_same_inputs` compares)."""
    return {k: str(row[k]) for k in COLUMNS}
