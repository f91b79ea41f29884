"""Readable output of a certificate: JSON-ready dict, terminal text, Markdown report with a profile plot.

Decimals are rounded outward (lower down, upper up; `verialloc.formatting.decimal`, exact at any magnitude: an ε of
5e319 or a δ of e^(−5e599) is no float64), so a printed bracket still contains the certified one. A printed end that decides the
verdict gets more digits than asked for when fewer would put the claim on the wrong side of it (`shown`): a refuted
claim is always below the printed lower end, a certified claim never below the printed upper end.
"""

from __future__ import annotations

import json
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np

from .. import cost
from ..errors import InvalidParameter, UnsupportedRequest
from ..formatting import decimal, describe, describe_events, header_show
from ..io.files import output_file
from ..ledger import ledger_of
from ..method import FloatRange
from ..rounding import float_down
from .refine import LABELS, Certificate, profile_table
from .verdict import compare, rational

DIGITS = 8
#: beyond this many significant digits an end is printed exactly (a binary mpf has a terminating decimal)
MAX_DIGITS = 40


def shown(x, digits: int, rounding: str, claim: Fraction | None = None) -> str:
    """`x` rounded `rounding` ("down"/"up") to `digits` significant digits (`formatting.decimal`, exact at any
    magnitude); with
    `claim`, digits are added until the printed end keeps the claim on the side the exact end does (rounding
    down: claim < printed when claim < x; up: printed <= claim when x <= claim)."""
    x = x if isinstance(x, mp.mpf) else mp.mpf(x)  # a float is exact in mpf
    if not mp.isfinite(x):
        return str(x)
    for n in range(digits, MAX_DIGITS + 1):
        text = decimal(x, n, rounding)
        if claim is None or (
            compare(claim, text) < 0 or compare(claim, x) >= 0
            if rounding == "down"
            else compare(claim, text) >= 0 or compare(claim, x) < 0
        ):
            return text
    return _exact_decimal(rational(x))


def _exact_decimal(x: Fraction) -> str:
    """The terminating decimal of a dyadic rational (every finite binary float/mpf is one)."""
    d = Decimal(x.numerator)
    k = x.denominator.bit_length() - 1
    assert x.denominator == 1 << k, "a bracket end is binary"
    with localcontext() as ctx:
        ctx.prec = len(str(x.numerator)) + k + 5
        return format(d / (Decimal(2) ** k), "f")


def certificate_json(cert: Certificate, digits: int = DIGITS) -> dict:
    """verdict, lower, upper, method / error_kind (per side), rigorous, strict, error_budget (of the sides' steps),
    refinement steps, claim, config. The bracket ends follow `shown` (digits added where the verdict needs them)."""
    claim = cert.claim.value
    return {
        "command": "certify",
        **cert.config.as_dict(),
        **cert.claim.as_dict(),
        "direction": cert.direction,
        "verdict": cert.verdict,
        "lower": shown(cert.lower, digits, "down", claim),
        "upper": shown(cert.upper, digits, "up", claim),
        "digits": digits,
        "method": cert.methods,  # per side: the step that certified it (exact | quadrature | pld | none)
        "error_kind": cert.error_kinds,
        "rigorous": cert.rigorous,
        "strict": cert.strict,
        "error_budget": {w: s.budget if (s := cert.side(w)) is not None else {} for w in ("lower", "upper")},
        "refinement": [
            {
                "method": s.method,
                "settings": s.settings,
                "lower": shown(s.lower, digits, "down"),
                "upper": shown(s.upper, digits, "up"),
                "seconds": round(s.seconds, 3),
                "error_kind": s.error_kind,
                "skipped": s.skipped,
            }
            for s in cert.steps
        ],
        "stop_reason": cert.stop_reason,
        **({"floored": FLOOR_NOTE} if cert.floored else {}),
        "budget_seconds": cert.budget_seconds,
        "elapsed_seconds": round(cert.elapsed, 3),
    }


#: what a floored ε bracket is (Certificate.floored)
FLOOR_NOTE = (
    "the bracket is of max(epsilon(delta), 0), the epsilon >= 0 of (epsilon, delta)-DP; the steps show epsilon(delta)"
)


def _label(name: str) -> str:
    return LABELS.get(name, name)


def render_text(out: dict) -> str:
    """Terminal report of `certificate_json` output."""
    q = out["quantity"]
    target = "delta" if q == "epsilon" else "epsilon"
    verdict = f"verdict: {out['verdict'].upper()}"
    if not out.get("rigorous", True):
        verdict += " (rests on an estimated error, not a bound; --strict decides on rigorous bounds only)"
    elif out.get("strict"):
        verdict += " (strict: rigorous bounds only)"
    show = header_show(out)  # as typed (=the exact rational), like `verialloc epsilon`
    claimed = out.get("input", {}).get("claimed", out["claimed"])  # the claim as typed: it is exact
    lines = [
        describe(out, show),
        *describe_events(out),
        f"claim: {q}({target}={show(target, Fraction(out[target]))}) <= {claimed}  [direction {out['direction']}]",
        f"certified {q}: [{out['lower']}, {out['upper']}]  (lower by {_label(out['method']['lower'])}, "
        f"upper by {_label(out['method']['upper'])})",
        verdict,
        *([f"  ({out['floored']})"] if out.get("floored") else []),
        "steps:",
    ]
    for s in out["refinement"]:
        knobs = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in s["settings"].items())
        kind = _label(s["error_kind"]) + ("; skipped: --strict" if s.get("skipped") else "")
        lines.append(f"  {s['method']:5s} {knobs:32s} [{s['lower']}, {s['upper']}]  {s['seconds']:.2f} s ({kind})")
    lines.append(
        f"stopped: {out['stop_reason']} (elapsed {out['elapsed_seconds']:.1f} s of {out['budget_seconds']:g} s)"
    )
    return "\n".join(lines)


def profile(cert: Certificate, points: int = 40):
    """(ε grid, certified lower δ, certified upper δ) of the last PLD table (max over the requested directions);
    when the exact method decided, of a PLD table at the schedule's first settings. The grid spans [0, 2·centre]
    (centre: the claimed or the target ε), at least 0.5 and at most FloatRange().epsilon (a claim of 1e400 is no
    float). UnsupportedRequest (cost.parameter_range) when the pld method cannot represent the configuration."""
    centre = cert.claim.value if cert.claim.quantity == "epsilon" else cert.claim.at
    top = min(max(2 * float_down(abs(centre)), 0.5), FloatRange().epsilon)
    if cert.table is None:
        for event in ledger_of(cert.config).events:
            cost.parameter_range("delta", event, "pld")
    table = cert.table if cert.table is not None else profile_table(cert.config, cert.claim, top)
    grid = np.linspace(0.0, top, points)
    dirs = ("remove", "add") if cert.direction == "both" else (cert.direction,)
    lo = [max(table[d, "lower"].delta_bound(Fraction(e)) for d in dirs) for e in grid]
    hi = [max(table[d, "upper"].delta_bound(Fraction(e)) for d in dirs) for e in grid]
    return grid, np.array(lo), np.array(hi)


def report_path(path) -> Path:
    """A report's FILE.md, checked with its PNG before any work: regular files (no FIFO, which would block; no
    device: /dev/full would throw the certificate away after computing it) in an existing directory."""
    path = Path(path)
    if path.suffix.lower() != ".md":
        raise InvalidParameter("report", path, "must be a FILE.md in an existing directory")
    output_file("report", path, devices=False)
    output_file("report", path.with_suffix(".png"), devices=False)
    return path


def write_report(cert: Certificate, path, digits: int = DIGITS) -> Path:
    """Markdown report at `path` and a PNG plot of the certified profile next to it (needs matplotlib); without
    the plot, saying why, when the pld method cannot represent the configuration (`profile`)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidParameter("report", path, "plots need matplotlib: pip install 'verialloc[plot]'") from None
    path = report_path(path)
    out = certificate_json(cert, digits)
    lines = ["# verialloc certificate", "", "```", render_text(out), "```", ""]
    try:
        eps, lo, hi = profile(cert)
    except UnsupportedRequest as exc:  # e.g. sigma = 1e-160, decided exactly: no pld table represents it
        lines.append(f"No profile plot: it is drawn from a pld table, and {exc}.")
    else:
        lines += _plot(cert, path, eps, lo, hi, plt)
    lines += ["", "## Error budget", "", "```", _budget_text(out["error_budget"]), "```", ""]
    try:
        path.write_text("\n".join(lines), encoding="utf-8")
    except OSError as exc:
        raise InvalidParameter("report", path, f"must be writable ({exc.strerror})") from None
    return path


def _plot(cert: Certificate, path: Path, eps, lo, hi, plt) -> list:
    """The profile plot as PNG next to `path`; the report's lines that show it."""
    png = path.with_suffix(".png")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(eps, np.maximum(hi, 1e-300), label="certified upper δ(ε)")
    ax.semilogy(eps, np.maximum(lo, 1e-300), "--", label="certified lower δ(ε)")
    claim_eps = cert.claim.value if cert.claim.quantity == "epsilon" else cert.claim.at
    claim_delta = cert.claim.at if cert.claim.quantity == "epsilon" else cert.claim.value
    ax.plot([min(float_down(claim_eps), eps[-1])], [max(float_down(claim_delta), 1e-300)], "ko", label="claim")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ")
    ax.set_title(f"privacy profile ({cert.direction}), pld bounds")
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(png, dpi=120)
    except OSError as exc:
        raise InvalidParameter("report", path, f"cannot write {png.name} ({exc.strerror})") from None
    finally:
        plt.close(fig)
    return [
        f"![certified privacy profile]({png.name})",
        "",
        "Both curves are certified bounds (float64 budgets included) from the last pld step "
        "(or the schedule's first settings when the exact method decided).",
    ]


def _budget_text(budget: dict) -> str:
    return json.dumps(budget, indent=1)
