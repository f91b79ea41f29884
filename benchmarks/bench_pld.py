"""Side by side: verialloc's `pld` method against the anchors (pld-accounting, dp_accounting), in one run.

Run as `python benchmarks/bench_pld.py`, or import and call `run()`. verialloc runs in this process; every
anchor call runs in a child interpreter with a wall-clock limit (benchmarks/anchors.py), one at a time, so
the timings share the machine the same way. A missing anchor gives a row saying "not installed"; one past its
limit a row saying "did not finish in N s".

Cases (ε(δ), both directions):
1. Gaussian random allocation σ = 0.8, t = 1000, δ = 1e-5, k = 1, one epoch;
2. the same, 10 epochs; 3. the same, 100 epochs (anchor limited to ANCHOR_LIMIT_LONG s);
4. σ = 1, t = 10⁴, δ = 1e-6; 5. σ = 1, t = 10⁶, δ = 1e-6 (one epoch each);
6. gap versus time for case 1: verialloc's allocation grid step h (multiples of the automatic one), the
   anchor's loss discretization;
7. Poisson DP-SGD q = 1e-3, σ = 0.8, T = 10⁴, δ = 1e-5: verialloc at loss step Δ = 2e-5 against dp_accounting.

gap % = (upper − lower) / lower · 100. The note column flags how the brackets of a case relate: two sound
brackets of the same ε must intersect.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anchors  # noqa: E402

from verialloc import Config, Gaussian, api  # noqa: E402
from verialloc.numeric.pld.pld_accountant import Settings  # noqa: E402
from verialloc.numeric.pld.allocation import allocation  # noqa: E402

#: wall-clock limits (seconds) of the anchor calls
ANCHOR_LIMIT = 120
ANCHOR_LIMIT_EPOCHS10 = 300
#: case 3 (100 epochs): 120 s keeps the whole script under ~20 min; VERIALLOC_BENCH_LONG=1 gives it 7 min
ANCHOR_LIMIT_LONG = 420 if os.environ.get("VERIALLOC_BENCH_LONG") == "1" else 120

GRID_FACTORS = (2.0, 1.0, 0.5, 0.25, 0.125)
#: the anchor's accuracy knob for case 6: (loss_discretization, tail_truncation); the middle pair is the first
#: step its default adaptive call takes for case 1 (0.1·ε_Poisson/2, 0.1·δ), the outer ones one halving away
ANCHOR_GRID = ((0.03, 1e-6), (0.0152, 1e-6), (0.0076, 1e-7))
POISSON_STEP = 1e-4

PUBLISHED = {  # the anchor's own figures on a 2-core machine, for the note column
    1: "published [0.2786, 0.2909], 11.5 s",
    2: "published [0.7428, 0.7719], 121 s",
    3: "reportedly did not finish",
    4: "reportedly did not finish in 10 min",
}


def _row(case: str, accountant: str, lower, upper, seconds, note: str = "") -> dict:
    gap = (upper - lower) / lower * 100 if lower is not None and upper is not None and lower > 0 else None
    return {
        "case": case,
        "accountant": accountant,
        "lower": lower,
        "upper": upper,
        "gap_pct": gap,
        "seconds": seconds,
        "note": note,
    }


def _verialloc(case: str, label: str, config: Config, delta: str, settings: Settings = Settings()) -> dict:
    start = time.perf_counter()
    b = api.epsilon(config, delta, method="pld", settings=settings)
    seconds = time.perf_counter() - start
    notes = sorted({n for d in ("remove", "add") for n in b.details[d].details["notes"]})
    return _row(case, label, float(b.lower), float(b.upper), seconds, "; ".join(notes))


def _anchor(case: str, label: str, adapter: str, limit: float, note: str = "", **kwargs) -> dict:
    try:
        lower, upper, seconds, info = anchors.call(adapter, limit, **kwargs)
    except anchors.AnchorUnavailable:
        return _row(case, label, None, None, None, "; ".join(filter(None, ["not installed", note])))
    except anchors.AnchorTimeout as exc:
        return _row(case, label, None, None, None, "; ".join(filter(None, [str(exc), note])))
    except anchors.AnchorError as exc:
        return _row(case, label, None, None, None, "; ".join(filter(None, [f"failed: {exc}", note])))
    extra = []
    if "iterations" in info:
        extra.append(
            f"{info['iterations']} iter, final loss step {info['loss_discretization']:.3g}, "
            f"tail {info['tail_truncation']:.0e}"
        )
    extra += info.get("warnings", [])
    return _row(case, label, lower, upper, seconds, "; ".join(filter(None, extra + [note])))


def _relation(ours: dict, theirs: dict) -> str:
    """How an anchor's bracket (or one-sided estimate) sits against verialloc's bracket of the same ε."""
    if ours["lower"] is None or (theirs["lower"] is None and theirs["upper"] is None):
        return ""
    lo, hi = theirs["lower"], theirs["upper"]
    if lo is None or hi is None:  # one-sided estimate: an upper one may not lie below our lower bound, etc.
        value, side = (hi, "upper") if lo is None else (lo, "lower")
        if (side == "upper" and value < ours["lower"]) or (side == "lower" and value > ours["upper"]):
            return f"CONFLICT: {side} estimate outside verialloc's bracket"
        if ours["lower"] <= value <= ours["upper"]:
            return "estimate inside verialloc's bracket"
        return f"{side} estimate looser than verialloc's bracket"
    if ours["upper"] < lo or ours["lower"] > hi:
        return "CONFLICT: brackets disjoint"
    if lo <= ours["lower"] and ours["upper"] <= hi:
        return "verialloc's bracket inside"
    if ours["lower"] <= lo and hi <= ours["upper"]:
        return "contains verialloc's bracket"
    return "brackets overlap"


def _flag(ours: dict, anchor_rows: list[dict]) -> None:
    for row in anchor_rows:
        relation = _relation(ours, row)
        if relation:
            row["note"] = "; ".join(filter(None, [relation, row["note"]]))


def _flag_one(ours: dict, theirs: dict) -> dict:
    _flag(ours, [theirs])
    return theirs


def _allocation_case(n: int, case: str, sigma: str, steps: int, delta: str, epochs: int, limit: float, keep) -> None:
    ours = keep(_verialloc(case, "verialloc pld", Config(Gaussian(sigma), steps=steps, epochs=epochs), delta))
    theirs = _anchor(
        case,
        "pld-accounting",
        "pld_accounting_allocation",
        limit,
        PUBLISHED.get(n, ""),
        sigma=float(sigma),
        steps=steps,
        delta=float(delta),
        epochs=epochs,
    )
    _flag(ours, [theirs])
    keep(theirs)


def run(emit=None) -> list[dict]:
    """All rows (dicts: case, accountant, lower, upper, gap_pct, seconds, note); `emit(row)` sees each row as
    soon as it is final (an anchor row after the verialloc row it is compared with)."""
    rows: list[dict] = []

    def keep(row: dict) -> dict:
        rows.append(row)
        if emit is not None:
            emit(row)
        return row

    _allocation_case(1, "1 σ=0.8 t=1e3 δ=1e-5 E=1", "0.8", 1000, "1e-5", 1, ANCHOR_LIMIT_EPOCHS10, keep)
    _allocation_case(2, "2 σ=0.8 t=1e3 δ=1e-5 E=10", "0.8", 1000, "1e-5", 10, ANCHOR_LIMIT_EPOCHS10, keep)
    _allocation_case(3, "3 σ=0.8 t=1e3 δ=1e-5 E=100", "0.8", 1000, "1e-5", 100, ANCHOR_LIMIT_LONG, keep)
    _allocation_case(4, "4 σ=1 t=1e4 δ=1e-6 E=1", "1", 10**4, "1e-6", 1, ANCHOR_LIMIT, keep)
    _allocation_case(5, "5 σ=1 t=1e6 δ=1e-6 E=1", "1", 10**6, "1e-6", 1, ANCHOR_LIMIT, keep)

    # 6: gap versus time, case 1. The accountant's automatic h uses its own tail (Settings().tail).
    case = "6 grid, case 1"
    config = Config(Gaussian("0.8"), steps=1000)
    h_auto = allocation(config.mechanism.loss_law(), 1000, tail=Settings().tail).budget.grid_step
    for factor in GRID_FACTORS:
        label = f"verialloc h={factor:g}x auto" + (f" ({h_auto:.4g})" if factor == 1 else "")
        row = keep(_verialloc(case, label, config, "1e-5", Settings(grid_step=factor * h_auto)))
        if factor == 1:
            ours = row
    for step, tail in ANCHOR_GRID:
        keep(
            _flag_one(
                ours,
                _anchor(
                    case,
                    f"pld-accounting loss step {step:g}",
                    "pld_accounting_allocation",
                    ANCHOR_LIMIT,
                    f"tail {tail:g}",
                    sigma=0.8,
                    steps=1000,
                    delta=1e-5,
                    loss_discretization=step,
                    tail_truncation=tail,
                ),
            )
        )

    # 7: Poisson DP-SGD.
    case = "7 Poisson q=1e-3 σ=0.8 T=1e4 δ=1e-5"
    ours = keep(
        _verialloc(
            case,
            f"verialloc pld loss step {POISSON_STEP:g}",
            Config(Gaussian("0.8"), scheme="poisson", steps=10_000, rate="0.001"),
            "1e-5",
            Settings(loss_step=POISSON_STEP),
        )
    )
    theirs = [
        _anchor(
            case,
            "dp_accounting PLDAccountant 1e-4",
            "dp_accounting_poisson",
            ANCHOR_LIMIT,
            "pessimistic estimate; reference 0.7824",
            sigma=0.8,
            rate=1e-3,
            steps=10_000,
            delta=1e-5,
        ),
        _anchor(
            case,
            f"dp_accounting PLDAccountant {POISSON_STEP:g}",
            "dp_accounting_poisson",
            ANCHOR_LIMIT,
            "pessimistic estimate",
            sigma=0.8,
            rate=1e-3,
            steps=10_000,
            delta=1e-5,
            value_discretization=POISSON_STEP,
        ),
        _anchor(
            case,
            f"dp_accounting optimistic {POISSON_STEP:g}",
            "dp_accounting_poisson",
            ANCHOR_LIMIT,
            "optimistic estimate (privacy buckets)",
            sigma=0.8,
            rate=1e-3,
            steps=10_000,
            delta=1e-5,
            value_discretization=POISSON_STEP,
            estimate="optimistic",
        ),
    ]
    _flag(ours, theirs)
    for row in theirs:
        keep(row)
    return rows


HEADER = f"{'case':<36} {'accountant':<34} {'lower':>11} {'upper':>11} {'gap %':>8} {'seconds':>8}  note"


def format_row(row: dict) -> str:
    def num(x, fmt):
        return "—" if x is None else format(x, fmt)

    return (
        f"{row['case']:<36} {row['accountant']:<34} {num(row['lower'], '.6g'):>11} {num(row['upper'], '.6g'):>11} "
        f"{num(row['gap_pct'], '.3g'):>8} {num(row['seconds'], '.1f'):>8}  {row['note']}"
    )


def main() -> None:
    print(
        f"verialloc pld vs anchors (anchors in a child interpreter: {anchors.python()}; one call at a time; "
        f"limits {ANCHOR_LIMIT_EPOCHS10} s for cases 1-2, {ANCHOR_LIMIT_LONG} s for case 3, {ANCHOR_LIMIT} s "
        f"otherwise)"
    )
    print(f"load average at start: {_load()}")
    print(HEADER, flush=True)
    start = time.perf_counter()
    run(emit=lambda row: print(format_row(row), flush=True))
    print(f"total {time.perf_counter() - start:.0f} s; load average at end: {_load()}")


def _load() -> str:
    """1/5/15-minute load averages: timings on the 2-core machine are only comparable when this is low."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


if __name__ == "__main__":
    main()
