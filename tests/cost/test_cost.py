"""Issue #11: hostile input and oversized work are refused before work starts (cost model, verialloc.cost), budgets
are hard limits, extreme parameters get the right answer or a clear refusal, pair files are read with a limit."""
import subprocess
import sys
import time

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, api, cost
from verialloc.certify import calibrate
from verialloc.cli import main
from verialloc.errors import InvalidParameter, UnsupportedRequest


def cli(capsys, *argv):
    start = time.perf_counter()
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err, time.perf_counter() - start


@pytest.mark.parametrize("argv,name", [
    (["rdp", "--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--alpha", "1000000"], "alpha="),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1e9", "--delta", "1e-5", "--method", "pld"],
     "steps="),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1e12", "--delta", "1e-5", "--method", "pld"],
     "steps="),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--epochs", "1e6", "--delta", "1e-5",
      "--method", "pld"], "epochs="),
    (["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--method", "mc",
      "--samples", "1e12"], "samples="),
    (["calibrate", "--steps", "10", "--target-epsilon", "0", "--delta", "1e-5"], "target-epsilon=0"),
    (["calibrate", "--steps", "10", "--target-epsilon", "-1", "--delta", "1e-5"], "target-epsilon=-1"),
    (["stability", "--probe", "rdp-logspace", "--x", "1e6", "--y", "10"], "alpha="),
    (["stability", "--probe", "rdp-linear", "--x", "1e6", "--y", "10"], "alpha="),
])
def test_oversized_requests_are_refused_at_once(capsys, argv, name):
    status, out, err, seconds = cli(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("verialloc: error: " + name), err
    assert "claimed-epsilon" not in err
    assert seconds < 10


def test_budget_refusal_names_the_nearest_feasible_setting():
    with pytest.raises(cost.BudgetExceeded) as info:
        api.rdp(Config(Gaussian(1), steps=10), 10 ** 6)
    assert info.value.name == "alpha" and "nearest feasible setting is alpha <=" in str(info.value)
    feasible = int(str(info.value).split("alpha <= ")[1].split(";")[0])
    assert cost.estimate("rdp", Config(Gaussian(1), steps=10), "exact", feasible).seconds <= cost.DEFAULT_SECONDS


def test_api_budget_keyword():
    config = Config(Gaussian(1), steps=1000, epochs=1000)
    with pytest.raises(cost.BudgetExceeded):
        api.epsilon(config, "1e-5", method="pld", budget=0.5)
    with pytest.raises(cost.BudgetExceeded):
        api.epsilon(config, "1e-5", method="pld", budget=cost.Budget(seconds=600, memory=2 ** 20))
    with pytest.raises(InvalidParameter):
        api.epsilon(config, "1e-5", method="pld", budget=-1)


@pytest.mark.parametrize("sigma", ["1e300", "1e-300", "1e400"])
def test_extreme_sigma_exact_cli(capsys, sigma):
    status, out, err, seconds = cli(capsys, "delta", "--mechanism", "gaussian", "--sigma", sigma, "--steps", "1",
                                    "--epsilon", "1", "--json")
    assert status == 0, err
    assert seconds < 20


def test_extreme_values_python_api():
    tiny = api.delta(Config(Gaussian(1e300), steps=1), 1)
    assert 0 < tiny.upper < mp.mpf("1e-1000000")
    assert api.delta(Config(Gaussian("1e-300"), steps=1), 1).lower == 1
    assert 0 < api.delta(Config(Gaussian(1), steps=1), epsilon=1e308).upper < mp.mpf("1e-1000000")
    assert api.epsilon(Config(Gaussian(1e300), steps=1), "1e-5").upper < 0  # ε(δ) ≥ ln(1 − δ), reached


@pytest.mark.parametrize("method", ["pld", "analytic", "rdp", "best", "mc"])
@pytest.mark.parametrize("sigma,epsilon,name", [("1e300", 1, "sigma"), ("1e-300", 1, "sigma"),
                                                ("1", "1e308", "epsilon"), ("1", "-1e5", "epsilon")])
def test_float_methods_refuse_out_of_range(method, sigma, epsilon, name):
    if method == "pld" and name == "epsilon":  # pld answers any ε soundly (issue #10 item 2): check it instead
        got = api.delta(Config(Gaussian(sigma), steps=10), epsilon, method=method, direction="remove")
        exact = api.delta(Config(Gaussian(sigma), steps=1), epsilon, direction="remove")  # dominates t = 10 (F8)
        trivial = max(mp.mpf(0), -mp.expm1(mp.mpf(epsilon)))
        assert got.lower <= exact.upper and got.upper >= trivial and got.lower >= 0
        return
    with pytest.raises(UnsupportedRequest) as info:
        api.delta(Config(Gaussian(sigma), steps=10), epsilon, method=method, direction="remove")
    assert info.value.name == name and "use --method exact" in str(info.value)


@pytest.mark.parametrize("where", ["flag", "config"])
def test_special_pair_files_are_refused(capsys, tmp_path, where):
    if where == "flag":
        argv = ["delta", "--mechanism", "discrete", "--pair", "/dev/zero", "--steps", "1", "--epsilon", "1"]
    else:
        conf = tmp_path / "c.toml"
        conf.write_text('mechanism = "discrete"\npair = "/dev/zero"\nsteps = 1\n')
        argv = ["certify", "--config", str(conf), "--delta", "1e-5", "--claimed-epsilon", "1"]
    status, out, err, seconds = cli(capsys, *argv)
    assert status == 2 and "pair=/dev/zero is invalid: must be a regular file" in err
    assert seconds < 5


def test_pair_file_size_and_atoms_are_capped(tmp_path):
    from verialloc.mechanisms import DiscretePair
    from verialloc.mechanisms import finite
    big = tmp_path / "big.json"
    big.write_text('{"p": [1], "q": [1]}' + " " * (finite.MAX_PAIR_BYTES + 1))
    with pytest.raises(InvalidParameter, match="bytes"):
        DiscretePair.from_json(big)
    n = finite.MAX_PAIR_ATOMS + 1
    with pytest.raises(InvalidParameter, match="atoms"):
        DiscretePair([1 / n] * n, [1 / n] * n)


def test_fifo_pair_does_not_block(tmp_path):
    import os
    fifo = tmp_path / "pair.json"
    os.mkfifo(fifo)
    code = f"from verialloc.mechanisms import DiscretePair\ntry:\n    DiscretePair.from_json({str(fifo)!r})\n" \
           "except Exception as e:\n    print(type(e).__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "InvalidParameter"


def test_calibrate_budget_is_a_hard_limit():
    start = time.perf_counter()
    cal = calibrate(Config(Gaussian(1), steps=1000), 1, "1e-5", budget=5)
    elapsed = time.perf_counter() - start
    assert elapsed < 5 + 8  # at most the step in flight beyond the budget
    if not cal.converged:
        assert "budget" in cal.reason


def test_calibrate_refused_when_no_probe_fits():
    with pytest.raises(cost.BudgetExceeded) as info:
        calibrate(Config(Gaussian(1), steps=10 ** 12), 1, "1e-5", budget=60)
    assert info.value.name == "steps"


def test_estimate_is_monotone():
    def seconds(**kw):
        return cost.estimate("epsilon", Config(Gaussian(1), **kw), "pld", "1e-5").seconds
    assert seconds(steps=10) < seconds(steps=10 ** 4) < seconds(steps=10 ** 7) < seconds(steps=10 ** 9)
    assert seconds(steps=100, epochs=1) < seconds(steps=100, epochs=100) < seconds(steps=100, epochs=10 ** 5)
    exact = [cost.estimate("rdp", Config(Gaussian(1), steps=10), "exact", a).seconds for a in (10, 100, 1000, 10 ** 5)]
    assert exact == sorted(exact) and exact[0] < exact[-1]
    mc = [cost.estimate("delta", Config(Gaussian(1), steps=10), "mc", 1, {"samples": n}).seconds
          for n in (10 ** 3, 10 ** 6, 10 ** 9)]
    assert mc == sorted(mc)
