"""The hand-made mutations of issue #15: each is a small realistic bug in a bound; each must fail its tests.

Run: `python -m mutation.curated [--only A1,A4]` from the repository root. Every mutation is applied to a scratch
copy of the tracked tree (the working tree is never touched), its tests run with `-x`, and the run reports
KILLED (a test failed) or SURVIVED. A mutation whose text is not found is an error (the code moved: update the
table), never a silent pass.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mutation.scratch import scratch_copy


@dataclass(frozen=True)
class Mutation:
    id: str
    what: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    #: why a surviving mutation is accepted (docs/verification.md, "Mutation testing"); empty: it must be killed
    triage: str = ""


N = "verialloc/numeric/"
T = "tests/numeric/"
P, A = N + "pld/", N + "pld/allocation/"
TP, TA = T + "pld/", T + "pld/allocation/"
MUTATIONS = (
    Mutation(
        "A1",
        "allocation upper absorbs the relative float error x1 instead of x2",
        A + "readout.py",
        'scale = 1 + 2 * node.rel if bound == "upper"',
        'scale = 1 + node.rel if bound == "upper"',
        (TA + "test_budget_absorption.py", TA + "test_cut_bookkeeping.py"),
    ),
    Mutation(
        "A2",
        "remove upper: the P-weight of cut sums not sent to +inf",
        A + "readout.py",
        "truncated = (node.top_excess + dropped_moment) / t * scale",
        "truncated = node.top_excess / t * scale",
        (TA + "test_cut_bookkeeping.py", TA + "test_allocation.py"),
    ),
    Mutation(
        "A3",
        "Q-mass cut below the window not recorded",
        A + "squaring.py",
        "dropped = x.dropped * ty + sx * yy.dropped + float(low.sum())",
        "dropped = x.dropped * ty + sx * yy.dropped",
        (TA + "test_cut_bookkeeping.py", TA + "test_allocation.py"),
    ),
    Mutation(
        "A4",
        "k > 1 reduction uses ceil(t/k) allocation steps instead of floor(t/k)",
        P + "table.py",
        'up_plds, up_loss = _allocation_plds(block, "upper", *args)',
        'up_plds, up_loss = _allocation_plds(block + 1, "upper", *args)',
        (TP + "test_k_reduction.py", TP + "test_pld_accountant.py"),
    ),
    Mutation(
        "D4",
        "lower contraction: certified class ratios rounded up instead of down",
        P + "discretize.py",
        "r = num / den * (1 - 2 * err - 8 * _U)",
        "r = num / den * (1 + 2 * err + 8 * _U)",
        (TP + "test_lower_contraction.py", TP + "test_discretize_lower_dominated.py"),
    ),
    Mutation(
        "P2",
        "PLD.epsilon upper returns the bisection end with delta(eps) > target",
        P + "pld.py",
        'return float(np.nextafter(hi, np.inf)) if self.bound != "lower"',
        'return float(lo) if self.bound != "lower"',
        (TP + "test_epsilon_query_direction.py", TP + "test_pld.py"),
    ),
    Mutation(
        "G1",
        "geometric _round: near-tie sums rounded down in the upper direction",
        A + "geometric_conv.py",
        "np.ceil(index + tie)",
        "np.ceil(index - tie)",
        (TA + "test_geometric_conv_ties.py", TA + "test_geometric.py"),
    ),
    Mutation(
        "G2",
        "geometric convolution's own rounding error not added to the float budget",
        A + "geometric_conv.py",
        "rel = ((1 + x.rel) * (1 + y.rel) * (1 + gamma) - 1) * (1 + 1e-6)",
        "rel = ((1 + x.rel) * (1 + y.rel) - 1) * (1 + 1e-6)",
        (TA + "test_geometric_float_budget.py", TA + "test_geometric.py"),
    ),
    Mutation(
        "C2",
        "FFT error bound's safety factor 2 lost",
        P + "compose.py",
        "return 2 * (3 * rho + 3 * U) * norms",
        "return (3 * rho + 3 * U) * norms",
        (TP + "test_compose.py", TP + "test_fft_underflow.py"),
    ),
    Mutation(
        "N1",
        "asymptotic F43a constant 8 -> 7",
        N + "analytic/asymptotic.py",
        "s = sigma / 8.0",
        "s = sigma / 7.0",
        (T + "analytic/test_f34_f43a_constants.py", T + "analytic/test_analytic_bounds.py"),
    ),
    Mutation(
        "N2",
        "truncated Poisson F34: Hoeffding exponent factor 2 lost",
        N + "analytic/truncated_poisson.py",
        "np.exp(-m * gamma**2 / (2.0 * h**2))",
        "np.exp(-m * gamma**2 / (h**2))",
        (T + "analytic/test_f34_f43a_constants.py", T + "analytic/test_analytic_bounds.py"),
    ),
    Mutation(
        "X2",
        "exact quadrature: lower end = estimate + error",
        "verialloc/exact/accountant.py",
        "lo, hi = max(value - err,",
        "lo, hi = max(value + err,",
        ("tests/exact/test_quadrature_brackets.py", "tests/exact"),
    ),
)


def run(mutation: Mutation, root: Path, python: str) -> tuple[str, float]:
    """Apply one mutation to a scratch copy and run its tests; (KILLED | SURVIVED, seconds)."""
    with scratch_copy(root) as tree:
        target = tree / mutation.path
        text = target.read_text()
        if text.count(mutation.old) != 1:
            raise SystemExit(
                f"{mutation.id}: the text to mutate occurs {text.count(mutation.old)} times in "
                f"{mutation.path} (expected once): update mutation/curated.py"
            )
        target.write_text(text.replace(mutation.old, mutation.new))
        start = time.perf_counter()
        proc = subprocess.run(
            [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutation.tests],
            cwd=tree,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{mutation.id}: pytest exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return ("KILLED" if proc.returncode == 1 else "SURVIVED"), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated mutation ids")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.id in args.only.split(",")]
    root = Path(__file__).resolve().parents[1]
    killed = untriaged = 0
    for m in chosen:
        verdict, seconds = run(m, root, sys.executable)
        killed += verdict == "KILLED"
        untriaged += verdict == "SURVIVED" and not m.triage
        note = f"  [triaged: {m.triage}]" if verdict == "SURVIVED" and m.triage else ""
        print(f"{m.id:3} {verdict:8} {seconds:6.1f}s  {m.what}{note}", flush=True)
    print(f"curated: {killed}/{len(chosen)} killed, {untriaged} untriaged survivors")
    return 1 if untriaged else 0


if __name__ == "__main__":
    sys.exit(main())
