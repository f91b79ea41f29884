"""Issue #30 item 2: the default method "auto" answers the most common query; exact where the cost model estimates it
at a few seconds, else best; the same default in api.delta/epsilon/rdp, api.compile and the command line; refusals
name their remedies in the words of the interface (Python: method="pld"; CLI: --method pld)."""

import json

import re

import pytest

from verialloc import Config, Gaussian, RandomizedResponse, UnsupportedRequest, api, cost, registry
from verialloc.auto_method import AUTO_EXACT_SECONDS
from verialloc.cli import main


def test_auto_is_the_registered_default():
    assert registry.DEFAULT == api.DEFAULT == "auto" and list(registry.METHODS)[0] == "auto"


def test_auto_answers_the_common_query_with_best():
    b = api.epsilon(Config(Gaussian(1), steps=1000), "1e-5")
    assert b.method == "best" and 0.13 < b.lower <= b.upper < 0.14


def test_auto_runs_exact_where_it_is_cheap():
    one = Config(Gaussian(1), steps=1)
    assert cost.estimate("epsilon", one, "exact", "1e-5").seconds <= AUTO_EXACT_SECONDS
    b = api.epsilon(one, "1e-5")
    assert b.method == "exact" and b.lower == b.upper
    assert api.delta(Config(RandomizedResponse(1), steps=20), 1).method == "exact"
    assert api.rdp(Config(Gaussian(1), steps=2), 3).method == "exact"


def test_auto_skips_exact_when_its_estimate_is_large():
    two = Config(Gaussian(1), steps=2)  # the exact quadrature's ε search (20 δ evaluations a direction): ~40 s
    assert cost.estimate("epsilon", two, "exact", "1e-5").seconds > AUTO_EXACT_SECONDS
    assert api.epsilon(two, "1e-5").method == "best"
    assert api.delta(two, 1, direction="remove").method == "exact"  # one δ evaluation: cheap, exact quadrature


def test_compile_defaults_to_auto_per_query():
    acc = api.compile(Config(Gaussian(1), steps=1))
    assert acc.epsilon("1e-5").method == "exact"
    big = api.compile(Config(Gaussian(1), steps=1000))
    assert big.epsilon("1e-5").method == "best" and big.delta(1).method == "best"


def test_python_refusals_name_python_remedies():
    with pytest.raises(UnsupportedRequest) as info:
        api.epsilon(Config(Gaussian(1), steps=1000), "1e-5", method="exact")
    assert 'use method="pld"' in str(info.value) and "--method" not in str(info.value)


def test_cli_answers_without_method_and_refusals_name_flags(capsys):
    argv = ["epsilon", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1000", "--delta", "1e-5"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "auto" and out["method_used"] == "best"
    assert main(argv) == 0
    assert "method auto (best)" in capsys.readouterr().out
    assert main([*argv, "--method", "exact"]) == 2
    err = capsys.readouterr().err
    assert "use --method pld" in err and 'method="' not in err


@pytest.mark.parametrize(
    "cli, python",
    [
        ("use --method pld", 'use method="pld"'),
        ("use --method pld, rdp or best", 'use method="pld", "rdp" or "best"'),
        ("use --method pld or a larger --budget", 'use method="pld" or a larger budget=...'),
        ("choose another --method or a larger --budget", "choose another method=... or a larger budget=..."),
        ("; or use --method rdp / analytic (cheaper)", '; or use method="rdp" / "analytic" (cheaper)'),
        ("a coarser --loss-step", "a coarser Settings(loss_step=...)"),
        ("raise --digits", "raise digits=..."),
    ],
)
def test_remedies_in_python_words(cli, python):
    from verialloc.errors import python_words

    assert python_words(cli) == python


def test_certify_refusals_name_python_remedies():
    from verialloc.certify import certify, make_claim
    from verialloc.budget import BudgetExceeded

    huge = Config(Gaussian(1), steps=10**6, epochs=10**4)
    with pytest.raises(BudgetExceeded) as info:
        certify(huge, make_claim(delta="1e-5", claimed_epsilon=1), budget=1)
    assert re.search(r"budget=[0-9]", str(info.value)) and "--" not in str(info.value)
