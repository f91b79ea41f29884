"""The method "exact" (verialloc.method.Method): arbitrary precision, no options, no float64 range; its queries run in
exact.accountant, its cost in exact.cost."""

from __future__ import annotations

from ..method import Method
from . import accountant, cost


class ExactMethod(Method):
    name = "exact"
    orders = "integer >= 2"
    composes_events = True
    accountant = accountant
    float_range = None
    cheaper = {
        "rdp": "; or use --method rdp (float64, orders <= 10000)",
        "delta": "; or use --method pld (float64 bounds)",
        "epsilon": "; or use --method pld (float64 bounds)",
    }

    def estimate(self, query, config, value, options, digits, direction):
        return cost.estimate(query, config, value, digits, direction)

    def serves(self, query: str, ledger) -> bool:
        """Whether the exact layer has a route for `query` of `ledger` (a Ledger), judged from the configuration
        alone before any work: the cost model's estimate is then meaningful (method "auto" reads both)."""
        return cost.serves(query, ledger)

    def fewer_digits(self, query, config, value, budget, digits, direction) -> tuple:
        """(parameter, value, advice) when the working digits drive the cost: the most digits that fit."""
        return cost.fewer_digits(query, config, value, budget, digits, direction)


METHOD = ExactMethod()
