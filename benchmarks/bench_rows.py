"""Issue #13's table of configurations off the headline, re-measured side by side in one run.

Rows (ε(δ), Gaussian random allocation, both directions): verialloc `pld` and the anchor the issue named —
pld-accounting's adaptive `gaussian_allocation_epsilon_range` for k > 1 (its upper end is the ⌊t/k⌋ reduction
too), random-allocation's lower bound and `combined` upper bound at δ = 1e-30. The Poisson DP-SGD row is
bench_poisson.py; `best` and the discrete Poisson rows are in docs/benchmarks.md's own tables.
Run: `python benchmarks/bench_rows.py` (anchors in a child interpreter, `$VERIALLOC_ANCHOR_PYTHON` if set).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anchors  # noqa: E402
from bench_pld import HEADER, _anchor, _flag, _verialloc, format_row  # noqa: E402

from verialloc import Config, Gaussian  # noqa: E402

LIMIT = 300
#: (σ, t, k, epochs, δ, anchor adapter)
ROWS = [
    ("0.6", 500, 3, 4, "1e-7", "pld_accounting_allocation"),
    ("1.5", 50, 5, 1, "1e-6", "pld_accounting_allocation"),
    ("1", 1000, 10, 1, "1e-6", "pld_accounting_allocation"),
    ("0.8", 1000, 1, 1, "1e-30", "random_allocation_combined"),
]

LABELS = {
    "pld_accounting_allocation": "pld-accounting (adaptive)",
    "random_allocation_combined": "random-allocation lower / combined",
}


def run(emit=None) -> list[dict]:
    emit = emit or (lambda row: None)
    rows = []
    for sigma, steps, k, epochs, delta, adapter in ROWS:
        case = f"σ={sigma} t={steps} k={k} E={epochs} δ={delta}"
        ours = _verialloc(case, "verialloc pld", Config(Gaussian(sigma), steps=steps, k=k, epochs=epochs), delta)
        emit(ours)
        theirs = _anchor(
            case,
            LABELS[adapter],
            adapter,
            LIMIT,
            "",
            sigma=float(sigma),
            steps=steps,
            delta=float(delta),
            epochs=epochs,
            k=k,
        )
        _flag(ours, [theirs])
        emit(theirs)
        rows += [ours, theirs]
    return rows


def main() -> None:
    print(f"anchors in a child interpreter: {anchors.python()}; one call at a time; limit {LIMIT} s")
    print(HEADER, flush=True)
    run(emit=lambda row: print(format_row(row), flush=True))


if __name__ == "__main__":
    main()
