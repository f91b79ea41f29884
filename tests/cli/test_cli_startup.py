"""Issue #30 item 8: `verialloc --help` (and --version, a mistyped subcommand) starts without loading the mechanisms
and methods (sympy, scipy: 2-3 s); a subcommand loads its own module only."""

import subprocess
import sys
from pathlib import Path

from verialloc.cli import LISTED, build_parser
from verialloc.cli.common import subcommand_parsers

ROOT = Path(__file__).resolve().parents[2]


def _loaded_after(argv: list[str]) -> set:
    code = (
        "import sys\nfrom verialloc.cli import main\n"
        f"main({argv!r})\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'scipy', 'verialloc'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}
    )
    return set(done.stdout.split("\n")[-2].split())


def test_top_level_help_loads_no_mechanism_or_method():
    for argv in (["--help"], ["--version"], ["epsilonn"], []):
        loaded = _loaded_after(argv)
        assert not any(
            m.startswith(("sympy", "scipy", "verialloc.mechanisms", "verialloc.registry")) for m in loaded
        ), (
            argv,
            loaded,
        )


def test_listed_help_lines_are_the_subcommands_own():
    full = build_parser()  # every subcommand registered by its module
    action = next(a for a in full._actions if a.__class__.__name__ == "_SubParsersAction")
    assert {c.dest: c.help for c in action._choices_actions} == {n: h for n, (_, h) in LISTED.items()}
    assert set(subcommand_parsers(full)) == set(LISTED)
