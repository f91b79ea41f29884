"""The method "analytic" (verialloc.method.Method): the papers' analytic upper bounds; option
`options=Options(...)` (its Poisson ingredient's PLD settings among them), flags --loss-step and --tail (that
ingredient's grid); queries in analytic_accountant, cost: the Poisson PLDs it builds (numeric.pld.cost)."""

from __future__ import annotations

import math
from fractions import Fraction

from ...budget import BASE_SECONDS, Estimate, float_or, small
from ...config import Config
from ...errors import InvalidParameter, UnsupportedRequest
from ...validation import abbreviated
from ..pld import cost as pld_cost
from ..pld.method import FLAGS as PLD_FLAGS, QUICK_LOSS_STEP, check_progress, check_settings, settings_from_flags
from ...method import Method
from . import Options, analytic_accountant
from .poisson_profile import blocks, eta_grid


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

    def check_request(self, query, config, value, options, direction):
        """The analytic bounds are δ/ε upper bounds of random allocation: other schemes and rdp queries are refused
        before the estimate and before any Poisson PLD is built (analytic_accountant checks again as it runs)."""
        if query == "rdp":
            raise UnsupportedRequest(
                "method", self.name, "analytic answers delta and epsilon queries; use --method exact for rdp"
            )
        if config.scheme != "allocation":
            raise UnsupportedRequest(
                "scheme", config.scheme, "the analytic bounds are for random allocation; use --method pld or rdp"
            )
        if query == "delta":
            eps = float_or(value, math.nan)
            if eps < 0 or (eps == 0 and config.k * config.epochs > 1):
                raise UnsupportedRequest(
                    "epsilon",
                    value,
                    "no analytic bound applies: F34, F36, F42 and F43a need epsilon > 0, and F37 (epsilon >= 0) "
                    "covers one allocation (k = 1, one epoch); use --method pld",
                )

    def estimate(self, query, config, value, options, digits, direction):
        """The Poisson PLDs the F34/F36 bounds build: Poisson with n·m steps (n = k·E copies of A_m, m = ⌊t/k⌋) at
        every rate η of the shared grid, per direction (pld's estimate of each, which counts four directed
        PLDs (two directions, two bounds) where the analytic bound builds one upper PLD per direction asked)."""
        if config.scheme != "allocation":
            return small("scheme")
        analytic = options.get("options") or Options()
        m, n = blocks(config)
        if m < 2:
            return small("steps")
        rates = eta_grid(m, analytic.eta_points, analytic.eta_span)
        share = 0.5 if direction == "both" else 0.25
        total, memory = 0.0, 0.0
        for eta in rates:
            poisson = Config(config.mechanism, "poisson", n * m, rate=Fraction(eta))
            est = pld_cost.estimate(poisson, analytic.poisson_settings(eta), allocation_part=False, laws=False)
            total += share * (est.seconds - BASE_SECONDS)
            memory = max(memory, est.memory)
        return Estimate(BASE_SECONDS + total + config.mechanism.law_seconds(), memory, "steps", config.steps)


METHOD = AnalyticMethod()
