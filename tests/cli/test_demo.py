"""`verialloc demo` (`make demo`, the README's first command): piped output keeps its lines, echoes the claim as
typed, and each verdict follows from the printed bracket (claim >= upper: certified; claim < lower: refuted)."""

import re
import subprocess
import sys
from fractions import Fraction


def test_demo_piped_output_is_whole_lines_with_consistent_verdicts():
    run = subprocess.run([sys.executable, "-m", "verialloc.cli", "demo"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    claims = re.findall(r"claim: epsilon\(delta=1e-5 \(=1/100000\)\) <= ([0-9.]+) ", out)
    brackets = re.findall(r"certified epsilon: \[([0-9.]+), ([0-9.]+)\]", out)
    verdicts = re.findall(r"verdict: ([A-Z]+)", out)
    assert len(claims) == len(brackets) == len(verdicts) == 3
    for claim, (lo, hi), verdict in zip(claims, brackets, verdicts):
        c, lo, hi = Fraction(claim), Fraction(lo), Fraction(hi)
        assert verdict == ("CERTIFIED" if c >= hi else "REFUTED" if c < lo else "INCONCLUSIVE")
    assert {"CERTIFIED", "REFUTED"} <= set(verdicts)
    steps = [line for line in out.splitlines() if line.startswith("  pld ")]
    assert steps and all(line.endswith(")") for line in steps)  # "... 0.30 s (bound)" on one line
    assert not any(line.strip() in ("(bound)", "(estimate)") for line in out.splitlines())
