"""The method "pld" (verialloc.method.Method): sound float64 bounds from PLD realizations; options
`settings=Settings(...)` (loss step, tail, grid step), flags --loss-step, --grid-step, --tail; queries in
pld_accountant, cost in numeric.pld.cost. Its float64 range leaves ε free: δ queries at any ε are bounded soundly."""

from __future__ import annotations

from ...errors import InvalidParameter
from ...method import Flag, FloatRange, Method
from ...validation import abbreviated, as_float, positive
from . import cost, pld_accountant
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

    def refusal_hint(self, query, config, value, options, digits, fits):
        return cost.coarser_loss_step(options.get("settings"), lambda s: fits({**options, "settings": s}))


METHOD = PldMethod()
