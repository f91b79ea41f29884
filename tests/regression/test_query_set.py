"""Issue #28's fixed CLI query set: every output byte-identical to the recording (query_set.py), wall-clock
figures aside. A change that is meant (a tighter certify bracket) is re-recorded with its before/after in the commit.

Marked slow (make test-all): the recording holds float64 digits that depend on the numpy/scipy builds installed,
so a new numpy release on PyPI must not fail `make test`; run it before and after a refactor on one environment."""

import difflib
import json

import pytest

from .query_set import QUERIES, RECORD, run

RECORDED = json.loads(RECORD.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("name", list(QUERIES))
def test_query_output_is_unchanged(name):
    assert RECORDED[name]["argv"] == QUERIES[name], "re-record: python -m tests.regression.query_set record " + name
    now, was = run(QUERIES[name]), RECORDED[name]
    changes = [f"exit status {was['rc']} -> {now['rc']}"] if now["rc"] != was["rc"] else []
    for stream in ("stdout", "stderr"):
        changes += [
            line
            for line in difflib.unified_diff(
                was[stream].splitlines(),
                now[stream].splitlines(),
                f"recorded {stream}",
                f"now {stream}",
                lineterm="",
                n=0,
            )
        ]
    assert not changes, "\n".join(changes)
