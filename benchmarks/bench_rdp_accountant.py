"""Timing: float64 log-space RDP (method "rdp") vs the authors' `random-allocation` package (remove direction).

Anchor: `random_allocation.random_allocation_scheme.direct.allocation_RDP_remove(alpha, sigma, num_steps)`
(random-allocation==1.0.5: integer partitions, numba), run in a child interpreter (`$VERIALLOC_ANCHOR_PYTHON`,
see anchors.py) with a wall-clock limit. Its numba kernels are compiled per partition length, so the first
call at a new α is "cold"; the second call (lru_cache bypassed through `__wrapped__`) is "warm".
Ours: `allocation_rdp_curve(Gaussian(σ), t, α)` — every order 2..α in one pass (best of 3).
Run as `python benchmarks/bench_rdp_accountant.py`, or import and call `run()`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anchors  # noqa: E402

from verialloc.mechanisms import Gaussian  # noqa: E402
from verialloc.numeric.rdp.rdp_logspace import allocation_rdp_curve  # noqa: E402

SIGMA, STEPS = 1, 1000
ALPHAS = (20, 40, 60)
BIG = (10**6, 10_000)  # (t, N) of the one-pass run
ANCHOR_LIMIT = 900.0
REPEATS = 3

_CHILD = r"""
import json, sys, time
spec = json.loads(sys.argv[1])
try:
    from random_allocation.random_allocation_scheme.direct import allocation_RDP_remove as f
except ImportError as exc:
    print(json.dumps({"error": f"random-allocation not installed ({exc})"})); sys.exit()
f(2, float(spec["sigma"]), spec["steps"])  # import-time JIT of the shared kernels
for a in spec["alphas"]:
    start = time.perf_counter(); value = f.__wrapped__(a, float(spec["sigma"]), spec["steps"]); cold = time.perf_counter() - start
    start = time.perf_counter(); f.__wrapped__(a, float(spec["sigma"]), spec["steps"]); warm = time.perf_counter() - start
    print(json.dumps({"alpha": a, "value": value, "cold": cold, "warm": warm}), flush=True)
"""


def _anchor(alphas, limit: float) -> dict:
    """{α: {"value", "cold", "warm"}} from the child; α missing if the limit was hit first."""
    cmd = [anchors.python(), "-c", _CHILD, json.dumps({"sigma": SIGMA, "steps": STEPS, "alphas": list(alphas)})]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # only the child we started (and its numba workers)
        out, _ = child.communicate()
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if rows and "error" in rows[0]:
        raise anchors.AnchorUnavailable(rows[0]["error"])
    return {r["alpha"]: r for r in rows}


def _ours(steps: int, alpha: int) -> tuple[float, float]:
    best, value = float("inf"), None
    for _ in range(REPEATS):
        start = time.perf_counter()
        curve = allocation_rdp_curve(Gaussian(SIGMA), steps, alpha)
        best = min(best, time.perf_counter() - start)
        value = float(curve.values[alpha])
    return best, value


def run() -> list[dict]:
    """One row per α (ours vs anchor, warm ratio, relative agreement) plus the N = 10⁴, t = 10⁶ row."""
    try:
        anchor = _anchor(ALPHAS, ANCHOR_LIMIT)
    except anchors.AnchorUnavailable:
        anchor = {}
    rows = []
    for a in ALPHAS:
        seconds, value = _ours(STEPS, a)
        ref = anchor.get(a)
        rows.append(
            {
                "steps": STEPS,
                "alpha": a,
                "ours_s": seconds,
                "rdp": value,
                "anchor_cold_s": ref["cold"] if ref else None,
                "anchor_warm_s": ref["warm"] if ref else None,
                "warm_ratio": ref["warm"] / seconds if ref else None,
                "rel_diff": abs(ref["value"] - value) / value if ref else None,
            }
        )
    start = time.perf_counter()
    curve = allocation_rdp_curve(Gaussian(SIGMA), *BIG)
    rows.append(
        {
            "steps": BIG[0],
            "alpha": BIG[1],
            "ours_s": time.perf_counter() - start,
            "rdp": float(curve.values[-1]),
            "anchor_cold_s": None,
            "anchor_warm_s": None,
            "warm_ratio": None,
            "rel_diff": None,
        }
    )
    return rows


def _fmt(x, spec: str) -> str:
    width = "".join(ch for ch in spec.split(".")[0] if ch.isdigit())
    return format("—", f">{width}") if x is None else format(x, spec)


def main() -> None:
    print(
        f"allocation RDP (remove), Gaussian sigma={SIGMA}; ours: all orders 2..alpha in one float64 pass; "
        f"anchor: random-allocation allocation_RDP_remove (limit {ANCHOR_LIMIT:g} s)"
    )
    print(
        f"{'t':>8} {'alpha':>6} {'ours [s]':>9} {'anchor cold [s]':>16} {'anchor warm [s]':>16} {'warm/ours':>10} "
        f"{'rel diff':>9}  R_alpha"
    )
    for r in run():
        print(
            f"{r['steps']:>8} {r['alpha']:>6} {r['ours_s']:>9.4f} {_fmt(r['anchor_cold_s'], '16.2f')} "
            f"{_fmt(r['anchor_warm_s'], '16.2f')} {_fmt(r['warm_ratio'], '10.0f')} {_fmt(r['rel_diff'], '9.1e')}  "
            f"{r['rdp']:.12g}"
        )


if __name__ == "__main__":
    main()
