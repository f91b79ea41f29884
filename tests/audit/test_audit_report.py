"""Runner and report with fake accountants (no third-party library): an optimistic one is UNSAFE, a NaN one
ERROR, a loose one LOOSE, a correct one (closed form F13, independent of verialloc) OK — against the shipped
golden entry gauss-s1-d1e-15 (exact method) and an entry whose bracket is the reference rounded outward."""

import json
import math

import mpmath as mp
import pytest

from verialloc.audit import ERROR, LOOSE, OK, OUTSIDE, TIMEOUT, UNSAFE, audit, audit_one
from verialloc.audit.adapters import Accountant, NotInstalled
from verialloc.audit.report import summary, to_json, to_markdown, to_terminal
from verialloc.formatting import decimal

from audit_refs import gaussian_epsilon


def one_step_gaussian(config) -> bool:
    return config.mechanism.name == "gaussian" and config.steps == 1


def truth(config, delta) -> float:
    sigma = config.mechanism.sigma  # a Fraction
    return float(gaussian_epsilon(mp.mpf(sigma.denominator) / sigma.numerator, delta))


def fake(name, fn, module="math"):
    return Accountant(name, "fake-pkg", (module,), "both", one_step_gaussian, f"fake {name}", epsilon=fn)


def raising(config, delta):
    raise RuntimeError("boom")


FAKES = {
    "correct": fake("fake.correct", lambda c, d: math.nextafter(truth(c, d), math.inf)),
    "optimistic": fake("fake.optimistic", lambda c, d: 0.8 * truth(c, d)),
    "nan": fake("fake.nan", lambda c, d: float("nan")),
    "inf": fake("fake.inf", lambda c, d: float("inf")),
    "negative": fake("fake.negative", lambda c, d: -1e-3),
    "raises": fake("fake.raises", raising),
    "loose": fake("fake.loose", lambda c, d: 1.5 * truth(c, d)),
}
EXPECTED = {
    "correct": OK,
    "optimistic": UNSAFE,
    "nan": ERROR,
    "inf": LOOSE,
    "negative": ERROR,
    "raises": ERROR,
    "loose": LOOSE,
}


def reference_entry(sigma="1", delta="1e-6"):
    ref = gaussian_epsilon(1 / mp.mpf(sigma), delta)
    br = [decimal(ref, 14, "down"), decimal(ref, 14, "up")]
    return {
        "id": "ref",
        "config": {"mechanism": "gaussian", "sigma": sigma, "scheme": "allocation", "steps": 1, "k": 1, "epochs": 1},
        "quantity": "epsilon",
        "target": delta,
        "brackets": {"remove": br, "add": br, "both": br},
    }


@pytest.mark.parametrize("kind", list(FAKES))
def test_flags_of_fake_accountants(kind, golden_by_id):
    for entry in (reference_entry(), golden_by_id["gauss-s1-d1e-15"]):
        row = audit_one(FAKES[kind], entry, 10)
        assert row.flag == EXPECTED[kind], (kind, entry["id"], row)
        assert row.direction == "both" and row.accountant == FAKES[kind].name


def test_audit_skips_unserved_entries_and_reports(golden_table, tmp_path):
    rows = audit(list(FAKES.values()), golden_table["entries"], 10)
    served = [e for e in golden_table["entries"] if e["config"]["steps"] == 1]
    assert len(rows) == len(FAKES) * len(served)
    out = to_json(rows, {"command": "audit"})
    json.dumps(out, allow_nan=False)  # NaN/inf reported as strings
    assert out["summary"] == summary(out["rows"])
    assert out["summary"][UNSAFE] == len(served) and out["summary"][LOOSE] == 2 * len(served)  # loose and inf
    assert out["summary"][ERROR] == 3 * len(served) and out["summary"][OK] == len(served)
    text = to_terminal(out["rows"])
    for flag in (OK, LOOSE, UNSAFE, ERROR):
        assert flag in text
    assert "fake.optimistic" in text and "boom" in text
    md = to_markdown(out["rows"])
    lines = md.splitlines()
    assert lines[0].startswith("| accountant |") and len([x for x in lines if x.startswith("| fake")]) == len(rows)
    assert "**UNSAFE**" in md and "**ERROR**" in md and "Summary: OK 1" in md


def test_loose_percent_changes_only_loose():
    entry = reference_entry()
    assert audit_one(FAKES["loose"], entry, 60).flag == OK
    assert audit_one(FAKES["loose"], entry, 40).flag == LOOSE


def test_time_limited_calls_run_in_a_child():
    """A call past the time limit is killed and flagged TIMEOUT (issue #10 item 6: not an ERROR of correctness)."""
    import time

    def slow(config, delta):
        time.sleep(30)

    entry = reference_entry()
    row = audit_one(fake("fake.slow", slow), entry, timeout=0.5)
    assert row.flag == TIMEOUT and row.reason.startswith("timeout") and row.seconds < 10
    assert audit_one(FAKES["raises"], entry, timeout=20).reason == "RuntimeError: boom"
    assert audit_one(FAKES["correct"], entry, timeout=20).flag == OK
    assert audit_one(FAKES["optimistic"], entry, timeout=20).flag == UNSAFE


def test_missing_library_is_a_clear_error():
    acc = fake("fake.missing", lambda c, d: 1.0, module="verialloc_no_such_library")
    assert not acc.installed()
    with pytest.raises(NotInstalled, match=r"pip install 'verialloc\[audit\]'"):
        audit_one(acc, reference_entry())


def test_rows_follow_the_declared_claim(tmp_path):
    """Issue #10 item 6: the same numbers flagged by what each adapter says they are. A lower end / estimate below
    the truth (prv.lower, pld-optimistic, prv.estimate) is not UNSAFE; a lower end above the truth is."""
    entry = reference_entry()

    def claiming(name, fn, claims):
        return Accountant(name, "fake-pkg", ("math",), "both", one_step_gaussian, name, epsilon=fn, claims=claims)

    accs = [
        claiming("fake.lower-zero", lambda c, d: 0.0, "lower"),
        claiming("fake.lower-below", lambda c, d: 0.95 * truth(c, d), "lower"),
        claiming("fake.lower-above", lambda c, d: 1.2 * truth(c, d), "lower"),
        claiming("fake.estimate-below", lambda c, d: 0.8 * truth(c, d), "estimate"),
        claiming("fake.estimate-in", lambda c, d: truth(c, d), "estimate"),
        claiming("fake.upper-below", lambda c, d: 0.8 * truth(c, d), "upper"),
    ]
    rows = audit(accs, [entry], 10)
    assert [(r.claims, r.flag) for r in rows] == [
        ("lower", LOOSE),
        ("lower", OK),
        ("lower", UNSAFE),
        ("estimate", OUTSIDE),
        ("estimate", OK),
        ("upper", UNSAFE),
    ]
    out = to_json(rows)
    assert out["summary"] == {OK: 2, LOOSE: 1, UNSAFE: 2, OUTSIDE: 1, ERROR: 0, TIMEOUT: 0}
    assert [r["claims"] for r in out["rows"]] == ["lower", "lower", "lower", "estimate", "estimate", "upper"]
    text, md = to_terminal(out["rows"], width=220), to_markdown(out["rows"])
    assert "claims" in text and "OUTSIDE" in text and "estimate" in text and "flags:" in text
    assert md.splitlines()[0].split(" | ")[4] == "claims" and "| estimate |" in md and "Flags:" in md


def test_shipped_adapters_declare_their_claims():
    """Lower ends and estimates are declared as such (docs/audit.md, Adapters); everything else is a guarantee."""
    from verialloc.audit.adapters import registry

    claims = {name: acc.claims for name, acc in registry().items()}
    assert claims.pop("prv.lower") == "lower" and claims.pop("dp_accounting.pld-optimistic") == "lower"
    assert claims.pop("prv.estimate") == "estimate"
    assert set(claims.values()) == {"upper"}
    with pytest.raises(ValueError):
        Accountant("bad", "p", (), "both", one_step_gaussian, "c", epsilon=truth, claims="maybe")
