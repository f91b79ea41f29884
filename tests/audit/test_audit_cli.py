"""`verialloc audit` (verialloc/cli/audit.py) driven through its own parser, with fake accountants."""

import json

import pytest

from verialloc.cli import audit as audit_cli
from verialloc.cli.common import Parser
from verialloc.errors import InvalidParameter, UnsupportedRequest

from test_audit_report import FAKES


def run(argv):
    parser = Parser(prog="verialloc")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    audit_cli.register(sub)
    args = parser.parse_args(["audit", *argv])
    out = args.run(args)
    return out, args.render(out)


@pytest.fixture
def fakes(monkeypatch):
    reg = {a.name: a for a in FAKES.values()}
    monkeypatch.setattr("verialloc.audit.adapters.registry", lambda: reg)
    return reg


def test_golden_audit_json_and_markdown(fakes, tmp_path):
    md = tmp_path / "audit.md"
    out, text = run(
        [
            "--accountants",
            "fake.correct,fake.optimistic,fake.nan,fake.loose",
            "--entries",
            "gauss-s1-d1e-15",
            "--markdown",
            str(md),
            "--json",
        ]
    )
    json.dumps(out, allow_nan=False)
    assert out["summary"] == {"OK": 1, "LOOSE": 1, "UNSAFE": 1, "OUTSIDE": 0, "ERROR": 1, "TIMEOUT": 0}
    assert {r["claims"] for r in out["rows"]} == {"upper"}
    assert out["golden_versions"]["verialloc"] and out["loose_percent"] == 10
    assert "UNSAFE" in text and "fake.loose" in text
    assert "**UNSAFE**" in md.read_text()


def test_config_mode_computes_the_bracket(fakes):
    out, _ = run(
        [
            "--mechanism",
            "gaussian",
            "--sigma",
            "2",
            "--steps",
            "1",
            "--delta",
            "1e-8",
            "--method",
            "exact",
            "--accountants",
            "fake.correct,fake.optimistic",
            "--loose-percent",
            "0",
        ]
    )
    assert [r["flag"] for r in out["rows"]] == ["OK", "UNSAFE"] and out["rows"][0]["entry"] == "config"


def test_default_uses_installed_accountants_and_list(fakes):
    out, text = run(["--entries", "gauss-s1-d1e-15"])
    assert len(out["rows"]) == len(FAKES)
    out, text = run(["--list"])
    assert "gauss-s1-d1e-15" in out["entries"] and "fake.nan" in text


@pytest.mark.parametrize(
    "argv, error",
    [
        (["--accountants", "nope"], InvalidParameter),
        (["--entries", "nope"], InvalidParameter),
        (["--loose-percent", "-1"], InvalidParameter),
        (["--loose-percent", "abc"], InvalidParameter),
        (["--mechanism", "gaussian", "--sigma", "1", "--steps", "1"], InvalidParameter),
        (["--mechanism", "laplace", "--scale", "1", "--steps", "1", "--delta", "1e-5"], UnsupportedRequest),
        (["--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--delta", "2"], InvalidParameter),
    ],
)
def test_bad_input(fakes, argv, error):
    with pytest.raises(error):
        run(argv)


def test_not_installed_accountant_is_named(monkeypatch):
    from verialloc.audit.adapters import registry

    reg = registry()
    missing = [a for a in reg.values() if not a.installed()]
    if not missing:
        pytest.skip("every audited library is installed here")
    with pytest.raises(UnsupportedRequest, match=r"pip install 'verialloc\[audit\]'"):
        run(["--accountants", missing[0].name])


def test_no_row_is_an_error_not_an_empty_ok_table(fakes, monkeypatch):
    """When no chosen accountant serves the entries (dp_accounting on random allocation) the table was empty and
    the exit status 0, read as 'all OK' (hostile-user finding, #14)."""
    monkeypatch.setattr("verialloc.audit.runner.audit", lambda *args, **kwargs: [])
    with pytest.raises(UnsupportedRequest, match="none of them serves these entries"):
        run(["--mechanism", "gaussian", "--sigma", "1", "--steps", "100", "--delta", "1e-5"])


@pytest.mark.parametrize(
    "accountants, status",
    [("fake.correct", 0), ("fake.correct,fake.loose,fake.nan", 0), ("fake.correct,fake.optimistic", 4)],
)
def test_audit_exit_status_is_nonzero_with_an_unsafe_row(fakes, capsys, accountants, status):
    """A CI job running `verialloc audit` fails when an accountant's bound is on the wrong side of the certified
    bracket (UNSAFE, status 4); LOOSE and ERROR rows alone keep 0 (docs/cli.md, "Exit codes")."""
    from verialloc.cli import main

    assert main(["audit", "--accountants", accountants, "--entries", "gauss-s1-d1e-15", "--json"]) == status
    assert json.loads(capsys.readouterr().out)["rows"]
