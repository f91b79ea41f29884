"""Poisson DP-SGD side by side at equal accuracy (issue #13): q = 1e-3, σ = 0.8, T = 10⁴, δ = 1e-5.

verialloc's `pld` gives a certified bracket; dp_accounting gives two uncertified estimates, a pessimistic one
(PLDAccountant, connect-the-dots) and an optimistic one (privacy buckets rounding down), whose distance is the
width of what it knows. Rows: verialloc at loss steps LOSS_STEPS, dp_accounting at VALUE_STEPS with both
estimates (seconds = both calls; the pessimistic call alone in the note). gap % = (upper − lower)/lower · 100.
Each anchor call runs in a child interpreter (benchmarks/anchors.py), one at a time, in the same run.
Run: `python benchmarks/bench_poisson.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anchors  # noqa: E402
from bench_pld import HEADER, _row, _verialloc, format_row  # noqa: E402

from verialloc import Config, Gaussian  # noqa: E402
from verialloc.numeric.pld.pld_accountant import Settings  # noqa: E402

SIGMA, RATE, STEPS, DELTA = 0.8, 1e-3, 10_000, "1e-5"
LOSS_STEPS = (1e-4, 2e-4, 4e-4)
VALUE_STEPS = (1e-4, 2e-5)
LIMIT = 120
CASE = "Poisson q=1e-3 σ=0.8 T=1e4 δ=1e-5"


def _dp_accounting(step: float) -> dict:
    label = f"dp_accounting Δ={step:g} (opt./pess.)"
    ends = {}
    try:
        for estimate in ("optimistic", "pessimistic"):
            lower, upper, seconds, _ = anchors.call(
                "dp_accounting_poisson",
                LIMIT,
                sigma=SIGMA,
                rate=RATE,
                steps=STEPS,
                delta=float(DELTA),
                value_discretization=step,
                estimate=estimate,
            )
            ends[estimate] = (lower if estimate == "optimistic" else upper, seconds)
    except anchors.AnchorError as exc:
        return _row(CASE, label, None, None, None, str(exc))
    (lower, t_low), (upper, t_up) = ends["optimistic"], ends["pessimistic"]
    return _row(CASE, label, lower, upper, t_low + t_up, f"estimates, not bounds; pessimistic alone {t_up:.2f} s")


def run(emit=None) -> list[dict]:
    emit = emit or (lambda row: None)
    rows = []
    config = Config(Gaussian(str(SIGMA)), scheme="poisson", steps=STEPS, rate=str(RATE))
    for step in LOSS_STEPS:
        rows.append(_verialloc(CASE, f"verialloc pld Δ={step:g}", config, DELTA, Settings(loss_step=step)))
        emit(rows[-1])
    for step in VALUE_STEPS:
        rows.append(_dp_accounting(step))
        emit(rows[-1])
    return rows


def main() -> None:
    print(f"anchors in a child interpreter: {anchors.python()}; one call at a time")
    print(HEADER, flush=True)
    run(emit=lambda row: print(format_row(row), flush=True))


if __name__ == "__main__":
    main()
