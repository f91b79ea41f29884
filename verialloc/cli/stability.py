"""`verialloc stability`: sweep a float64 path against its mpmath twin; CSV, heatmap PNG, list of bad regions."""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import InvalidParameter, UnsupportedRequest
from ..stability import PROBES, regions, run
from ..stability.sweep import as_dicts, probe, write_csv
from .common import progress_bar
from .executors import add_executor_flags, executor_args


def register(sub) -> None:
    p = sub.add_parser(
        "stability",
        help="map where a float64 path drifts from its mpmath twin",
        description="Sweep a probe over two axes; compare float64 with the exact reference.",
    )
    p.add_argument("--probe", required=True, help="|".join(PROBES))
    p.add_argument("--x", help="comma-separated values of the probe's first axis (default: the probe's grid)")
    p.add_argument("--y", help="comma-separated values of the probe's second axis (default: the probe's grid)")
    p.add_argument("--tolerance", default="1e-6", help="relative error above which a point is flagged (default 1e-6)")
    p.add_argument("--csv", help="write every point to this CSV file")
    p.add_argument("--png", help="write the heatmap to this PNG file (needs the `plot` extra)")
    add_executor_flags(p, "grid points")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=execute, render=render)


def _values(name: str, text: str | None, default: tuple) -> tuple[float, ...]:
    if text is None:
        return default
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise InvalidParameter(name, text, "must be comma-separated numbers") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InvalidParameter(name, text, "must be comma-separated finite numbers")
    return values


def output_path(name: str, text: str) -> Path:
    """An output file whose directory exists (checked before the sweep; no directory is created)."""
    path = Path(text)
    if path.is_dir():
        raise InvalidParameter(name, text, "must be a file name, not a directory")
    if not path.parent.is_dir():
        raise InvalidParameter(name, text, f"the directory {str(path.parent)!r} does not exist (create it first)")
    return path


def execute(args) -> dict:
    p = probe(args.probe)
    xs, ys = _values("x", args.x, p.x[1]), _values("y", args.y, p.y[1])
    try:
        tolerance = float(args.tolerance)
    except ValueError:
        raise InvalidParameter("tolerance", args.tolerance, "must be a number in (0, 1)") from None
    if not 0 < tolerance < 1:
        raise InvalidParameter("tolerance", args.tolerance, "must be a number in (0, 1)")
    csv_path = output_path("csv", args.csv) if args.csv else None
    png_path = output_path("png", args.png) if args.png else None
    if png_path is not None:
        try:
            import matplotlib  # noqa: F401  (fail before the sweep, not after it)
        except ImportError:
            raise UnsupportedRequest("png", args.png, "plots need matplotlib: pip install 'verialloc[plot]'") from None
    points = run(p, xs, ys, tolerance, progress_bar(), **executor_args(args))
    if csv_path is not None:
        write_csv(points, p, csv_path)
    if png_path is not None:
        from ..stability.plot import heatmap

        heatmap(points, p, tolerance, png_path)
    return {
        "command": "stability",
        "probe": p.name,
        "about": p.about,
        "axes": [p.x[0], p.y[0]],
        "tolerance": tolerance,
        "points": as_dicts(points),
        "regions": regions(points, p),
        "csv": args.csv,
        "png": args.png,
    }


def render(out: dict) -> str:
    x, y = out["axes"]
    counts = {}
    for pt in out["points"]:
        counts[pt["status"]] = counts.get(pt["status"], 0) + 1
    lines = [
        f"stability probe {out['probe']}: {out['about']}",
        f"  {len(out['points'])} points over {x} x {y}, tolerance {out['tolerance']:g}: "
        + ", ".join(f"{n} {s}" for s, n in counts.items()),
    ]
    lines += [f"  {r}" for r in out["regions"]] or ["  no point off by more than the tolerance"]
    for key in ("csv", "png"):
        if out[key]:
            lines.append(f"  wrote {out[key]}")
    return "\n".join(lines)
