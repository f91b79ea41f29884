"""Third-party accountants' prints and warnings never reach stdout (issue #11): every adapter call runs with
stdout redirected to stderr and warnings captured, so `verialloc audit --json` prints strict JSON only."""

import json
import math
import os
import warnings

import pytest

from verialloc.audit import OK, audit_one
from verialloc.audit.adapters import Accountant
from verialloc.cli import main

from test_audit_report import one_step_gaussian, truth

NOISE = "Potential alpha underflow/overflow"


def noisy(config, delta):
    print(NOISE)  # what dp_accounting/prv/opacus print on stdout
    warnings.warn("an experimental accountant", UserWarning)
    os.write(1, b"raw fd-1 chatter\n")  # output written below Python's sys.stdout
    return math.nextafter(truth(config, delta), math.inf)


NOISY = Accountant("fake.noisy", "fake-pkg", ("math",), "both", one_step_gaussian, "fake noisy", epsilon=noisy)


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr("verialloc.audit.adapters.registry", lambda: {NOISY.name: NOISY})


@pytest.mark.parametrize("timeout", [None, 20])
def test_prints_and_warnings_go_to_stderr(capfd, golden_by_id, timeout):
    with warnings.catch_warnings(record=True) as leaked:
        warnings.simplefilter("always")
        row = audit_one(NOISY, golden_by_id["gauss-s1-d1e-15"], 10, timeout=timeout)
    out, err = capfd.readouterr()
    assert row.flag == OK
    assert out == ""
    assert NOISE in err and "raw fd-1 chatter" in err
    assert "verialloc audit: fake.noisy: UserWarning: an experimental accountant" in err
    assert not leaked  # captured and written as one line, not re-raised as a warning


@pytest.mark.parametrize("as_json", [True, False])
def test_cli_stdout_holds_only_verialloc_output(capfd, registry, as_json):
    argv = ["audit", "--accountants", "fake.noisy", "--entries", "gauss-s1-d1e-15"] + (["--json"] if as_json else [])
    assert main(argv) == 0
    out, err = capfd.readouterr()
    assert NOISE not in out and "chatter" not in out and "experimental" not in out
    assert NOISE in err
    if as_json:
        data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
        assert data["rows"][0]["accountant"] == "fake.noisy" and data["rows"][0]["flag"] == OK
    else:
        assert "fake.noisy" in out
