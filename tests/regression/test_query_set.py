"""Issue #28's fixed CLI query set: every output byte-identical to the recording (query_set.py), wall-clock
figures aside. A change that is meant (a tighter certify bracket) is re-recorded with its before/after in the commit."""
import pytest

from .query_set import QUERIES, RECORD, run

import json

RECORDED = json.loads(RECORD.read_text())


@pytest.mark.parametrize("name", list(QUERIES))
def test_query_output_is_unchanged(name):
    assert RECORDED[name]["argv"] == QUERIES[name], "re-record: python -m tests.regression.query_set record " + name
    now = run(QUERIES[name])
    was = RECORDED[name]
    assert (now["rc"], now["stdout"], now["stderr"]) == (was["rc"], was["stdout"], was["stderr"])
