"""`make mutation`: mutmut over the soundness-critical modules (mutation/plan.py), sampled, plus the curated set.

Each group runs in its own scratch copy under build/mutation/<group> (the working tree is never mutated). mutmut
generates every mutant of the group's modules; a seeded sample of `--per-module` mutants per module is run against
the group's tests (mutmut picks, per mutant, the tests that cover the mutated function). The report —
build/mutation/report.json and a Markdown table on stdout — gives, per module, killed / survived / timeout and
the score killed / (killed + survived) on the sample, and lists every survivor with its diff for triage.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from mutation.plan import GROUPS, MESSAGE_ONLY
from mutation.scratch import copy_tracked

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "mutation"
KILLED = {1, 3, 36, -24, 24, 152, 255, 37}  # failed test, pytest internal error, timeouts (mutmut's codes)


def _config(group: dict) -> str:
    lines = [
        "[mutmut]",
        "source_paths=",
        *[f"    {m}" for m in group["modules"]],
        "also_copy=",
        "    verialloc/",
        "pytest_add_cli_args_test_selection=",
        *[f"    {t}" for t in group["tests"]],
        "do_not_mutate_patterns=",
        *[f"    {p}" for p in MESSAGE_ONLY],
    ]
    return "\n".join(lines) + "\n"


def _mutmut(tree: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=tree, capture_output=True, text=True)


def _module(name: str) -> str:
    return re.split(r"\.x[_ǁ]", name, maxsplit=1)[0]


def _metas(tree: Path) -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in (tree / "mutants").rglob("*.meta"):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def run_group(name: str, per_module: int, seed: int, children: int) -> dict:
    """Generate, sample and run one group's mutants; the per-module tally and the survivors' diffs."""
    tree = OUT / name
    tree.mkdir(parents=True, exist_ok=True)
    copy_tracked(ROOT, tree)
    (tree / "setup.cfg").write_text(_config(GROUPS[name]))
    _mutmut(tree, "run", "--max-children", str(children), "verialloc-generate-only")  # generates, runs none
    codes = _metas(tree)
    if not codes:
        raise SystemExit(f"mutation: mutmut generated no mutants for group {name!r}")
    rng = random.Random(f"{seed}:{name}")
    by_module: dict[str, list[str]] = {}
    for mutant in sorted(codes):
        by_module.setdefault(_module(mutant), []).append(mutant)
    sample = [m for ms in by_module.values() for m in rng.sample(ms, min(per_module, len(ms)))]
    proc = _mutmut(tree, "run", "--max-children", str(children), *sample)
    if "Failed to run clean test" in proc.stdout:
        raise SystemExit(f"mutation: the unmutated tests of group {name!r} fail\n{proc.stdout[-3000:]}")
    codes = _metas(tree)
    report = {}
    for module, mutants in by_module.items():
        chosen = [m for m in mutants if m in sample]
        tally = {
            "generated": len(mutants),
            "sampled": len(chosen),
            "killed": 0,
            "survived": 0,
            "no_tests": 0,
            "survivors": {},
        }
        for m in chosen:
            code = codes.get(m)
            if code in KILLED:
                tally["killed"] += 1
            elif code == 0:
                tally["survived"] += 1
                tally["survivors"][m] = _mutmut(tree, "show", m).stdout
            else:
                tally["no_tests"] += 1
        report[module] = tally
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(GROUPS), help="comma-separated, from mutation/plan.py")
    parser.add_argument("--per-module", type=int, default=5, help="mutants sampled per module (5: ~40 min on 2 cores)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--children", type=int, default=2, help="parallel mutmut workers")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    report = {}
    for name in args.groups.split(","):
        report.update(run_group(name, args.per_module, args.seed, args.children))
        (OUT / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print("| module | generated | sampled | killed | survived | no tests | score |")
    print("|---|---|---|---|---|---|---|")
    killed = survived = 0
    for module, t in report.items():
        judged = t["killed"] + t["survived"]
        killed, survived = killed + t["killed"], survived + t["survived"]
        score = f"{100 * t['killed'] / judged:.0f}%" if judged else "—"
        print(
            f"| {module} | {t['generated']} | {t['sampled']} | {t['killed']} | {t['survived']} | "
            f"{t['no_tests']} | {score} |"
        )
    total = 100 * killed / max(killed + survived, 1)
    print(
        f"\nscore on the sample: {killed}/{killed + survived} = {total:.1f}%; survivors' diffs in {OUT / 'report.json'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
