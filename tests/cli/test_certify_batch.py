"""`verialloc certify --batch CLAIMS --out RESULTS` end to end through the CLI's error boundary.

CSV and JSON Lines in and out; resume (a second run computes and appends nothing); rows with invalid values
recorded with verdict error and a nonzero exit at the end; hostile files, and damaged rows of an existing
--out, refused upfront in one line, quickly;
flag conflicts; the same file through `--executor dask` (a small in-process cluster, and a LocalCluster started
by the command) and `--executor process`. Verdicts against independent truths: tests/certify/test_batch.py.
"""

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import mpmath as mp
import pytest

from verialloc.io import batch_files
from verialloc.runtime import executor
from verialloc.cli import executors, main

#: one step of the Gaussian (σ = 1): δ(ε = 1) = Φ(−1/2) − e Φ(−3/2) = 0.1269367…; randomized response ε0 = 1
#: composed twice: ε(δ = 0.1) = 2 − ln(1 − 0.1/a²)… — the claims below sit far from the truths on either side
ROWS = [
    {"id": "gauss-hi", "mechanism": "gaussian", "sigma": "1", "steps": "1", "epsilon": "1", "claimed_delta": "0.14"},
    {"id": "gauss-lo", "mechanism": "gaussian", "sigma": "1", "steps": "1", "epsilon": "1", "claimed_delta": "0.11"},
    {
        "id": "rr-hi",
        "mechanism": "randomized-response",
        "eps0": "1",
        "steps": "1",
        "epochs": "2",
        "delta": "0.1",
        "claimed_epsilon": "2",
    },
    {
        "id": "rr-lo",
        "mechanism": "randomized-response",
        "eps0": "1",
        "steps": "1",
        "epochs": "2",
        "delta": "0.1",
        "claimed_epsilon": "1",
    },
]
VERDICTS = {"gauss-hi": "certified", "gauss-lo": "refuted", "rr-hi": "certified", "rr-lo": "refuted"}
#: exit statuses of a batch holding refuted (inconclusive) rows: docs/cli.md, "Exit codes"
REFUTED, INCONCLUSIVE = 4, 5


def test_the_claims_sit_on_the_sides_they_are_said_to():
    gauss = mp.ncdf(-0.5) - mp.e * mp.ncdf(-1.5)
    assert 0.11 < gauss < 0.14
    a = mp.e / (1 + mp.e)  # RR twice: losses 2 (prob a²), 0, −2; δ(ε) = a²(1 − e^(ε−2)) for 0 <= ε < 2
    eps = 2 + mp.log(1 - mp.mpf("0.1") / a**2)
    assert 1 < eps < 2


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(path, rows):
    if path.suffix == ".csv":
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, sorted({k for r in rows for k in r}))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def results(path) -> dict:
    if path.suffix == ".csv":
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    else:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r for r in rows}


def one_error_line(capsys, argv, *, within=5.0) -> str:
    start = time.monotonic()
    status, out, err = run(capsys, argv)
    assert time.monotonic() - start < within
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("verialloc: error: "), err
    return err


@pytest.mark.parametrize("src_ext, out_ext", [(".csv", ".csv"), (".jsonl", ".jsonl"), (".csv", ".jsonl")])
def test_batch_in_and_out_then_resume(tmp_path, capsys, src_ext, out_ext):
    src, dst = tmp_path / f"claims{src_ext}", tmp_path / f"results{out_ext}"
    write(src, ROWS)
    status, out, err = run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert status == 4 and err == ""  # refuted rows: docs/cli.md, "Exit codes"
    assert out.startswith(f"certify batch {src} -> {dst}: 4 rows, 0 already there, 4 computed in ")
    assert out.endswith("(executor local)\n  2 certified, 2 refuted, 0 inconclusive, 0 error\n")
    got = results(dst)
    assert {k: v["verdict"] for k, v in got.items()} == VERDICTS
    assert list(got["gauss-hi"]) == list(batch_files.COLUMNS)
    assert got["rr-hi"]["method_lower"] == "exact" and got["rr-hi"]["direction"] == "both"
    before = dst.read_bytes()
    status, out, _ = run(capsys, ["certify", "--batch", str(src), "--out", str(dst), "--json"])
    summary = json.loads(out)
    assert (summary["skipped"], summary["computed"]) == (4, 0) and dst.read_bytes() == before
    assert summary["table"] == {"certified": 2, "refuted": 2, "inconclusive": 0, "error": 0}
    assert status == 4  # the rows skipped as done still count: a resumed run fails the CI job as the first did


def test_row_errors_are_recorded_and_the_exit_status_says_so(tmp_path, capsys):
    src, dst = tmp_path / "claims.jsonl", tmp_path / "results.csv"
    write(
        src,
        [
            *ROWS[:2],
            {"id": "typo", "mechanism": "gausian", "sigma": 1, "steps": 1, "epsilon": 1, "claimed_delta": 0.2},
            *ROWS[2:],
        ],
    )
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert "1 of 5 rows have verdict error" in err and "first: line 3 (id typo): mechanism=gausian is invalid" in err
    got = results(dst)
    assert got["typo"]["verdict"] == "error" and got["typo"]["error"].startswith("mechanism=gausian is invalid")
    assert {k: v["verdict"] for k, v in got.items() if k != "typo"} == VERDICTS


def _fifo(tmp_path):
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "noise.csv", "line 1 is not UTF-8 text"),
        (lambda p: p / "nul.jsonl", "line 1 holds a NUL byte"),
        (lambda p: p / "long.csv", f"line 2 is longer than {batch_files.MAX_LINE} bytes"),
        (lambda p: p / "dir.csv", "must be a regular file"),
        (lambda p: "/dev/zero", "must be a .csv or .jsonl file"),
        (lambda p: p / "zero.csv", "must be a regular file"),  # a link to /dev/zero
        (_fifo, "must be a regular file"),
        (lambda p: p / "missing.csv", "cannot be read"),
        (lambda p: p / "claims.txt", "must be a .csv or .jsonl file"),
        (lambda p: p / "empty.csv", "is empty: a header row"),
    ],
)
def test_hostile_files_exit_2_in_one_line(tmp_path, capsys, make, message):
    (tmp_path / "noise.csv").write_bytes(bytes(range(128, 256)) * 40)
    (tmp_path / "nul.jsonl").write_bytes(b'{"id": "a"}\0\n')
    (tmp_path / "long.csv").write_bytes(b"id,sigma\na," + b"1" * (batch_files.MAX_LINE + 1) + b"\n")
    (tmp_path / "dir.csv").mkdir()
    (tmp_path / "claims.txt").write_text("id\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    src = make(tmp_path)
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(tmp_path / "r.csv")])
    assert f"batch={src} is invalid: {message}" in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
def test_a_byte_order_mark_is_not_part_of_the_first_key(tmp_path, capsys, ext):
    """Windows editors save UTF-8 with a BOM: the first column is still `id`, the verdicts the same."""
    src, dst = tmp_path / f"c{ext}", tmp_path / "r.csv"
    write(src, ROWS)
    src.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    status, _, _ = run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert status == REFUTED and {k: v["verdict"] for k, v in results(dst).items()} == VERDICTS


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "a", "sigma": 1, "sigma": 2}', "the key 'sigma' appears twice in one object"),
        ('{"id": "a", "mechanism": "gaussian", "sigma": NaN}', "NaN is not a JSON number"),
    ],
)
def test_json_that_json_would_silently_change_is_refused(tmp_path, capsys, line, message):
    src = tmp_path / "c.jsonl"
    src.write_text(line + "\n")
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(tmp_path / "r.csv")])
    assert f"batch={src} is invalid: line 1 is not a JSON object ({message}" in err
    assert not (tmp_path / "r.csv").exists()


def test_a_jsonl_number_is_read_as_written(tmp_path, capsys):
    """0.10000000000000000001 in a JSON Lines row became 0.1 through float64 (and 1e-400 was refused): rows are read
    like config files, every digit kept, and echoed as written (#14)."""
    src, dst = tmp_path / "c.jsonl", tmp_path / "r.csv"
    src.write_text(
        '{"id": "a", "mechanism": "gaussian", "sigma": 0.10000000000000000001, "steps": 1, '
        '"delta": 1e-5, "claimed_epsilon": 60}\n'
    )
    status, _, _ = run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert status == REFUTED and results(dst)["a"]["sigma"] == "0.10000000000000000001"  # ε(1e-5) of σ = 0.1 > 60


def test_the_claims_file_is_not_a_results_file(tmp_path, capsys):
    """--out naming the input itself (or a link to it), or another claims file, is refused before any work."""
    src, other = tmp_path / "c.jsonl", tmp_path / "other.jsonl"
    write(src, ROWS)
    write(other, ROWS)
    (tmp_path / "link.jsonl").symlink_to(src)
    before = src.read_bytes()
    for out in (src, tmp_path / "link.jsonl"):
        err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(out)])
        assert f"out={out} is invalid: is the --batch input itself" in err
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(other)])
    assert f"out={other} is invalid: line 1 is not a result row of `certify --batch`" in err
    assert src.read_bytes() == before == other.read_bytes()


def test_a_run_that_never_starts_leaves_no_results_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(executor, "CONNECT_TIMEOUT", 1)
    src, dst = tmp_path / "c.csv", tmp_path / "r.csv"
    write(src, ROWS)
    one_error_line(
        capsys,
        ["certify", "--batch", str(src), "--out", str(dst), "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"],
        within=20,
    )
    assert not dst.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--mechanism", "gaussian"], "mechanism=gaussian is invalid: cannot be combined with --batch"),
        (["--delta", "1e-5"], "delta=1e-5 is invalid: cannot be combined with --batch"),
        (["--report", "r.md"], "report=r.md is invalid: cannot be combined with --batch"),
        (["--scheme", "poisson"], "scheme=poisson is invalid: cannot be combined with --batch"),
        (["--executor", "spark"], "executor=spark is invalid: must be one of local|process|dask"),
        (["--scheduler", "tcp://h:1"], "scheduler=tcp://h:1 is invalid: applies only to --executor dask"),
        (["--workers", "0"], "workers=0 is invalid"),
        (["--workers", "2"], "workers=2 is invalid: applies to --executor process|dask"),
    ],
)
def test_flag_conflicts(tmp_path, capsys, extra, message):
    src = tmp_path / "c.csv"
    write(src, ROWS)
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(tmp_path / "r.csv"), *extra])
    assert message in err


def test_workers_are_at_most_two_per_core(tmp_path, capsys, monkeypatch):
    """The cap of --workers says what it is: 1024 let a 2-core machine start 1000 processes of 85 MB and up."""
    monkeypatch.setattr(executors, "cores", lambda: 3)
    src = tmp_path / "c.csv"
    write(src, ROWS[:2])
    argv = ["certify", "--batch", str(src), "--out", str(tmp_path / "r.csv"), "--executor", "process", "--workers"]
    assert (
        "workers=7 is invalid: must be an integer in [1, 6] (2 per core, 3 cores here: the tasks are CPU-bound"
        in one_error_line(capsys, argv + ["7"])
    )
    assert run(capsys, argv + ["6"])[0] == REFUTED


def test_batch_and_out_go_together(tmp_path, capsys):
    assert "out=(missing) is invalid" in one_error_line(capsys, ["certify", "--batch", str(tmp_path / "c.csv")])
    assert "batch=(missing) is invalid" in one_error_line(capsys, ["certify", "--out", str(tmp_path / "r.csv")])
    err = one_error_line(
        capsys,
        [
            "certify",
            "--mechanism",
            "gaussian",
            "--sigma",
            "1",
            "--steps",
            "1",
            "--delta",
            "1e-5",
            "--claimed-epsilon",
            "5",
            "--executor",
            "dask",
        ],
    )
    assert "executor=dask is invalid: applies only with --batch" in err


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c:
        yield c


def _verdicts(path) -> dict:
    return {k: (v["verdict"], v["lower"], v["upper"]) for k, v in results(path).items()}


def test_dask_scheduler_gives_the_local_results(tmp_path, capsys, cluster):
    src = tmp_path / "c.csv"
    write(src, ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(tmp_path / "local.csv")])[0] == REFUTED
    status, out, err = run(
        capsys,
        [
            "certify",
            "--batch",
            str(src),
            "--out",
            str(tmp_path / "dask.csv"),
            "--executor",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
            "--json",
        ],
    )
    assert status == REFUTED and json.loads(out)["executor"] == "dask", err
    assert _verdicts(tmp_path / "dask.csv") == _verdicts(tmp_path / "local.csv")


@pytest.mark.parametrize("executor", ["process", "dask"])
def test_local_pools_started_by_the_command(tmp_path, capsys, executor):
    pytest.importorskip("dask.distributed")
    src = tmp_path / "c.jsonl"
    write(src, ROWS[:2])
    status, out, err = run(
        capsys,
        ["certify", "--batch", str(src), "--out", str(tmp_path / "r.jsonl"), "--executor", executor, "--workers", "1"],
    )
    assert status == REFUTED and err == "" and f"(executor {executor})" in out
    assert {k: v for k, (v, _, _) in _verdicts(tmp_path / "r.jsonl").items()} == {
        "gauss-hi": "certified",
        "gauss-lo": "refuted",
    }


def test_stability_takes_the_executor_flags(capsys, cluster):
    argv = ["stability", "--probe", "gaussian-delta", "--x", "0.5,4", "--y", "1,12", "--json"]
    outs = []
    for extra in ([], ["--executor", "dask", "--scheduler", cluster.scheduler_address]):
        status, out, err = run(capsys, argv + extra)
        assert status == 0, err
        outs.append([{**pt, "seconds": 0} for pt in json.loads(out)["points"]])
    assert outs[0] == outs[1] and len(outs[0]) == 4
    assert "workers=2 is invalid: applies to" in one_error_line(capsys, argv + ["--workers", "2"])


@pytest.mark.parametrize("out_ext", [".csv", ".jsonl"])
def test_resume_refuses_an_id_whose_inputs_changed(tmp_path, capsys, out_ext):
    """A claim edited under an old id must not be answered by the old verdict (a hostile-user finding): the rerun
    refuses naming the id and the key; a changed budget alone is no change of the question."""
    src, dst = tmp_path / "c.csv", tmp_path / f"r{out_ext}"
    write(src, ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])[0] == REFUTED
    before = dst.read_bytes()
    status, _, _ = run(capsys, ["certify", "--batch", str(src), "--out", str(dst), "--budget", "120"])
    assert status == REFUTED and dst.read_bytes() == before
    edited = [dict(r, claimed_delta="0.11") if r["id"] == "gauss-hi" else r for r in ROWS]
    write(src, edited)
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert "holds id 'gauss-hi' certified with claimed_delta = '0.14', the input now says '0.11'" in err
    assert dst.read_bytes() == before


def _edit(path, key: str, changes: dict) -> int:
    """Change columns of the stored row `key` of a results file; returns its line number."""
    lines = path.read_text().splitlines(keepends=True)
    for n, text in enumerate(lines):
        if path.suffix == ".csv":
            row = dict(zip(batch_files.COLUMNS, next(csv.reader([text]))))
        else:
            row = json.loads(text)
        if row["id"] == key:
            row.update(changes)
            if path.suffix == ".csv":
                buf = io.StringIO()
                csv.writer(buf, lineterminator="\n").writerow([row[c] for c in batch_files.COLUMNS])
                lines[n] = buf.getvalue()
            else:
                lines[n] = json.dumps(row) + "\n"
            path.write_text("".join(lines))
            return n + 1
    raise AssertionError(f"no row {key} in {path}")


@pytest.mark.parametrize("out_ext", [".csv", ".jsonl"])
@pytest.mark.parametrize(
    "changes, column, message",
    [
        ({"verdict": "banana"}, "verdict", "'banana' is not certified | refuted | inconclusive | error"),
        ({"lower": "garbage"}, "lower", "'garbage' is not a number"),
        ({"upper": ""}, "upper", "'' is not a number"),
        ({"lower": "0.5"}, "upper", "is below lower = 0.5"),
        ({"method_upper": "magic"}, "method_upper", "'magic' is not exact | pld | quadrature | statistical | none"),
        ({"rigorous": "yes"}, "rigorous", "'yes' is not true | false"),
        ({"seconds": "fast"}, "seconds", "'fast' is not a number of seconds"),
        ({"error": "oops"}, "error", "'oops' is set for verdict refuted"),
        ({"verdict": "error"}, "error", "'' is empty for verdict error"),
        ({"id": ""}, "id", "'' is empty"),
        ({"id": "gauss-hi"}, "id", "'gauss-hi' repeats line"),
    ],
)
def test_a_damaged_results_row_is_refused_before_any_row_runs(tmp_path, capsys, out_ext, changes, column, message):
    """A stored row that is not what the command writes was taken as done and skipped (a hostile-user finding)."""
    src, dst = tmp_path / "c.csv", tmp_path / f"r{out_ext}"
    write(src, ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])[0] == REFUTED
    line = _edit(dst, "gauss-lo", changes)
    before = dst.read_bytes()
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert f"out={dst} is invalid: line {line}, column {column}: " in err and message in err, err
    assert "a damaged results file: repair or delete that line" in err and dst.read_bytes() == before


def test_a_results_record_with_missing_fields_is_refused(tmp_path, capsys):
    src, dst = tmp_path / "c.csv", tmp_path / "r.csv"
    write(src, ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])[0] == REFUTED
    lines = dst.read_text().splitlines(keepends=True)
    lines[2] = lines[2].rsplit(",", 2)[0] + "\n"  # the seconds and error fields lost
    dst.write_text("".join(lines))
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(dst)])
    assert (
        f"out={dst} is invalid: line 3 has {len(batch_files.COLUMNS) - 2} fields, the header {len(batch_files.COLUMNS)}"
        in err
    )


@pytest.mark.parametrize("out_ext", [".csv", ".jsonl"])
def test_stored_rows_in_every_form_the_writer_uses_are_accepted(tmp_path, capsys, out_ext):
    """±inf and nan ends (as mpmath prints them), exponents, verdict error with its reason: still done rows."""
    src, dst = tmp_path / "c.csv", tmp_path / f"r{out_ext}"
    write(src, ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])[0] == REFUTED
    _edit(dst, "gauss-hi", {"lower": "-inf", "upper": "+inf", "method_lower": "none", "method_upper": "none"})
    _edit(dst, "gauss-lo", {"lower": "1.2e-7", "upper": "3.5e+12"})
    _edit(dst, "rr-hi", {"lower": "nan", "upper": "0.5", "method_upper": "quadrature", "rigorous": "false"})
    _edit(
        dst,
        "rr-lo",
        {
            "verdict": "error",
            "lower": "",
            "upper": "",
            "method_lower": "",
            "method_upper": "",
            "rigorous": "",
            "error": "sigma=-1 is invalid: must be > 0",
        },
    )
    before = dst.read_bytes()
    err = one_error_line(capsys, ["certify", "--batch", str(src), "--out", str(dst), "--json"])
    assert dst.read_bytes() == before  # every row done: nothing computed, nothing refused as damaged
    assert "1 of 4 rows have verdict error" in err and "(id rr-lo): sigma=-1 is invalid" in err  # the stored one


#: Gaussian random-allocation rows of one to a few seconds each
SLOW_ROWS = [
    {
        "id": f"alloc-{i}",
        "mechanism": "gaussian",
        "sigma": sigma,
        "scheme": "allocation",
        "steps": steps,
        "epochs": "3",
        "delta": "1e-5",
        "claimed_epsilon": "0.25",
    }
    for i, (sigma, steps) in enumerate(
        [("1", "1000"), ("0.8", "2000"), ("0.85", "2000"), ("0.9", "2000"), ("0.8", "1500"), ("0.95", "2000")]
    )
]
#: the command line of a terminal: Python's own SIGINT handler (a shell starts background jobs ignoring SIGINT)
CONSOLE = (
    "import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from verialloc.cli import main\nsys.exit(main(sys.argv[1:]))\n"
)


def _alive(process) -> bool:
    import psutil

    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_ctrl_c_stops_a_local_dask_cluster_at_once_and_the_run_resumes(tmp_path, capsys):
    """Ctrl-C in a terminal (SIGINT to the whole process group) while a local Dask cluster runs rows: exit 130 within
    seconds with the one line, no traceback, no process left; --out holds whole rows and a resume completes it with
    the results of an uninterrupted run. (It hung for minutes with worker tracebacks: the executor's exit waited
    for every task it had handed out, results lost with the interrupted workers included.)"""
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("dask.distributed")
    src, dst, ref = tmp_path / "c.csv", tmp_path / "r.csv", tmp_path / "ref.csv"
    write(src, SLOW_ROWS)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CONSOLE,
            "certify",
            "--batch",
            str(src),
            "--out",
            str(dst),
            "--executor",
            "dask",
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not dst.exists() or dst.read_text().count("\n") < 2:  # the header and a first row
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        children = psutil.Process(proc.pid).children(recursive=True)
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and out == "" and seconds < 10, (proc.returncode, seconds, err)
    lines = err.splitlines()
    assert lines[-1] == "verialloc: interrupted" and all(line.startswith("certify batch: ") for line in lines[:-1]), err
    while any(_alive(c) for c in children) and time.monotonic() - start < 20:
        time.sleep(0.1)
    assert not [c.pid for c in children if _alive(c)]
    assert 1 <= len(results(dst)) < len(SLOW_ROWS)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(dst)])[0] in (0, REFUTED, INCONCLUSIVE)
    assert run(capsys, ["certify", "--batch", str(src), "--out", str(ref)])[0] in (0, REFUTED, INCONCLUSIVE)
    fields = ("verdict", "lower", "upper", "method_lower", "method_upper", "rigorous")
    assert {k: [v[f] for f in fields] for k, v in results(dst).items()} == {
        k: [v[f] for f in fields] for k, v in results(ref).items()
    }
