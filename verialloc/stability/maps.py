"""Files of an accountant map (stability.accountants): every cell as CSV and JSON, and one PNG heat map per
accountant and δ (σ up, steps across; colour = flag, text = the answer over the certified end it is judged against,
the CSV's `ratio` in the form of `ratio_text`). A map owns, in its directory, map.csv, map.json, map.html and the
PNGs named `<accountant>_delta<δ>.png` (`file_name`); `stale` finds those an earlier map left and this one did not
write, so that a directory never mixes two maps."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

from ..errors import UnsupportedRequest
from .accountants import UNCERTIFIED, UNSERVED, Cell, ratio_text

#: colour of each flag (PNG and HTML)
COLOURS = {
    "OK": "#4caf50",
    "LOOSE": "#ffc107",
    "UNSAFE": "#d32f2f",
    "OUTSIDE": "#ff7043",
    "ERROR": "#7b1fa2",
    "TIMEOUT": "#455a64",
    UNSERVED: "#e0e0e0",
    UNCERTIFIED: "#9e9e9e",
}
FIELDS = (
    "accountant",
    "sigma",
    "steps",
    "delta",
    "direction",
    "claims",
    "reported",
    "lower",
    "upper",
    "ratio",
    "end",
    "flag",
    "reason",
    "seconds",
)


def write_csv(cells: list[Cell], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(FIELDS)
        for c in cells:
            d = c.as_dict()
            w.writerow([f"{d[k]:.3f}" if k == "seconds" else ("" if d[k] is None else d[k]) for k in FIELDS])


def write_json(out: dict, path: Path) -> None:
    path.write_text(json.dumps(out, indent=1, allow_nan=False) + "\n")


def groups(cells: list[Cell]) -> dict:
    """{(accountant, δ): [cells]} in first-seen order."""
    out: dict = {}
    for c in cells:
        out.setdefault((c.accountant, c.delta), []).append(c)
    return out


def label(c: Cell) -> str:
    """Short text of a cell: its ratio to the certified end it is judged against (x1.07, x(1 - 8.9e-05)), or the flag."""
    if c.ratio is not None and c.flag in ("OK", "LOOSE", "UNSAFE", "OUTSIDE"):
        return ratio_text(c.ratio)
    return {"TIMEOUT": "T/O", "ERROR": "ERR", UNSERVED: "n/a", UNCERTIFIED: "?"}.get(c.flag, c.flag)


def file_name(accountant: str, delta: float, suffix: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{accountant}_delta{delta:g}") + suffix


def stale(directory: Path, names, written) -> list[Path]:
    """PNGs in `directory` named as a map names them (`file_name` of one of the accountant `names`, any δ) that are
    not among `written`: an earlier map's. No other file is ever listed."""
    prefixes = sorted({file_name(n, 1.0, "")[: -len("_delta1")] for n in names}, key=len, reverse=True)
    shape = re.compile("(" + "|".join(map(re.escape, prefixes)) + r")_delta[0-9][0-9.e+-]*\.png")
    keep = {Path(p).name for p in written}
    return sorted(p for p in directory.iterdir() if p.is_file() and shape.fullmatch(p.name) and p.name not in keep)


def write_pngs(cells: list[Cell], directory: Path) -> list[Path]:
    """One heat map per (accountant, δ) in `directory`; the paths written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch
    except ImportError as exc:
        raise UnsupportedRequest("out", str(directory), "plots need matplotlib: pip install 'verialloc[plot]'") from exc
    flags = list(COLOURS)
    cmap = ListedColormap([COLOURS[f] for f in flags])
    paths = []
    for (name, delta), group in groups(cells).items():
        sigmas, steps = sorted({c.sigma for c in group}), sorted({c.steps for c in group})
        grid = [[math.nan] * len(steps) for _ in sigmas]
        fig, ax = plt.subplots(figsize=(2.5 + 0.9 * len(steps), 1.4 + 0.45 * len(sigmas)))
        for c in group:
            i, j = sigmas.index(c.sigma), steps.index(c.steps)
            grid[i][j] = flags.index(c.flag)
            ax.text(j, i, label(c), ha="center", va="center", fontsize=8)
        ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap, vmin=-0.5, vmax=len(flags) - 0.5)
        ax.set_xticks(range(len(steps)), [str(t) for t in steps])
        ax.set_yticks(range(len(sigmas)), [f"{s:g}" for s in sigmas])
        ax.set_xlabel("steps")
        ax.set_ylabel("sigma")
        shown = [f for f in flags if any(c.flag == f for c in group)]
        ax.legend(
            handles=[Patch(color=COLOURS[f], label=f) for f in shown],
            loc="upper left",
            bbox_to_anchor=(1.01, 1),
            fontsize=8,
        )
        ax.set_title(f"{name}, delta={delta:g}\nanswer / certified end (lower if below it, else upper)", fontsize=9)
        fig.tight_layout()
        path = directory / file_name(name, delta, ".png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
