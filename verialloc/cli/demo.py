"""`verialloc demo` / `make demo`: the exact RDP curve and privacy profile of a default configuration."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .. import api
from ..config import Config
from ..formatting import decimal
from ..mechanisms import Gaussian, RandomizedResponse

DIGITS = 8
ALPHAS = (2, 3, 4, 8, 16, 32, 64)
EPSILONS = ("0.05", "0.1", "0.2", "0.5")


def run_demo() -> dict:
    """Print the demo tables; returns {"command": "demo"}."""
    console = Console()
    rr = Config(RandomizedResponse("1"), steps=1000)
    gauss = Config(Gaussian("1"), steps=1000)
    console.print("[bold]verialloc demo[/bold]: random allocation, 1 of t = 1000 steps, exact layer (arbitrary precision)\n")

    table = Table(title="Exact RDP, remove direction (F38 via the generating function)")
    table.add_column("alpha", justify="right")
    table.add_column("randomized response eps0=1", justify="right")
    table.add_column("Gaussian sigma=1", justify="right")
    table.add_column("Gaussian, no amplification", justify="right")
    for a in ALPHAS:
        table.add_row(str(a), decimal(api.rdp(rr, a, digits=DIGITS).upper, DIGITS),
                      decimal(api.rdp(gauss, a, digits=DIGITS).upper, DIGITS), decimal(a / 2, DIGITS))
    console.print(table)

    table = Table(title="Exact privacy profile, randomized response eps0=1, t=1000 (count enumeration)")
    table.add_column("epsilon", justify="right")
    table.add_column("delta remove", justify="right")
    table.add_column("delta add", justify="right")
    for e in EPSILONS:
        b = api.delta(rr, e, direction="both", digits=DIGITS)
        table.add_row(e, decimal(b.details["remove"].upper, DIGITS), decimal(b.details["add"].upper, DIGITS))
    console.print(table)
    eps = api.epsilon(rr, "1e-6", direction="both", digits=DIGITS)
    console.print(f"epsilon at delta = 1e-6 (max over directions): [bold]{decimal(eps.upper, DIGITS)}[/bold] (exact)")
    return {"command": "demo"}


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the main job on a default configuration")
    p.set_defaults(run=lambda args: run_demo(), render=lambda out: "")
