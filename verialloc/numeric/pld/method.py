"""The method "pld" (verialloc.method.Method): sound float64 bounds from PLD realizations; options
`settings=Settings(...)` (loss step, tail, grid step), flags --loss-step, --grid-step, --tail; queries in
pld_accountant, cost in numeric.pld.cost. Its float64 range leaves ε free: δ queries at any ε are bounded soundly."""

from __future__ import annotations

from ...errors import InvalidParameter
from ...method import Compiled, Flag, FloatRange, Method
from ...validation import abbreviated, as_float, open_unit, positive, real
from . import cost, pipeline, pld_accountant
from .pld_accountant import Settings

#: the accuracy flags of the PLD pipeline (shared by the methods built on it)
FLAGS = (
    Flag(
        "loss-step",
        "loss_step",
        "loss grid step of compositions (default 1e-4; composed allocation epochs go "
        "finer, to step/256, when epsilon is small)",
    ),
    Flag("grid-step", "grid_step", "exp-space grid step of the allocation sum (default: automatic)"),
    Flag("tail", "tail", "tail mass truncated per step, tracked in the result (default 1e-15)"),
)
#: what a quick run (fuzz case, smoke test) uses
QUICK_LOSS_STEP = "0.001"


def settings_from_flags(given: dict) -> Settings:
    """Settings from flag texts {keyword: text}; an error names the flag as typed (--grid-step, not grid_step)."""
    knobs = {k: v for k, v in given.items() if k in ("loss_step", "grid_step", "tail")}
    try:
        return Settings(**{k: as_float(k.replace("_", "-"), v, positive) for k, v in knobs.items()})
    except InvalidParameter as e:
        raise InvalidParameter(e.name.replace("_", "-"), given.get(e.name, e.value), e.valid) from None


def check_settings(name: str, settings) -> None:
    if settings is not None and not isinstance(settings, Settings):
        raise InvalidParameter(
            name, abbreviated(settings), "must be a verialloc.numeric.pld.pld_accountant.Settings (or None)"
        )


def check_progress(progress) -> None:
    if progress is not None and not callable(progress):
        raise InvalidParameter("progress", abbreviated(progress), "must be a callable progress(stage) or None")


class PldMethod(Method):
    name = "pld"
    composes_events = True
    accountant = pld_accountant
    keywords = ("progress", "settings")
    flags = FLAGS
    takes_progress = True
    float_range = FloatRange(epsilon=None)
    cheaper = {q: "; or use --method rdp / analytic (cheaper upper bounds)" for q in ("delta", "epsilon", "rdp")}

    def _check_types(self, options):
        check_settings("settings", options.get("settings"))
        check_progress(options.get("progress"))

    def options_from_flags(self, given):
        return {"settings": settings_from_flags(given)}

    def quick_flags(self, config):
        return {"loss-step": QUICK_LOSS_STEP}

    def estimate(self, query, config, value, options, digits, direction):
        return cost.estimate(config, options.get("settings"), query=query, value=value)

    def compile(self, ledger, options):
        return PldCompiled(self, ledger, options)

    def refusal_hint(self, query, config, value, options, digits, fits):
        return cost.coarser_loss_step(options.get("settings"), lambda s: fits({**options, "settings": s}))


class PldCompiled(Compiled):
    """A ledger's PLDs for any number of queries: the pipeline's tables (each event's, their composition, finer
    epochs) are built once per set of rules a query needs and kept (pipeline.Builds)."""

    def __init__(self, method, ledger, options):
        super().__init__(method, ledger, options)
        self.settings = options.get("settings") or Settings()
        self.builds = pipeline.Builds(options.get("progress"))
        self.reach: Settings | None = None  # the settings of the finest-tailed table built for a curve (_curve)
        #: an event with the allocation's window plans its grid by the tail: no table is built ahead for it
        self._windowed = any(pipeline.uses_window(c) for c in ledger.events)

    def delta(self, epsilon, direction="both", digits=30):
        return self._memo(
            ("delta", _exact(epsilon, "epsilon"), direction),
            lambda: pld_accountant.query(
                "delta", self.ledger, _exact(epsilon, "epsilon"), direction, self.settings, builds=self.builds
            ),
        )

    def epsilon(self, delta, direction="both", digits=30):
        return self._memo(
            ("epsilon", _exact(delta, "delta", open_unit), direction),
            lambda: self._epsilon(open_unit("delta", delta), direction),
        )

    def _epsilon(self, at, direction: str):
        return pld_accountant.query("epsilon", self.ledger, at, direction, self._curve(float(at)), builds=self.builds)

    def _curve(self, target: float) -> Settings:
        """The settings of an ε query: the pipeline's tail rule (tail_for), except that a compiled ledger expecting
        more queries (api.compile), when δ first needs a finer tail than the default, builds with the tail of
        δ·CURVE_REACH, so that the rest of a privacy curve below δ reads the same table (a finer tail is sound and
        no looser for a fixed loss grid; it widens the arrays by ~√(ln(1/tail)), about 1.2× for six decades). A single
        query, and a ledger with an allocation event (whose plan follows the tail), is as the rule says."""
        needed = pipeline.tail_for(self.settings, target, self.ledger)
        if not self.many_queries or needed.tail >= self.settings.tail or self._windowed:
            return needed
        if self.reach is not None and needed.tail >= self.reach.tail:
            return needed  # the default table, or one built finer already (pipeline.Builds reads it)
        self.reach = pipeline.tail_for(self.settings, target * CURVE_REACH, self.ledger)
        return self.reach

    def rdp(self, alpha, digits=30):
        return pld_accountant.rdp(self.ledger, alpha, digits)


def _exact(value, name: str, check=real):
    as_float(name, value, check)  # beyond float64: InvalidParameter, not OverflowError; δ that is 1.0 refused
    return check(name, value)


#: how far below the first δ that needs a finer tail a compiled ledger's table reaches (PldCompiled._curve)
CURVE_REACH = 1e-6

METHOD = PldMethod()
