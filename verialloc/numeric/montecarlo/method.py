"""The method "mc" (verialloc.method.Method): Monte Carlo estimates (statistical, never bounds); options samples,
seed, confidence, interval, proposal; queries in mc_accountant, cost in numeric.montecarlo.cost."""

from __future__ import annotations

from ...method import Flag, Method
from . import cost, mc_accountant

#: draws of a quick run (fuzz case, smoke test): 2e5/steps clamped to [100, 2000]
QUICK_DRAWS = 200_000


class McMethod(Method):
    name = "mc"
    gives_bounds = False
    accountant = mc_accountant
    keywords = ("confidence", "interval", "proposal", "samples", "seed")
    flags = (
        Flag("samples", "samples", "Monte Carlo draws (default 1e7/steps clamped to [2000, 200000])"),
        Flag("seed", "seed", "random seed (default fixed, reproducible)"),
        Flag("confidence", "confidence", "confidence level of the interval (default 0.95)"),
    )

    def quick_flags(self, config):
        return {"samples": str(int(min(2000, max(100, QUICK_DRAWS // config.steps)))), "seed": "1"}

    def estimate(self, query, config, value, options, digits, direction):
        return cost.estimate(config, options.get("samples"))


METHOD = McMethod()
