"""`--config FILE` for every command with configuration flags and inline `--pair` JSON (issue #14, last bullet).

* routing: the same query through flags and through a JSON or TOML config file prints byte-identical output
  (rdp, delta, epsilon; certify, calibrate and audit reach the same configuration);
* values: a config-file query against independent closed forms (mpmath / Fractions, not the exact layer's code);
* one rule: any configuration flag given with --config is an error naming that flag, for every command;
* hostile files and values (unparseable, wrong types, unknown keys, directories, /dev/zero, FIFOs, oversized files
  and inline text, huge numbers, NaN) exit 2 with one line naming the key, quickly and without a traceback.
"""

import json
import os
import time
from pathlib import Path

import mpmath as mp
import pytest

from verialloc.cli import main
from verialloc.io.files import MAX_BYTES as MAX_PAIR_BYTES

GAUSS = {"mechanism": "gaussian", "sigma": 0.8, "steps": 1}
RR_POISSON = {"mechanism": "randomized-response", "eps0": "1", "scheme": "poisson", "steps": 3, "rate": 0.5}
PAIR = {"p": ["1/2", "1/2"], "q": [0.25, 0.75]}
DISCRETE = {"mechanism": "discrete", "pair": PAIR, "steps": 2, "k": 1, "epochs": 2}


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_ok(capsys, argv) -> str:
    status, out, err = run(capsys, argv)
    assert status == 0, err
    return out


def one_error_line(capsys, argv) -> str:
    start = time.monotonic()
    status, out, err = run(capsys, argv)
    assert time.monotonic() - start < 20, argv  # bounded: no endless read, no giant-number conversion
    assert status == 2, (argv, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("verialloc: error: "), err
    assert len(lines[0]) < 1000, lines[0]  # hostile values are shown abbreviated
    return lines[0]


def toml_value(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(v)  # strings, ints and floats are spelled alike in TOML and JSON


def write_config(tmp_path, data: dict, kind: str, name: str = "run"):
    path = tmp_path / f"{name}.{kind}"
    if kind == "json":
        path.write_text(json.dumps(data))
    else:
        path.write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in data.items()))
    return str(path)


def as_flags(data: dict) -> list[str]:
    out = []
    for key, value in data.items():
        out += [f"--{key}", json.dumps(value) if isinstance(value, dict) else str(value)]
    return out


# --- routing: flags and --config give byte-identical answers ------------------------------------------------------

QUERIES = [
    (GAUSS, ["delta", "--epsilon", "0.5"]),
    (GAUSS, ["epsilon", "--delta", "1e-3", "--direction", "remove"]),
    (GAUSS, ["rdp", "--alpha", "3"]),
    (RR_POISSON, ["delta", "--epsilon", "0.25"]),
    (RR_POISSON, ["rdp", "--alpha", "2"]),
    (DISCRETE, ["epsilon", "--delta", "0.01"]),
    (DISCRETE, ["delta", "--epsilon", "0.1", "--method", "pld", "--loss-step", "1e-3"]),
    (
        {"mechanism": "laplace", "scale": "2", "steps": 20},
        ["delta", "--epsilon", "1", "--method", "rdp", "--direction", "remove", "--alpha-max", "16"],
    ),
]


@pytest.mark.parametrize("kind", ["json", "toml"])
@pytest.mark.parametrize("data, query", QUERIES)
@pytest.mark.parametrize("as_json", [True, False])
def test_flags_and_config_file_print_the_same(capsys, tmp_path, kind, data, query, as_json):
    tail = ["--json"] if as_json else []
    by_flags = run_ok(capsys, query + as_flags(data) + tail)
    by_file = run_ok(capsys, query + ["--config", write_config(tmp_path, data, kind)] + tail)
    assert by_file == by_flags


@pytest.mark.parametrize("kind", ["json", "toml"])
@pytest.mark.parametrize(
    "text, exact",
    [("0.10000000000000000001", "10000000000000000001/100000000000000000000"), ("1.5e-400", "3/" + "2" + "0" * 400)],
)
def test_a_number_in_a_file_keeps_every_digit(capsys, tmp_path, kind, text, exact):
    """A bare number in JSON or TOML is read as written, as the flag would be: `0.10000000000000000001` was 0.1 and
    TOML's 1e-400 was 0.0 through float64 (hostile-user finding, #14)."""
    path = tmp_path / f"run.{kind}"
    path.write_text(
        '{"mechanism": "gaussian", "sigma": %s, "steps": 1}' % text
        if kind == "json"
        else f'mechanism = "gaussian"\nsigma = {text}\nsteps = 1\n'
    )
    query = ["rdp", "--alpha", "2", "--json"]
    by_file = json.loads(run_ok(capsys, query + ["--config", str(path)]))
    assert by_file["params"]["sigma"] == exact
    assert by_file == json.loads(run_ok(capsys, query + ["--mechanism", "gaussian", "--sigma", text, "--steps", "1"]))


def test_toml_digit_separators_are_toml_not_python(capsys, tmp_path):
    """TOML's 1_0.5 is 10.5 (a float read as its text, separators dropped); a string "1_0" is refused (Fraction
    read it as 10)."""
    path = tmp_path / "run.toml"
    path.write_text('mechanism = "gaussian"\nsigma = 1_0.5\nsteps = 1_0\n')
    out = json.loads(run_ok(capsys, ["rdp", "--alpha", "2", "--json", "--config", str(path)]))
    assert out["params"]["sigma"] == "21/2" and out["steps"] == 10
    path.write_text('mechanism = "gaussian"\nsigma = "1_0"\nsteps = 1\n')
    assert "ASCII digits" in one_error_line(capsys, ["rdp", "--alpha", "2", "--config", str(path)])


@pytest.mark.parametrize(
    "pair_value",
    [
        PAIR,  # a TOML/JSON table
        json.dumps(PAIR),  # an inline JSON object string
        "  \n" + json.dumps(PAIR),  # ... after whitespace
        "pair.json",  # a path (relative to the working directory)
    ],
)
def test_pair_forms_in_a_config_file_and_on_the_command_line(capsys, tmp_path, monkeypatch, pair_value):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pair.json").write_text(json.dumps(PAIR))
    query = ["delta", "--epsilon", "0.1", "--json"]
    reference = run_ok(capsys, query + ["--mechanism", "discrete", "--pair", "pair.json", "--steps", "2"])
    data = {"mechanism": "discrete", "pair": pair_value, "steps": 2}
    for kind in ("json", "toml"):
        assert run_ok(capsys, query + ["--config", write_config(tmp_path, data, kind)]) == reference
    if isinstance(pair_value, str):  # the same text as --pair
        assert run_ok(capsys, query + ["--mechanism", "discrete", "--pair", pair_value, "--steps", "2"]) == reference


def _without_timings(out: dict) -> dict:
    out = dict(out)
    out.pop("elapsed_seconds", None)
    for key in ("refinement", "probes"):
        if key in out:
            out[key] = [{k: v for k, v in step.items() if k != "seconds"} for step in out[key]]
    return out


def test_certify_reads_the_same_config(capsys, tmp_path):
    claim = ["--delta", "1e-5", "--claimed-epsilon", "1", "--json"]  # ε0 = 1 bounds ε of every allocation
    data = {"mechanism": "randomized-response", "eps0": 1, "steps": 100}
    by_flags = json.loads(run_ok(capsys, ["certify", *as_flags(data), *claim]))
    by_file = json.loads(run_ok(capsys, ["certify", "--config", write_config(tmp_path, data, "toml"), *claim]))
    assert _without_timings(by_file) == _without_timings(by_flags)
    assert by_file["verdict"] == "certified" and by_file["steps"] == 100


def test_calibrate_reads_a_gaussian_config_and_refuses_others(capsys, tmp_path):
    target = ["--target-epsilon", "2", "--delta", "1e-6", "--json"]
    by_flags = json.loads(run_ok(capsys, ["calibrate", "--steps", "1", *target]))
    path = write_config(tmp_path, {"mechanism": "gaussian", "sigma": 1, "steps": 1}, "json")
    by_file = json.loads(run_ok(capsys, ["calibrate", "--config", path, *target]))
    assert _without_timings(by_file) == _without_timings(by_flags)  # σ = 1 is calibrate's own starting point
    line = one_error_line(capsys, ["calibrate", "--config", write_config(tmp_path, RR_POISSON, "json"), *target])
    assert line.startswith("verialloc: error: mechanism=randomized-response is invalid")


def test_audit_reads_the_config(capsys, tmp_path):
    """audit's configuration mode sees the file's keys (its Gaussian-only check fires on the file's mechanism)."""
    line = one_error_line(capsys, ["audit", "--config", write_config(tmp_path, RR_POISSON, "toml"), "--delta", "1e-5"])
    assert line.startswith("verialloc: error: mechanism=randomized-response is not supported here")


# --- values: config-file answers against independent closed forms -------------------------------------------------


def digits12(x) -> str:
    return mp.nstr(x, 12, strip_zeros=False)


def test_gaussian_delta_from_config_matches_the_closed_form(capsys, tmp_path):
    """t = 1: δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang), both directions alike."""
    path = write_config(tmp_path, GAUSS, "toml")
    out = json.loads(run_ok(capsys, ["delta", "--config", path, "--epsilon", "0.5", "--digits", "12", "--json"]))
    with mp.workdps(40):
        s, e = mp.mpf(4) / 5, mp.mpf(1) / 2
        truth = mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)
        assert out["error_kind"] == "exact" and out["lower"] == out["upper"]
        assert abs(mp.mpf(out["upper"]) - truth) <= truth * mp.mpf("1e-11")


def test_gaussian_rdp_from_config_is_alpha_over_two_sigma_squared(capsys, tmp_path):
    path = write_config(tmp_path, {"mechanism": "gaussian", "sigma": "1/2", "steps": 1}, "json")
    out = json.loads(run_ok(capsys, ["rdp", "--config", path, "--alpha", "3", "--json"]))
    assert mp.mpf(out["rdp"]) == 6  # α/(2σ²) = 3/(2/4)


def test_poisson_randomized_response_from_config_matches_the_mixture(capsys, tmp_path):
    """One Poisson step at rate λ: remove δ = Σ [λP + (1−λ)Q − e^ε Q]_+, add δ = Σ [Q − e^ε (λP + (1−λ)Q)]_+."""
    data = dict(RR_POISSON, steps=1)
    out = json.loads(
        run_ok(capsys, ["delta", "--config", write_config(tmp_path, data, "toml"), "--epsilon", "0.25", "--json"])
    )
    with mp.workdps(40):
        x, lam, k = mp.e, mp.mpf(1) / 2, mp.exp(mp.mpf(1) / 4)
        p, q = [x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]
        mix = [lam * a + (1 - lam) * b for a, b in zip(p, q)]
        remove = mp.fsum(max(m - k * b, 0) for m, b in zip(mix, q))
        add = mp.fsum(max(b - k * m, 0) for m, b in zip(mix, q))
        assert out["per_direction"]["remove"]["upper"] == digits12(remove)
        assert out["per_direction"]["add"]["upper"] == digits12(add)
        assert out["upper"] == digits12(max(remove, add))


def test_inline_pair_matches_the_hockey_stick_sum(capsys):
    """t = 1 discrete pair: δ(ε) = Σ [p_i − e^ε q_i]_+ (remove), Σ [q_i − e^ε p_i]_+ (add)."""
    out = json.loads(
        run_ok(
            capsys,
            [
                "delta",
                "--mechanism",
                "discrete",
                "--pair",
                ' {"p": ["1/2", 0.5], "q": [0.25, "3/4"]}',
                "--steps",
                "1",
                "--epsilon",
                "0.1",
                "--json",
            ],
        )
    )
    with mp.workdps(40):
        k = mp.exp(mp.mpf(1) / 10)
        p, q = [mp.mpf(1) / 2] * 2, [mp.mpf(1) / 4, mp.mpf(3) / 4]
        remove = mp.fsum(max(a - k * b, 0) for a, b in zip(p, q))
        add = mp.fsum(max(b - k * a, 0) for a, b in zip(p, q))
    assert out["params"] == {"p": "[1/2, 1/2]", "q": "[1/4, 3/4]"}
    assert out["per_direction"]["remove"]["upper"] == digits12(remove)
    assert out["per_direction"]["add"]["upper"] == digits12(add)


# --- one rule: a configuration flag with --config is an error -----------------------------------------------------

COMMANDS = {
    "delta": ["delta", "--epsilon", "1"],
    "epsilon": ["epsilon", "--delta", "1e-5"],
    "rdp": ["rdp", "--alpha", "2"],
    "certify": ["certify", "--delta", "1e-5", "--claimed-epsilon", "1"],
    "calibrate": ["calibrate", "--target-epsilon", "1", "--delta", "1e-5"],
    "audit": ["audit", "--delta", "1e-5"],
}
CONFIG_FLAG_VALUES = [
    ("mechanism", "gaussian"),
    ("sigma", "0.8"),
    ("scale", "1"),
    ("eps0", "1"),
    ("pair", json.dumps(PAIR)),
    ("scheme", "allocation"),
    ("steps", "1"),
    ("k", "1"),
    ("epochs", "1"),
    ("rate", "1"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag, value", CONFIG_FLAG_VALUES)
def test_a_configuration_flag_with_config_is_an_error(capsys, tmp_path, command, flag, value):
    """Even a flag equal to the file's value or to its default (--scheme allocation, --k 1)."""
    path = write_config(tmp_path, GAUSS, "json")
    line = one_error_line(capsys, COMMANDS[command] + ["--config", path, f"--{flag}", value])
    assert line.startswith(f"verialloc: error: {flag}=") and "cannot be combined with --config" in line


@pytest.mark.parametrize("command", ["delta", "epsilon", "rdp"])
def test_missing_configuration_names_both_ways(capsys, command):
    line = one_error_line(capsys, COMMANDS[command])
    assert line.startswith("verialloc: error: mechanism=(missing) is invalid") and "--config FILE" in line
    line = one_error_line(capsys, COMMANDS[command] + ["--mechanism", "gaussian", "--sigma", "1"])
    assert line.startswith("verialloc: error: steps=(missing) is invalid") and "--config FILE" in line


# --- hostile configuration files ----------------------------------------------------------------------------------

GAUSS_JSON = '{"mechanism": "gaussian", "sigma": %s, "steps": 1}'
HOSTILE_TEXT = [
    # (file name, content, the key named, a fragment of the valid range)
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, ', "config", "readable JSON"),
    ("c.toml", 'mechanism = "gaussian"\nsigma = \n', "config", "readable TOML"),
    ("c.json", "", "config", "readable JSON"),
    ("c.json", "[1, 2]", "config", "one object/table"),
    ("c.json", "[" * 100_000, "config", "readable JSON"),
    ("c.toml", "a = " + "[" * 100_000, "config", "readable TOML"),
    ("c.yaml", "mechanism: gaussian", "config", ".json or .toml"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 1, "colour": 3}', "colour", "configuration keys:"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 1, "epsilon": 3}', "epsilon", "on the command line"),
    ("c.toml", 'mechanism = "gaussian"\nsigma = 1\nsteps = 1\nmethod = "pld"\n', "method", "on the command line"),
    ("c.json", '{"mechanism": ["gaussian"], "sigma": 1, "steps": 1}', "mechanism", "gaussian|laplace"),
    ("c.json", '{"mechanism": "gauss", "sigma": 1, "steps": 1}', "mechanism", "gaussian|laplace"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 1, "scheme": 3}', "scheme", "allocation|poisson"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 1, "scheme": "both"}', "scheme", "allocation|poisson"),
    ("c.json", GAUSS_JSON % "true", "sigma", "a number"),
    ("c.json", GAUSS_JSON % "[1]", "sigma", "a number"),
    ("c.json", GAUSS_JSON % "null", "sigma", "a number"),
    ("c.json", GAUSS_JSON % '{"a": 1}', "sigma", "a number"),
    ("c.json", GAUSS_JSON % "NaN", "config", "NaN is not a JSON number"),
    ("c.json", GAUSS_JSON % "-Infinity", "config", "-Infinity is not a JSON number"),
    ("c.json", GAUSS_JSON % "-1e-400", "sigma", "> 0"),  # read as written: not a silent 0
    ("c.toml", 'mechanism = "gaussian"\nsigma = -1e-400\nsteps = 1\n', "sigma", "> 0"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "sigma": 2, "steps": 1}', "config", "'sigma' appears twice"),
    ("c.toml", 'mechanism = "gaussian"\nsigma = nan\nsteps = 1\n', "sigma", "finite real number"),
    ("c.toml", 'mechanism = "gaussian"\nsigma = -inf\nsteps = 1\n', "sigma", "finite real number"),
    ("c.json", GAUSS_JSON % '"1e99999999"', "sigma", "exponent in"),
    ("c.json", GAUSS_JSON % '"1e-99999999"', "sigma", "exponent in"),
    ("c.json", GAUSS_JSON % ('"' + "1" * 5000 + '"'), "sigma", "at most 1000 characters"),
    ("c.json", GAUSS_JSON % '"__import__(\\"os\\")"', "sigma", "finite real number"),
    ("c.json", GAUSS_JSON % "-1", "sigma", "> 0"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": ' + "9" * 5000 + "}", "config", "4300 digits"),
    ("c.toml", 'mechanism = "gaussian"\nsigma = 1\nsteps = ' + "9" * 5000 + "\n", "config", "4300 digits"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 1e400}', "steps", "(401 characters)"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 2.5}', "steps", "integer >= 1"),
    (
        "c.toml",
        'mechanism = "gaussian"\nsigma = 1979-05-27T07:32:00Z\nsteps = 1\n',
        "sigma",
        "1979-05-27T07:32:00+00:00 (a TOML date/time)",
    ),  # was datetime.datetime(1979, 5, ...
    ("c.toml", 'mechanism = "gaussian"\nsigma = 1\nsteps = 1\n[run]\nk = 2\n', "run", "(a table/object) is invalid"),
    ("c.json", '{"mechanism": "gaussian", "sigma": [1], "steps": 1}', "sigma", "(an array) is invalid"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 0}', "steps", "integer >= 1"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 2, "k": 3}', "k", "[1, 2]"),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 2, "epochs": "1/2"}', "epochs", "integer >= 1"),
    (
        "c.json",
        '{"mechanism": "gaussian", "sigma": 1, "scheme": "allocation", "steps": 2, "rate": 0.5}',
        "rate",
        "scheme=poisson",
    ),
    ("c.json", '{"mechanism": "gaussian", "sigma": 1, "steps": 2, "scheme": "poisson", "rate": 2}', "rate", "(0, 1]"),
    ("c.json", '{"steps": 1}', "mechanism", "must be given"),  # a sigma alone would name the gaussian
    ("c.json", '{"mechanism": "gaussian", "sigma": 1}', "steps", "must be given"),
    ("c.json", '{"mechanism": "gaussian", "steps": 1}', "sigma", "must be given for mechanism gaussian"),
    ("c.json", '{"mechanism": "laplace", "sigma": 1, "steps": 1}', "sigma", "applies only to mechanism gaussian"),
    ("c.json", '{"mechanism": "discrete", "pair": 5, "steps": 1}', "pair", "inline JSON object"),
    ("c.json", '{"mechanism": "discrete", "pair": {"p": [1]}, "steps": 1}', "pair", '{"p": [...], "q": [...]}'),
    ("c.json", '{"mechanism": "discrete", "pair": {"p": [1], "q": [[1]]}, "steps": 1}', "q[0]", "probability"),
    ("c.json", '{"mechanism": "discrete", "pair": {"p": [NaN, 1], "q": [0.5, 0.5]}, "steps": 1}', "config", "NaN"),
    (
        "c.json",
        '{"mechanism": "discrete", "pair": "{\\"p\\": [1], \\"p\\": [1], \\"q\\": [1]}", "steps": 1}',
        "pair",
        "appears twice",
    ),
    (
        "c.json",
        '{"mechanism": "discrete", "pair": {"p": [0.7, 0.7], "q": [0.5, 0.5]}, "steps": 1}',
        "p",
        "summing to 1",
    ),
    ("c.json", '{"mechanism": "discrete", "pair": "{\\"p\\": [1], ", "steps": 1}', "pair", "JSON object"),
    ("c.json", '{"mechanism": "discrete", "pair": "missing.json", "steps": 1}', "pair", "readable file"),
]


@pytest.mark.parametrize("name, text, key, valid", HOSTILE_TEXT)
def test_hostile_config_file_exits_2_naming_the_key(capsys, tmp_path, name, text, key, valid):
    path = tmp_path / name
    path.write_text(text)
    line = one_error_line(capsys, ["delta", "--config", str(path), "--epsilon", "1"])
    assert line.startswith(f"verialloc: error: {key}="), line
    assert valid in line, line


@pytest.mark.parametrize("kind", ["json", "toml"])
def test_a_byte_order_mark_is_read_as_nothing(capsys, tmp_path, kind):
    """Windows editors save UTF-8 with a BOM: the file reads as without it (the same output as the flags)."""
    path = write_config(tmp_path, GAUSS, kind)
    Path(path).write_bytes(b"\xef\xbb\xbf" + Path(path).read_bytes())
    assert run_ok(capsys, ["delta", "--config", path, "--epsilon", "1"]) == run_ok(
        capsys, ["delta", "--mechanism", "gaussian", "--sigma", "0.8", "--steps", "1", "--epsilon", "1"]
    )


def test_non_utf8_config(capsys, tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(b"\xff\xfe{}")
    assert "must be UTF-8 text" in one_error_line(capsys, ["delta", "--config", str(path), "--epsilon", "1"])


def _special_files(tmp_path):
    (tmp_path / "dir.toml").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero.json")
    os.mkfifo(tmp_path / "fifo.json")  # opening it for reading would block: it must never be opened
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_PAIR_BYTES + 1)  # sparse: larger than the read limit
    return {
        "dir.toml": "regular file",
        "zero.json": "regular file",
        "fifo.json": "regular file",
        "big.json": f"at most {MAX_PAIR_BYTES} bytes",
        "absent.toml": "readable file",
    }


@pytest.mark.parametrize("command", COMMANDS)
def test_special_config_files_for_every_command(capsys, tmp_path, command):
    for name, valid in _special_files(tmp_path).items():
        line = one_error_line(capsys, COMMANDS[command] + ["--config", str(tmp_path / name)])
        assert line.startswith("verialloc: error: config=") and valid in line, line


def test_special_pair_files_in_a_config_file(capsys, tmp_path):
    for name, valid in _special_files(tmp_path).items():
        data = {"mechanism": "discrete", "pair": str(tmp_path / name), "steps": 1}
        line = one_error_line(capsys, ["delta", "--config", write_config(tmp_path, data, "toml"), "--epsilon", "1"])
        assert line.startswith("verialloc: error: pair=") and valid in line, line


# --- inline --pair ------------------------------------------------------------------------------------------------

DISCRETE_QUERY = ["delta", "--mechanism", "discrete", "--steps", "1", "--epsilon", "1"]


@pytest.mark.parametrize(
    "text, key, valid",
    [
        ('{"p": [0.5, 0.5], "q": ', "pair", "JSON object"),
        ('{"p": [0.5, 0.5]}', "pair", '{"p": [...], "q": [...]}'),
        ('{"p": [0.5, 0.5], "q": [0.5, 0.5], "r": []}', "pair", "(unknown key 'r')"),
        ('{"q": [0.5, 0.5]}', "pair", "(missing 'p')"),
        ('{"p": [NaN, 1], "q": [0.5, 0.5]}', "pair", "NaN is not a JSON number"),
        ('{"p": [1e999, 1], "q": [0.5, 0.5]}', "p", "sum 1.0e+999"),  # was an OverflowError in the message
        ('{"p": [0.4, 0.5], "q": [0.5, 0.5]}', "p", "summing to 1 (within 1e-09)"),
        ('{"p": [0.5, 0.5], "q": [0.5, 0.5], "q": [1, 0]}', "pair", "the key 'q' appears twice"),
        ('{"p": ["1e-99999999", 1], "q": [0.5, 0.5]}', "p[0]", "exponent in"),
        ('{"p": [1' + "0" * 5000 + '], "q": [1]}', "pair", "4300 digits"),
        ('{"p": ["__import__(\'os\')", 1], "q": [0.5, 0.5]}', "p[0]", "finite real number"),
        ('{"p": [0.5, 0.5], "q": [1]}', "q", "same length"),
        ('{"p": "ab", "q": [1]}', "p", "non-empty list"),
        ("{" + "[" * 100_000, "pair", "JSON object"),
        ("[0.5, 0.5]", "pair", '{"p": [...], "q": [...]}'),  # a JSON array: was "must be a readable file"
    ],
)
def test_bad_inline_pair_exits_2(capsys, text, key, valid):
    line = one_error_line(capsys, DISCRETE_QUERY + ["--pair", text])
    assert line.startswith(f"verialloc: error: {key}="), line
    assert valid in line, line


def test_inline_pair_numbers_are_exact_and_renormalization_is_shown(capsys):
    """Issue #10 item 7's pair with bare JSON numbers: q = [1, 1e-400] is read exactly (it was refused as beyond
    float64), divided by its sum 1 + 1e-400, and the output names that sum. True ε = ln(0.5·10⁴⁰⁰) + ln(0.8)."""
    import mpmath as mp

    out = json.loads(
        run_ok(
            capsys,
            [
                "epsilon",
                "--mechanism",
                "discrete",
                "--pair",
                '{"p": [0.5, 0.5], "q": [1, 1e-400]}',
                "--steps",
                "1",
                "--delta",
                "0.1",
                "--direction",
                "remove",
                "--json",
            ],
        )
    )
    assert out["params"]["q_given_sum"] == "1" + "0" * 399 + "1/1" + "0" * 400
    with mp.workdps(30):
        truth = mp.log(mp.mpf("0.5e400")) + mp.log(mp.mpf("0.8")) + mp.log1p(mp.mpf("1e-400"))
        assert out["error_kind"] == "exact" and out["lower"] == out["upper"] == mp.nstr(truth, 12)  # to nearest


@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-32", "UTF-32")])
@pytest.mark.parametrize("kind", ["toml", "json", "pair"])
def test_a_file_in_another_unicode_encoding_is_named(capsys, tmp_path, encoding, name, kind):
    """UTF-16/32 files (Windows editors) were refused as 'byte 0 is not UTF-8'; the message names the encoding."""
    text = {
        "toml": 'mechanism = "gaussian"\nsigma = 1\nsteps = 1\n',
        "json": GAUSS_JSON % "1",
        "pair": '{"p": [1], "q": [1]}',
    }[kind]
    path = tmp_path / f"c.{'json' if kind == 'pair' else kind}"
    path.write_bytes(text.encode(encoding))  # Python writes the byte-order mark
    argv = (
        (DISCRETE_QUERY + ["--pair", str(path)])
        if kind == "pair"
        else ["delta", "--config", str(path), "--epsilon", "1"]
    )
    line = one_error_line(capsys, argv)
    assert f"it is {name}" in line and "save it as UTF-8" in line, line


def test_inline_pair_is_bounded_by_the_pair_file_limit(capsys):
    text = '{"p": [1], "q": [1]}' + " " * MAX_PAIR_BYTES
    line = one_error_line(capsys, DISCRETE_QUERY + ["--pair", text])
    assert line.startswith("verialloc: error: pair=") and f"at most {MAX_PAIR_BYTES}" in line
    ok = '{"p": [1], "q": [1]}' + " " * (MAX_PAIR_BYTES - 30)
    assert json.loads(run_ok(capsys, DISCRETE_QUERY + ["--pair", ok, "--json"]))["upper"] == "0.0"
