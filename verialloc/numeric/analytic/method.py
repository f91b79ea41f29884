"""The method "analytic" (verialloc.method.Method): the papers' analytic upper bounds; option
`options=Options(...)` (its Poisson ingredient's PLD settings among them), flags --loss-step and --tail (that
ingredient's grid); queries in analytic_accountant, cost: the Poisson PLDs it builds (numeric.pld.cost)."""

from __future__ import annotations

from ...budget import small
from ...errors import InvalidParameter
from ...validation import abbreviated
from ..pld import cost as pld_cost
from ..pld.method import FLAGS as PLD_FLAGS, QUICK_LOSS_STEP, check_progress, check_settings, settings_from_flags
from ...method import Method
from . import Options, analytic_accountant


class AnalyticMethod(Method):
    name = "analytic"
    accountant = analytic_accountant
    keywords = ("options", "progress")
    flags = tuple(f for f in PLD_FLAGS if f.keyword in ("loss_step", "tail"))
    takes_progress = True

    def _check_types(self, options):
        analytic = options.get("options")
        if analytic is not None and not isinstance(analytic, Options):
            raise InvalidParameter("options", abbreviated(analytic), "must be a verialloc.numeric.analytic.Options")
        if analytic is not None:
            check_settings("options.pld", analytic.pld)
        check_progress(options.get("progress"))

    def options_from_flags(self, given):
        return {"options": Options(pld=settings_from_flags(given))} if given else {}

    def quick_flags(self, config):
        return {"loss-step": QUICK_LOSS_STEP}

    def estimate(self, query, config, value, options, digits, direction):
        settings = getattr(options.get("options"), "pld", None)
        return (
            pld_cost.estimate(config, settings, allocation_part=False) if config.scheme == "poisson" else small("steps")
        )


METHOD = AnalyticMethod()
