"""The HTML page of an accountant map: one self-contained file (inline CSS, no script, no external resource), one
table per accountant and δ (σ down the rows, largest on top; steps across), each cell coloured by its flag with
every number in its `title` (shown on hover) and in data-* attributes (for scripts and tests)."""

from __future__ import annotations

from html import escape

from .accountants import Cell
from .maps import COLOURS, groups, label

STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table.map { border-collapse: collapse; margin: 0.5em 0 1.5em; }
table.map td, table.map th { border: 1px solid #fff; padding: 0.3em 0.6em; text-align: center; font-size: 0.85em; }
table.map th { background: #f5f5f5; }
td.cell { cursor: help; min-width: 4em; }
ul.summary li { font-family: monospace; }
"""


def tooltip(c: Cell) -> str:
    """Every number of a cell, one per line."""
    lines = [
        f"{c.accountant}: sigma={c.sigma:g}, steps={c.steps}, delta={c.delta:g}",
        f"flag: {c.flag}" + (f" ({c.reason})" if c.reason else ""),
        f"reported epsilon: {'none' if c.reported is None else repr(c.reported)} (claims {c.claims})",
        f"certified {c.direction} bracket: [{c.lower}, {c.upper}]",
    ]
    if c.ratio is not None:
        lines.append(f"reported / certified {c.end} end: {c.ratio:.6g}")
    lines.append(f"seconds: {c.seconds:.2f}")
    return "\n".join(lines)


def _td(c: Cell) -> str:
    data = {
        "accountant": c.accountant,
        "sigma": f"{c.sigma:g}",
        "steps": str(c.steps),
        "delta": f"{c.delta:g}",
        "flag": c.flag,
        "reported": "" if c.reported is None else repr(c.reported),
        "lower": c.lower,
        "upper": c.upper,
    }
    attrs = " ".join(f'data-{k}="{escape(v)}"' for k, v in data.items())
    colour = COLOURS.get(c.flag, "#ffffff")
    return f'<td class="cell" style="background:{colour}" title="{escape(tooltip(c))}" {attrs}>{escape(label(c))}</td>'


def table(group: list[Cell]) -> str:
    sigmas = sorted({c.sigma for c in group}, reverse=True)
    steps = sorted({c.steps for c in group})
    at = {(c.sigma, c.steps): c for c in group}
    head = "<tr><th>sigma \\ steps</th>" + "".join(f"<th>{t}</th>" for t in steps) + "</tr>"
    rows = [f"<tr><th>{s:g}</th>" + "".join(_td(at[s, t]) for t in steps if (s, t) in at) + "</tr>" for s in sigmas]
    return '<table class="map">' + head + "".join(rows) + "</table>"


def page(cells: list[Cell], title: str, command: str, lines: list[str]) -> str:
    """The whole page: title, command, summary lines, a legend, then one table per (accountant, δ)."""
    legend = " ".join(
        f'<span style="background:{colour};padding:0 0.5em">{escape(flag)}</span>' for flag, colour in COLOURS.items()
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p><code>{escape(command)}</code></p>",
        '<ul class="summary">' + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>",
        f"<p>Cell text: the answer divided by the certified end it is judged against (the lower end for an answer "
        f"below the bracket, the upper end for one above, else the end it claims; hover for every number). {legend}</p>",
    ]
    for (name, delta), group in groups(cells).items():
        parts.append(f"<h2>{escape(name)}, delta = {delta:g}</h2>")
        parts.append(table(group))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
