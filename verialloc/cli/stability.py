"""`verialloc stability`: sweep a float64 path against its mpmath twin (`--probe`: CSV, heatmap PNG, list of bad
regions), or map other people's accountants over σ × steps × δ against certified brackets (`--accountants`:
stability.accountants; CSV, JSON, PNG per accountant and δ, one HTML page under `--out DIR`)."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from ..audit.adapters import registry
from ..audit.flags import DEFAULT_LOOSE_PERCENT
from ..budget import DEFAULT_SECONDS, Budget
from ..errors import InvalidParameter, UnsupportedRequest, without_method_choice
from ..io.files import output_file
from ..stability import PROBES, regions, run
from ..stability.accountants import DEFAULT_TIMEOUT, resolve, summary
from ..stability.accountants import run as run_map
from ..stability.region import Region, axis
from ..stability.sweep import as_dicts, probe, write_csv
from ..validation import integer
from .common import progress_bar
from .executors import add_executor_flags, executor_args


def register(sub) -> None:
    p = sub.add_parser(
        "stability",
        help="map where a float64 path drifts from its mpmath twin",
        description="Sweep a probe over two axes; compare float64 with the exact reference.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--probe", help="|".join(PROBES))
    what.add_argument(
        "--accountants", help="map these audit adapters (comma list: " + ",".join(registry()) + ") over a region"
    )
    p.add_argument("--x", help="--probe: comma-separated values of the first axis (default: the probe's grid)")
    p.add_argument("--y", help="--probe: comma-separated values of the second axis (default: the probe's grid)")
    p.add_argument("--tolerance", help="--probe: relative error above which a point is flagged (default 1e-6)")
    p.add_argument("--csv", help="--probe: write every point to this CSV file")
    p.add_argument("--png", help="--probe: write the heatmap to this PNG file (needs the `plot` extra)")
    for name, default in MAP_FLAGS.items():
        p.add_argument(
            f"--{name}", help=f"--accountants: {MAP_HELP[name]}" + (f" (default {default})" if default else "")
        )
    add_executor_flags(p, "grid points or accountant calls")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=execute, render=render)


#: the flags of an accountant map, with their defaults (None: required or optional without a default)
MAP_FLAGS = {
    "sigma": None,
    "steps": None,
    "delta": "1e-5",
    "scheme": "allocation",
    "rate": None,
    "k": "1",
    "epochs": "1",
    "timeout": f"{DEFAULT_TIMEOUT:g}",
    "loose-percent": f"{DEFAULT_LOOSE_PERCENT:g}",
    "budget": f"{DEFAULT_SECONDS:g}",
    "out": None,
}
MAP_HELP = {
    "sigma": "noise multipliers: a comma list or a log-spaced range a:b[:n] (required; distinct values)",
    "steps": "steps: a comma list or a log-spaced range a:b[:n] (integers, required; distinct values)",
    "delta": "target deltas: a comma list (distinct values)",
    "scheme": "allocation | poisson",
    "rate": "the Poisson sampling rate (required with --scheme poisson)",
    "k": "allocations per element",
    "epochs": "epochs",
    "timeout": "seconds per accountant call before it is flagged TIMEOUT",
    "loose-percent": "LOOSE when an upper claim exceeds the certified upper end by more than this percent",
    "budget": "seconds the whole map may take by the estimate (brackets + calls x timeout)",
    "out": "directory for map.csv, map.json, map.html and one PNG per accountant and delta (created if missing; "
    "an earlier map's PNGs there that this one does not write are removed); finished work is kept there as it "
    "completes, so the same command resumes an interrupted map",
}


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


def execute(args) -> dict:
    if args.accountants is not None:
        return execute_map(args)
    for name in MAP_FLAGS:
        if getattr(args, name.replace("-", "_")) is not None:
            raise InvalidParameter(name, getattr(args, name.replace("-", "_")), "applies to --accountants, not --probe")
    try:
        return execute_probe(args)
    except UnsupportedRequest as exc:  # a probe runs fixed methods: a "--method" remedy does not apply here
        raise without_method_choice(exc, "a probe runs its own methods: choose other --x / --y values") from None


def execute_probe(args) -> dict:
    p = probe(args.probe)
    xs, ys = _values("x", args.x, p.x[1]), _values("y", args.y, p.y[1])
    args.tolerance = "1e-6" if args.tolerance is None else args.tolerance
    try:
        tolerance = float(args.tolerance)
    except ValueError:
        raise InvalidParameter("tolerance", args.tolerance, "must be a number in (0, 1)") from None
    if not 0 < tolerance < 1:
        raise InvalidParameter("tolerance", args.tolerance, "must be a number in (0, 1)")
    csv_path = output_file("csv", args.csv) if args.csv else None
    png_path = output_file("png", args.png) if args.png else None
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


def _number(name: str, text: str, lo: float, hi: float = math.inf) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not lo < value < hi:
        raise InvalidParameter(name, text, f"must be a number in ({lo:g}, {hi:g})")
    return value


def region_of(args) -> Region:
    """The Region of the map flags (one line naming the parameter when one is wrong)."""
    for name in ("sigma", "steps"):
        if getattr(args, name) is None:
            raise InvalidParameter(name, "", f"is required with --accountants (e.g. --{name} {MAP_EXAMPLES[name]})")
    scheme = args.scheme or "allocation"
    if scheme not in ("allocation", "poisson"):
        raise InvalidParameter("scheme", scheme, "must be allocation or poisson")
    if scheme == "poisson" and args.rate is None:
        raise InvalidParameter("rate", "", "is required with --scheme poisson (e.g. --rate 0.01)")
    if scheme == "allocation" and args.rate is not None:
        raise InvalidParameter("rate", args.rate, "applies only to --scheme poisson")
    if args.rate is not None:
        _number("rate", args.rate, 0, 1 + 1e-12)
    return Region(
        axis("sigma", args.sigma, "sigma"),
        axis("steps", args.steps, "steps"),
        axis("delta", args.delta or "1e-5", "delta"),
        scheme,
        args.rate,
        integer("k", args.k or 1, 1),
        integer("epochs", args.epochs or 1, 1),
    )


MAP_EXAMPLES = {"sigma": "0.5:5:4", "steps": "10:1e4:4"}


def execute_map(args) -> dict:
    for name in ("x", "y", "tolerance", "csv", "png"):
        if getattr(args, name) is not None:
            raise InvalidParameter(name, getattr(args, name), "applies to --probe, not --accountants")
    accs, skipped = resolve([n.strip() for n in args.accountants.split(",") if n.strip()])
    region = region_of(args)
    timeout = _number("timeout", args.timeout or f"{DEFAULT_TIMEOUT:g}", 0)
    loose = _number("loose-percent", args.loose_percent or f"{DEFAULT_LOOSE_PERCENT:g}", -1e-300)
    budget = Budget.of(args.budget)
    if not accs:
        raise UnsupportedRequest("accountants", args.accountants, "none is installed: " + "; ".join(skipped))
    for acc in accs:
        if not any(acc.serves(region.config(s, t), "epsilon") for s, t in region.pairs()):
            raise UnsupportedRequest(
                "accountants",
                acc.name,
                f"serves no cell of this region (scheme {region.scheme}, k {region.k}); "
                "dp_accounting and opacus serve --scheme poisson",
            )
    out_dir = None
    if args.out is not None:
        out_dir = Path(args.out)
        if out_dir.exists() and not out_dir.is_dir():
            raise InvalidParameter("out", args.out, "must be a directory")
        if not out_dir.parent.is_dir():
            what = "does not exist" if not out_dir.parent.exists() else "is not a directory"
            raise InvalidParameter("out", args.out, f"{str(out_dir.parent)!r} {what}")
    where = executor_args(args)
    keep = None
    if out_dir is not None:
        from ..stability.checkpoint import Checkpoint

        params = {"region": region.as_dict(), "accountants": [a.name for a in accs], "timeout": timeout, "loose": loose}
        keep = Checkpoint(out_dir, params)
    start = time.perf_counter()
    try:
        result = run_map(region, accs, timeout, loose, budget, progress_bar(), **where, checkpoint=keep)
    except KeyboardInterrupt:
        if keep is not None and keep.path.exists():
            print(
                f"verialloc: the finished work is kept in {keep.path}: run the same command to resume", file=sys.stderr
            )
        raise
    cells = result["cells"]
    out = {
        "command": "stability",
        "accountants": [a.name for a in accs],
        "skipped": skipped,
        "region": region.as_dict(),
        "timeout": timeout,
        "loose_percent": loose,
        "cells": [c.as_dict() for c in cells],
        "regions": summary(cells),
        "seconds": {
            **{k: round(v, 2) for k, v in result["seconds"].items()},
            "total": round(time.perf_counter() - start, 2),
        },
        "files": [],
        "removed": [],
        "resumed": 0 if keep is None else keep.resumed,
    }
    if out_dir is not None:
        out["files"] = write_outputs(out, cells, out_dir, " ".join(["verialloc", *sys.argv[1:]]))
        keep.finish()
    return out


def write_outputs(out: dict, cells, out_dir: Path, command: str) -> list[str]:
    """map.csv, map.json, one PNG per accountant and δ, map.html in `out_dir` (created); the PNGs of an earlier
    map there that this one does not write are removed (maps.stale: only files named as a map names its PNGs)."""
    from ..stability import maps, page

    out_dir.mkdir(exist_ok=True)
    maps.write_csv(cells, out_dir / "map.csv")
    files = [out_dir / "map.csv", out_dir / "map.json"]
    try:
        files += maps.write_pngs(cells, out_dir)
    except UnsupportedRequest as exc:
        out["skipped"].append(f"PNG: {exc}")
    old = maps.stale(out_dir, [*registry(), *out["accountants"]], files)
    for path in old:
        path.unlink()
    out["removed"] = [str(path) for path in old]
    title = "Where accountants break: " + ", ".join(out["accountants"])
    (out_dir / "map.html").write_text(page.page(cells, title, command, out["regions"]))
    files.append(out_dir / "map.html")
    out["files"] = [str(f) for f in files]
    maps.write_json(out, out_dir / "map.json")
    return out["files"]


def render(out: dict) -> str:
    if "probe" not in out:
        return render_map(out)
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


def render_map(out: dict) -> str:
    r = out["region"]
    counts: dict = {}
    for c in out["cells"]:
        counts[c["flag"]] = counts.get(c["flag"], 0) + 1
    cells = len(r["sigma"]) * len(r["steps"]) * len(r["delta"])
    s = out["seconds"]
    lines = [
        f"stability map of {', '.join(out['accountants'])}: {cells} cells ({len(r['sigma'])} sigma x "
        f"{len(r['steps'])} steps x {len(r['delta'])} delta), scheme {r['scheme']}"
        + (f" rate {r['rate']}" if r["rate"] else "")
        + (f" k {r['k']}" if r["k"] != 1 else "")
        + (f" epochs {r['epochs']}" if r["epochs"] != 1 else ""),
        f"  {len(out['cells'])} answers (cells x accountants): "
        + ", ".join(f"{counts[f]} {f}" for f in sorted(counts, key=lambda f: (-counts[f], f)))
        + f"; {s['total']:g} s ({s['brackets']:g} s certified brackets, {s['accountants']:g} s accountants)",
    ]
    if out.get("resumed"):
        lines.append(f"  resumed: {out['resumed']} results from an interrupted run were reused")
    lines += [f"  {line}" for line in out["regions"]]
    lines += [f"  skipped {note}" for note in out["skipped"]]
    lines += [f"  wrote {f}" for f in out["files"]]
    lines += [f"  removed {f} (an earlier map's, not written by this one)" for f in out.get("removed", [])]
    return "\n".join(lines)
