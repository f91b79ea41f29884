"""Batch certification (verialloc.certify.batch) and the shared executor (verialloc.runtime.executor).

Verdicts are checked against independent truths computed here in mpmath — randomized response composed E times
(a binomial sum over the privacy loss ε0·(2j − E)) and the one-step Gaussian closed form — with claims 10% above
(certified) and 10% below (refuted). The same rows on a small in-process Dask LocalCluster give the same results
as the local executor; the golden-table regeneration runs on the same executor.
"""

import csv
import gc
import json
import signal
import socket
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import mpmath as mp
import pytest

from verialloc.audit.golden.generate import compute, generate
from verialloc.certify import batch
from verialloc.io import batch_files
from verialloc.runtime import executor
from verialloc.errors import InvalidParameter, UnsupportedRequest


@mp.workdps(40)  # never a global mp.dps: it leaked into later test files
def rr_delta(eps0, epochs, eps) -> mp.mpf:
    """δ(ε) of randomized response (ε0) composed `epochs` times: Σ_j C(E, j) a^j (1 − a)^(E − j) (1 − e^(ε − L_j))_+
    with a = e^ε0/(1 + e^ε0) and L_j = ε0(2j − E) (the pair is symmetric: remove = add = both)."""
    eps0, eps = mp.mpf(eps0), mp.mpf(eps)
    a = mp.e**eps0 / (1 + mp.e**eps0)
    total = mp.mpf(0)
    for j in range(epochs + 1):
        loss = eps0 * (2 * j - epochs)
        if loss > eps:
            total += mp.binomial(epochs, j) * a**j * (1 - a) ** (epochs - j) * (1 - mp.e ** (eps - loss))
    return total


@mp.workdps(40)  # never a global mp.dps: it leaked into later test files
def rr_epsilon(eps0, epochs, delta) -> mp.mpf:
    """ε(δ) by bisection on the non-increasing δ(ε) of rr_delta."""
    lo, hi = mp.mpf(0), mp.mpf(eps0) * epochs
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rr_delta(eps0, epochs, mid) > delta else (lo, mid)
    return hi


@mp.workdps(40)  # never a global mp.dps: it leaked into later test files
def gauss_delta(sigma, eps) -> mp.mpf:
    """One Gaussian step (sensitivity 1): Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)."""
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.e**e * mp.ncdf(-1 / (2 * s) - e * s)


def _num(x) -> str:
    return mp.nstr(x, 15)


def truth_rows() -> list[tuple[dict, str]]:
    """(row, expected verdict): every claim 10% above (certified) or 10% below (refuted) its true value."""
    rows = []
    for eps0, epochs, delta, eps in (("0.5", 3, "1e-3", "0.5"), ("0.2", 30, "1e-6", "2"), ("1", 10, "1e-2", "4")):
        true_eps = rr_epsilon(eps0, epochs, mp.mpf(delta))
        for factor, verdict in (("1.1", "certified"), ("0.9", "refuted")):
            rows.append(
                (
                    {
                        "id": f"rr-{eps0}-{epochs}-eps-{factor}",
                        "mechanism": "randomized-response",
                        "eps0": eps0,
                        "steps": 1,
                        "epochs": epochs,
                        "delta": delta,
                        "claimed_epsilon": _num(true_eps * mp.mpf(factor)),
                    },
                    verdict,
                )
            )
        true_delta = rr_delta(eps0, epochs, eps)
        for factor, verdict in (("1.1", "certified"), ("0.9", "refuted")):
            rows.append(
                (
                    {
                        "id": f"rr-{eps0}-{epochs}-delta-{factor}",
                        "mechanism": "randomized-response",
                        "eps0": eps0,
                        "steps": 1,
                        "epochs": epochs,
                        "epsilon": eps,
                        "claimed_delta": _num(true_delta * mp.mpf(factor)),
                    },
                    verdict,
                )
            )
    true_delta = gauss_delta(1, 1)
    for factor, verdict in (("1.1", "certified"), ("0.9", "refuted")):
        rows.append(
            (
                {
                    "id": f"gauss-{factor}",
                    "mechanism": "gaussian",
                    "sigma": 1,
                    "steps": 1,
                    "epsilon": 1,
                    "claimed_delta": _num(true_delta * mp.mpf(factor)),
                },
                verdict,
            )
        )
    return rows


def write_csv(path, rows: list[dict]) -> None:
    keys = sorted({k for r in rows for k in r})
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, keys)
        writer.writeheader()
        writer.writerows(rows)


def write_jsonl(path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def read_results(path) -> dict:
    if path.suffix == ".csv":
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    else:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len({r["id"] for r in rows}) == len(rows), "an id appears twice"
    return {r["id"]: r for r in rows}


@pytest.fixture(scope="module")
def truths():
    return truth_rows()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c:
        yield c


@pytest.mark.parametrize("fmt", [(".csv", ".jsonl"), (".jsonl", ".csv")])
def test_verdicts_against_independent_truths(tmp_path, truths, fmt):
    src, dst = tmp_path / f"claims{fmt[0]}", tmp_path / f"results{fmt[1]}"
    (write_csv if fmt[0] == ".csv" else write_jsonl)(src, [r for r, _ in truths])
    summary = batch.run_batch(src, dst)
    assert summary["computed"] == summary["rows"] == len(truths) and summary["skipped"] == 0
    results = read_results(dst)
    for row, verdict in truths:
        got = results[row["id"]]
        assert got["verdict"] == verdict, (row, got)
        assert got["method_lower"] == got["method_upper"] == "exact" and got["error"] == ""
        truth = (
            rr_epsilon(row["eps0"], row["epochs"], mp.mpf(row["delta"]))
            if "delta" in row
            else rr_delta(row["eps0"], row["epochs"], row["epsilon"])
            if "eps0" in row
            else gauss_delta(1, 1)
        )
        assert mp.mpf(got["lower"]) <= truth <= mp.mpf(got["upper"])
    assert summary["verdicts"] == {
        "certified": len(truths) // 2,
        "refuted": len(truths) // 2,
        "inconclusive": 0,
        "error": 0,
    }


def test_resume_skips_done_rows_and_appends_nothing(tmp_path, truths):
    src, dst = tmp_path / "claims.jsonl", tmp_path / "results.csv"
    write_jsonl(src, [r for r, _ in truths[:4]])
    batch.run_batch(src, dst)
    before = dst.read_bytes()
    again = batch.run_batch(src, dst)
    assert (again["skipped"], again["computed"]) == (4, 0) and dst.read_bytes() == before
    write_jsonl(src, [r for r, _ in truths[:6]])  # two new rows: only they run
    more = batch.run_batch(src, dst)
    assert (more["skipped"], more["computed"]) == (4, 2)
    assert dst.read_bytes().startswith(before) and len(read_results(dst)) == 6


def test_an_interrupted_last_line_is_recomputed(tmp_path, truths):
    src, dst = tmp_path / "claims.csv", tmp_path / "results.jsonl"
    write_csv(src, [r for r, _ in truths[:3]])
    batch.run_batch(src, dst)
    full = read_results(dst)
    lines = dst.read_text().splitlines(keepends=True)
    dst.write_text("".join(lines[:2]) + lines[2][:40])  # killed while writing the third row
    assert batch.run_batch(src, dst)["computed"] == 1
    again = read_results(dst)
    assert {k: v["verdict"] for k, v in again.items()} == {k: v["verdict"] for k, v in full.items()}


def test_rows_without_id_are_named_by_a_hash_of_their_inputs(tmp_path):
    row = {"mechanism": "gaussian", "sigma": "1", "steps": "1", "delta": "1e-5", "claimed_epsilon": "5"}
    assert batch_files.key(row) == batch_files.key(dict(reversed(row.items()))) and batch_files.key(row).startswith(
        "sha256:"
    )
    assert batch_files.key(row) != batch_files.key({**row, "sigma": "2"}) and batch_files.key({**row, "id": "a"}) == "a"
    src, dst = tmp_path / "c.csv", tmp_path / "r.csv"
    write_csv(src, [row])
    batch.run_batch(src, dst)
    assert batch.run_batch(src, dst)["skipped"] == 1
    # JSON numbers and CSV text of the same row are the same row
    write_jsonl(tmp_path / "c.jsonl", [{**row, "sigma": 1, "steps": 1}])
    assert batch.run_batch(tmp_path / "c.jsonl", dst)["skipped"] == 1


def test_invalid_rows_get_verdict_error_and_the_batch_goes_on(tmp_path):
    good = {"id": "good", "mechanism": "gaussian", "sigma": 1, "steps": 1, "delta": "1e-5", "claimed_epsilon": 9}
    bad = [
        {"id": "neg-sigma", "mechanism": "gaussian", "sigma": -1, "steps": 1, "delta": "1e-5", "claimed_epsilon": 1},
        {"id": "no-claim", "mechanism": "gaussian", "sigma": 1, "steps": 1},
        {
            "id": "unknown",
            "mechanism": "gaussian",
            "sigma": 1,
            "steps": 1,
            "colour": "red",
            "delta": "1e-5",
            "claimed_epsilon": 1,
        },
        {"id": "strict", **{k: v for k, v in good.items() if k != "id"}, "strict": "maybe"},
        {"id": "list", "mechanism": "gaussian", "sigma": [1], "steps": 1, "delta": "1e-5", "claimed_epsilon": 1},
        {"id": "pair", "mechanism": "discrete", "pair": "{not json", "steps": 1, "delta": "1e-5", "claimed_epsilon": 1},
        {"id": "budget", **{k: v for k, v in good.items() if k != "id"}, "budget": "0"},
    ]
    src, dst = tmp_path / "c.jsonl", tmp_path / "r.csv"
    write_jsonl(src, [bad[0], good, *bad[1:]])
    with pytest.raises(
        batch.RowErrors,
        match=r"7 of 8 rows have verdict error.*first: line 1 \(id neg-sigma\): "
        r"sigma=-1 is invalid",
    ):
        batch.run_batch(src, dst)
    results = read_results(dst)
    assert results["good"]["verdict"] == "certified"
    reasons = {k: v["error"] for k, v in results.items() if v["verdict"] == "error"}
    assert set(reasons) == {r["id"] for r in bad}
    assert all(reason and "\n" not in reason for reason in reasons.values())
    assert reasons["no-claim"].startswith("claim=(missing)") and reasons["unknown"].startswith("colour=red")
    assert reasons["strict"].startswith("strict=maybe") and reasons["budget"].startswith("budget=0")


def test_row_keys_override_the_defaults(tmp_path):
    row = {
        "id": "r",
        "mechanism": "randomized-response",
        "eps0": 1,
        "steps": 1,
        "epochs": 2,
        "epsilon": "0.5",
        "claimed_delta": "0.3",
        "direction": "remove",
        "budget": "5",
    }
    src, dst = tmp_path / "c.jsonl", tmp_path / "r.jsonl"
    write_jsonl(src, [row, {**row, "id": "default", "direction": None, "budget": None}])
    batch.run_batch(src, dst, direction="add", budget="7", strict=True, digits=12)
    out = read_results(dst)
    assert (out["r"]["direction"], out["r"]["budget"], out["r"]["strict"]) == ("remove", "5", "true")
    assert (out["default"]["direction"], out["default"]["budget"]) == ("add", "7")
    truth = rr_delta(1, 2, "0.5")
    assert mp.mpf(out["r"]["lower"]) <= truth <= mp.mpf(out["r"]["upper"])
    assert len(out["r"]["lower"].replace(".", "").lstrip("0")) > 8  # digits=12 (trailing zeros dropped)


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,sigma,colour\n", "c.csv is invalid: line 1: unknown column 'colour'; columns: id, mechanism"),
        ("\n\nid,sigma,sigma\n", "line 3: the column 'sigma' appears twice"),
        ("", "is empty: a header row"),
        ("id,sigma\na,1,2\n", "line 2 has 3 fields, the header 2"),
        ('id,sigma\n"a,1\n', "line 2 is not valid CSV"),
        ("id,mechanism\na,gaussian\na,laplace\n", "id=a is invalid: .* line 3 repeats the row of line 2"),
        ("mechanism\ngaussian\ngaussian\n", "line 3 repeats the row of line 2"),
    ],
)
def test_unparseable_csv_is_refused_before_any_row(tmp_path, text, message):
    src, dst = tmp_path / "c.csv", tmp_path / "r.csv"
    src.write_text(text)
    with pytest.raises(InvalidParameter, match=message):
        batch.run_batch(src, dst)
    assert not dst.exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"id": "a"}\n[1, 2]\n', "line 2 is not a JSON object"),
        ('{"id": "a"\n', r"line 1 is not a JSON object \(JSONDecodeError"),
        ('{"id": "' + "x" * 300 + '"}\n', "at most 200 characters"),
    ],
)
def test_unparseable_jsonl_is_refused_before_any_row(tmp_path, text, message):
    src = tmp_path / "c.jsonl"
    src.write_text(text)
    with pytest.raises(InvalidParameter, match=message):
        batch.run_batch(src, tmp_path / "r.jsonl")


def test_reading_is_bounded(tmp_path, monkeypatch):
    huge = tmp_path / "huge.csv"
    huge.write_bytes(b"id," + b"x" * (batch_files.MAX_LINE + 10) + b"\n")
    with pytest.raises(InvalidParameter, match=f"line 1 is longer than {batch_files.MAX_LINE} bytes"):
        batch_files.read_rows(huge)
    monkeypatch.setattr(batch_files, "MAX_ROWS", 3)
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({"id": str(i)}) + "\n" for i in range(10)))
    with pytest.raises(InvalidParameter, match="line 4: more than 3 rows"):
        batch_files.read_rows(many)
    monkeypatch.setattr(batch_files, "MAX_BYTES", 30)
    with pytest.raises(InvalidParameter, match="larger than 30 bytes"):
        batch_files.read_rows(many)


def test_the_output_must_be_a_results_file(tmp_path):
    src = tmp_path / "c.csv"
    write_csv(src, [{"id": "a", "mechanism": "gaussian", "sigma": 1, "steps": 1, "epsilon": 1, "claimed_delta": 0.5}])
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidParameter, match="has another header"):
        batch.run_batch(src, other)
    assert other.read_text() == "a,b\n1,2\n"
    with pytest.raises(InvalidParameter, match="out=.* must be a .csv or .jsonl file"):
        batch.run_batch(src, tmp_path / "r.txt")
    with pytest.raises(InvalidParameter, match="does not exist"):
        batch.run_batch(src, tmp_path / "missing" / "r.csv")


# --- the executor ---------------------------------------------------------------------------------------------


def test_local_and_pools_yield_every_result_once(monkeypatch):
    assert list(executor.completed(abs, [-1, 2, -3])) == [(0, 1), (1, 2), (2, 3)]
    monkeypatch.setattr(executor, "WINDOW", 2)  # more items than the window: fed as results come back
    with ThreadPoolExecutor(2) as pool:
        assert sorted(executor.completed(abs, range(-5, 0), pool)) == [(i, 5 - i) for i in range(5)]
    assert sorted(executor.completed(abs, range(-5, 0), "process", workers=1)) == [(i, 5 - i) for i in range(5)]


def test_local_pools_never_have_more_processes_than_tasks(monkeypatch):
    """--workers 1000 started 1000 processes for 3 rows: a pool has min(workers, tasks) of them, none for no task."""
    sizes = []

    class Recording(ProcessPoolExecutor):
        def __init__(self, max_workers):
            sizes.append(max_workers)
            super().__init__(max_workers)

    monkeypatch.setattr(executor, "ProcessPoolExecutor", Recording)
    assert sorted(executor.completed(abs, [-1, -2, -3], "process", workers=8)) == [(0, 1), (1, 2), (2, 3)]
    assert sorted(executor.completed(abs, [-1, -2, -3], "process", workers=2)) == [(0, 1), (1, 2), (2, 3)]
    assert list(executor.completed(abs, [], "process", workers=4)) == []
    assert sizes == [3, 2]


def test_a_local_cluster_never_has_more_workers_than_tasks(monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    sizes = []

    class Recording(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            sizes.append(len(self.workers))

    monkeypatch.setattr(distributed, "LocalCluster", Recording)
    assert list(executor.completed(abs, [-1], "dask", workers=3)) == [(0, 1)]
    assert list(executor.completed(abs, [], "dask")) == []
    assert sizes == [1]


def precision_held(digits):
    """Set mpmath to `digits`, give other threads time to run, report whether the precision was kept throughout."""
    with mp.workdps(digits):
        kept = True
        for _ in range(20):
            time.sleep(0.001)
            kept &= mp.mp.dps == digits
        return kept


def test_tasks_sharing_a_process_do_not_change_each_others_precision():
    """mpmath's precision is process-global: threads of one pool (or one Dask worker) run one task at a time, so
    every task computes at its own precision and the global one is restored afterwards."""
    saved = mp.mp.prec
    with ThreadPoolExecutor(4) as pool:
        kept = [v for _, v in executor.completed(precision_held, [20 + 7 * i for i in range(16)], pool)]
    assert kept == [True] * 16
    assert mp.mp.prec == saved


def test_executor_refusals(monkeypatch):
    with pytest.raises(InvalidParameter, match="executor=spark is invalid: must be one of local|process|dask"):
        executor.check("spark")
    with pytest.raises(InvalidParameter, match="applies only to --executor dask"):
        executor.check("local", scheduler="tcp://x:1")
    with pytest.raises(InvalidParameter, match="workers=2 is invalid: sets the size of a local cluster"):
        executor.check("dask", scheduler="tcp://x:1", workers=2)
    with pytest.raises(InvalidParameter, match="applies to --executor process|dask"):
        executor.check("local", workers=2)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # the extra is missing
    with pytest.raises(UnsupportedRequest, match=r"pip install 'verialloc\[dask\]'"):
        executor.check("dask")


def test_unreachable_scheduler_is_one_error(monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(executor, "CONNECT_TIMEOUT", 1)
    with pytest.raises(InvalidParameter, match="scheduler=tcp://127.0.0.1:9 is invalid: no Dask scheduler answered"):
        list(executor.completed(abs, [1], "dask", scheduler="tcp://127.0.0.1:9"))


@pytest.fixture(params=[b"", b"\xff" * 64, b"HTTP/1.0 400 Bad request\r\n\r\n"], ids=["silent", "garbage", "http"])
def not_dask(request):
    """A TCP port that is not a Dask scheduler: it accepts, sends these bytes, and keeps the connection open."""
    server = socket.create_server(("127.0.0.1", 0))
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            conn.sendall(request.param)

    threading.Thread(target=serve, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for conn in held:
        conn.close()
    for thread in threading.enumerate():  # the abandoned handshake ends with its connection: wait for it, so no
        if thread.name == "verialloc-dask-connect":  # half-built Client overlaps the next test's cluster
            thread.join(60)
    # and its half-built Client is gone: left to the garbage collector, its __del__ ran in whichever thread collected
    # next, once inside a Dask loop start holding the lock that its close takes (the next cluster hung, 1 run in 2)
    from dask.distributed import Client

    assert not [c for c in gc.get_objects() if isinstance(c, Client) and c.status not in ("closed", "newly-created")]


def test_a_port_that_is_not_dask_is_one_error_within_the_deadline(monkeypatch, not_dask):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(executor, "CONNECT_TIMEOUT", 1)
    monkeypatch.setattr(executor, "HANDSHAKE_GRACE", 1)
    start = time.monotonic()
    with pytest.raises(InvalidParameter, match="is invalid: no Dask scheduler answered there"):
        list(executor.completed(abs, [1], "dask", scheduler=not_dask))
    assert time.monotonic() - start < 10


def test_a_local_clusters_workers_leave_ctrl_c_to_this_process():
    """A terminal sends Ctrl-C to the whole process group: the workers verialloc starts ignore it (interrupted, they
    printed tracebacks and lost finished results); this process is interrupted and stops them."""
    pytest.importorskip("dask.distributed")
    before = signal.getsignal(signal.SIGINT)
    handler = lambda signum: str(signal.getsignal(signum))  # noqa: E731  (a handler may not pickle: its name does)
    assert list(executor.completed(handler, [signal.SIGINT], "dask", workers=1)) == [(0, str(signal.SIG_IGN))]
    assert signal.getsignal(signal.SIGINT) is before


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler, as in a terminal: a shell starts background jobs (`.ci/seed-runs`) with SIGINT
    ignored, Python keeps an inherited SIG_IGN, and an in-process Ctrl-C then raised nothing (seed-runs 212)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_while_a_local_cluster_starts_stops_it_once_it_is_up(monkeypatch, python_sigint):
    """Raised inside the start, the interrupt left a half-started cluster behind (an atexit hook then failed)."""
    distributed = pytest.importorskip("dask.distributed")
    started = []

    class Interrupted(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(distributed, "LocalCluster", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        list(executor.completed(abs, [1], "dask", workers=1))
    assert [c.status.name for c in started] == ["closed"]


def test_stopping_early_does_not_wait_for_a_running_task():
    """A consumer that stops (Ctrl-C, an error) while a worker runs a long task: the task is cancelled and its worker
    killed after STOP_GRACE seconds (the cluster's own close waited 4 s, the executor's exit for every task)."""
    pytest.importorskip("dask.distributed")
    tasks = executor.completed(time.sleep, [0, 600], "dask", workers=1)
    assert next(tasks) == (0, None)
    start = time.monotonic()
    tasks.close()
    assert time.monotonic() - start < executor.STOP_GRACE + 2


def test_dask_gives_the_local_results(tmp_path, truths, cluster):
    src = tmp_path / "c.jsonl"
    write_jsonl(src, [r for r, _ in truths])
    batch.run_batch(src, tmp_path / "local.csv")
    summary = batch.run_batch(src, tmp_path / "dask.csv", executor="dask", scheduler=cluster.scheduler_address)
    assert summary["executor"] == "dask" and summary["computed"] == len(truths)
    local, remote = read_results(tmp_path / "local.csv"), read_results(tmp_path / "dask.csv")
    fields = ("verdict", "lower", "upper", "method_lower", "method_upper")
    assert {k: [v[f] for f in fields] for k, v in remote.items()} == {
        k: [v[f] for f in fields] for k, v in local.items()
    }
    assert (
        batch.run_batch(src, tmp_path / "dask.csv", executor="dask", scheduler=cluster.scheduler_address)["computed"]
        == 0
    )


def test_golden_regeneration_runs_on_the_shared_executor(cluster):
    spec = {
        "id": "t",
        "config": {"mechanism": "gaussian", "sigma": "1", "scheme": "allocation", "steps": 1, "k": 1, "epochs": 1},
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "exact",
    }
    specs = [spec, {**spec, "id": "u", "target": "1e-3"}]
    expected = [compute(s) for s in specs]
    for table in (generate(specs, "local"), generate(specs, "dask", scheduler=cluster.scheduler_address)):
        assert [e | {"seconds": 0} for e in table["entries"]] == [e | {"seconds": 0} for e in expected]


def test_stability_sweep_runs_on_the_shared_executor(cluster):
    from verialloc.stability import PROBES, run

    p = PROBES["gaussian-delta"]
    local = run(p, (0.5, 4.0), (1.0, 12.0), 1e-12)
    for kwargs in ({"executor": "dask", "scheduler": cluster.scheduler_address}, {"executor": "process", "workers": 1}):
        remote = run(p, (0.5, 4.0), (1.0, 12.0), 1e-12, **kwargs)
        assert [{**vars(pt), "seconds": 0} for pt in remote] == [{**vars(pt), "seconds": 0} for pt in local]


def test_the_results_files_verdicts_are_certifys():
    """io.batch_files checks stored rows against its own vocabulary; it must be certify's verdicts and error."""
    from verialloc.certify.verdict import VERDICTS

    assert batch_files.VERDICTS == (*VERDICTS, "error")
