"""The opacus bridge without torch: fake accountants carrying opacus 1.x's `history` of (noise_multiplier,
sample_rate, num_steps), the translation, refusals, answers against independent references (the Gaussian
composition closed form F13 and the Poisson-subsampled Gaussian F2 integrated, both in mpmath), and
`verialloc certify --from-opacus-history` including hostile files."""

import json
import os
import time
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, api
from verialloc.cli import main
from verialloc.errors import InvalidParameter
from verialloc.ledger import Ledger
from verialloc.integrations.opacus import MAX_HISTORY_BYTES, certify_opacus, from_opacus_history


class FakeAccountant:
    """An opacus accountant as the bridge sees it: `history` and `get_epsilon(delta)`."""

    def __init__(self, history, reported=None):
        self.history, self.reported, self.asked = history, reported, None

    def get_epsilon(self, delta):
        self.asked = delta
        return self.reported


class FakeEngine:  # opacus.PrivacyEngine keeps its accountant in .accountant
    def __init__(self, accountant):
        self.accountant = accountant


DPSGD = Config(Gaussian(1), "poisson", steps=1000, rate=Fraction(1, 100))


def f13_delta(mu, eps) -> mp.mpf:
    """F13: δ(ε) of N(μ, 1) vs N(0, 1), the T-fold composition of Gaussian(σ) at rate 1 having μ = √T/σ."""
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def f13_epsilon(mu, delta) -> mp.mpf:
    """ε(δ) by bisection (δ(ε) decreases in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(100)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f13_delta(mu, mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize(
    "source",
    [
        [(1.0, 0.01, 1000)],
        [[1.0, 0.01, 600], (1.0, 0.01, 400)],  # identical entries (opacus merges consecutive ones only) add up
        (("1", "0.01", "1000"),),
        FakeAccountant([(1.0, 0.01, 1000)]),
        FakeEngine(FakeAccountant([(1.0, 0.01, 250)] * 4)),
    ],
)
def test_translation(source):
    assert from_opacus_history(source) == DPSGD


@pytest.mark.parametrize("content", [[[1.0, 0.01, 1000]], {"history": [[1.0, 0.01, 500], [1.0, 0.01, 500]]}])
def test_json_files(tmp_path, content):
    path = tmp_path / "history.json"
    path.write_text(json.dumps(content))
    assert from_opacus_history(path) == DPSGD
    assert from_opacus_history(str(path)) == DPSGD


@pytest.mark.parametrize(
    "history, error, name",
    [
        ([], InvalidParameter, "history="),
        ([(0, 0.01, 10)], InvalidParameter, r"history\[0\].noise_multiplier=0"),
        ([(1, 0.01, 10), (1, 0, 10)], InvalidParameter, r"history\[1\].sample_rate=0"),
        ([(1, 1.5, 10)], InvalidParameter, r"history\[0\].sample_rate=1.5"),
        ([(1, 0.5, 0)], InvalidParameter, r"history\[0\].num_steps=0"),
        ([(1, 0.5, 2.5)], InvalidParameter, r"history\[0\].num_steps=2.5"),
        ([(True, 0.5, 2)], InvalidParameter, r"history\[0\].noise_multiplier=True"),
        ([(1, 0.5)], InvalidParameter, r"history\[0\]="),
        ([(1, "nan", 2)], InvalidParameter, r"history\[0\].sample_rate=nan"),
        ([(1, "1e-99999999", 2)], InvalidParameter, r"history\[0\].sample_rate=1e-99999999"),
        ([(1, None, 2)], InvalidParameter, r"history\[0\].sample_rate=None"),
        (42, InvalidParameter, "history=42"),
    ],
)
def test_refusals_name_the_entry(history, error, name):
    with pytest.raises(error, match=name):
        from_opacus_history(history)


def test_a_schedule_is_a_ledger_of_its_phases():
    """Entries with other (σ, q) are other events of one Ledger; entries with the same (σ, q) add their steps."""
    ledger = from_opacus_history([(1.0, 0.01, 500), (0.8, 0.01, 200), (1.0, 0.01, 5), (1.0, 0.02, 5)])
    assert isinstance(ledger, Ledger)
    assert [(e.mechanism.sigma, e.rate, e.steps) for e in ledger.events] == [
        (1, Fraction(1, 100), 505),
        (Fraction(4, 5), Fraction(1, 100), 200),
        (1, Fraction(1, 50), 5),
    ]


@pytest.mark.parametrize("delta", ["1e-5", "1e-9"])
def test_full_batch_schedule_against_f13(delta):
    """q = 1 in every phase: the phases compose into one Gaussian with μ² = Σ T_i/σ_i² (F13), in mpmath here."""
    schedule = [(2, 1, 3), ("0.8", 1, 2), ("1.5", 1, 7)]
    mu = mp.sqrt(mp.mpf(3) / 4 + mp.mpf(2) / mp.mpf("0.64") + mp.mpf(7) / mp.mpf("2.25"))
    ledger = from_opacus_history(schedule)
    for eps in (Fraction(1, 2), Fraction(3)):
        ours = api.delta(ledger, eps, method="exact")
        assert mp.almosteq(mp.mpf(ours.lower), f13_delta(mu, mp.mpf(eps.numerator) / eps.denominator), rel_eps=1e-12)
    fast = api.epsilon(ledger, delta, method="pld")
    exact = api.epsilon(ledger, delta, method="exact", digits=20)
    assert fast.lower <= exact.lower and exact.upper <= fast.upper


@pytest.mark.parametrize("sigma, steps, delta", [(2, 4, "1e-5"), ("0.8", 1, "1e-3"), (5, 100, "1e-6")])
def test_full_batch_history_against_f13(sigma, steps, delta):
    """q = 1: every record in every step, the T-fold Gaussian composition = one Gaussian with μ = √T/σ (F13)."""
    config = from_opacus_history([(sigma, 1, steps)])
    mu = mp.sqrt(steps) / mp.mpf(Fraction(str(sigma)).numerator) * Fraction(str(sigma)).denominator
    for eps in (Fraction(1, 2), Fraction(2)):
        ours = api.delta(config, eps, method="exact")
        assert mp.almosteq(mp.mpf(ours.lower), f13_delta(mu, mp.mpf(eps.numerator) / eps.denominator), rel_eps=1e-12)
    truth = f13_epsilon(mu, mp.mpf(delta))
    above, below = truth * (1 + mp.mpf("1e-6")), truth * (1 - mp.mpf("1e-6"))
    assert certify_opacus([(sigma, 1, steps)], delta, str(above)).verdict == "certified"
    cert = certify_opacus([(sigma, 1, steps)], delta, str(below))
    assert cert.verdict == "refuted" and cert.lower <= truth <= cert.upper


def test_poisson_step_against_the_integrated_pair():
    """q < 1, one step, remove direction: δ(ε) = ∫ (p − e^ε q)_+ with p = (1 − q)N(0, σ²) + qN(1, σ²), q = N(0, σ²)
    (F2), integrated here: p > e^ε q  iff  x > σ² log((e^ε − 1 + r)/r) + 1/2 for r = the rate."""
    sigma, r, eps = mp.mpf("0.8"), mp.mpf("0.3"), mp.mpf(1)
    x0 = sigma**2 * mp.log((mp.exp(eps) - 1 + r) / r) + mp.mpf(1) / 2
    ref = mp.quad(
        lambda x: (1 - r) * mp.npdf(x, 0, sigma) + r * mp.npdf(x, 1, sigma) - mp.exp(eps) * mp.npdf(x, 0, sigma),
        [x0, mp.inf],
    )
    ours = api.delta(from_opacus_history([(0.8, 0.3, 1)]), 1, direction="remove", method="exact")
    assert mp.almosteq(mp.mpf(ours.lower), ref, rel_eps=1e-10)


def test_claim_defaults_to_what_the_accountant_reports():
    truth = f13_epsilon(mp.mpf(1), mp.mpf("1e-5"))  # σ = 2, T = 4, q = 1: μ = 1
    honest = FakeAccountant([(2.0, 1.0, 4)], reported=float(truth) * 1.001)
    cert = certify_opacus(honest, 1e-5)
    assert honest.asked == 1e-5 and cert.verdict == "certified"
    assert cert.claim.value == Fraction(repr(float(truth) * 1.001))
    optimistic = FakeEngine(FakeAccountant([(2.0, 1.0, 4)]))
    optimistic.get_epsilon = lambda delta: float(truth) * 0.99
    assert certify_opacus(optimistic, 1e-5).verdict == "refuted"
    with pytest.raises(InvalidParameter, match="claimed_epsilon"):
        certify_opacus([(2.0, 1.0, 4)], 1e-5)


def test_rdp_stand_in_for_opacus_is_certified():
    """dp_accounting's RDP accountant runs the RDP analysis of opacus's RDPAccountant (the same subsampled-Gaussian
    RDP bound and conversion family): its ε is a sound upper bound, so certify_opacus certifies it."""
    dpa = pytest.importorskip("dp_accounting")
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    rdp_eps = dpa.rdp.RdpAccountant().compose(event).get_epsilon(1e-5)
    cert = certify_opacus(FakeAccountant([(1.0, 0.01, 1000)], reported=rdp_eps), 1e-5)
    assert cert.verdict == "certified" and cert.upper < rdp_eps


# --- the command line ---------------------------------------------------------------------------------------------


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_error_line(capsys, argv) -> str:
    start = time.monotonic()
    status, out, err = run(capsys, argv)
    assert time.monotonic() - start < 20, argv
    assert status == 2, (argv, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("verialloc: error: "), err
    assert len(lines[0]) < 1000, lines[0]
    return lines[0]


def write(tmp_path, text, name="h.json"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return str(path)


def test_cli_certifies_a_history_like_the_flags(tmp_path, capsys):
    path = write(tmp_path, json.dumps({"history": [[2.0, 1.0, 3], [2.0, 1.0, 1]]}))
    claim = ["--delta", "1e-5", "--claimed-epsilon", "4.38", "--json"]
    status, out, err = run(capsys, ["certify", "--from-opacus-history", path, *claim])
    assert status == 0, err
    got = json.loads(out)
    assert got["verdict"] == "certified" and (got["scheme"], got["steps"], got["rate"]) == ("poisson", 4, "1")
    flags = ["--mechanism", "gaussian", "--sigma", "2", "--scheme", "poisson", "--rate", "1", "--steps", "4"]
    status, same, _ = run(capsys, ["certify", *flags, *claim])
    # `input` is the text typed, which differs (a file, or flags); the configuration echo is the same
    strip = lambda d: {k: v for k, v in d.items() if "seconds" not in k and k not in ("refinement", "input")}  # noqa: E731
    assert status == 0 and strip(json.loads(same)) == strip(got)


@pytest.mark.parametrize(
    "extra, name",
    [
        (["--sigma", "1"], "sigma=1"),
        (["--steps", "5"], "steps=5"),
        (["--scheme", "poisson"], "scheme=poisson"),
        (["--k", "2"], "k=2"),
        (["--rate", "0.5"], "rate=0.5"),
    ],
)
def test_cli_refuses_configuration_flags_with_the_history(tmp_path, capsys, extra, name):
    path = write(tmp_path, "[[1, 0.01, 10]]")
    line = one_error_line(
        capsys, ["certify", "--from-opacus-history", path, "--delta", "1e-5", "--claimed-epsilon", "1", *extra]
    )
    assert name in line and "--from-opacus-history" in line


def test_cli_refuses_config_with_the_history(tmp_path, capsys):
    path = write(tmp_path, "[[1, 0.01, 10]]")
    config = write(tmp_path, json.dumps({"mechanism": "gaussian", "sigma": 1, "steps": 1}), "c.json")
    line = one_error_line(
        capsys,
        ["certify", "--from-opacus-history", path, "--config", config, "--delta", "1e-5", "--claimed-epsilon", "1"],
    )
    assert "config=" in line and "--from-opacus-history" in line


HOSTILE = [
    ("[[1, 0.01, 10], [0.5, 0.01, 0]]", "history[1].num_steps=0"),
    ("[]", "history="),
    ("{}", 'must hold the key "history"'),
    ('{"history": [[1, 0.01, 10]], "delta": 1e-5}', 'must hold the key "history"'),
    ('{"history": 1}', "opacus-history="),
    ('"[[1, 0.01, 10]]"', "opacus-history="),
    ("[[1, 0.01, 10]", "must be a readable JSON file"),
    ("[[NaN, 0.01, 10]]", "NaN is not a JSON number"),
    ("[[1, 1e99999999, 10]]", "history[0].sample_rate=1e99999999 is invalid: must be a number with a decimal exponent"),
    (
        "[[1, 0.01, 1.0000000000000000001e3]]",
        "history[0].num_steps=1.0000000000000000001e3 is invalid: must be an integer",
    ),
    ('{"history": [[1, 0.01, 10]], "history": []}', "the key 'history' appears twice"),
    ('[[1, "1e99999999", 10]]', "history[0].sample_rate=1e99999999"),
    ("[[1, 0.01, " + "9" * 5000 + "]]", "more than 4300 digits"),
    ('[[1, 0.01, "' + "9" * 5000 + '"]]', "history[0].num_steps="),
    ('[[1, 0.01, {"a": 1}]]', "history[0].num_steps="),
    ("[" * 100_000 + "]" * 100_000, "must be a readable JSON file"),
    ("[[1, 0.01, 10, 4]]", "history[0]="),
    (b"\xff\xfe[[1, 0.01, 10]]", "must be UTF-8 text"),
]


@pytest.mark.parametrize("text, expected", HOSTILE)
def test_cli_hostile_files_exit_2_in_one_line(tmp_path, capsys, text, expected):
    path = write(tmp_path, text)
    line = one_error_line(
        capsys, ["certify", "--from-opacus-history", path, "--delta", "1e-5", "--claimed-epsilon", "1"]
    )
    assert expected in line, line


def test_cli_hostile_paths(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    big.write_text("[" + ",".join(["[1, 0.01, 10]"] * (MAX_HISTORY_BYTES // 10)) + "]")
    for path, expected in [
        (tmp_path, "regular file"),
        ("/dev/zero", "regular file"),
        (fifo, "regular file"),
        (big, f"at most {MAX_HISTORY_BYTES} bytes"),
        (tmp_path / "missing.json", "readable"),
    ]:
        line = one_error_line(
            capsys, ["certify", "--from-opacus-history", str(path), "--delta", "1e-5", "--claimed-epsilon", "1"]
        )
        assert "opacus-history=" in line and expected in line, line


def test_file_numbers_are_read_as_written_and_library_numbers_accepted():
    """A history file's 0.0100000000000000000001 became the rate 1/100 through float64 (a more private run was
    certified); numpy and Decimal values were refused as 'must be a number' (hostile-user findings, #14)."""
    import numpy as np
    from decimal import Decimal
    from verialloc.integrations.opacus import from_opacus_history, load_history
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        fh.write("[[0.99999999999999999999, 0.0100000000000000000001, 1000]]")
    try:
        config = from_opacus_history(load_history(fh.name))
    finally:
        os.unlink(fh.name)
    assert config.rate == Fraction("0.0100000000000000000001") and config.mechanism.sigma == Fraction(
        "0.99999999999999999999"
    )
    assert from_opacus_history([(1.0, 0.01, np.int64(100))]).steps == 100
    assert from_opacus_history([(np.float32(1.5), np.float64(0.01), 10)]).rate == Fraction(1, 100)
    assert from_opacus_history([(Decimal("1.5"), Decimal("0.01"), 10)]).mechanism.sigma == Fraction(3, 2)


@pytest.mark.parametrize("options, named", [(dict(progress=5), "progress"), (dict(strict="yes"), "strict")])
def test_certify_options_are_checked(options, named):
    """progress=5 raised a raw TypeError mid-run; strict='yes' was taken as true (hostile-user findings, #14)."""
    with pytest.raises(InvalidParameter) as info:
        certify_opacus([(1.0, 0.01, 10)], 1e-5, 2.0, **options)
    assert info.value.name == named


@pytest.mark.parametrize("mechanism", ["rdp", "prv", "gdp"])
def test_cli_reads_opacus_state_dict_saved_as_json(tmp_path, capsys, mechanism):
    """Issue #30 item 5: opacus's `accountant.state_dict()` (opacus/accountants/accountant.py: {"history":
    deepcopy(self.history), "mechanism": <the accountant's mechanism name>}, history a list of (σ, q, T) tuples)
    saved with json.dump is read by --from-opacus-history as it is."""
    state_dict = {"history": [(1.0, 0.01, 600), (1.0, 0.01, 400)], "mechanism": mechanism}  # opacus's own shape
    path = tmp_path / "accountant_state.json"
    with open(path, "w") as f:
        json.dump(state_dict, f)
    assert from_opacus_history(path) == DPSGD
    status, out, err = run(
        capsys,
        ["certify", "--from-opacus-history", str(path), "--delta", "1e-5", "--claimed-epsilon", "2.2", "--json"],
    )
    assert status == 0, err
    assert json.loads(out)["verdict"] == "certified"
