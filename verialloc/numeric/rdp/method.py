"""The method "rdp" (verialloc.method.Method): float64 Rényi-DP curves and the F18 conversion; options
`alpha_max` (an integer order in [2, MAX_ORDER], or None: adaptive) and `search_tol`; queries in rdp_accountant,
cost in numeric.rdp.cost."""

from __future__ import annotations

from ...errors import UnsupportedRequest
from ...method import Flag, Method
from ...validation import integer
from . import cost, rdp_accountant
from .log_moments import MAX_ORDER


class RdpMethod(Method):
    name = "rdp"
    orders = f"any order in (1, {MAX_ORDER}]"
    composes_events = True
    accountant = rdp_accountant
    keywords = ("alpha_max", "search_tol")
    flags = (
        Flag("alpha-max", "alpha_max", f"largest integer order searched (default adaptive, <= {MAX_ORDER})"),
        Flag(
            "search-tol",
            "search_tol",
            "stop the order search when larger orders can improve ε by at most this fraction (default 1e-3)",
        ),
    )

    def _check_types(self, options):
        rdp_accountant.order_cap(options.get("alpha_max"))
        if "search_tol" in options:
            rdp_accountant.tolerance("search_tol", options["search_tol"])

    def options_from_flags(self, given):
        out = {}
        if "alpha_max" in given:
            out["alpha_max"] = integer("alpha-max", given["alpha_max"], 2, MAX_ORDER)
        if "search_tol" in given:
            out["search_tol"] = rdp_accountant.tolerance("search-tol", given["search_tol"])
        return out

    def check_request(self, query, config, value, options, direction):
        if query in ("delta", "epsilon") and config.scheme == "allocation" and direction in ("add", "both"):
            raise UnsupportedRequest("direction", direction, rdp_accountant.NO_ADD)

    def estimate(self, query, config, value, options, digits, direction):
        return cost.estimate(config, query, value, options.get("alpha_max"))


METHOD = RdpMethod()
