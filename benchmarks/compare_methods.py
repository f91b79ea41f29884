"""The accounting methods side by side on the papers' figure settings (formulas.md §11): Markdown tables on
stdout and one PNG per comparison in docs/figures/ (docs/methods.md shows both).

    python benchmarks/compare_methods.py [--quick] [--only NAME ...] [--out DIR]

NAME is one of sigma, epochs, steps, k, cross, mc, timing. `--quick` uses fewer points and skips the slow
allocation pld columns (about 2 min); the full run takes about 13 min on 2 cores shared with other jobs.
Every cell is one `api.epsilon`/`api.delta` call; a method that raises UnsupportedRequest shows as "n/a".
Brackets are printed outward-rounded to 4 significant digits; an upper-only method (rdp, analytic: their lower
end is the trivial I1 bound) prints "≤ upper"; mc prints its statistical interval with "(stat.)". Directions:
pld, analytic and best use "both" (max over remove and add, F3); rdp is remove only (E2) — read its column as
a remove-direction bound.
"""

from __future__ import annotations

import argparse
import math
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from verialloc import Config, Gaussian, api
from verialloc.errors import UnsupportedRequest
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"
#: loss step of the analytic bounds' Poisson PLDs (default 1e-4; the bound tightens as it shrinks, see methods.md)
ANALYTIC_STEP = 1e-4


def analytic_options(steps: int, delta: float) -> Options:
    """The analytic bounds' Poisson ingredient on a grid of ANALYTIC_STEP (docs/analytic.md, "Measured"); the
    per-step tail must keep t·tail well below δ, or no bound reaches δ."""
    return Options(pld=Settings(loss_step=ANALYTIC_STEP, tail=min(1e-12, delta / (1000 * steps))), eta_points=8)


def poisson_settings(rate: float, steps: int, delta: float) -> Settings:
    """Poisson pld: the loss step should stay well below the rate λ (docs/pld.md, Known limits): λ/10, between
    1e-6 and 1e-4 (at λ = 1e-6 the step equals λ: the upper bound stays usable, the lower one is lost); the
    per-step tail keeps the t-fold truncated mass below δ/1000."""
    return Settings(loss_step=max(1e-6, min(1e-4, rate / 10)), tail=min(1e-15, delta / (1000 * steps)))


@dataclass
class Cell:
    """One query's answer: bracket (floats), seconds, or the reason the method does not apply."""

    lower: float = math.nan
    upper: float = math.nan
    seconds: float = 0.0
    kind: str = ""
    na: str = ""

    def text(self) -> str:
        if self.na:
            return "n/a"
        if math.isinf(self.upper):
            return f"[{_down(self.lower)}, ∞]"
        if self.kind == "statistical":
            return f"[{_down(self.lower)}, {_up(self.upper)}] (stat.)"
        if self.lower <= 0 and self.kind == "upper-only":
            return f"≤ {_up(self.upper)}"
        if self.kind == "exact":
            return f"{self.upper:.6g}"
        return f"[{_down(self.lower)}, {_up(self.upper)}]"


def _down(x: float) -> str:
    return _round(x, math.floor)


def _up(x: float) -> str:
    return _round(x, math.ceil)


def _round(x: float, how) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    scale = 10 ** (math.floor(math.log10(abs(x))) - 3)
    return f"{how(x / scale) * scale:.4g}"


UPPER_ONLY = {"rdp", "analytic"}


def query(kind: str, config: Config, value, direction: str, method: str, **options) -> Cell:
    """api.epsilon (kind "epsilon") or api.delta (kind "delta"); UnsupportedRequest becomes an n/a cell."""
    start = time.perf_counter()
    try:
        b = getattr(api, kind)(config, value, direction=direction, method=method, digits=10, **options)
    except UnsupportedRequest as exc:
        return Cell(na=str(exc), seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    kind_ = "upper-only" if method in UPPER_ONLY else b.error_kind
    return Cell(float(b.lower), float(b.upper), seconds, kind_)


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _plot(name: str, draw, xs=None) -> str:
    """Draw into a new figure, write docs/figures/<name>.png (dpi 100); xs: tick positions of a log x axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    draw(ax)
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_major_formatter(plain)
            axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if xs is not None:
        ax.set_xticks(xs)
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / f"{name}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"![{name}](figures/{name}.png)\n"


def _series(ax, xs, cells, label, style, band=False):
    """Upper ends as a line (finite only); with band=True the [lower, upper] bracket as a shaded band."""
    pts = [(x, c) for x, c in zip(xs, cells) if not c.na and math.isfinite(c.upper)]
    if not pts:
        return
    ax.plot([x for x, _ in pts], [c.upper for _, c in pts], style, label=label, markersize=4)
    if band:
        lo = [max(c.lower, 0.0) for _, c in pts]
        ax.fill_between([x for x, _ in pts], lo, [c.upper for _, c in pts], alpha=0.25, color=ax.lines[-1].get_color())


def _timed_total(cells) -> float:
    return sum(c.seconds for row in cells for c in row)


def _seconds(methods: list[str], cells) -> str:
    """One line: total seconds per column."""
    return (
        "\nseconds per column: "
        + ", ".join(f"{m} {sum(row[j].seconds for row in cells):.1f}" for j, m in enumerate(methods))
        + "\n\n"
    )


# --- comparisons -------------------------------------------------------------------------------------------


def compare_sigma(quick: bool) -> str:
    """[004] Fig. 1 / [000] Fig. 1: ε vs σ, δ = 1e-10, t = 1e6, Poisson λ = 1/t, local mechanism (t = 1); and
    the same at δ = 1e-6 ([003] Fig. 1's δ); both with the allocation pld bracket (skipped in --quick). The
    last column is the smallest allocation upper in the row (what `best` returns, up to analytic's grid)."""
    t = 10**6
    wide = [0.8, 1.0, 2.0, 4.0] if quick else [0.6, 0.8, 1.0, 1.5, 2.0, 3.0, 5.0]
    text = _sigma_panel(t, 1e-10, wide, not quick, "sigma")
    return text + (
        "δ = 1e-6 panel: skipped in --quick\n" if quick else _sigma_panel(t, 1e-6, [1.0, 2.0, 4.0], True, "sigma_1e-6")
    )


def _sigma_panel(t: int, delta: float, sigmas: list, with_pld: bool, name: str) -> str:
    methods = ["local (exact, t=1)", "poisson pld", "poisson rdp", "allocation rdp", "allocation analytic"]
    methods += ["allocation pld"] if with_pld else []
    rows, cells = [], []
    for s in sigmas:
        alloc, pois = Config(Gaussian(s), steps=t), Config(Gaussian(s), scheme="poisson", steps=t, rate=Fraction(1, t))
        row = [
            query("epsilon", Config(Gaussian(s), steps=1), delta, "both", "exact"),
            query("epsilon", pois, delta, "both", "pld", settings=poisson_settings(1 / t, t, delta)),
            query("epsilon", pois, delta, "remove", "rdp"),
            query("epsilon", alloc, delta, "remove", "rdp"),
            query("epsilon", alloc, delta, "both", "analytic", options=analytic_options(t, delta)),
        ]
        row += [query("epsilon", alloc, delta, "both", "pld")] if with_pld else []
        cells.append(row)
        best = min(c.upper for c in row[3:] if not c.na)
        rows.append([f"{s:g}"] + [c.text() for c in row] + [_up(best)])
    text = table(
        f"ε vs σ (Gaussian, δ = {delta:g}, t = 10⁶, Poisson λ = 1/t) — {_timed_total(cells):.0f} s",
        ["σ"] + methods + ["allocation: min upper"],
        rows,
    ) + _seconds(methods, cells)

    def draw(ax):
        for j, (label, style) in enumerate(zip(methods, ["k-", "C0s--", "C0:", "C1:", "C2^-", "C1o-"])):
            _series(ax, sigmas, [r[j] for r in cells], label, style, band=(j == 5))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("σ")
        ax.set_ylabel("ε (upper)")
        ax.set_title(f"ε vs σ, δ = {delta:g}, t = 1e6")

    return text + _plot(name, draw, sigmas)


def compare_epochs(quick: bool) -> str:
    """[004] Fig. 7 / [000] Fig. 2: ε vs epochs, σ = 1, δ = 1e-8, t = 1e4; Poisson λ = 1/t."""
    t, delta = 10**4, 1e-8
    epochs = [1, 10] if quick else [1, 2, 5, 10, 20]
    methods = ["allocation pld", "allocation rdp", "poisson pld", "poisson rdp"]
    rows, cells = [], []
    for e in epochs:
        alloc, pois = (
            Config(Gaussian(1), steps=t, epochs=e),
            Config(Gaussian(1), scheme="poisson", steps=t, epochs=e, rate=Fraction(1, t)),
        )
        row = [
            query("epsilon", alloc, delta, "both", "pld"),
            query("epsilon", alloc, delta, "remove", "rdp"),
            query("epsilon", pois, delta, "both", "pld", settings=poisson_settings(1 / t, t * e, delta)),
            query("epsilon", pois, delta, "remove", "rdp"),
        ]
        cells.append(row)
        rows.append([str(e)] + [c.text() for c in row])
    text = table(
        f"ε vs epochs (Gaussian σ = 1, δ = 1e-8, t = 10⁴; [004] Fig. 7) — {_timed_total(cells):.0f} s",
        ["E"] + methods,
        rows,
    ) + _seconds(methods, cells)

    def draw(ax):
        for j, (label, style) in enumerate(zip(methods, ["C1o-", "C1:", "C0s-", "C0:"])):
            _series(ax, epochs, [r[j] for r in cells], label, style, band=(j in (0, 2)))
        ax.set_xscale("log")
        ax.set_xlabel("epochs E")
        ax.set_ylabel("ε (upper)")
        ax.set_title("ε vs epochs, σ = 1, δ = 1e-8, t = 1e4")

    return text + _plot("epochs", draw, epochs)


def compare_steps(quick: bool, sigma: float = 0.3) -> str:
    """[004] Fig. 6: ε vs t, σ = 0.3 (heavy tails: pld uses the geometric grid), δ = 1e-4; Poisson λ = 1/t."""
    delta = 1e-4
    steps = [1, 2, 10] if quick else [1, 2, 3, 10, 30, 100]
    methods = ["allocation exact", "allocation pld", "allocation rdp", "poisson pld"]
    rows, cells = [], []
    for t in steps:
        alloc, pois = (
            Config(Gaussian(sigma), steps=t),
            Config(Gaussian(sigma), scheme="poisson", steps=t, rate=Fraction(1, t)),
        )
        row = [
            query("epsilon", alloc, delta, "both", "exact") if t <= 2 else Cell(na="t > 2"),
            query("epsilon", alloc, delta, "both", "pld"),
            query("epsilon", alloc, delta, "remove", "rdp"),
            query("epsilon", pois, delta, "both", "pld", settings=poisson_settings(1 / t, t, delta)),
        ]
        cells.append(row)
        rows.append([str(t)] + [c.text() for c in row])
    text = table(
        f"ε vs t (Gaussian σ = {sigma:g}, δ = 1e-4; [004] Fig. 6) — {_timed_total(cells):.0f} s", ["t"] + methods, rows
    ) + _seconds(methods, cells)

    def draw(ax):
        for j, (label, style) in enumerate(zip(methods, ["k*", "C1o-", "C1:", "C0s-"])):
            _series(ax, steps, [r[j] for r in cells], label, style, band=(j in (1, 3)))
        ax.set_xscale("log")
        ax.set_xlabel("steps t")
        ax.set_ylabel("ε (upper)")
        ax.set_title(f"ε vs t, σ = {sigma:g}, δ = 1e-4")

    return text + _plot("steps", draw, steps)


def compare_k(quick: bool) -> str:
    """[004] Fig. 9: ε vs k, δ = 1e-6, t = 1024, σ = 0.6; Poisson λ = k/t (E18). The allocation pld (about a
    minute per k under load: σ = 0.6 takes the geometric-grid fallback, and every k recomputes the k = 1 lower
    bound) runs at three k and not in --quick."""
    t, delta, sigma = 1024, 1e-6, 0.6
    ks = [1, 16] if quick else [1, 4, 16]
    methods = ["allocation pld", "allocation rdp", "poisson pld (λ = k/t)", "poisson rdp (λ = k/t)"]
    rows, cells = [], []
    for k in ks:
        alloc, pois = (
            Config(Gaussian(sigma), steps=t, k=k),
            Config(Gaussian(sigma), scheme="poisson", steps=t, rate=Fraction(k, t)),
        )
        row = [
            Cell(na="skipped in --quick") if quick else query("epsilon", alloc, delta, "both", "pld"),
            query("epsilon", alloc, delta, "remove", "rdp"),
            query("epsilon", pois, delta, "both", "pld", settings=poisson_settings(k / t, t, delta)),
            query("epsilon", pois, delta, "remove", "rdp"),
        ]
        cells.append(row)
        rows.append([str(k)] + [c.text() for c in row])
    text = table(
        f"ε vs k (Gaussian σ = 0.6, δ = 1e-6, t = 1024; [004] Fig. 9) — {_timed_total(cells):.0f} s",
        ["k"] + methods,
        rows,
    ) + _seconds(methods, cells)

    def draw(ax):
        for j, (label, style) in enumerate(zip(methods, ["C1o-", "C1:", "C0s-", "C0:"])):
            _series(ax, ks, [r[j] for r in cells], label, style, band=(j in (0, 2)))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("k (allocations per element)")
        ax.set_ylabel("ε (upper)")
        ax.set_title("ε vs k, σ = 0.6, δ = 1e-6, t = 1024")

    return text + _plot("k", draw, ks)


def compare_cross(quick: bool) -> str:
    """[003] Fig. 7, I10: exact δ(ε) of allocation (t = 2, k = 1) and Poisson (λ = 1/2), σ = 1, per direction."""
    epsilons = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0] if quick else [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0]
    alloc, pois = Config(Gaussian(1), steps=2), Config(Gaussian(1), scheme="poisson", steps=2, rate="1/2")
    columns = [(cfg, d) for d in ("remove", "add") for cfg in (alloc, pois)]
    labels = ["allocation remove", "poisson remove", "allocation add", "poisson add"]
    cells = [[query("delta", cfg, eps, d, "exact") for cfg, d in columns] for eps in epsilons]
    rows = []
    for eps, row in zip(epsilons, cells):
        winner = ["alloc" if r[0].upper < r[1].upper else "poisson" for r in (row[:2], row[2:])]
        rows.append(
            [f"{eps:g}"] + [f"{c.upper:.6g}" if not c.na else "n/a" for c in row] + [f"{winner[0]} / {winner[1]}"]
        )
    text = table(
        f"Exact δ(ε), Gaussian σ = 1, t = 2: allocation vs Poisson λ = 1/2 ([003] Fig. 7, I10) — "
        f"{_timed_total(cells):.0f} s",
        ["ε"] + labels + ["smaller δ (remove / add)"],
        rows,
    )
    lo, hi = _crossing(alloc, pois, "remove", 0.5, 1.0, 0.01 if quick else 1e-3)
    text += f"\nThe remove profiles cross at ε ∈ [{lo:.4g}, {hi:.4g}] (bisection on the exact difference).\n"

    def draw(ax):
        for j, (label, style) in enumerate(zip(labels, ["C1o-", "C0s-", "C1o--", "C0s--"])):
            _series(ax, epsilons, [r[j] for r in cells], label, style)
        mid = (lo + hi) / 2
        ax.axvline(mid, color="gray", linestyle=":", label=f"remove profiles cross (ε ≈ {mid:.3f})")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε) (exact)")
        ax.set_title("Exact profiles, σ = 1, t = 2: allocation vs Poisson(1/2)")

    return text + _plot("cross", draw)


def _crossing(a: Config, b: Config, direction: str, lo: float, hi: float, tol: float) -> tuple[float, float]:
    """[lo, hi] containing an ε where the exact δ_a(ε) − δ_b(ε) changes sign (its sign differs at lo and hi)."""

    def diff(eps):
        return query("delta", a, eps, direction, "exact").upper - query("delta", b, eps, direction, "exact").upper

    sign_lo = diff(lo) > 0
    if (diff(hi) > 0) == sign_lo:
        raise ValueError(f"no sign change of the {direction} difference on [{lo}, {hi}]")
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (diff(mid) > 0) == sign_lo else (lo, mid)
    return lo, hi


def compare_mc(quick: bool) -> str:
    """Monte Carlo interval vs the certified pld bracket: δ(ε), remove, σ = 1, t = 100 (k = 1)."""
    epsilons = [0.5, 1.0, 2.0, 3.0]
    config = Config(Gaussian(1), steps=100)
    cells = [
        [query("delta", config, eps, "remove", "mc"), query("delta", config, eps, "remove", "pld")] for eps in epsilons
    ]
    rows = [[f"{e:g}", mc.text(), pld.text(), f"{mc.upper / pld.upper:.3g}"] for e, (mc, pld) in zip(epsilons, cells)]
    text = table(
        f"δ(ε) remove, Gaussian σ = 1, t = 100: mc (95%, default samples, fixed seed) vs pld — "
        f"{_timed_total(cells):.0f} s",
        ["ε", "mc interval", "pld bracket", "mc upper / pld upper"],
        rows,
    )

    def draw(ax):
        for j, (label, style) in enumerate(zip(["mc 95% interval", "pld bracket"], ["C2v:", "C1o-"])):
            _series(ax, epsilons, [r[j] for r in cells], label, style, band=True)
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε), remove (upper ends)")
        ax.set_title("Monte Carlo interval vs certified bracket, σ = 1, t = 100")

    return text + _plot("mc", draw)


TIMED_METHODS = ("exact", "pld", "rdp", "analytic", "mc", "best")
SLOW_TO_TIME = ("analytic", "best")
TIMING_CODE = """
import time
from verialloc import Config, Gaussian, api
from verialloc.errors import UnsupportedRequest
direction = "remove" if "{m}" == "rdp" else "both"
start = time.perf_counter()
try:
    b = api.epsilon(Config(Gaussian(1), steps=1000), "1e-5", direction=direction, method="{m}", digits=10)
    print(time.perf_counter() - start, float(b.lower), float(b.upper), direction)
except UnsupportedRequest:
    print(time.perf_counter() - start, "nan", "nan", direction)
"""


def compare_timing(quick: bool) -> str:
    """Wall clock per method for ε(δ = 1e-5), Gaussian σ = 1, t = 1000, default options, each in a fresh
    interpreter (import excluded; no cache shared between methods)."""
    rows = []
    for m in TIMED_METHODS:
        if quick and m in SLOW_TO_TIME:
            rows.append([m, "", "not timed in --quick", ""])
            continue
        out = subprocess.run(
            [sys.executable, "-c", TIMING_CODE.format(m=m)], capture_output=True, text=True, check=True
        ).stdout.split()
        seconds, lo, hi, direction = float(out[0]), float(out[1]), float(out[2]), out[3]
        cell = Cell(
            lo,
            hi,
            seconds,
            "upper-only" if m in UPPER_ONLY else ("statistical" if m == "mc" else "bound"),
            na="" if math.isfinite(hi) else "n/a",
        )
        rows.append([m, direction, cell.text(), f"{seconds:.2f}"])
    return table(
        "Wall clock, ε(δ = 1e-5), Gaussian σ = 1, t = 1000, default options (fresh process each)",
        ["method", "direction", "ε", "seconds"],
        rows,
    )


COMPARISONS = {
    "sigma": compare_sigma,
    "epochs": compare_epochs,
    "steps": compare_steps,
    "k": compare_k,
    "cross": compare_cross,
    "mc": compare_mc,
    "timing": compare_timing,
}


def main(argv: list[str] | None = None) -> None:
    global FIGURES
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer points (about 2 min)")
    p.add_argument("--only", nargs="+", choices=list(COMPARISONS), help="run only these comparisons")
    p.add_argument("--out", type=Path, default=FIGURES, help="directory of the PNGs (default docs/figures)")
    args = p.parse_args(argv)
    FIGURES = args.out
    start = time.perf_counter()
    print(
        f"# verialloc methods comparison — {time.strftime('%Y-%m-%d %H:%M')} — "
        f"{platform.machine()}, python {platform.python_version()}{' (quick)' if args.quick else ''}\n"
    )
    for name in args.only or COMPARISONS:
        print(COMPARISONS[name](args.quick), flush=True)
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
