"""Issue #11: progress for the long methods (best, analytic) and calibrate's --budget as a hard limit."""

import importlib
import inspect
import json
import time

from verialloc import Config, Gaussian, api
from verialloc.cli import main
from verialloc.registry import METHODS

calibrate_mod = importlib.import_module("verialloc.certify.calibrate")  # the package re-exports the function


def test_every_long_method_takes_progress():
    """The registry says which methods report progress; their accountants accept it (and only theirs)."""
    takes = {name for name, m in METHODS.items() if m.takes_progress}
    assert takes == {"auto", "pld", "best", "analytic"}  # auto passes progress on to best
    for name, m in METHODS.items():
        if m.accountant is None:
            continue
        accepts = all(
            "progress" in inspect.signature(getattr(m.accountant, q)).parameters for q in ("delta", "epsilon")
        )
        assert accepts == (name in takes), name


def test_analytic_reports_a_stage_per_bound():
    stages = []
    api.delta(Config(Gaussian(1), steps=8), 1, direction="remove", method="analytic", progress=stages.append)
    for bound in ("truncated_poisson", "recursive", "decomposition", "direct_add", "asymptotic"):
        assert any(s.startswith("remove eps=1: " + bound) for s in stages), bound
    assert any("Poisson PLD" in s for s in stages)  # stages inside a bound, too


def test_best_reports_a_stage_per_sub_method():
    """Every sub-method that runs reports its stages (target_gap=0: all three run)."""
    stages = []
    api.epsilon(Config(Gaussian(1), steps=8), "1e-5", method="best", progress=stages.append, target_gap=0)
    assert {s.split(":")[0] for s in stages} == {"best pld", "best rdp", "best analytic"}


def test_cli_passes_progress_to_analytic(monkeypatch, capsys):
    monkeypatch.setattr("verialloc.cli.common.LOG_INTERVAL", 0.0)
    seen = []
    real = api.METHODS["analytic"].delta

    def spy(*args, progress=None, **kwargs):
        seen.append(progress)
        return real(*args, progress=progress, **kwargs)

    monkeypatch.setattr(api.METHODS["analytic"], "delta", spy)
    assert (
        main(
            [
                "delta",
                "--mechanism",
                "gaussian",
                "--sigma",
                "1",
                "--steps",
                "4",
                "--epsilon",
                "1",
                "--method",
                "analytic",
                "--json",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    json.loads(out)
    assert seen and all(callable(p) for p in seen)


def _slow_certify(*args, **kwargs):
    progress = args[4] if len(args) > 4 else kwargs.get("progress")
    for _ in range(600):  # a probe far longer than the budget, reporting progress
        if progress:
            progress("slow step")
        time.sleep(0.1)
    raise AssertionError("not stopped at the deadline")


def test_calibrate_stops_a_running_probe_at_the_deadline(monkeypatch):
    monkeypatch.setattr(calibrate_mod, "certify", _slow_certify)
    stages = []
    budget = 2.0
    t0 = time.monotonic()
    cal = calibrate_mod.calibrate(Config(Gaussian(1), steps=1000), "1", "1e-5", budget=budget, progress=stages.append)
    elapsed = time.monotonic() - t0
    assert elapsed <= budget * 1.5 + 5
    assert not cal.converged and "stopped at the deadline" in cal.reason
    assert cal.probes == [] and cal.sigma_upper is None and cal.sigma_lower is None
    assert "slow step" in stages  # the worker's progress came back to the caller


def test_calibrate_cli_budget_is_a_hard_limit(capsys):
    """The issue's case (steps 1000, target 1) with a small budget: returns within it (generous margin)."""
    budget = 8
    t0 = time.monotonic()
    code = main(
        ["calibrate", "--steps", "1000", "--target-epsilon", "1", "--delta", "1e-5", "--budget", str(budget), "--json"]
    )
    elapsed = time.monotonic() - t0
    out, _ = capsys.readouterr()
    assert elapsed <= budget * 1.5 + 5
    if code == 5:  # not converged (exit 5); otherwise refused up front by the cost model (exit 2), within budget
        data = json.loads(out)
        assert data["converged"] is False and "budget" in data["reason"]
    else:
        assert code == 2
