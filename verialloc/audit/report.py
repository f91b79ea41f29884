"""Render audit rows: JSON-ready dict (`to_json`), and from its "rows" a terminal table (rich) or Markdown.
The "claims" column says what each reported value claims (upper / lower / estimate); the flag follows from it."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from .flags import ERROR, FLAGS, LOOSE, OK, OUTSIDE, TIMEOUT, UNSAFE
from .runner import Row

COLUMNS = ("accountant", "entry", "query", "dir", "claims", "reported", "certified [lower, upper]", "flag", "note")
FLAG = COLUMNS.index("flag")
STYLE = {OK: "green", LOOSE: "yellow", UNSAFE: "bold red", OUTSIDE: "cyan", ERROR: "magenta", TIMEOUT: "blue"}
LEGEND = (
    "claims upper: UNSAFE if below the certified lower, LOOSE if above the upper by more than the loose "
    "percentage; claims lower: UNSAFE if above the certified upper, LOOSE if below the lower by more than it; "
    "estimate: OUTSIDE if outside the bracket; ERROR: raised or not a valid number; TIMEOUT: no answer in time"
)


def _query(row: dict) -> str:
    return f"ε(δ={row['target']})" if row["quantity"] == "epsilon" else f"δ(ε={row['target']})"


def _reported(row: dict) -> str:
    value = row["reported"]
    return "—" if value is None else value if isinstance(value, str) else f"{value:.10g}"


def _cells(row: dict) -> list[str]:
    return [
        row["accountant"],
        row["entry"],
        _query(row),
        row["direction"],
        row.get("claims", "upper"),
        _reported(row),
        f"[{row['lower']}, {row['upper']}]",
        row["flag"],
        row["reason"],
    ]


def summary(rows: list[dict]) -> dict[str, int]:
    return {flag: sum(r["flag"] == flag for r in rows) for flag in FLAGS}


def to_json(rows: list[Row], meta: dict | None = None) -> dict:
    """{**meta, "summary": {flag: count}, "rows": [row dicts]} (NaN/inf reported values as strings)."""
    dicts = [r.as_dict() for r in rows]
    return {**(meta or {}), "summary": summary(dicts), "rows": dicts}


def to_terminal(rows: list[dict], width: int = 160) -> str:
    table = Table(title="verialloc audit")
    for col in COLUMNS:
        table.add_column(col, justify="right" if col == "reported" else "left", overflow="fold")
    for row in rows:
        cells = _cells(row)
        cells[FLAG] = f"[{STYLE[row['flag']]}]{row['flag']}[/]"
        table.add_row(*cells)
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=False)
    console.print(table)
    console.print(", ".join(f"{k}: {v}" for k, v in summary(rows).items()))
    console.print(f"flags: {LEGEND}", highlight=False, markup=False)
    return buf.getvalue().rstrip()


def to_markdown(rows: list[dict]) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = _cells(row)
        cells[FLAG] = f"**{row['flag']}**" if row["flag"] in (UNSAFE, ERROR) else row["flag"]
        lines.append("| " + " | ".join(esc(c) for c in cells) + " |")
    lines.append("")
    lines.append("Summary: " + ", ".join(f"{k} {v}" for k, v in summary(rows).items()))
    lines += ["", f"Flags: {LEGEND}."]
    return "\n".join(lines) + "\n"
