"""Resume an interrupted accountant map: every certified bracket and every accountant row is appended to a JSON
Lines file as it completes (flushed at once), so a map stopped by Ctrl-C (or a crash) and started again with the
same parameters computes only what is missing. The file is keyed by a hash of the parameters that decide the
results (region, accountants, timeout, loose percent): another run in the same directory starts its own file. A
partial last line (the process killed mid-write) is ignored.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from ..audit.runner import Row


def key(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:12]


class Checkpoint:
    """The JSON Lines file `<directory>/.map-<key>.jsonl` of one map's finished work."""

    def __init__(self, directory: Path, params: dict):
        self.path = Path(directory) / f".map-{key(params)}.jsonl"
        self.brackets: dict = {}  # (σ, steps) -> certified(...) output
        self.rows: dict = {}  # (accountant, entry id) -> Row
        if self.path.exists():
            self._load()
        self.resumed = len(self.brackets) + len(self.rows)

    def _load(self) -> None:
        for line in self.path.read_text().splitlines():
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue  # the last line of a process killed while writing it
            if item.get("kind") == "brackets":
                out = item["out"]
                for field in ("brackets", "errors"):  # keyed by δ: repr in the file, float in the map
                    out[field] = {float(d): b for d, b in out.get(field, {}).items()}
                self.brackets[float(item["sigma"]), int(item["steps"])] = out
            elif item.get("kind") == "row":
                r = dict(item["row"])
                if isinstance(r["reported"], str):
                    r["reported"] = float(r["reported"])
                row = Row(**r)
                self.rows[row.accountant, row.entry] = row

    def _append(self, item: dict) -> None:
        self.path.parent.mkdir(exist_ok=True)
        with open(self.path, "a") as fh:
            fh.write(json.dumps(item, allow_nan=False) + "\n")
            fh.flush()

    def add_brackets(self, pair: tuple, out: dict) -> None:
        self.brackets[pair] = out
        shown = {**out, **{f: {repr(d): b for d, b in out.get(f, {}).items()} for f in ("brackets", "errors")}}
        self._append({"kind": "brackets", "sigma": pair[0], "steps": pair[1], "out": shown})

    def add_row(self, row: Row) -> None:
        self.rows[row.accountant, row.entry] = row
        d = row.as_dict()
        if isinstance(d["seconds"], float) and not math.isfinite(d["seconds"]):
            d["seconds"] = 0.0
        self._append({"kind": "row", "row": d})

    def finish(self) -> None:
        """The map is complete and written: the file is no longer needed."""
        self.path.unlink(missing_ok=True)
