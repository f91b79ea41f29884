"""The differential soundness fuzzer (verialloc.testing.fuzz, `verialloc fuzz`): a short deterministic slice,
a planted bug it must catch with a reproducing command, strict JSON, and a longer slow run."""

import json
import shlex
import subprocess
import sys
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import api, cli
from verialloc.numeric.pld import pld_accountant
from verialloc.result import Bracket
from verialloc.testing import fuzz as fz
from verialloc.testing.fuzz.cases import Case, text


def _rr_case(**changes) -> Case:
    base = dict(
        family="randomized-response",
        param=Fraction(1),
        p=None,
        q=None,
        scheme="allocation",
        steps=10,
        k=1,
        epochs=1,
        rate=None,
        quantity="epsilon",
        value=Fraction(1, 10**6),
        direction="remove",
    )
    base.update(changes)
    return Case(**base)


def test_case_round_trips_through_json_and_text():
    case = Case(
        "discrete",
        None,
        (Fraction(1, 3), Fraction(2, 3)),
        (Fraction(1, 2), Fraction(1, 2)),
        "poisson",
        7,
        1,
        3,
        Fraction(1, 8),
        "delta",
        Fraction(-7, 8),
        "both",
        Fraction(1, 100),
    )
    assert Case.from_dict(json.loads(case.to_json())) == case
    assert [text(x) for x in (Fraction(7, 8), Fraction(-1, 10**300), Fraction(1, 3), Fraction(5))] == [
        "0.875",
        "-1e-300",
        "1/3",
        "5",
    ]
    command = case.query_command("pld", ["--loss-step", "0.001"])
    assert "--pair /tmp/verialloc-fuzz-pair.json" in command and "--rate 0.125" in command


def test_strict_json_has_no_nan_or_infinity_tokens():
    text_out = fz.dumps({"a": mp.inf, "b": -mp.inf, "c": float("nan"), "d": [mp.mpf("0.5"), float("inf")]})
    assert json.loads(text_out) == {"a": "inf", "b": "-inf", "c": "nan", "d": ["0.5", "inf"]}


def test_short_deterministic_slice():
    """A few cheap cases over every method: well-formed report, strict JSON, same seed gives the same cases."""
    kwargs = dict(
        minutes=0.75,
        seed=3,
        methods=tuple(api.METHODS),
        families=("randomized-response", "discrete"),
        max_cases=4,
        timeout=8,
    )
    first = fz.fuzz(**kwargs)
    out = fz.summary_json(first)
    json.dumps(out, allow_nan=False)
    assert out["cases"] >= 1 and set(out["counts"]) <= {"randomized-response", "discrete"}
    assert sum(row["checks"] for row in out["counts"].values()) >= 10 * out["cases"]
    assert not out["violations"], out["violations"]  # the deterministic slice is a soundness regression test
    again = fz.fuzz(**dict(kwargs, methods=("exact",), max_cases=2))
    assert [r.case for r in again.cases] == [r.case for r in first.cases][: len(again.cases)]


def test_planted_bug_is_caught_with_a_reproducing_command(monkeypatch):
    """pld's upper end 10% too low must show up as a violation against the exact layer, with a command line."""
    honest = pld_accountant.query

    def too_low(quantity, *args, **kwargs):
        b = honest(quantity, *args, **kwargs)
        if quantity != "epsilon":
            return b
        return Bracket(
            b.quantity, min(b.lower, b.upper * 0.9), b.upper * 0.9, b.method, b.direction, b.error_kind, b.details
        )

    monkeypatch.setattr(pld_accountant, "query", too_low)
    report = fz.fuzz(
        minutes=1,
        seed=0,
        methods=("exact", "pld"),
        families=("randomized-response",),
        max_cases=3,
        timeout=10,
        shrink_seconds=5,
        with_certify=False,
    )
    found = [v for v in report.found.values() if v.kind == "bracket" and v.methods == ("exact", "pld")]
    assert found, f"planted bug not caught in {len(report.cases)} cases"
    violation = found[0]
    command = next(c for c in violation.commands if "--method pld" in c)
    assert command.startswith("verialloc epsilon ") and "--loss-step 0.001" in command
    # the printed command reproduces the planted bug through the CLI (same process: the patch applies)
    argv = shlex.split(command)[1:] + ["--json"]
    out = cli.run(argv)
    exact = api.epsilon(violation.case.config(), violation.case.value, direction=violation.case.direction)
    assert mp.mpf(out["upper"]) < exact.lower
    replayed = fz.replay(violation.case, ("exact", "pld"))
    assert any(v.methods == ("exact", "pld") for v in replayed.violations)


def test_cli_replay_and_bad_input(capsys):
    case = _rr_case()
    assert cli.main(["fuzz", "--replay", case.to_json(), "--methods", "exact,pld", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"] == "fuzz-replay" and out["violations"] == []
    assert out["results"]["exact"]["status"] == "ok"
    assert cli.main(["fuzz", "--methods", "exact,nope"]) == 2
    assert "methods=exact,nope is invalid" in capsys.readouterr().err


@pytest.mark.slow
def test_longer_run_over_every_family():
    """Four minutes over every family and method through the CLI: strict JSON, every family drawn, and every
    violation found comes with reproducing command lines (the run reports bugs; it does not fail on them)."""
    proc = subprocess.run(
        [sys.executable, "-m", "verialloc.cli", "fuzz", "--minutes", "4", "--seed", "11", "--timeout", "10", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout, parse_constant=lambda token: pytest.fail(f"non-strict JSON token {token}"))
    assert out["cases"] >= 10 and len(out["counts"]) >= 3
    for v in out["violations"]:
        assert v["replay"].startswith("verialloc fuzz --replay ")
        assert v["commands"] or v["methods"] == ["trivial"], v
        assert Case.from_dict(v["case"]).describe() == v["description"]


def test_certify_claim_is_a_short_decimal_or_none():
    """The claim handed to certify is the exact value × (1 + offset) to 16 digits; an exact value far outside the
    float range (δ ≈ 1e-100000 is a valid mpmath result) gives no claim instead of a decimal with 100,000 digits
    (seed 11 spent minutes building one)."""
    from verialloc.testing.fuzz.cases import Case
    from verialloc.testing.fuzz.checks import certify_claim

    case = Case.from_dict(
        {
            "family": "gaussian",
            "param": "1",
            "scheme": "allocation",
            "steps": 2,
            "k": 1,
            "epochs": 1,
            "rate": "1",
            "quantity": "delta",
            "value": "1",
            "direction": "remove",
            "claim_offset": "1/10",
            "p": None,
            "q": None,
        }
    )
    tiny = mp.mpf("1e-100000")
    assert certify_claim(case, tiny, tiny) is None
    claim = certify_claim(case, mp.mpf("2.5e-40"), mp.mpf("2.5e-40"))
    assert claim == Fraction("2.75e-40")
