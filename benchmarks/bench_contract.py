"""Issue #13: the lower pair discretization (`discretize_pair(..., "lower")`, numeric/pld/discretize.py) inside
whole `pld` queries — seconds and lower ends, optionally side by side with the discretization of another revision.

Run as `python benchmarks/bench_contract.py [--before REV]`, or import and call `run(before=None)`. With REV, every
case runs twice in this process, one after the other: with REV's discretize.py (read by `git show`, used in place of
the current one by the pld accountant) and with the current code, so the columns compare numbers measured side by
side. Seconds are CPU seconds of this process (the queries run on one thread; the machine is shared, so wall
time would mostly measure the other jobs). change = (lower − lower before) / |lower before|: positive means a
tighter lower end.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from fractions import Fraction
from pathlib import Path

from verialloc import Config, api
from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse
from verialloc.numeric.pld import pld_accountant

ROOT = Path(__file__).resolve().parent.parent
PAIR4 = DiscretePair(["0.4", "0.3", "0.2", "0.1"], ["0.1", "0.2", "0.3", "0.4"])
PAIR3 = DiscretePair(["0.5", "0.3", "0.2"], ["0.2", "0.3", "0.5"])
F = Fraction

#: (label, configuration, query, value, direction) — the issue's slow rows first, then tightness checks
CASES = [
    (
        "Gaussian σ=1, Poisson rate 1, t=100 (μ=50)",
        Config(Gaussian(1), scheme="poisson", rate=1, steps=100),
        "epsilon",
        "1e-5",
        "remove",
    ),
    (
        "DP-SGD q=1e-3, σ=0.8, T=1e4",
        Config(Gaussian("0.8"), scheme="poisson", rate=F(1, 1000), steps=10_000),
        "epsilon",
        "1e-5",
        "remove",
    ),
    (
        "4-outcome pair, Poisson rate 1, t=5, 2 epochs",
        Config(PAIR4, scheme="poisson", rate=1, steps=5, epochs=2),
        "epsilon",
        "1e-5",
        "both",
    ),
    (
        "randomized response ε0=1, Poisson t=50",
        Config(RandomizedResponse(1), scheme="poisson", steps=50, rate="1/50"),
        "epsilon",
        "1e-5",
        "both",
    ),
    (
        "randomized response ε0=1, Poisson t=400",
        Config(RandomizedResponse(1), scheme="poisson", steps=400, rate="1/400"),
        "epsilon",
        "1e-5",
        "both",
    ),
    (
        "Gaussian σ=0.5, Poisson q=0.01, t=100",
        Config(Gaussian("0.5"), scheme="poisson", rate=F(1, 100), steps=100),
        "delta",
        "2",
        "both",
    ),
    (
        "Gaussian σ=1, Poisson q=0.01, t=1000",
        Config(Gaussian(1), scheme="poisson", rate=F(1, 100), steps=1000),
        "delta",
        "0.5",
        "both",
    ),
    (
        "Gaussian σ=2, Poisson q=0.1, t=100",
        Config(Gaussian(2), scheme="poisson", rate=F(1, 10), steps=100),
        "delta",
        "0.5",
        "both",
    ),
    (
        "Laplace b=1, Poisson q=0.05, t=100",
        Config(Laplace(1), scheme="poisson", rate=F(1, 20), steps=100),
        "delta",
        "1",
        "both",
    ),
    (
        "3-outcome pair, Poisson q=0.3, t=20",
        Config(PAIR3, scheme="poisson", rate=F(3, 10), steps=20),
        "delta",
        "1",
        "both",
    ),
    ("Gaussian σ=1, allocation t=k=10", Config(Gaussian(1), steps=10, k=10), "epsilon", "1e-8", "both"),
]


def _discretize_at(rev: str) -> types.ModuleType:
    """discretize.py as of `rev`, as a module of the pld package (its relative imports resolve there)."""
    text = subprocess.run(
        ["git", "show", f"{rev}:verialloc/numeric/pld/discretize.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("verialloc.numeric.pld._discretize_" + rev.replace("~", "_").replace("^", "_"))
    module.__package__ = "verialloc.numeric.pld"
    exec(compile(text, f"{rev}:verialloc/numeric/pld/discretize.py", "exec"), module.__dict__)
    return module


def _query(config: Config, query: str, value: str, direction: str) -> tuple[float, float, float]:
    start = time.process_time()
    ask = api.epsilon if query == "epsilon" else api.delta
    b = ask(config, value, method="pld", direction=direction)
    return float(b.lower), float(b.upper), time.process_time() - start


def _lower_alone(discretize_pair) -> tuple[float, float]:
    """The lower discretization alone of the first case's law (μ = 50; 2.59e6 cells per direction at the default
    step), both directions: (δ(50) of the remove PLD, CPU seconds)."""
    law = Gaussian(1).composed(100).loss_law()
    start = time.process_time()
    low = [discretize_pair(law, d, pld_accountant.Settings().loss_step, 1e-15, "lower") for d in ("remove", "add")]
    return low[0].delta(50.0), time.process_time() - start


def run(before: str | None = None) -> list[dict]:
    current = pld_accountant.discretize_pair
    old = _discretize_at(before).discretize_pair if before else None
    rows = []
    row = {"case": "lower discretization alone, μ=50 law, both directions", "query": "δ(50), remove", "upper": None}
    if old is not None:
        row["lower_before"], row["seconds_before"] = _lower_alone(old)
    row["lower"], row["seconds"] = _lower_alone(current)
    if old is not None:
        row["change"] = (row["lower"] - row["lower_before"]) / row["lower_before"]
    rows.append(row)
    try:
        for label, config, query, value, direction in CASES:
            row = {"case": label, "query": f"{query}({value}), {direction}"}
            if old is not None:
                pld_accountant.discretize_pair = old
                row["lower_before"], row["upper_before"], row["seconds_before"] = _query(
                    config, query, value, direction
                )
                pld_accountant.discretize_pair = current
            row["lower"], row["upper"], row["seconds"] = _query(config, query, value, direction)
            if old is not None and row["lower_before"]:
                row["change"] = (row["lower"] - row["lower_before"]) / abs(row["lower_before"])
            rows.append(row)
    finally:
        pld_accountant.discretize_pair = current
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="whole pld queries with the lower pair discretization (issue #13)")
    parser.add_argument("--before", help="git revision whose discretize.py runs side by side with the current one")
    args = parser.parse_args(argv if argv is not None else [])
    rows = run(args.before)
    before = args.before is not None
    print("| case | query | lower | upper | CPU s |" + (" lower before | CPU s before | change |" if before else ""))
    print("|---|---|---|---|---|" + ("---|---|---|" if before else ""))
    for r in rows:
        upper = "—" if r["upper"] is None else f"{r['upper']:.12g}"
        line = f"| {r['case']} | {r['query']} | {r['lower']:.12g} | {upper} | {r['seconds']:.2f} |"
        if before:
            line += f" {r['lower_before']:.12g} | {r['seconds_before']:.2f} | {r.get('change', 0.0):+.2e} |"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
