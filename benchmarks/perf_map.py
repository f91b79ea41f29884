"""Performance map (issue #13): ε(δ) brackets of Gaussian random allocation over the grid practitioners use,
one `verialloc epsilon --method pld` per cell, with its bracket, relative gap and seconds; a heat map per δ.

    python benchmarks/perf_map.py [--only-delta D ...] [--only-k K ...] [--only-steps T ...] [--only-epochs E ...]
                                  [--timeout S] [--out FILE.jsonl] [--plot | --markdown]

Grid: σ ∈ SIGMAS × t ∈ STEPS × epochs ∈ EPOCHS × k ∈ KS × δ ∈ DELTAS (270 cells). Each cell runs as its own CLI
process with `--budget S` (verialloc refuses work it estimates beyond S, before starting) and a hard timeout of
2·S + 30 s, so a cell that misses says how: "refused" (estimated beyond the budget, with verialloc's reason),
"timeout", "error" (the one-line message), or its bracket. Results are appended to `--out` as JSON lines and a
rerun skips the cells already there (resumable). Goal per cell (#13): finite, ≤ 30 s on 2 cores, gap ≤ 1 % for
k = 1 and ≤ 10 % for k > 1; `--plot` draws docs/figures/perf_map_delta*.png (gap colour, seconds in each cell);
`--markdown` prints one table per (k, δ) for docs/benchmarks.md (gap and seconds per cell, ✗ where it misses).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

SIGMAS = ("0.5", "0.7", "1", "2", "5")
STEPS = (10, 1000, 100000)
EPOCHS = (1, 10, 100)
KS = (1, 4)
DELTAS = ("1e-5", "1e-10", "1e-30")
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "perf_map.jsonl"
FIGURES = ROOT / "docs" / "figures"
GOAL_SECONDS = 30
GOAL_GAP = {1: 0.01, 4: 0.10}


def cells(deltas=DELTAS, ks=KS, steps_axis=STEPS, epochs_axis=EPOCHS):
    for delta in deltas:
        for k in ks:
            for sigma in SIGMAS:
                for steps in steps_axis:
                    for epochs in epochs_axis:
                        yield {"sigma": sigma, "steps": steps, "epochs": epochs, "k": k, "delta": delta}


def key(cell: dict) -> str:
    return "σ={sigma} t={steps} E={epochs} k={k} δ={delta}".format(**cell)


def run_cell(cell: dict, budget: float) -> dict:
    """One CLI call; the row is the cell plus status, lower, upper, gap and seconds."""
    argv = [
        sys.executable,
        "-m",
        "verialloc.cli",
        "epsilon",
        "--mechanism",
        "gaussian",
        "--sigma",
        cell["sigma"],
        "--steps",
        str(cell["steps"]),
        "--epochs",
        str(cell["epochs"]),
        "--k",
        str(cell["k"]),
        "--delta",
        cell["delta"],
        "--method",
        "pld",
        "--budget",
        str(budget),
        "--json",
    ]
    start = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=2 * budget + 30)
    except subprocess.TimeoutExpired:
        return {**cell, "status": "timeout", "seconds": round(time.monotonic() - start, 1)}
    seconds = round(time.monotonic() - start, 1)
    if done.returncode != 0:
        line = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        status = "refused" if "budget" in line else "error"
        return {**cell, "status": status, "seconds": seconds, "message": line[:300]}
    out = json.loads(done.stdout)
    lower, upper = float(out["lower"]), float(out["upper"])
    gap = (upper - lower) / upper if math.isfinite(upper) and upper > 0 else math.inf
    return {
        **cell,
        "status": "ok",
        "seconds": seconds,
        "lower": out["lower"],
        "upper": out["upper"],
        "gap": gap if math.isfinite(gap) else "inf",
    }


def meets_goal(row: dict) -> bool:
    gap = row.get("gap")
    return row["status"] == "ok" and gap != "inf" and gap <= GOAL_GAP[row["k"]] and row["seconds"] <= GOAL_SECONDS


def load(path: Path) -> dict:
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[key(row)] = row
    return rows


def plot(rows: dict, deltas) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    for delta in deltas:
        fig, axes = plt.subplots(1, len(KS), figsize=(6 * len(KS), 5), squeeze=False)
        for ax, k in zip(axes[0], KS):
            cols = [(t, e) for t in STEPS for e in EPOCHS]
            gaps = np.full((len(SIGMAS), len(cols)), np.nan)
            for i, sigma in enumerate(SIGMAS):
                for j, (t, e) in enumerate(cols):
                    row = rows.get(key({"sigma": sigma, "steps": t, "epochs": e, "k": k, "delta": delta}))
                    if row is None:
                        continue
                    label = row["status"] if row["status"] != "ok" else f"{row['seconds']:.0f}s"
                    if row["status"] == "ok" and row["gap"] != "inf":
                        gaps[i, j] = math.log10(max(row["gap"], 1e-12))
                    mark = "" if meets_goal(row) else "✗"
                    ax.text(j, i, f"{label}{mark}", ha="center", va="center", fontsize=6)
            image = ax.imshow(gaps, cmap="viridis_r", vmin=-10, vmax=0, aspect="auto")
            ax.set_xticks(range(len(cols)), [f"t={t:g}\nE={e}" for t, e in cols], fontsize=6)
            ax.set_yticks(range(len(SIGMAS)), [f"σ={s}" for s in SIGMAS])
            ax.set_title(f"k = {k}, δ = {delta}: log10 relative gap (text: seconds; ✗ misses the goal)", fontsize=8)
            fig.colorbar(image, ax=ax)
        fig.tight_layout()
        FIGURES.mkdir(parents=True, exist_ok=True)
        fig.savefig(FIGURES / f"perf_map_delta{delta}.png", dpi=120)
        plt.close(fig)


def markdown(rows: dict, deltas, ks) -> str:
    """One table per (k, δ): rows σ, columns (t, E); each cell "gap % · seconds s", or the status; ✗ = miss."""
    out = []
    cols = [(t, e) for t in STEPS for e in EPOCHS]
    for k in ks:
        for delta in deltas:
            found = [
                rows.get(key({"sigma": s, "steps": t, "epochs": e, "k": k, "delta": delta}))
                for s in SIGMAS
                for t, e in cols
            ]
            met = sum(1 for r in found if r is not None and meets_goal(r))
            out.append(f"**k = {k}, δ = {delta}**: {met} of {len(found)} cells meet the goal\n")
            out.append("| σ | " + " | ".join(f"t={t:g} E={e}" for t, e in cols) + " |")
            out.append("|---" * (len(cols) + 1) + "|")
            for s in SIGMAS:
                cells_ = []
                for t, e in cols:
                    r = rows.get(key({"sigma": s, "steps": t, "epochs": e, "k": k, "delta": delta}))
                    if r is None:
                        cells_.append("—")
                    elif r["status"] != "ok":
                        cells_.append(f"{r['status']} ✗")
                    else:
                        gap = "inf" if r["gap"] == "inf" else f"{100 * r['gap']:.2g} %"
                        cells_.append(f"{gap} · {r['seconds']:.0f} s{'' if meets_goal(r) else ' ✗'}")
                out.append(f"| {s} | " + " | ".join(cells_) + " |")
            out.append("")
    return "\n".join(out)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only-delta", nargs="*", default=list(DELTAS), choices=DELTAS)
    p.add_argument("--only-k", nargs="*", type=int, default=list(KS), choices=KS)
    p.add_argument("--only-steps", nargs="*", type=int, default=list(STEPS), choices=STEPS)
    p.add_argument("--only-epochs", nargs="*", type=int, default=list(EPOCHS), choices=EPOCHS)
    p.add_argument("--timeout", type=float, default=GOAL_SECONDS * 4, help="budget per cell, seconds")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--plot", action="store_true", help="only draw the heat maps from --out")
    p.add_argument("--markdown", action="store_true", help="only print the tables of --out")
    args = p.parse_args(argv)
    rows = load(args.out)
    if args.plot:
        plot(rows, args.only_delta)
        return
    if args.markdown:
        print(markdown(rows, args.only_delta, args.only_k))
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as fh:
        for cell in cells(args.only_delta, args.only_k, args.only_steps, args.only_epochs):
            if key(cell) in rows:
                continue
            row = run_cell(cell, args.timeout)
            rows[key(cell)] = row
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(
                key(cell),
                row["status"],
                row.get("lower"),
                row.get("upper"),
                row["seconds"],
                "s",
                "" if meets_goal(row) else "MISS",
                flush=True,
            )


if __name__ == "__main__":
    main()
