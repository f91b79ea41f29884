"""`verialloc demo` / `make demo`: certify three claims about a DP-SGD-style random-allocation run.

Gaussian noise σ = 1, each example in 1 of t = 1000 steps per epoch (random allocation, balls-in-bins batches),
3 epochs, δ = 1e-5. One claim is the kind of ε an accountant that treats the batches as Poisson(1/t) reports
(rounded up: 0.26); one is tight (0.246) and needs finer settings; one is too optimistic (0.2). Certify refines until each verdict is decided.
"""

from __future__ import annotations

from rich.console import Console

from ..certify import certificate_json, certify, make_claim
from ..certify.report import render_text
from ..config import Config
from ..mechanisms import Gaussian

CONFIG = dict(steps=1000, epochs=3)
SIGMA, DELTA = "1", "1e-5"
CLAIMS = (
    ("0.26", "a Poisson(1/t)-style accountant's figure, rounded up"),
    ("0.246", "a tight claim: decided only after refinement"),
    ("0.2", "an optimistic claim"),
)
BUDGET = 25


def run_demo() -> dict:
    """Print one certificate per claim; returns {"command": "demo", "verdicts": [...]}."""
    console = Console(soft_wrap=True)  # piped output keeps its lines (no wrapping at 80 columns)
    config = Config(Gaussian(SIGMA), **CONFIG)
    console.print(
        f"[bold]verialloc demo[/bold]: certify (ε, δ = {DELTA}) claims for Gaussian σ = {SIGMA}, random "
        f"allocation, t = {CONFIG['steps']} steps, {CONFIG['epochs']} epochs (remove and add directions)\n"
    )
    verdicts = []
    for value, what in CLAIMS:
        cert = certify(config, make_claim(delta=DELTA, claimed_epsilon=value), "both", BUDGET)
        console.print(f"[bold]claim ε = {value}[/bold] ({what})")
        out = {**certificate_json(cert), "input": {"delta": DELTA, "claimed": value}}  # echoed as typed, like certify
        console.print(render_text(out), highlight=False, markup=False)
        console.print()
        verdicts.append(cert.verdict)
    return {"command": "demo", "verdicts": verdicts}


def register(sub) -> None:
    p = sub.add_parser("demo", help="certify three claims about a default DP-SGD-style configuration")
    p.set_defaults(run=lambda args: run_demo(), render=lambda out: "")
