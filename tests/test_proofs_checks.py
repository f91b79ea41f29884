"""The proofs_checks registry (formulas.md §10, §13): every erratum E1–E29 is present, each executable check
passes, every doc-only entry gives a reason, and the Markdown table lists every check."""

import pytest

from proofs_checks import load_all
from proofs_checks.__main__ import main, render_markdown

CHECKS = load_all()
EXECUTABLE = [c for c in CHECKS if c.run is not None]


def test_every_erratum_is_registered_once():
    ids = [c.id for c in CHECKS]
    assert len(ids) == len(set(ids))
    assert {f"E{i}" for i in range(1, 30)} <= set(ids)


def test_methods_and_doc_only_reasons():
    for c in CHECKS:
        assert c.method in ("symbolic", "exact", "numeric", "doc-only"), c.id
        assert c.statement.strip(), c.id
        assert (c.run is None) == (c.method == "doc-only"), c.id
        if c.run is None:
            assert c.reason.strip(), c.id


@pytest.mark.parametrize("check", EXECUTABLE, ids=[c.id for c in EXECUTABLE])
def test_check_passes(check):
    check.run()


def test_markdown_table_lists_every_check(capsys):
    rows = [(c.id, c.statement, c.method, "doc-only" if c.run is None else "PASS", "-", c.reason) for c in CHECKS]
    table = render_markdown(rows).splitlines()
    assert table[0] == "| ID | Statement | Method | Result |" and len(table) == len(CHECKS) + 2
    assert [line.split(" | ")[0].lstrip("| ") for line in table[2:]] == [c.id for c in CHECKS]
    assert main(["--markdown"]) == 0
    assert capsys.readouterr().out.count("\n") == len(CHECKS) + 2


def test_verification_page_lists_the_current_table():
    """docs/verification.md carries the runner's Markdown table verbatim (regenerate with --markdown)."""
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "verification.md").read_text()
    table = subprocess.run(
        [sys.executable, "-m", "proofs_checks", "--markdown"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert table in page
