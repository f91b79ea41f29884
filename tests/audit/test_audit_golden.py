"""The shipped golden table (verialloc/audit/golden/default.json): loadable as package data, matching the grid,
consistent (both = max over directions, F3), and containing independent references where they exist."""

from concurrent.futures import ThreadPoolExecutor

import mpmath as mp
import pytest

from verialloc.audit import golden
from verialloc.audit.golden.generate import GRID, compute, generate
from verialloc.errors import InvalidParameter

from audit_refs import gaussian_epsilon


def test_table_matches_grid_and_records_provenance(golden_table):
    assert [e["id"] for e in golden_table["entries"]] == [s["id"] for s in GRID]
    assert {"verialloc", "numpy", "scipy", "python", "mpmath"} <= set(golden_table["versions"])
    assert golden_table["date"] and golden_table["digits"] >= 10
    for entry in golden_table["entries"]:
        assert entry["method"] in ("pld", "exact") and "settings" in entry and entry["seconds"] >= 0
    with pytest.raises(InvalidParameter):
        golden.load("nope")


def test_brackets_are_ordered_and_both_is_the_max(golden_table):
    for e in golden_table["entries"]:
        b = {d: golden.bracket(e, d) for d in ("remove", "add", "both")}
        for lo, hi in b.values():
            assert 0 <= lo <= hi, e["id"]
            assert hi < mp.inf, e["id"]  # the shipped grid is fully certified (finite upper)
        assert b["both"][0] == max(b["remove"][0], b["add"][0]), e["id"]
        assert b["both"][1] == max(b["remove"][1], b["add"][1]), e["id"]


@pytest.mark.parametrize("entry_id, mu", [("gauss-s1-d1e-15", 1), ("gauss-s2-T100-d1e-10", 5)])
def test_exact_entries_contain_the_closed_form(golden_by_id, entry_id, mu):
    """F13 (Gaussian profile), composition of T Gaussians with σ = 2 is one with μ = √T/σ = 5."""
    e = golden_by_id[entry_id]
    ref = gaussian_epsilon(mp.mpf(mu), e["target"])
    for d in ("remove", "add", "both"):
        lo, hi = golden.bracket(e, d)
        assert lo <= ref <= hi and (hi - lo) / ref < 1e-10


def test_poisson_entries_near_stated_references(golden_by_id):
    """Task-stated reference values: ε ≈ 0.304 (q=1e-3, σ=0.8, T=1e3, δ=1e-5), ≈ 0.476 (σ=1, T=1e4)."""
    for entry_id, ref in (("dpsgd-s0.8-T1e3-d1e-5", 0.304), ("dpsgd-s1-T1e4-d1e-5", 0.476)):
        lo, hi = golden.bracket(golden_by_id[entry_id])
        assert abs(lo - ref) < 0.002 and abs(hi - ref) < 0.002 and hi - lo < 1e-3


def test_epsilon_grows_as_delta_shrinks(golden_by_id):
    ids = ["dpsgd-s0.8-T1e3-d1e-5", "dpsgd-s0.8-T1e3-d1e-10", "dpsgd-s0.8-T1e3-d1e-15"]
    brackets = [golden.bracket(golden_by_id[i]) for i in ids]
    assert all(a[1] < b[0] for a, b in zip(brackets, brackets[1:]))


def test_generate_uses_any_executor_map():
    """The executor contract (ProcessPoolExecutor, dask Client.get_executor()): only `.map` is used."""
    spec = {
        "id": "t",
        "config": {"mechanism": "gaussian", "sigma": "1", "scheme": "allocation", "steps": 1, "k": 1, "epochs": 1},
        "quantity": "epsilon",
        "target": "1e-5",
        "method": "exact",
    }
    with ThreadPoolExecutor(1) as pool:
        table = generate([spec], executor=pool)
    (entry,) = table["entries"]
    assert entry == compute(spec) | {"seconds": entry["seconds"]}
    lo, hi = golden.bracket(entry)
    assert lo <= gaussian_epsilon(mp.mpf(1), "1e-5") <= hi and lo < hi  # rounded outward
