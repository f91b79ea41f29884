"""Heatmap of a sweep: log10 relative error per grid point, failures and unsound points marked (matplotlib)."""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import UnsupportedRequest
from .probes import Probe
from .sweep import Point

FLOOR = 1e-18  # relative errors below this are drawn at the floor (float64 cannot show less)


def heatmap(points: list[Point], p: Probe, tolerance: float, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UnsupportedRequest("png", str(path), "plots need matplotlib: pip install 'verialloc[plot]'") from exc
    xs, ys = sorted({pt.x for pt in points}), sorted({pt.y for pt in points})
    grid = [[math.nan] * len(xs) for _ in ys]
    marks = []
    for pt in points:
        i, j = ys.index(pt.y), xs.index(pt.x)
        if pt.status in ("failed", "unsound"):
            marks.append((j, i, "X" if pt.status == "failed" else "!"))
        else:
            grid[i][j] = math.log10(max(pt.rel_error, FLOOR))
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(xs), 1.2 + 0.5 * len(ys)))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis", vmin=math.log10(FLOOR), vmax=0)
    fig.colorbar(image, ax=ax, label="log10 relative error")
    for j, i, m in marks:
        ax.text(j, i, m, ha="center", va="center", color="red", fontsize=12, fontweight="bold")
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    ax.set_xlabel(p.x[0])
    ax.set_ylabel(p.y[0])
    ax.set_title(f"{p.name}: tolerance {tolerance:g} (X failed, ! unsound)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
