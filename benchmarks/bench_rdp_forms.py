"""Timing: generating-function vs partition form (F38) of the allocation RDP, Gaussian σ = 1, t = 1000.

Run as `python benchmarks/bench_rdp_forms.py`, or import and call `run()`. Both forms are timed in the
same run at 30 digits; the table shows the speed ratio partition/genfunc.
"""

from __future__ import annotations

import time

import mpmath as mp

from verialloc.exact.rdp import allocation_rdp
from verialloc.mechanisms import Gaussian

SIGMA, STEPS, DIGITS = 1, 1000, 30
ALPHAS = (20, 40, 60)
GENFUNC_REPEATS = 3


def _timed(form: str, alpha: int, repeats: int) -> tuple[float, mp.mpf]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = allocation_rdp(Gaussian(SIGMA), STEPS, alpha, digits=DIGITS, form=form)
        best = min(best, time.perf_counter() - start)
    return best, value


def run() -> list[dict]:
    """One row per α: seconds for each form (genfunc: best of 3), their ratio and the agreement in digits
    (relative difference at 40 digits; exact agreement there is reported as 40)."""
    rows = []
    for alpha in ALPHAS:
        genfunc_s, genfunc_value = _timed("genfunc", alpha, GENFUNC_REPEATS)
        partition_s, partition_value = _timed("partition", alpha, 1)
        with mp.workdps(DIGITS + 10):
            rel = abs(partition_value / genfunc_value - 1)
            agree = float(-mp.log10(rel)) if rel else float(DIGITS + 10)
        rows.append(
            {
                "alpha": alpha,
                "genfunc_s": genfunc_s,
                "partition_s": partition_s,
                "ratio": partition_s / genfunc_s,
                "rdp": mp.nstr(genfunc_value, 15),
                "agree_digits": agree,
            }
        )
    return rows


def main() -> None:
    print(f"allocation RDP (remove), Gaussian sigma={SIGMA}, t={STEPS}, {DIGITS} digits")
    print(f"{'alpha':>5} {'genfunc [s]':>12} {'partition [s]':>14} {'partition/genfunc':>18} {'agree':>6}  R_alpha")
    for row in run():
        print(
            f"{row['alpha']:>5} {row['genfunc_s']:>12.4f} {row['partition_s']:>14.3f} {row['ratio']:>18.0f} "
            f"{row['agree_digits']:>6.1f}  {row['rdp']}"
        )


if __name__ == "__main__":
    main()
