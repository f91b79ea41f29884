"""Map where other people's accountants break (issue #32): over a Region, each accountant's ε(δ) per cell against
verialloc's certified ε bracket of the direction the accountant claims, flagged like the audit (audit.flags: UNSAFE,
LOOSE by how much, OUTSIDE, ERROR, TIMEOUT, OK).

Two phases, both on the shared executors (runtime.executor: local, process, dask):
1. `certified`: one task per (σ, steps) compiles verialloc's PLD ledger once (api.compile, method "pld") and
   answers every δ of the region in direction "both", which carries the remove and add brackets (lower rounded
   down, upper rounded up to DIGITS digits);
2. the accountants' calls through `audit.runner.audit` (each call in a child process with a time limit).
A cell an accountant does not serve (e.g. dp_accounting under allocation with k < steps) is UNSERVED, one whose
certified bracket failed (or that verialloc's pld refuses before any work, e.g. tails too heavy for its grid) is
UNCERTIFIED with the reason; neither is called. Each cell's `ratio` is the answer over the certified `end` it is
judged against (the lower end for an answer below the bracket, the upper end for one above, else the end it
claims); the summary, the PNG and HTML labels and the CSV `reason` all print that ratio the same way (`ratio_text`). Before any work `check_cost` refuses a region whose
estimate (verialloc.cost for the brackets, plus calls × timeout for the accountants) exceeds the budget, naming
the nearest region that fits (`nearest`). With a checkpoint (stability.checkpoint) finished work is kept as it
completes and skipped when the map runs again, so an interrupted map resumes.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, dataclass
from fractions import Fraction

from .. import cost
from ..audit.adapters import Accountant, registry
from ..audit.flags import DEFAULT_LOOSE_PERCENT, exact
from ..audit.golden import config_of, entry_brackets
from ..audit.runner import audit
from ..budget import Budget, BudgetExceeded, Estimate, seconds_text
from ..errors import InvalidParameter, UnsupportedRequest
from ..runtime.executor import completed
from .region import Region, cell_id, entry

#: digits of the certified bracket ends
DIGITS = 12
#: seconds an accountant's call may take by default
DEFAULT_TIMEOUT = 30.0
UNSERVED, UNCERTIFIED = "UNSERVED", "UNCERTIFIED"


@dataclass(frozen=True)
class Cell:
    """One accountant at one (σ, steps, δ): its answer, the certified bracket of its direction, the flag."""

    accountant: str
    sigma: float
    steps: int
    delta: float
    direction: str
    claims: str
    reported: float | None
    lower: str
    upper: str
    ratio: float | None  # reported / the certified `end` (`judged_end`)
    end: str  # "lower" | "upper" ("" without a ratio)
    flag: str
    reason: str
    seconds: float

    def as_dict(self) -> dict:
        out = asdict(self)
        for key in ("reported", "ratio"):
            if out[key] is not None and not math.isfinite(out[key]):
                out[key] = str(out[key])
        return out


def certified(task: tuple) -> dict:
    """One (σ, steps) task (region, σ, steps[, budget seconds of one query]): {"brackets": {δ: {remove, add, both:
    [lower, upper]}}, "errors": {δ: why}, "error" (of the ledger), "seconds"}; a failure (e.g. over the budget) is
    recorded per δ, not raised, and the other δ go on."""
    from .. import api

    region, sigma, steps, *budget = task
    start = time.perf_counter()
    out = {"brackets": {}, "errors": {}, "error": ""}
    try:
        acc = api.compile(region.config(sigma, steps), method="pld", budget=budget[0] if budget else None)
    except Exception as exc:  # noqa: BLE001 — a cell without a bracket is shown as such, the map goes on
        out["error"] = without_remedies(f"{type(exc).__name__}: {exc}")
        acc = None
    for d in region.deltas if acc is not None else ():
        try:
            b = acc.epsilon(repr(float(d)), direction="both", digits=DIGITS)
            out["brackets"][d] = entry_brackets(b, DIGITS)
        except Exception as exc:  # noqa: BLE001 — as above, for this δ alone
            out["errors"][d] = without_remedies(f"{type(exc).__name__}: {exc}")
    out["seconds"] = time.perf_counter() - start
    return out


def without_remedies(text: str) -> str:
    """A refusal of verialloc's pld without its remedies: they name flags of `verialloc epsilon` (--method rdp,
    --budget of one query), which the map does not have."""
    return re.split(r"; (?:or )?(?:use|choose|raise|merge|the nearest|even)\b", text)[0]


def refused(region: Region) -> dict:
    """{(σ, steps, δ): why} of the cells verialloc's pld refuses before any work (UnsupportedRequest of the cost
    model, e.g. a geometric grid over its cap): they are UNCERTIFIED, not computed and not called."""
    out = {}
    for s, t in region.pairs():
        for d in region.deltas:
            try:
                cost.estimate("epsilon", region.config(s, t), "pld", repr(float(d)), digits=DIGITS)
            except UnsupportedRequest as exc:
                out[s, t, d] = without_remedies(str(exc))
    return out


def bracket_estimate(region: Region) -> Estimate:
    """verialloc.cost's estimate of the certified brackets: one pld ε query per cell (a conservative sum: the
    compiled ledger shares its tables between the δ of one (σ, steps))."""
    total = Estimate(0.0, 0.0, "cells", region.cells_count)
    for s, t in region.pairs():
        config = region.config(s, t)
        for d in region.deltas:
            try:
                total = total + cost.estimate("epsilon", config, "pld", repr(float(d)), digits=DIGITS)
            except UnsupportedRequest:
                continue  # refused by pld: UNCERTIFIED, costs nothing (`refused`)
    return total


def calls(region: Region, accountants: list[Accountant]) -> int:
    """Accountant calls of the map: the cells each accountant serves."""
    served = sum(1 for a in accountants for s, t in region.pairs() if a.serves(region.config(s, t), "epsilon"))
    return served * len(region.deltas)


def estimate(region: Region, accountants: list[Accountant], timeout: float) -> Estimate:
    """Estimated cost of the map: the brackets (verialloc.cost) plus every call taking its whole `timeout`."""
    b = bracket_estimate(region)
    return Estimate(b.seconds + calls(region, accountants) * timeout, b.memory, "cells", region.cells_count)


def nearest(region: Region, accountants: list[Accountant], timeout: float, budget: Budget) -> Region | None:
    """The region that fits `budget` reached by dropping values one at a time, keeping the extent asked for as long
    as it can: the axis with the most values (more than two) loses the interior value whose neighbours are closest
    on a log scale (thinning); once every axis has at most two values, the end whose removal saves the most goes
    (the smallest σ, the largest steps or the smallest δ). None when even one cell does not fit."""
    current = region
    while not estimate(current, accountants, timeout).fits(budget):
        axes = {"sigmas": current.sigmas, "steps": current.steps, "deltas": current.deltas}
        name, values = max(axes.items(), key=lambda kv: len(kv[1]))
        if len(values) > 2:
            gaps = [math.log(values[i + 1] / values[i - 1]) for i in range(1, len(values) - 1)]
            drop = 1 + gaps.index(min(gaps))
            current = current.with_axes(**{name: values[:drop] + values[drop + 1 :]})
            continue
        options = []
        if len(current.sigmas) > 1:
            options.append(current.with_axes(sigmas=current.sigmas[1:]))
        if len(current.steps) > 1:
            options.append(current.with_axes(steps=current.steps[:-1]))
        if len(current.deltas) > 1:
            options.append(current.with_axes(deltas=current.deltas[1:]))
        if not options:
            return None
        current = min(options, key=lambda r: estimate(r, accountants, timeout).seconds)
    return current


def check_cost(region: Region, accountants: list[Accountant], timeout: float, budget=None) -> Estimate:
    """The map's estimate, or BudgetExceeded naming the nearest region that fits (or a smaller --timeout)."""
    budget = Budget.of(budget)
    no = refused(region)
    if len(no) == region.cells_count:
        raise UnsupportedRequest(
            "cells",
            region.cells_count,
            f"verialloc certifies no cell of this region ({next(iter(no.values()))}); "
            "choose larger --sigma, fewer --steps or larger --delta values",
        )
    est = estimate(region, accountants, timeout)
    if est.fits(budget):
        return est
    n = calls(region, accountants)
    what = (
        f"the map of {region.cells_count} cells needs {est.describe()} ({seconds_text(bracket_estimate(region).seconds)}"
        f" of certified brackets and {n} accountant calls x {timeout:g} s timeout), over the budget of "
        f"{seconds_text(budget.seconds)}"
    )
    near = nearest(region, accountants, timeout, budget)
    hint = (
        f"the nearest region that fits is {near.flags()} ({near.cells_count} cells)"
        if near is not None
        else "even one cell does not fit"
    )
    raise BudgetExceeded(
        "cells", region.cells_count, f"{what}; {hint}, or a smaller --timeout or a larger --budget", est, budget
    )


def run(
    region: Region,
    accountants: list[Accountant],
    timeout: float = DEFAULT_TIMEOUT,
    loose_percent: float = DEFAULT_LOOSE_PERCENT,
    budget=None,
    progress=None,
    executor="local",
    scheduler=None,
    workers=None,
    brackets: dict | None = None,
    checkpoint=None,
) -> dict:
    """The map: {"cells": [Cell] (accountant, σ, steps, δ order), "brackets": {(σ, steps): certified(...)},
    "seconds": {"brackets", "accountants"}}. `brackets` (a previous run's) skips phase 1. Accountants must be
    installed (the caller skips the others); elsewhere than "local" they must be registered adapters. With a
    `checkpoint` (stability.checkpoint.Checkpoint) the work it holds is skipped and new work is added to it as it
    completes, so an interrupted map resumes."""
    names = [a.name for a in accountants]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InvalidParameter("accountants", twice, "is given twice: name each accountant once")
    check_cost(region, accountants, timeout, budget)
    no = refused(region)
    where = {"executor": executor, "scheduler": scheduler, "workers": workers}
    start = time.perf_counter()
    if brackets is None:
        brackets = dict(checkpoint.brackets) if checkpoint is not None else {}
        for p in region.pairs():  # every δ refused by pld: nothing to compute (the cells say why)
            if p not in brackets and not _kept(region, *p, no):
                brackets[p] = {"brackets": {}, "errors": {}, "error": "", "seconds": 0.0}
        pairs = [p for p in region.pairs() if p not in brackets]
        one = Budget.of(budget).seconds
        tasks = [(region.with_axes(deltas=_kept(region, s, t, no)), s, t, one) for s, t in pairs]
        for i, out in completed(certified, tasks, **where):
            brackets[pairs[i]] = out
            if checkpoint is not None:
                checkpoint.add_brackets(pairs[i], out)
            if progress:
                progress(f"certified sigma={pairs[i][0]:g} steps={pairs[i][1]}")
    middle = time.perf_counter()
    entries = [
        entry(region, s, t, d, brackets[s, t]["brackets"][d])
        for s, t in region.pairs()
        for d in region.deltas
        if d in brackets[s, t]["brackets"]
    ]
    by = dict(checkpoint.rows) if checkpoint is not None else {}
    todo: dict = {}  # the entries still to run -> the accountants that still need them (one audit call per group)
    for acc in accountants:
        left = tuple(e["id"] for e in entries if (acc.name, e["id"]) not in by)
        if left:
            todo.setdefault(left, []).append(acc)
    on_row = checkpoint.add_row if checkpoint is not None else None
    for ids, accs in todo.items():
        chosen = [e for e in entries if e["id"] in set(ids)]
        for r in audit(accs, chosen, loose_percent, progress, timeout, **where, on_row=on_row):
            by[r.accountant, r.entry] = r
    cells = [
        _cell(acc, region, s, t, d, brackets[s, t], by.get((acc.name, cell_id(s, t, d))), no)
        for acc in accountants
        for s, t in region.pairs()
        for d in region.deltas
    ]
    return {
        "cells": cells,
        "brackets": brackets,
        "seconds": {"brackets": middle - start, "accountants": time.perf_counter() - middle},
    }


def _kept(region: Region, s, t, no: dict) -> tuple:
    """The δ of (σ, steps) that pld does not refuse before any work."""
    return tuple(d for d in region.deltas if (s, t, d) not in no)


def _cell(acc: Accountant, region: Region, s, t, d, certified_out: dict, row, no: dict | None = None) -> Cell:
    claims = getattr(acc, "claims", "upper")
    both = certified_out["brackets"].get(d)
    lower, upper = both[acc.direction] if both else ("", "")
    if row is None:
        serves = acc.serves(config_of({"config": region.spec(s, t)}), "epsilon")
        why = (no or {}).get((s, t, d)) or certified_out.get("errors", {}).get(d) or certified_out["error"]
        flag, reason = (
            (UNCERTIFIED, why or "no certified bracket")
            if serves
            else (UNSERVED, f"{acc.name} does not serve this configuration")
        )
        return Cell(acc.name, s, t, d, acc.direction, claims, None, lower, upper, None, "", flag, reason, 0.0)
    end = judged_end(row.reported, lower, upper, claims)
    r = ratio(row.reported, lower if end == "lower" else upper)
    reason = row.reason
    if r is not None and row.flag in ("UNSAFE", "LOOSE", "OUTSIDE"):
        reason = f"{ratio_text(r)} of the certified {end} end"
    return Cell(
        acc.name,
        s,
        t,
        d,
        acc.direction,
        claims,
        row.reported,
        lower,
        upper,
        r,
        end if r is not None else "",
        row.flag,
        reason,
        row.seconds,
    )


def judged_end(reported, lower: str, upper: str, claims: str) -> str:
    """The certified end an answer is judged against: "lower" for an answer below the lower end (an upper claim
    or an estimate: UNSAFE or OUTSIDE), "upper" for one above the upper end (a lower claim or an estimate), else
    the end it claims (lower for a "lower" claim, else upper)."""
    try:
        v, lo, hi = exact(float(reported)), exact(lower), exact(upper)
    except (TypeError, ValueError, OverflowError):
        return "lower" if claims == "lower" else "upper"
    if claims != "lower" and v < lo:
        return "lower"
    if claims != "upper" and v > hi:
        return "upper"
    return "lower" if claims == "lower" else "upper"


def ratio(reported, end: str) -> float | None:
    """reported / the certified `end` (decimal text); None when the end is not finite and positive or there is no
    finite answer."""
    if reported is None or not math.isfinite(reported) or not end:
        return None
    e = exact(end)
    if not (isinstance(e, Fraction) and e > 0):
        return None
    return float(Fraction(reported) / e)


def summary(cells: list[Cell]) -> list[str]:
    """One line per (accountant, δ, flag) other than OK: how many cells, which (steps per σ), by how much (the
    answer over the certified end it is judged against, as in the CSV's `ratio`, `end` and `reason`)."""
    lines = []
    for name, d in dict.fromkeys((c.accountant, c.delta) for c in cells):
        group = [c for c in cells if c.accountant == name and c.delta == d]
        flags = dict.fromkeys(c.flag for c in group)
        if set(flags) == {"OK"}:
            lines.append(f"{name} delta={d:g}: OK in all {len(group)} cells")
        for flag in flags:
            if flag == "OK":
                continue
            hit = [c for c in group if c.flag == flag]
            where = "; ".join(
                f"sigma={s:g}: steps " + ",".join(str(c.steps) for c in hit if c.sigma == s)
                for s in dict.fromkeys(c.sigma for c in hit)
            )
            by = ""
            for end in ("lower", "upper"):
                ratios = sorted(c.ratio for c in hit if c.ratio is not None and c.end == end)
                if ratios:
                    lo, hi = ratio_text(ratios[0]), ratio_text(ratios[-1])
                    by += f"; {lo}" + ("" if lo == hi else f" to {hi}") + f" of the certified {end} end"
            inf = sum(1 for c in hit if c.reported is not None and math.isinf(c.reported))
            by += ("; answer +inf" + ("" if inf == len(hit) else f" in {inf}")) if inf else ""
            if flag == "ERROR":  # what was raised (the exception's type, as the reason starts)
                by += "; " + ", ".join(dict.fromkeys(c.reason.split(":")[0][:40] for c in hit))
            lines.append(f"{name} delta={d:g}: {flag} in {len(hit)} of {len(group)} cells ({where}{by})")
    return lines


def ratio_text(r: float) -> str:
    """x1.07, or x(1 - 8.9e-05) when the ratio is within 1% of 1 (three significant digits would read x1 for
    1.0032 and x1.01 for 1.0093: its distance from 1 is what matters there)."""
    if math.isfinite(r) and r != 1 and abs(r - 1) < 1e-2:
        return f"x(1 {'-' if r < 1 else '+'} {abs(r - 1):.2g})"
    return f"x{r:.3g}"


def resolve(names: list[str]) -> tuple[list[Accountant], list[str]]:
    """(installed accountants, notes on the skipped ones) of registered adapter names; an unknown name is an
    InvalidParameter listing the valid ones, and so is a name given twice."""
    known = registry()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise InvalidParameter("accountants", ",".join(unknown) or "", "must be names among " + ",".join(known))
    out, skipped = [], []
    for n in names:
        if names.count(n) > 1:
            raise InvalidParameter("accountants", n, "is given twice: name each accountant once")
        acc = known[n]
        if acc.installed():
            out.append(acc)
        else:
            skipped.append(f"{n}: needs {acc.package}, not installed (pip install 'verialloc[audit]')")
    return out, skipped
