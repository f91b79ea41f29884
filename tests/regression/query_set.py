"""The fixed CLI query set of issue #28: its outputs must stay byte-identical across refactors.

`python -m tests.regression.query_set record` runs every query and writes `query_set.json` (stdout, stderr, exit
status); tests/regression/test_query_set.py runs them again and compares byte for byte. Wall-clock fields
("seconds", "elapsed_seconds", "elapsed") and progress lines are the only text replaced before the comparison (they vary run to run).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
RECORD = HERE / "query_set.json"

G1 = ["--mechanism", "gaussian", "--sigma", "1"]
PAIR = '{"p": [0.5, 0.3, 0.2], "q": [0.2, 0.3, 0.5]}'

#: name -> argv (after `verialloc`): every method, every mechanism, both schemes, every query kind, errors, refusals
QUERIES = {
    # exact
    "exact-rdp-gauss-alloc": ["rdp", *G1, "--steps", "10", "--alpha", "8"],
    "exact-rdp-gauss-poisson": ["rdp", *G1, "--scheme", "poisson", "--steps", "10", "--rate", "0.1", "--alpha", "4"],
    "exact-rdp-rr-k2": ["rdp", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "20", "--k", "2",
                        "--alpha", "5"],
    "exact-delta-gauss-t1": ["delta", *G1, "--steps", "1", "--epsilon", "1"],
    "exact-epsilon-gauss-k=t": ["epsilon", "--mechanism", "gaussian", "--sigma", "2", "--steps", "3", "--k", "3",
                                "--delta", "1e-5", "--json"],
    "exact-epsilon-rr": ["epsilon", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "10",
                         "--delta", "1e-6"],
    "exact-delta-discrete-poisson": ["delta", "--mechanism", "discrete", "--pair", PAIR, "--scheme", "poisson",
                                     "--steps", "5", "--rate", "0.3", "--epsilon", "0.5", "--json"],
    "exact-delta-laplace-t2": ["delta", "--mechanism", "laplace", "--scale", "1", "--steps", "2", "--epsilon", "0.5",
                               "--digits", "6"],
    # pld
    "pld-epsilon-gauss-alloc": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5", "--method", "pld"],
    "pld-delta-gauss-alloc-add": ["delta", *G1, "--steps", "1000", "--epsilon", "1", "--method", "pld",
                                  "--direction", "add", "--json"],
    "pld-epsilon-gauss-poisson": ["epsilon", *G1, "--scheme", "poisson", "--steps", "1000", "--rate", "0.01",
                                  "--delta", "1e-5", "--method", "pld", "--json"],
    "pld-epsilon-gauss-k4-e2": ["epsilon", *G1, "--steps", "100", "--k", "4", "--epochs", "2", "--delta", "1e-5",
                                "--method", "pld", "--json"],
    "pld-epsilon-laplace": ["epsilon", "--mechanism", "laplace", "--scale", "2", "--steps", "100", "--delta", "1e-6",
                            "--method", "pld"],
    "pld-epsilon-rr-k3": ["epsilon", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "100", "--k",
                          "3", "--delta", "1e-6", "--method", "pld", "--json"],
    "pld-delta-discrete-poisson": ["delta", "--mechanism", "discrete", "--pair", PAIR, "--scheme", "poisson",
                                   "--steps", "50", "--rate", "0.1", "--epsilon", "0.3", "--method", "pld"],
    "pld-epsilon-gauss-heavy": ["epsilon", "--mechanism", "gaussian", "--sigma", "0.6", "--steps", "10", "--delta",
                                "1e-5", "--method", "pld", "--json"],
    "pld-epsilon-gauss-tiny-delta": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-12", "--method", "pld",
                                     "--json"],
    "pld-epsilon-knobs": ["epsilon", *G1, "--steps", "200", "--delta", "1e-5", "--method", "pld", "--loss-step",
                          "1e-3", "--grid-step", "1e-3", "--tail", "1e-14", "--json"],
    # rdp
    "rdp-epsilon-gauss-alloc": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5", "--method", "rdp", "--json"],
    "rdp-delta-gauss-poisson": ["delta", *G1, "--scheme", "poisson", "--steps", "1000", "--rate", "0.01",
                                "--epsilon", "1", "--method", "rdp"],
    "rdp-rdp-fractional": ["rdp", *G1, "--steps", "100", "--alpha", "2.5", "--method", "rdp"],
    "rdp-epsilon-alpha-max": ["epsilon", *G1, "--steps", "100", "--delta", "1e-5", "--method", "rdp", "--alpha-max",
                              "64", "--search-tol", "0.01"],
    "rdp-epsilon-gauss-alloc-remove": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5", "--method", "rdp",
                                       "--direction", "remove", "--json"],
    "rdp-delta-gauss-poisson-remove": ["delta", *G1, "--scheme", "poisson", "--steps", "1000", "--rate", "0.01",
                                       "--epsilon", "1", "--method", "rdp", "--direction", "remove"],
    "rdp-epsilon-rr-k2-remove": ["epsilon", "--mechanism", "randomized-response", "--eps0", "0.5", "--steps", "100",
                                 "--k", "2", "--delta", "1e-5", "--method", "rdp", "--direction", "remove",
                                 "--alpha-max", "64", "--search-tol", "0.01"],
    # analytic
    "analytic-epsilon-gauss-alloc": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5", "--method", "analytic",
                                     "--json"],
    "analytic-epsilon-gauss-poisson": ["epsilon", *G1, "--scheme", "poisson", "--steps", "100", "--rate", "0.01",
                                       "--delta", "1e-5", "--method", "analytic"],
    "analytic-epsilon-gauss-remove": ["epsilon", *G1, "--steps", "100", "--delta", "1e-6", "--method", "analytic",
                                      "--direction", "remove", "--loss-step", "1e-3"],
    # mc
    "mc-epsilon-gauss": ["epsilon", *G1, "--steps", "100", "--delta", "1e-3", "--method", "mc", "--samples", "4000",
                         "--seed", "1", "--json"],
    "mc-delta-gauss": ["delta", *G1, "--steps", "50", "--epsilon", "1", "--method", "mc", "--samples", "3000",
                       "--seed", "7", "--confidence", "0.9"],
    # best
    "best-epsilon-gauss-alloc": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5", "--method", "best", "--json"],
    "best-delta-gauss-poisson": ["delta", *G1, "--scheme", "poisson", "--steps", "1000", "--rate", "0.01",
                                 "--epsilon", "1", "--method", "best", "--target-gap", "0"],
    "config-file-toml": ["epsilon", "--config", "tests/regression/config.toml", "--delta", "1e-5", "--method", "pld"],
    # certify / calibrate
    "certify-gauss-eps": ["certify", "--mechanism", "gaussian", "--sigma", "2", "--steps", "100", "--delta", "1e-5",
                          "--claimed-epsilon", "2", "--json"],
    "certify-rr-exact": ["certify", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "10", "--delta",
                         "1e-6", "--claimed-epsilon", "0.9"],
    "certify-poisson-delta": ["certify", *G1, "--scheme", "poisson", "--steps", "100", "--rate", "0.05",
                              "--epsilon", "1", "--claimed-delta", "1e-4", "--json"],
    "certify-laplace-refuted": ["certify", "--mechanism", "laplace", "--scale", "1", "--steps", "50", "--k", "2",
                                "--delta", "1e-5", "--claimed-epsilon", "0.1"],
    "certify-k3-refute": ["certify", "--mechanism", "randomized-response", "--eps0", "1", "--steps", "1100", "--k",
                          "3", "--epochs", "2", "--delta", "1e-7", "--claimed-epsilon", "0.6263", "--budget", "90",
                          "--json"],
    "calibrate-gauss": ["calibrate", "--mechanism", "gaussian", "--steps", "100", "--target-epsilon", "1", "--delta",
                        "1e-5", "--tolerance", "0.05", "--json"],
    # errors and refusals (exit 2, one line)
    "error-sigma-zero": ["epsilon", "--mechanism", "gaussian", "--sigma", "0", "--steps", "10", "--delta", "1e-5"],
    "error-k-gt-t": ["epsilon", *G1, "--steps", "10", "--k", "11", "--delta", "1e-5"],
    "error-delta-range": ["epsilon", *G1, "--steps", "10", "--delta", "2"],
    "error-flag-wrong-method": ["epsilon", *G1, "--steps", "10", "--delta", "1e-5", "--method", "pld", "--samples",
                                "10"],
    "error-unknown-method": ["epsilon", *G1, "--steps", "10", "--delta", "1e-5", "--method", "fast"],
    "error-alpha-max": ["epsilon", *G1, "--steps", "10", "--delta", "1e-5", "--method", "rdp", "--alpha-max",
                        "20000"],
    "refuse-budget-pld": ["epsilon", *G1, "--steps", "100000000", "--epochs", "1000", "--delta", "1e-5", "--method",
                          "pld", "--budget", "1"],
    "refuse-budget-exact": ["rdp", *G1, "--steps", "100", "--alpha", "100000", "--budget", "1"],
    "refuse-default-method": ["epsilon", *G1, "--steps", "1000", "--delta", "1e-5"],
    "refuse-float-sigma": ["epsilon", "--mechanism", "gaussian", "--sigma", "1e-5", "--steps", "10", "--delta",
                           "1e-5", "--method", "rdp"],
    "refuse-heavy-pld": ["epsilon", "--mechanism", "gaussian", "--sigma", "0.0625", "--steps", "10", "--delta",
                         "1e-5", "--method", "pld"],
}

_TIMES = re.compile(r'("(?:seconds|elapsed_seconds|elapsed)": )[0-9.e+-]+|(\bin |after |elapsed |  )[0-9.]+ s\b')


_PROGRESS = re.compile(r"^verialloc: [0-9]+ s, [0-9]+ steps, .*\n", re.MULTILINE)


def normalized(text: str) -> str:
    """The text with wall-clock figures replaced by <t> and progress lines (timed) dropped."""
    return _TIMES.sub(lambda m: (m.group(1) or m.group(2)) + "<t>", _PROGRESS.sub("", text))


def run(argv: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-m", "verialloc.cli", *argv], capture_output=True, text=True, timeout=900)
    return {"rc": proc.returncode, "stdout": normalized(proc.stdout), "stderr": normalized(proc.stderr)}


def record(names=None) -> None:
    old = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    for name in names or QUERIES:
        old[name] = {"argv": QUERIES[name], **run(QUERIES[name])}
        print(name, old[name]["rc"], flush=True)
    RECORD.write_text(json.dumps({k: old[k] for k in QUERIES if k in old}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"]:
        record(sys.argv[2:] or None)
