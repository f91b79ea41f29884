"""Compile once, query many (issue #29): verialloc's compiled ledger against dp_accounting's PLDAccountant on the same
events, in one run.

Poisson DP-SGD, q = 0.01, σ = 1.1, T ∈ {10³, 10⁴, 10⁵}, and a two-phase run (σ = 0.8 for 200 steps, then σ = 1.2
for 2000 steps, q = 0.01). Columns: compile + first query ε(1e-5) (verialloc: api.compile(..., method="pld") and
its first epsilon; dp_accounting: compose + get_epsilon at its defaults), the median of later queries (ε at 20 δ
in [1e-10, 1e-3], then δ at 5 ε), the sum of the 20 ε queries (a 20-point curve asked one δ at a time), then a
100-point ε curve (δ log-spaced in [1e-12, 1e-2]; verialloc: `epsilon_curve`, dp_accounting: get_epsilon at each),
verialloc's certified bracket and its relative width, dp_accounting's answer, and `certify` of dp_accounting's
answer (verdict and seconds, budget 60 s). Each side runs in this process, one after the other. Run:
`python benchmarks/bench_ledger.py`.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from dp_accounting import dp_event as dpe
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

from verialloc import api
from verialloc.certify import certify, make_claim
from verialloc.integrations.dp_accounting import from_dp_event

DELTAS = [10.0**-e for e in range(3, 11)] + [3 * 10.0**-e for e in range(3, 11)] + [5e-5, 5e-7, 5e-9, 2e-6]
EPSILONS = [0.5, 1.0, 2.0, 4.0, 8.0]
#: the 100-point ε curve
CURVE = [float(d) for d in np.logspace(-12, -2, 100)]


def poisson(sigma: float, steps: int, q: float = 0.01):
    return dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(q, dpe.GaussianDpEvent(sigma)), steps)


CASES = [
    ("Poisson q=0.01 σ=1.1 T=1e3", poisson(1.1, 1000)),
    ("Poisson q=0.01 σ=1.1 T=1e4", poisson(1.1, 10_000)),
    ("Poisson q=0.01 σ=1.1 T=1e5", poisson(1.1, 100_000)),
    ("two phases σ=0.8×200, σ=1.2×2000", dpe.ComposedDpEvent([poisson(0.8, 200), poisson(1.2, 2000)])),
]


def _ours(event) -> dict:
    accounted = from_dp_event(event)
    start = time.perf_counter()
    acc = api.compile(accounted, method="pld")
    first = acc.epsilon("1e-5")
    compile_first = time.perf_counter() - start
    later = []
    for d in DELTAS:
        t0 = time.perf_counter()
        acc.epsilon(repr(d))
        later.append(time.perf_counter() - t0)
    for e in EPSILONS:
        t0 = time.perf_counter()
        acc.delta(repr(e))
        later.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    acc.epsilon_curve([repr(d) for d in CURVE])
    curve100 = time.perf_counter() - t0
    return {
        "seconds": compile_first,
        "later": statistics.median(later),
        "curve": sum(later[: len(DELTAS)]),
        "curve100": curve100,
        "lower": float(first.lower),
        "upper": float(first.upper),
        "accounted": accounted,
    }


def _theirs(event) -> dict:
    start = time.perf_counter()
    acc = PLDAccountant().compose(event)
    eps = acc.get_epsilon(1e-5)
    seconds = time.perf_counter() - start
    later = []
    for d in DELTAS:
        t0 = time.perf_counter()
        acc.get_epsilon(d)
        later.append(time.perf_counter() - t0)
    for e in EPSILONS:
        t0 = time.perf_counter()
        acc.get_delta(e)
        later.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    for d in CURVE:
        acc.get_epsilon(d)
    curve100 = time.perf_counter() - t0
    return {"seconds": seconds, "later": statistics.median(later), "epsilon": eps, "curve100": curve100}


def run() -> list[dict]:
    rows = []
    for name, event in CASES:
        ours, theirs = _ours(event), _theirs(event)
        start = time.perf_counter()
        cert = certify(ours["accounted"], make_claim(delta="1e-5", claimed_epsilon=repr(theirs["epsilon"])), budget=60)
        rows.append(
            {
                "case": name,
                "ours": ours,
                "theirs": theirs,
                "verdict": cert.verdict,
                "certify_seconds": time.perf_counter() - start,
            }
        )
    return rows


def main() -> None:
    print(
        "| case | verialloc compile + ε(1e-5) | dp_accounting compose + ε(1e-5) | ratio | later query, verialloc | "
        "later query, dp_accounting | 20-point curve, verialloc | 100-point ε curve, verialloc / dp_accounting | "
        "verialloc bracket (width) | dp_accounting ε | certify dp_accounting's ε |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in run():
        o, t = r["ours"], r["theirs"]
        width = (o["upper"] - o["lower"]) / o["upper"]
        print(
            f"| {r['case']} | {o['seconds']:.2f} s | {t['seconds']:.2f} s | {o['seconds'] / t['seconds']:.1f}× | "
            f"{o['later'] * 1e3:.0f} ms | {t['later'] * 1e3:.0f} ms | {o['curve']:.2f} s | "
            f"{o['curve100']:.2f} s / {t['curve100']:.2f} s | "
            f"[{o['lower']:.6f}, {o['upper']:.6f}] ({width:.1e}) | {t['epsilon']:.6f} | "
            f"{r['verdict']} in {r['certify_seconds']:.1f} s |"
        )


if __name__ == "__main__":
    main()
