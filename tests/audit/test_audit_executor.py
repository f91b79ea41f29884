"""`audit` on the shared executor (certify/executor.py): the same rows wherever the calls run (issue #14).

Rows are compared with the in-process run (flags exactly, reported values to 1e-9: dp_accounting's FFTs may
differ in the last bits between processes); that the flags themselves are right is test_audit_*'s business.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from verialloc.audit import golden
from verialloc.audit.adapters import Accountant, registry
from verialloc.audit.runner import audit
from verialloc.cli import main
from verialloc.errors import UnsupportedRequest

pytest.importorskip("dp_accounting")
NAMES = ["dp_accounting.pld", "dp_accounting.rdp"]
IDS = ["dpsgd-s0.8-T1e3-e2", "gauss-s1-d1e-15"]


def _entries():
    return [e for e in golden.load()["entries"] if e["id"] in IDS]


def _summary(rows):
    return [(r.accountant, r.entry, r.flag, float(r.reported)) for r in rows]


def _same(a, b):
    assert [x[:3] for x in a] == [y[:3] for y in b]
    for x, y in zip(a, b):
        assert x[3] == pytest.approx(y[3], rel=1e-9)


@pytest.fixture(scope="module")
def local_rows():
    reg = registry()
    return _summary(audit([reg[n] for n in NAMES], _entries(), timeout=60))


@pytest.mark.parametrize("executor", ["process", "threads"])
def test_rows_do_not_depend_on_where_the_calls_run(local_rows, executor):
    reg = registry()
    where = {"executor": "process", "workers": 2} if executor == "process" else {"executor": ThreadPoolExecutor(2)}
    _same(_summary(audit([reg[n] for n in NAMES], _entries(), timeout=60, **where)), local_rows)


def test_an_unregistered_accountant_runs_only_locally():
    mine = Accountant(
        "mine", "my-package", (), "both", lambda config: True, "my_epsilon", epsilon=lambda config, delta: 0.1
    )
    with pytest.raises(UnsupportedRequest, match="'mine' is not a registered adapter"):
        audit([mine], _entries(), executor="process", workers=1)
    assert [(r.entry, r.flag) for r in audit([mine], _entries())] == [("gauss-s1-d1e-15", "UNSAFE")]  # ε entries only


def test_cli_on_a_local_dask_cluster(local_rows, capsys):
    status = main(
        [
            "audit",
            "--accountants",
            ",".join(NAMES),
            "--entries",
            ",".join(IDS),
            "--timeout",
            "60",
            "--executor",
            "dask",
            "--workers",
            "1",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    rows = [(r["accountant"], r["entry"], r["flag"], float(r["reported"])) for r in out["rows"]]  # strict JSON: "inf"
    _same(rows, local_rows)
