"""The command line as a dp_accounting / opacus user meets it (issue #30): the names they bring, repeated flags, and
exit statuses a CI job can act on (docs/cli.md, "Exit codes")."""

import json

import pytest

from verialloc.cli import main

RR = ("--mechanism", "randomized-response", "--eps0", "1", "--steps", "1000")
#: the exact ε(δ = 1e-6) of RR above to 72 digits (README: certified [0.12661448, 0.12661449]): within the widening
#: of the exact step even at its most digits (60), so it stays inconclusive
INSIDE_THE_EXACT_WIDENING = "0.126614480960878364726109424728150527948883332469189816842492582552446559"
#: 15 digits of it: inside the 12-digit step's widening, decided by the 30-digit retry (refine, exact_step)
DECIDED_BY_MORE_DIGITS = "0.126614480960878"


def status_and_json(capsys, *argv):
    status = main([*argv, "--json"])
    captured = capsys.readouterr()
    return status, (json.loads(captured.out) if captured.out else None), captured.err


def error_line(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


# --- repeated flags ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, flag",
    [
        (
            ("delta", "--mechanism", "gaussian", "--sigma", "1", "--sigma", "2", "--steps", "1", "--epsilon", "1"),
            "sigma",
        ),
        (("epsilon", *RR, "--delta", "1e-6", "--delta=1e-5"), "delta"),
        (("certify", *RR, "--delta", "1e-6", "--claimed-epsilon", "1", "--claimed-epsilon", "2"), "claimed-epsilon"),
        (
            ("delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--num-steps", "2", "--epsilon", "1"),
            "steps",
        ),
    ],
)
def test_a_repeated_flag_is_refused_naming_it(capsys, argv, flag):
    """`--sigma 1 --sigma 2` answered for σ = 2 without a word (argparse keeps the last), where a config file
    refuses a repeated key; an alias and its flag are the same flag."""
    line = error_line(capsys, *argv)
    assert line.startswith(f"verialloc: error: {flag}=") and "given more than once" in line


# --- the names dp_accounting and opacus users bring ---------------------------------------------------------------


def test_dp_accounting_and_opacus_names_are_aliases(capsys):
    """--noise-multiplier, --num-steps, --sample-rate, --target-delta are --sigma, --steps, --rate, --delta."""
    ours = status_and_json(
        capsys,
        *("epsilon", "--mechanism", "gaussian", "--sigma", "1", "--scheme", "poisson", "--rate", "1"),
        *("--steps", "2", "--delta", "1e-5", "--method", "exact"),
    )
    theirs = status_and_json(
        capsys,
        *("epsilon", "--mechanism", "gaussian", "--noise-multiplier", "1", "--scheme", "poisson"),
        *("--sample-rate", "1", "--num-steps", "2", "--target-delta", "1e-5", "--method", "exact"),
    )
    assert ours[0] == theirs[0] == 0 and ours[1] == theirs[1]
    also = status_and_json(
        capsys,
        *("epsilon", "--mechanism", "gaussian", "--sigma", "1", "--scheme", "poisson"),
        *("--sampling-probability", "1", "--steps", "2", "--delta", "1e-5", "--method", "exact"),
    )
    assert also[1] == ours[1]
    delta = status_and_json(
        capsys, "delta", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--target-epsilon", "1"
    )
    assert delta[0] == 0 and delta[1]["epsilon"] == "1"


@pytest.mark.parametrize(
    "typed, suggested",
    [("--noise_multiplier", "--noise-multiplier"), ("--epsilons", "--epsilon"), ("--setps", "--steps")],
)
def test_an_unknown_flag_gets_the_closest_flag(capsys, typed, suggested):
    line = error_line(capsys, "delta", "--mechanism", "gaussian", "--sigma", "1", typed, "1", "--epsilon", "1")
    assert f"unrecognized argument {typed}" in line and f"did you mean {suggested}?" in line


# --- exit codes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "claim, verdict, status",
    [("0.13", "certified", 0), ("0.1", "refuted", 4), (INSIDE_THE_EXACT_WIDENING, "inconclusive", 5)],
)
def test_certify_exit_status_follows_the_verdict(capsys, claim, verdict, status):
    got, out, _ = status_and_json(capsys, "certify", *RR, "--delta", "1e-6", "--claimed-epsilon", claim)
    assert out["verdict"] == verdict and got == status


def test_a_claim_within_the_12_digit_widening_is_decided_by_more_digits(capsys):
    """The claim is below the exact value (its 15 leading digits, truncated), so refuted at 30 digits (issue #30)."""
    got, out, _ = status_and_json(
        capsys, "certify", *RR, "--delta", "1e-6", "--claimed-epsilon", DECIDED_BY_MORE_DIGITS
    )
    assert out["verdict"] == "refuted" and got == 4
    assert [s["settings"]["digits"] for s in out["refinement"]] == [12, 30]


def _batch(tmp_path, claims):
    path = tmp_path / "claims.csv"
    rows = ["id,mechanism,eps0,steps,delta,claimed_epsilon"]
    rows += [f"r{i},randomized-response,{eps0},1000,1e-6,{claim}" for i, (eps0, claim) in enumerate(claims)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    "claims, status",
    [
        ([("1", "0.13")], 0),
        ([("1", "0.13"), ("1", INSIDE_THE_EXACT_WIDENING)], 5),
        ([("1", INSIDE_THE_EXACT_WIDENING), ("1", "0.1")], 4),
        ([("1", "0.1"), ("0", "0.13")], 2),  # eps0 = 0 is bad input: an error row outranks a refuted one
    ],
)
def test_certify_batch_exit_status_is_its_worst_row(capsys, tmp_path, claims, status):
    assert main(["certify", "--batch", str(_batch(tmp_path, claims)), "--out", str(tmp_path / "out.csv")]) == status


# --- the first command a dp_accounting / opacus user types ------------------------------------------------------

OPACUS_WORDS = ("--noise-multiplier", "2", "--sample-rate", "0.1", "--num-steps", "20", "--target-delta", "1e-5")


def test_noise_multiplier_and_sample_rate_alone_mean_poisson_gaussian(capsys):
    """No --mechanism, no --scheme: σ alone names the Gaussian and a rate names Poisson (only Poisson has one); the
    answer is the one of the explicit configuration and the echo says what was accounted."""
    status, out, _ = status_and_json(capsys, "epsilon", *OPACUS_WORDS, "--method", "pld")
    explicit = ("--mechanism", "gaussian", "--sigma", "2", "--scheme", "poisson", "--rate", "0.1", "--steps", "20")
    status2, out2, _ = status_and_json(capsys, "epsilon", *explicit, "--delta", "1e-5", "--method", "pld")
    assert status == status2 == 0
    assert out["mechanism"] == "gaussian" and out["scheme"] == "poisson" and out["rate"] == "1/10"
    assert (out["lower"], out["upper"]) == (out2["lower"], out2["upper"])


def test_an_explicit_allocation_with_a_rate_is_still_refused(capsys):
    err = error_line(capsys, "epsilon", *OPACUS_WORDS, "--scheme", "allocation")
    assert "rate=0.1" in err and "scheme=poisson" in err


def test_several_mechanism_parameters_without_a_mechanism_are_refused_naming_it(capsys):
    err = error_line(capsys, "epsilon", "--sigma", "1", "--scale", "1", "--steps", "10", "--delta", "1e-5")
    assert "mechanism=(missing)" in err or "scale=" in err


@pytest.mark.parametrize("claim,expected", [("100", 0), ("0.001", 4)])
def test_certify_target_epsilon_is_the_claim(capsys, claim, expected):
    """opacus's target_epsilon is the ε the run is to meet: certify reads it as --claimed-epsilon (ε(1e-5) of this
    run lies in (0.001, 100): one σ = 2 step alone has ε > 0.001 at δ = 1e-5, and 20 steps at rate 0.1 are far below
    the 20-fold composition's ε < 100)."""
    status, out, _ = status_and_json(capsys, "certify", *OPACUS_WORDS, "--target-epsilon", claim)
    assert status == expected and out["claimed"] == claim and out["quantity"] == "epsilon"


def test_a_rate_without_a_scheme_is_poisson_in_python_too():
    from verialloc import Config, Gaussian

    assert Config(Gaussian(1), rate="0.01", steps=10).scheme == "poisson"
    assert Config(Gaussian(1), steps=10).scheme == "allocation"


@pytest.mark.parametrize(
    "key,suggested",
    [("noise_multiplier", "sigma"), ("num_steps", "steps"), ("sample_rate", "rate"), ("setps", "steps")],
)
def test_a_config_file_key_from_another_library_names_verialloc_s(capsys, tmp_path, key, suggested):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"mechanism": "gaussian", "sigma": 1, "steps": 10, key: 1}))
    err = error_line(capsys, "epsilon", "--config", str(path), "--delta", "1e-5")
    assert f"{key}=1 is invalid: unknown configuration key (did you mean {suggested}?)" in err


def test_epsilon_reads_an_opacus_history_as_certify_does(capsys, tmp_path):
    """`verialloc epsilon --from-opacus-history FILE` (it was certify only): the history's events, the same bracket
    as the configuration typed out; a configuration flag beside it is refused naming the flag."""
    path = tmp_path / "history.json"
    path.write_text(json.dumps({"history": [[2.0, 0.1, 20]], "mechanism": "rdp"}))
    status, out, _ = status_and_json(capsys, "epsilon", "--from-opacus-history", str(path), "--delta", "1e-5")
    status2, out2, _ = status_and_json(capsys, "epsilon", *OPACUS_WORDS)
    assert status == status2 == 0 and (out["lower"], out["upper"]) == (out2["lower"], out2["upper"])
    err = error_line(capsys, "epsilon", "--from-opacus-history", str(path), "--sigma", "1", "--delta", "1e-5")
    assert err.startswith("verialloc: error: sigma=1 is invalid: --sigma cannot be combined")
