"""Cost of a pld query before it runs (numeric.pld.pld_accountant): seconds and bytes from the configuration and
the planned allocations, constants timed on a 2-core machine (docs/cli.md, "Cost model and budgets").

n = number of composed copies (t·E for Poisson, k·E for allocation); N = grid points of the composed PLD. The
allocation part comes from its plan (C_POINTS per array entry of the exp-grid, C_GEOMETRIC·n²·L for the geometric
grid of heavy tails, C_SEPARABLE for k > 1's lower end); the composition costs C_FFT·N·log2 N·(log2 n + 1) per
direction and bound, N = (n·μ + 12·√(n·v) + s)/Δ with μ, v, s the mean, variance and span of one copy's privacy
loss (`Mechanism.loss_statistics`); memory BYTES_PER_POINT·N.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...budget import BASE_MEMORY, BASE_SECONDS, Estimate, float_or
from ...config import Config
from ...errors import GridTooLarge, InvalidParameter, UnsupportedRequest
from . import pipeline, table
from .allocation import separable
from .settings import Settings

#: pld allocation part, from its plan (pipeline.plan): ≈ 1 + C_POINTS·entries + C_ALLOC_LINEAR·t s
#: on the uniform exp-grid, the entries' part TAIL_MODE times in tail-accurate mode (measured: 9.7e6 entries 5.6 s,
#: 6.5e6 2.5 s, 4.7e5 0.28 s; tail mode 3.5e7 entries 39.5 s). Where no plan can be made, the former
#: 1 + C_ALLOC·t^0.45 + C_ALLOC_LINEAR·t (it said 4.9 s for σ = 1, t = 1e5, δ = 1e-30, and 1.4 s for σ = 0.7,
#: t = 10³: 39.5 s and 5.6 s measured); memory ALLOC_BYTES per step (t = 1e8: 957 MB)
C_POINTS, TAIL_MODE = 6e-7, 2.0
C_ALLOC, ALLOC_EXPONENT, C_ALLOC_LINEAR, ALLOC_BYTES = 0.02, 0.45, 2.6e-6, 8
#: the separable lower end of 1 < k < t (pipeline.SEPARABLE_MAX_COPIES): ≈ C_SEPARABLE·(t·E)^0.7 s for its
#: search over statistics (5 s at t·E = 10³), C_SEPARABLE_ONE·t^0.7 + C_SEPARABLE_EPOCH·log2(E) s for one
#: statistic per epoch beyond separable.SEARCH_MAX_COPIES, its epochs composed (σ = 1, k = 4: 1.7 s at t = 10⁴,
#: 5.7 s at t = 10⁵; t = 10³, E = 100: 6.8 s; t = 10⁵, E = 100: 15.5 s)
C_SEPARABLE, C_SEPARABLE_ONE, C_SEPARABLE_EPOCH, SEPARABLE_EXPONENT = 0.04, 0.0035, 1.0, 0.7
#: heavy tails take the geometric-grid algorithm instead (pipeline.plan plans which): n points per
#: exp-PLD, L = 2⌈log2 t⌉ + 1 levels, ~L convolutions of O(n²): 1 + C_GEOMETRIC·n²·L s for its four PLDs (σ = 0.5:
#: t = 10, n = 27544: 2–3 s; t = 10³, n = 69067: 29–32 s; t = 1e5: 138 s; σ = 0.8, t = 10³, δ = 1e-30, n = 66174:
#: 28.5 s). A flat 30× the uniform grid's time, for σ < 0.8 only, estimated 68 s for σ = 0.5, t = 10, k = 4 (7 s
#: measured) and 1.5 s for σ = 0.8, t = 10³, δ = 1e-30 (250 s then)
C_GEOMETRIC = 3.2e-10
#: pld composition: seconds per N·log2 N·(log2 n + 1), per direction and bound (t = 1e3, E = 1e5: 61 s)
C_FFT = 2.0e-8
#: pld memory per composed grid point (E = 1e5: 700 MB at N ≈ 2.4e6)
BYTES_PER_POINT = 300
#: the default loss step (pld_accountant.Settings)
DEFAULT_LOSS_STEP = Settings().loss_step


def _loss_stats(config: Config, rate: float | None) -> tuple[float, float, float]:
    """(mean, variance, span) of one step's privacy loss, remove direction (the larger of the two for the
    heavier direction), optionally Poisson-subsampled at `rate` (mean ≤ λ·KL and ≤ λ²χ²/2)."""
    stats = config.mechanism.loss_statistics()
    mean, var, span, chi2 = stats.mean, stats.variance, stats.span, stats.chi2
    if rate is None or rate >= 1:
        return mean, var, span
    return min(rate * mean, rate * rate * chi2 / 2), min(rate * (var + mean * mean), rate * rate * chi2), span


def estimate(
    config: Config, settings, allocation_part: bool = True, query: str = "epsilon", value=None, laws: bool = True
) -> Estimate:
    """Estimated cost of a pld query (`allocation_part=False`: the composition alone, as the analytic method
    builds for Poisson), with the first build of the mechanism's loss laws (`Mechanism.law_seconds`; `laws=False`:
    without, for a caller that counts it once). An explicit --grid-step on an allocation builds its dyadic chain of coarser steps as well
    (pipeline.chain_levels): every level is estimated and the times add (memory: the largest level)."""
    levels = [settings]
    if allocation_part and config.scheme == "allocation" and getattr(settings, "grid_step", None) is not None:
        x = float_or(value, math.nan)
        if query in ("delta", "epsilon") and math.isfinite(x) and (query == "delta" or 0 < x < 1):
            try:
                levels = pipeline.chain_levels(_planned(config), settings, query, x) or [settings]
            except (InvalidParameter, UnsupportedRequest, GridTooLarge, OverflowError, ValueError):
                levels = [settings]
    parts = [_estimate_level(config, level, allocation_part, query, value) for level in levels]
    return Estimate(
        sum(p.seconds for p in parts)
        - BASE_SECONDS * (len(parts) - 1)
        + (config.mechanism.law_seconds() if laws else 0.0),
        max(p.memory for p in parts),
        parts[0].driver,
        parts[0].value,
    )


def _estimate_level(config: Config, settings, allocation_part: bool, query: str, value) -> Estimate:
    """The estimate at one level of settings."""
    delta_step = float(getattr(settings, "loss_step", None) or DEFAULT_LOSS_STEP)
    closed = geometric = False
    if config.scheme == "poisson":
        copies = config.steps * config.epochs
        mean, var, span = _loss_stats(config, float(config.rate))
        driver = ("epochs", config.epochs) if config.epochs > config.steps else ("steps", config.steps)
        alloc_seconds = 0.0
    else:
        t = config.steps // config.k
        copies = config.k * config.epochs
        mean1, var1, span = _loss_stats(config, 1 / t)
        mean, var = t * mean1, t * var1  # one allocation PLD behaves like t Poisson steps at rate 1/t
        alloc_seconds, geometric = 0.0, False
        # k = t of a pair with a closed-form composition (the Gaussian's, F13): no allocation is built
        closed = config.k == config.steps and config.mechanism.composed(1) is not None
        if allocation_part and not closed:
            copies_all = config.steps * config.epochs
            if 1 < config.k < config.steps and config.steps <= pipeline.SEPARABLE_MAX_COPIES:
                alloc_seconds += (
                    C_SEPARABLE * copies_all**SEPARABLE_EXPONENT
                    if copies_all <= separable.SEARCH_MAX_COPIES
                    else C_SEPARABLE_ONE * config.steps**SEPARABLE_EXPONENT
                    + C_SEPARABLE_EPOCH * math.log2(config.epochs)
                )
            runs = _allocation_runs(config, settings, query, value)
            geometric = any(kind == "geometric" for _, kind, _ in runs)
            if runs:
                alloc_seconds += sum(_planned_seconds(*run) for run in runs)
                if geometric and query in ("epsilon", "delta"):  # its float budget grows with t: the answer
                    # usually rebuilds in the tail-accurate mode (pipeline.answer: budget_decides, delta_budget_floor),
                    # a second set of allocations (a δ query's floor is its unknown answer: TINY_DELTA stands in)
                    floor = value if query == "epsilon" else pipeline.TINY_DELTA
                    alloc_seconds += sum(_planned_seconds(*run) for run in _retry_runs(config, settings, floor))
            else:
                alloc_seconds += sum(
                    _alloc_seconds(n) for n in [t] + ([config.steps] if 1 < config.k < config.steps else [])
                )
        driver = max(
            (("epochs", config.epochs), ("k", config.k), ("steps", config.steps)),
            key=lambda kv: kv[1] if kv[0] != "steps" else kv[1] / 1000,
        )
    width = copies * mean + 12 * math.sqrt(copies * var) + span
    points = max(width / delta_step, 1.0)
    log_n = math.log2(points) if points > 2 else 1.0
    compose = 4 * C_FFT * points * log_n * (math.log2(copies) + 1 if copies > 1 else 1)
    if config.scheme == "allocation" and copies == 1:  # one allocation PLD is used as built: no loss grid
        compose, points = 0.0, 0.0
    elif config.scheme == "allocation":  # epochs may be composed again on a finer step (table.finer_epochs)
        fine = min(points * table.EPOCH_REFINE_MAX, table.EPOCH_MAX_POINTS)
        compose += 4 * C_FFT * fine * math.log2(max(fine, 2.0)) * (math.log2(copies) + 1)
        points = max(points, fine)
    # per-step arrays of the exp-grid allocation (the geometric grid keeps its points only: 145 MB resident at
    # t = 1e9, against 7.6 GB this counted before)
    alloc_memory = (
        ALLOC_BYTES * config.steps
        if config.scheme == "allocation" and allocation_part and not closed and not geometric
        else 0.0
    )
    return Estimate(
        BASE_SECONDS + alloc_seconds + compose, BASE_MEMORY + BYTES_PER_POINT * points + alloc_memory, *driver
    )


def _alloc_seconds(t: int) -> float:
    return 1 + C_ALLOC * t**ALLOC_EXPONENT + C_ALLOC_LINEAR * t


def _planned_seconds(t: int, kind: str, size: int) -> float:
    if kind == "geometric":
        return 1 + C_GEOMETRIC * size**2 * (2 * (t - 1).bit_length() + 1)
    return 1 + C_POINTS * size * (TAIL_MODE if kind == "uniform-tail" else 1) + C_ALLOC_LINEAR * t


def _allocation_runs(config: Config, settings, query: str, value) -> list:
    """The planned allocations (pipeline.plan) at the query's ε or δ; none where the value is not
    a usable number yet (the method names it) or the plan cannot be made in float64."""
    x = float_or(value, math.nan)
    if query not in ("delta", "epsilon") or not math.isfinite(x) or (query == "epsilon" and not 0 < x < 1):
        return []
    try:
        return pipeline.plan(_planned(config), query, x, settings)
    except GridTooLarge as exc:
        raise UnsupportedRequest(
            "method",
            "pld",
            f"the heavy loss tails of {config.mechanism.name} at "
            f"steps={config.steps}: {exc.supported}; use {config.mechanism.milder}, or "
            "--method rdp or analytic (upper ends)",
        ) from None
    except (InvalidParameter, UnsupportedRequest, OverflowError, ValueError):
        return []


def _retry_runs(config: Config, settings, value) -> list:
    """The allocations of an ε query's rebuild in the tail-accurate mode (floor = the target δ)."""
    x = float_or(value, math.nan)
    if not 0 < x < 1:
        return []
    try:
        s = pipeline.tail_for(settings or Settings(), x, config)
        return table.allocation_runs(_planned(config), 0.0, x, s)
    except (InvalidParameter, UnsupportedRequest, GridTooLarge, OverflowError, ValueError):
        return []


def _planned(config: Config) -> Config:
    """The configuration the plan reads: its mechanism's `plan_proxy`, so that estimating never builds an
    expensive loss law (the discrete Gaussian's brackets; their build is `law_seconds`)."""
    proxy = config.mechanism.plan_proxy()
    if proxy is config.mechanism:
        return config
    return Config(proxy, config.scheme, config.steps, config.k, config.epochs, config.rate)


def coarser_loss_step(settings, fits) -> str:
    """For a pld query whose one step does not fit: the privacy loss range itself is too wide for the loss step (a
    1e-324 mass spans ±745); the advice names the smallest power-of-ten multiple of the step that fits, if any
    (`fits(settings)`: whether the query fits the budget at those settings)."""
    settings = settings or Settings()
    for factor in (10, 100, 1000):
        step = settings.loss_step * factor
        if fits(replace(settings, loss_step=step)):
            return f" at --loss-step {settings.loss_step:g} (the privacy loss range is wide); --loss-step {step:g} fits"
    return ""
