"""I8 and I9 (formulas.md §13.1) are EMPIRICAL (E): formulas.md says log them, never hard-fail. This file logs them on
verialloc's exact layer and hard-asserts only what formulas.md states as fact: the published I9 counterexample.

* I8 (E): the allocation (k = 1) profile is non-increasing in t — not a theorem ([000] Fig. 3 / [004] Fig. 6; for
  the Gaussian RDP it is [001] Conjecture 1). Logged over randomized response t = 1..12 and the Gaussian t = 1, 2.
* I9 (E): δ←(ε) ≤ δ→(ε) for ε ≥ 0, and the remove bounds of F37/F41 exceed the add bounds ([004] "numerical analysis
  seems to indicate"). FALSE in general: randomized response ε0 = 1, t = 1000, ε = 0.5 has add δ = 3.76e-42 >
  remove δ = 1.44e-78 (formulas.md §13.1). Logged on the Gaussian t = 2 (§12.1) and randomized response t = 2, 100; the
  counterexample is asserted.

Production code under test: `api.delta(..., method="exact")` (count vectors for randomized response, quadrature for
the Gaussian at t = 2) and `numeric.analytic.decomposition.delta` (F37 both directions). Reference for the hard
assertion: the values printed in formulas.md §13.1 (to their 3 digits). Logged observations go to the logger
"verialloc.invariants" (shown with `pytest -o log_cli=true --log-cli-level=INFO`); a violation of I8/I9 is logged
at WARNING, never failed.

Bug the hard assertion catches: the remove/add pairs of the allocation swapped (the counterexample then reads
remove > add), or a count-vector likelihood off by the 1/t factor (values off by orders of magnitude).
"""

import logging
from fractions import Fraction

import pytest

from verialloc import Config, Gaussian, RandomizedResponse, api
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import Options, decomposition

log = logging.getLogger("verialloc.invariants")


def observe(name: str, holds: bool, detail: str) -> None:
    """Log one empirical observation (WARNING when the empirical relation fails, INFO otherwise)."""
    log.log(logging.INFO if holds else logging.WARNING, "%s %s: %s", name, "holds" if holds else "VIOLATED", detail)


def test_i9_published_counterexample_add_exceeds_remove():
    """formulas.md §13.1, I9: randomized response ε0 = 1, t = 1000, ε = 1/2: add δ = 3.76e-42 > remove δ = 1.44e-78,
    on the exact layer's certified values (both exact to 20 digits)."""
    config = Config(RandomizedResponse(1), steps=1000)
    remove = api.delta(config, Fraction(1, 2), direction="remove", digits=20)
    add = api.delta(config, Fraction(1, 2), direction="add", digits=20)
    assert float(remove.upper) == pytest.approx(1.44e-78, rel=5e-3)
    assert float(add.upper) == pytest.approx(3.76e-42, rel=5e-3)
    assert add.lower > remove.upper
    observe("I9", False, f"RR eps0=1 t=1000 eps=1/2: add {float(add.upper):.3g} > remove {float(remove.upper):.3g}")


def test_i8_log_allocation_profile_in_t(caplog):
    """I8 (E), logged: δ(ε) of A_t for t and t + 1, both directions (randomized response t ≤ 12, Gaussian t ≤ 2)."""
    caplog.set_level(logging.INFO, logger=log.name)
    cases = [
        (RandomizedResponse(Fraction(1, 2)), range(1, 13)),
        (RandomizedResponse(2), range(1, 13)),
        (Gaussian(1), range(1, 3)),
    ]
    for mech, ts in cases:
        for direction in ("remove", "add"):
            for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
                values = [api.delta(Config(mech, steps=t), eps, direction=direction, digits=15).upper for t in ts]
                worst = max((values[i + 1] - values[i] for i in range(len(values) - 1)), default=0)
                observe("I8", worst <= 0, f"{mech!r} {direction} eps={eps}: max increase in t {float(worst):.3g}")
    assert any("I8" in r.getMessage() for r in caplog.records)


def test_i9_log_add_below_remove(caplog):
    """I9 (E), logged: δ←(ε) ≤ δ→(ε) at ε ≥ 0 on the exact layer, and remove ≥ add for the F37 bound."""
    caplog.set_level(logging.INFO, logger=log.name)
    configs = [Config(Gaussian(1), steps=2)]  # §12.1: add ≤ remove at every tabulated ε
    configs += [Config(RandomizedResponse(e), steps=t) for e in (Fraction(1, 2), 3) for t in (2, 100)]
    for config in configs:
        for eps in (Fraction(1, 4), Fraction(1), Fraction(2)):
            rem = api.delta(config, eps, direction="remove", digits=15).upper
            add = api.delta(config, eps, direction="add", digits=15).upper
            observe(
                "I9",
                add <= rem * (1 + 1e-12),
                f"{config.mechanism!r} t={config.steps} eps={eps}: add {float(add):.4g} vs remove {float(rem):.4g}",
            )
    options = Options(rate=None, pld=Settings(loss_step=1e-3, tail=1e-14))
    for sigma in (Fraction(1, 2), 2):
        config = Config(Gaussian(sigma), steps=2)
        for eps in (0.5, 1.0, 2.0):
            rem = decomposition.delta(config, eps, "remove", options).value
            add = decomposition.delta(config, eps, "add", options).value
            observe("I9 (F37 bounds)", add <= rem, f"sigma={sigma} t=2 eps={eps}: add {add:.4g} vs remove {rem:.4g}")
    assert any("I9" in r.getMessage() for r in caplog.records)
