"""The method "auto" (verialloc.method.Method), the default of the API, the command line and `api.compile`: the exact
method when it serves the request and the cost model estimates it at most AUTO_EXACT_SECONDS (a few seconds: exact
answers are the tightest), else "best" (the tightest sound bracket over pld, rdp and analytic). It runs no queries
of its own: `candidates` names the methods to ask in turn, and a refusal of the exact layer (a request it cannot
resolve after all) falls through to best; where the exact layer has no route, best is asked first and a refusal of
best (a parameter beyond float64) falls through to the exact layer, whose refusal then names the parameter. Its options are best's (`settings=`, `target_gap=`, `progress=`, and
their flags), used when it runs best; the exact method takes none."""

from __future__ import annotations

from .budget import Budget, BudgetExceeded, Estimate
from .errors import UnsupportedRequest
from .exact import method as exact_method
from .method import Method
from .numeric.best.method import METHOD as BEST

#: the largest estimated time (seconds) at which auto runs the exact method
AUTO_EXACT_SECONDS = 10.0


class AutoMethod(Method):
    name = "auto"
    chooses = True
    orders = f"exact: {exact_method.METHOD.orders} where cheap, else best: {BEST.orders}"
    composes_events = True
    accountant = None
    keywords = BEST.keywords
    flags = BEST.flags
    takes_progress = True
    #: the float64 range is the chosen method's (cost.check checks the method auto chooses)
    float_range = None

    def _check_types(self, options):
        BEST._check_types(options)

    def options_from_flags(self, given):
        return BEST.options_from_flags(given)

    def quick_flags(self, config):
        return BEST.quick_flags(config)

    def candidates(self, query, ledger, value, options, digits, direction, budget=None) -> list:
        exact = exact_method.METHOD
        limit = Budget.of(budget)
        cheap = Budget(min(AUTO_EXACT_SECONDS, limit.seconds), limit.memory)
        if exact.serves(query, ledger):
            try:
                fits = _estimate(exact, query, ledger, value, digits, direction).fits(cheap)
            except Exception:  # noqa: BLE001 - an estimate that cannot be formed: not cheap
                fits = False
            if fits:
                return [(exact, {}), (BEST, options)]
            return [(BEST, options)]
        # exact has no route here: best answers; if best refuses too (a parameter beyond float64), the exact layer's
        # refusal (made before any work) names what neither serves, rather than best's advice to use exact
        return [(BEST, options), (exact, {})]

    def refusal(self, refused: list):
        """When neither answers: best's refusal (the out-of-range parameter, or the budget with its remedy), with
        the exact layer's reason added; a refusal of exact alone named its own limits (steps <= 3) where the
        float methods' range or the budget was what blocked the request (hostile-user pass)."""
        float_side = [exc for m, exc in refused if m is BEST]
        if not float_side:
            return refused[-1][1]
        exc = float_side[0]
        others = [f"{m.name}: " + str(other).split("; ")[0] for m, other in refused if m is not BEST]  # its reason
        if others and not isinstance(exc, BudgetExceeded):
            # "use --method exact" is no remedy when exact's own reason follows (it refused too)
            tried = [m.name for m, _ in refused if m is not BEST]
            drop = [f"; use --method {name}" for name in tried]
            supported = exc.supported
            for d in drop:
                supported = supported.replace(d, "")
            exc.supported = f"{supported}; " + "; ".join(others)
            exc.args = (str(UnsupportedRequest(exc.name, exc.value, exc.supported)),)
        return exc

    def estimate(self, query, config, value, options, digits, direction):
        from .ledger import ledger_of

        (chosen, opts), *_ = self.candidates(query, ledger_of(config), value, options, digits, direction)
        return chosen.estimate(query, config, value, opts, digits, direction)

    def delta(self, config, epsilon, direction, digits, progress=None, **options):
        return self._first("delta", config, epsilon, direction, digits, progress, options)

    def epsilon(self, config, delta, direction, digits, progress=None, **options):
        return self._first("epsilon", config, delta, direction, digits, progress, options)

    def rdp(self, config, alpha, digits):
        return self._first("rdp", config, alpha, "remove", digits, None, {})

    def _first(self, query, config, value, direction, digits, progress, options):
        from .ledger import ledger_of

        (chosen, opts), *_ = self.candidates(query, ledger_of(config), value, options, digits, direction)
        if query == "rdp":
            return chosen.rdp(config, value, digits)
        return getattr(chosen, query)(config, value, direction, digits, progress, **opts)


def _estimate(m: Method, query, ledger, value, digits, direction) -> Estimate:
    if ledger.single is not None:
        return m.estimate(query, ledger.single, value, {}, digits, direction)
    return sum(
        (m.estimate(query, e, value, {}, digits, direction) for e in ledger.events), Estimate(0.0, 0.0, "events")
    )


METHOD = AutoMethod()
