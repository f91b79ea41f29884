"""Sweep a probe over its grid; classify every point against the reference; write the CSV; list bad regions.

Status of a point (float64 result [lower, upper], reference r):
* "failed"     — exception, NaN, inf where r is finite, or a negative value;
* "unsound"    — a bracket (lower < upper) that excludes r;
* "inaccurate" — relative error max(|lower − r|, |upper − r|)/|r| above the tolerance;
* "ok"         — otherwise.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import mpmath as mp

from ..runtime.executor import completed
from ..cost import Budget, BudgetExceeded, Estimate
from ..errors import InvalidParameter
from .probes import PROBES, Probe

STATUSES = ("ok", "inaccurate", "unsound", "failed")
#: most grid points of one sweep
MAX_POINTS = 10_000


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    lower: float
    upper: float
    reference: str
    rel_error: float
    status: str
    seconds: float
    message: str = ""


def probe(name: str) -> Probe:
    if name not in PROBES:
        raise InvalidParameter("probe", name, "must be one of " + "|".join(PROBES))
    return PROBES[name]


def classify(lower: float, upper: float, reference: mp.mpf, tolerance: float) -> tuple[float, str]:
    """(relative error, status) of a float64 result against its reference (module docstring)."""
    values = (lower, upper)
    if any(math.isnan(v) for v in values) or any(v < 0 for v in values):
        return math.inf, "failed"
    if any(math.isinf(v) for v in values) and mp.isfinite(reference):
        return math.inf, "failed"
    if lower < upper and not (lower <= reference <= upper):
        return float(max(abs(lower - reference), abs(upper - reference)) / abs(reference)), "unsound"
    if reference == 0:
        err = 0.0 if lower == upper == 0 else math.inf
    else:
        err = float(max(abs(mp.mpf(lower) - reference), abs(mp.mpf(upper) - reference)) / abs(reference))
    return err, ("ok" if err <= tolerance else "inaccurate")


def check_cost(p: Probe, xs, ys, budget=None) -> Estimate | None:
    """Refuse a sweep whose estimated cost (sum over the grid, verialloc.cost) exceeds the budget, before any
    point runs, naming the axis value that drives it and the nearest feasible one."""
    if p.cost is None:
        return None
    budget = Budget.of(budget)
    if len(xs) * len(ys) > MAX_POINTS:
        raise InvalidParameter("x", f"{len(xs)} x {len(ys)} values", f"a sweep has at most {MAX_POINTS} points")
    total, worst = Estimate(0.0, 0.0, p.x[0]), None
    for x in xs:
        for y in ys:
            est = p.cost(x, y)
            total = total + est
            if worst is None or est.seconds > worst[0].seconds or est.memory > worst[0].memory:
                worst = (est, x, y)
    if total.fits(budget):
        return total
    est, x, y = worst
    axis, value = (p.x[0], x) if est.driver == p.x[0] else (p.y[0], y)
    raise BudgetExceeded(
        axis,
        f"{value:g}",
        f"probe {p.name}: the sweep needs {total.describe()} (the point "
        f"{p.x[0]}={x:g}, {p.y[0]}={y:g} alone {est.describe()}), over the budget of "
        f"{budget.seconds:g} s and {budget.memory / 2**30:g} GiB; choose smaller {axis} values",
        total,
        budget,
    )


def run(
    p: Probe, xs, ys, tolerance: float, progress=None, budget=None, executor="local", scheduler=None, workers=None
) -> list[Point]:
    """Evaluate the float64 path and the reference at every (x, y) (`point`), in grid order; never raises for a
    failing point. The points run on `executor` (verialloc.runtime.executor: local, process or dask). The sweep is
    refused before it starts when its estimated cost exceeds `budget` (check_cost)."""
    if not (isinstance(tolerance, float | int) and 0 < tolerance < 1):
        raise InvalidParameter("tolerance", tolerance, "must lie in (0, 1)")
    check_cost(p, xs, ys, budget)
    tasks = [(p, x, y, tolerance) for x in xs for y in ys]
    points = [None] * len(tasks)
    for i, pt in completed(point, tasks, executor, scheduler=scheduler, workers=workers):
        points[i] = pt
        if progress:
            progress(f"{p.x[0]}={pt.x:g} {p.y[0]}={pt.y:g}")
    return points


def point(task: tuple) -> Point:
    """One grid point (p, x, y, tolerance): the float64 path against the reference, classified."""
    p, x, y, tolerance = task
    ref = p.reference(x, y)
    start = time.perf_counter()
    try:
        lo, hi = p.float_path(x, y)
        message = ""
    except Exception as exc:  # a failing float path is a finding, not a crash of the sweep
        lo = hi = math.nan
        message = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    err, status = classify(lo, hi, ref, tolerance)
    return Point(x, y, lo, hi, mp.nstr(ref, 17), err, status, seconds, message)


def write_csv(points: list[Point], p: Probe, path: Path) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([p.x[0], p.y[0], "lower", "upper", "reference", "rel_error", "status", "seconds", "message"])
        for pt in points:
            writer.writerow(
                [
                    repr(pt.x),
                    repr(pt.y),
                    repr(pt.lower),
                    repr(pt.upper),
                    pt.reference,
                    repr(pt.rel_error),
                    pt.status,
                    f"{pt.seconds:.3f}",
                    pt.message,
                ]
            )


def regions(points: list[Point], p: Probe) -> list[str]:
    """One line per run of bad points along y at fixed x: where float64 is off or fails."""
    lines = []
    for x in sorted({pt.x for pt in points}):
        row = [pt for pt in points if pt.x == x]
        bad = [pt for pt in row if pt.status != "ok"]
        if not bad:
            continue
        statuses = sorted({pt.status for pt in bad}, key=STATUSES.index)
        worst = max(pt.rel_error for pt in bad)
        ys = ", ".join(f"{pt.y:g}" for pt in bad)
        lines.append(f"{p.x[0]}={x:g}: {p.y[0]} in {{{ys}}}: {'/'.join(statuses)} (worst relative error {worst:.3g})")
    return lines


def as_dicts(points: list[Point]) -> list[dict]:
    return [asdict(pt) for pt in points]
