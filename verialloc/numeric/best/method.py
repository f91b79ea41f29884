"""The method "best" (verialloc.method.Method): the tightest bracket over pld, rdp and analytic; options
`settings=` (pld's) and `target_gap`, flags pld's and --target-gap; queries in best_accountant; cost: pld's, one
rdp order search and, for Poisson, analytic's PLDs."""

from __future__ import annotations

from ...budget import small
from ...errors import UnsupportedRequest
from ...method import Flag, FloatRange, Method
from ...validation import as_float, nonnegative
from ..pld import cost as pld_cost
from ..pld.method import FLAGS as PLD_FLAGS, QUICK_LOSS_STEP, check_progress, check_settings, settings_from_flags
from ..rdp import cost as rdp_cost
from ..rdp.method import METHOD as RDP
from . import best_accountant


class BestMethod(Method):
    name = "best"
    orders = RDP.orders
    composes_events = True
    accountant = best_accountant
    keywords = ("progress", "settings", "target_gap")
    flags = PLD_FLAGS + (
        Flag(
            "target-gap",
            "target_gap",
            "stop asking further methods once the bracket's relative "
            "width is at most this (default 0.01; 0: run every method)",
        ),
    )
    takes_progress = True
    #: pld's range (any ε for δ queries); rdp and analytic are skipped beyond theirs (best_accountant)
    float_range = FloatRange(epsilon=None)
    #: analytic runs on its finer default grid inside best, about 10 times its quick settings' time
    combines = {"pld": 1.0, "rdp": 1.0, "analytic": 10.0}

    def _check_types(self, options):
        check_settings("settings", options.get("settings"))
        check_progress(options.get("progress"))

    def options_from_flags(self, given):
        gap = {"target_gap": as_float("target-gap", given["target_gap"], nonnegative)} if "target_gap" in given else {}
        return {"settings": settings_from_flags(given), **gap}

    def quick_flags(self, config):
        return {"loss-step": QUICK_LOSS_STEP}

    def estimate(self, query, config, value, options, digits, direction):
        if query == "rdp":
            return rdp_cost.estimate(config, query, value, options.get("alpha_max"))
        try:
            pld_part = pld_cost.estimate(config, options.get("settings"), query=query, value=value)
        except UnsupportedRequest:  # best skips a method that cannot serve the request
            pld_part = small("steps")
        return (
            pld_part
            + rdp_cost.estimate(config, query, None)
            + (
                pld_cost.estimate(config, None, allocation_part=False, laws=False)
                if config.scheme == "poisson"
                else small("steps")
            )
        )

    def refusal_hint(self, query, config, value, options, digits, fits):
        return pld_cost.coarser_loss_step(options.get("settings"), lambda s: fits({**options, "settings": s}))


METHOD = BestMethod()
