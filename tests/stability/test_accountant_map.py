"""Accountant map (issue #32): planted unsafe / hanging / raising accountants are flagged in exactly their cells,
the HTML page holds one cell per point with its numbers (also checked in a real headless browser, `make browser`),
the cost check names a region that fits, CLI errors."""

import csv
import json
import os
import re
import time
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from verialloc.audit.adapters import Accountant
from verialloc.budget import BudgetExceeded
from verialloc.cli import main
from verialloc.errors import InvalidParameter
from verialloc.stability import accountants as maps
from verialloc.stability.maps import COLOURS
from verialloc.stability.page import page
from verialloc.stability.region import Region, axis

REGION = Region((1.0, 2.0), (10, 100), (1e-5,), "poisson", "0.1")


@pytest.fixture(scope="module")
def brackets():
    """The certified brackets of REGION, computed once (phase 1 of the map)."""
    return {(s, t): maps.certified((REGION, s, t)) for s, t in REGION.pairs()}


def _fake(name, epsilon, supports=lambda c: True):
    return Accountant(name, "none", ("math",), "both", supports, f"{name}(config, delta)", epsilon=epsilon)


def _planted(brackets):
    """0.9 x the certified lower end at sigma = 1 (unsafe), 1.5 x the certified upper end elsewhere (loose)."""

    def epsilon(config, delta):
        s, t = float(config.mechanism.noise_multiplier), config.steps
        lo, hi = brackets[s, t]["brackets"][delta]["both"]
        return 0.9 * float(lo) if s == 1.0 else 1.5 * float(hi)

    return _fake("planted", epsilon)


def test_ratio_text_shows_what_three_digits_would_hide():
    assert maps.ratio_text(1.0711) == "x1.07" and maps.ratio_text(0.9999094) == "x(1 - 9.1e-05)"
    assert maps.ratio_text(1.0) == "x1" and maps.ratio_text(1.000002) == "x(1 + 2e-06)"
    assert maps.ratio_text(1.003226) == "x(1 + 0.0032)" and maps.ratio_text(1.0093) == "x(1 + 0.0093)"
    assert maps.ratio_text(0.9951) == "x(1 - 0.0049)" and maps.ratio_text(1.0107) == "x1.01"


def test_axis_ranges_and_lists():
    assert axis("sigma", "0.5:5:3", "sigma") == (0.5, 1.58, 5.0)
    assert axis("steps", "10:1e5", "steps") == (10, 100, 1000, 10000, 100000)
    assert axis("delta", "1e-5,1e-10", "delta") == (1e-10, 1e-5)
    for text in ("1:x", "5:1", "1:2:1", "0,1", "nan"):
        with pytest.raises(InvalidParameter):
            axis("sigma", text, "sigma")


@pytest.mark.parametrize(
    "name, text, kind",
    [("delta", "1e-5,1e-10,0.00001", "delta"), ("sigma", "2,2.0", "sigma"), ("steps", "1:3:5", "steps")],
)
def test_a_value_given_twice_is_refused_not_dropped(name, text, kind):
    """Typed twice (1e-5 and 0.00001 are one float) or two range points rounding to one value: refused."""
    with pytest.raises(InvalidParameter, match="values must be distinct: .* is given twice"):
        axis(name, text, kind)
    with pytest.raises(InvalidParameter, match="given twice"):
        Region((1.0, 1.0), (10,), (1e-5,), "poisson", "0.1")


def test_an_accountant_given_twice_is_refused(brackets):
    acc = _fake("x", lambda c, d: 1.0)
    with pytest.raises(InvalidParameter, match="accountants=x .* given twice"):
        maps.run(REGION, [acc, acc], timeout=20, brackets=brackets)


def test_planted_accountant_is_unsafe_exactly_below_the_certified_lower_end(brackets):
    cells = maps.run(REGION, [_planted(brackets)], timeout=20, brackets=brackets)["cells"]
    assert len(cells) == REGION.cells_count == 4
    below = {(c.sigma, c.steps) for c in cells if Fraction(c.reported) < Fraction(c.lower)}
    assert below == {(1.0, 10), (1.0, 100)}
    assert {(c.sigma, c.steps) for c in cells if c.flag == "UNSAFE"} == below
    assert {c.flag for c in cells if (c.sigma, c.steps) not in below} == {"LOOSE"}
    assert all(abs(c.ratio - (0.9 if c.flag == "UNSAFE" else 1.5)) < 1e-12 for c in cells)
    assert {c.end for c in cells if c.flag == "UNSAFE"} == {"lower"} and {
        c.end for c in cells if c.flag == "LOOSE"
    } == {"upper"}
    lines = maps.summary(cells)
    assert lines == [
        "planted delta=1e-05: UNSAFE in 2 of 4 cells (sigma=1: steps 10,100; x0.9 of the certified lower end)",
        "planted delta=1e-05: LOOSE in 2 of 4 cells (sigma=2: steps 10,100; x1.5 of the certified upper end)",
    ]
    # the CSV's reason states the same quantity in the same form as the summary
    assert {c.reason for c in cells} == {"x0.9 of the certified lower end", "x1.5 of the certified upper end"}


def test_summary_says_when_the_answer_is_infinite(brackets):
    cells = maps.run(REGION, [_fake("inf", lambda c, d: float("inf"))], timeout=20, brackets=brackets)["cells"]
    assert maps.summary(cells) == [
        "inf delta=1e-05: LOOSE in 4 of 4 cells (sigma=1: steps 10,100; sigma=2: steps 10,100; answer +inf)"
    ]


def test_judged_end_and_ratio_of_each_claim():
    lo, hi = "2", "4"
    assert [maps.judged_end(v, lo, hi, "upper") for v in (1.0, 3.0, 5.0)] == ["lower", "upper", "upper"]
    assert [maps.judged_end(v, lo, hi, "lower") for v in (1.0, 3.0, 5.0)] == ["lower", "lower", "upper"]
    assert [maps.judged_end(v, lo, hi, "estimate") for v in (1.0, 3.0, 5.0)] == ["lower", "upper", "upper"]
    assert maps.ratio(1.0, lo) == 0.5 and maps.ratio(1.0, "0") is None and maps.ratio(float("inf"), hi) is None


def _flags_of_stability():
    from verialloc.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["stability"]
    return {o for a in sub._actions for o in a.option_strings}


def test_a_region_pld_refuses_names_only_flags_of_the_command():
    """pld refuses σ = 0.2 at t = 10^5 (its geometric grid is over the cap) and says "use --method rdp", a flag of
    `verialloc epsilon`: the map's refusal names only the map's own flags."""
    region = Region((0.2,), (100000,), (1e-30,), "allocation")
    with pytest.raises(maps.UnsupportedRequest) as info:
        maps.check_cost(region, [_fake("x", lambda c, d: 1.0)], timeout=1)
    message = str(info.value)
    assert "geometric grid" in message and "--method" not in message
    assert set(re.findall(r"--[a-z][a-z-]*", message)) <= _flags_of_stability()


def test_cells_pld_refuses_are_uncertified_and_the_others_run():
    """A region where pld refuses some cells is not refused: those cells are UNCERTIFIED with pld's reason (no
    remedy of another command), not called, and the other cells are judged."""
    region = Region((0.2, 2.0), (100000,), (1e-30,), "allocation")
    given = {
        (0.2, 100000): {"brackets": {}, "errors": {}, "error": "", "seconds": 0.0},
        (2.0, 100000): {"brackets": {1e-30: {k: ["1", "2"] for k in ("both", "remove", "add")}}, "error": ""},
    }
    cells = maps.run(region, [_fake("x", lambda c, d: 1.5)], timeout=20, brackets=given)["cells"]
    by = {c.sigma: c for c in cells}
    assert by[2.0].flag == "OK" and by[0.2].flag == maps.UNCERTIFIED and by[0.2].reported is None
    assert "geometric grid" in by[0.2].reason and "--" not in by[0.2].reason
    assert maps.without_remedies("x: too heavy; use a larger sigma, or --method rdp") == "x: too heavy"


def test_hanging_raising_and_unserved_accountants(brackets):
    one = REGION.with_axes(sigmas=(1.0,))
    hang = _fake("hang", lambda c, d: time.sleep(60))
    boom = _fake("boom", lambda c, d: 1 / 0)
    some = _fake("some", lambda c, d: 5.0, supports=lambda c: c.steps == 10)
    start = time.perf_counter()
    cells = maps.run(one, [hang, boom, some], timeout=1, brackets=brackets)["cells"]
    assert time.perf_counter() - start < 30
    flags = {(c.accountant, c.steps): c.flag for c in cells}
    assert flags[("hang", 10)] == flags[("hang", 100)] == "TIMEOUT"
    assert flags[("boom", 10)] == flags[("boom", 100)] == "ERROR"
    assert "boom delta=1e-05: ERROR in 2 of 2 cells (sigma=1: steps 10,100; ZeroDivisionError)" in maps.summary(cells)
    assert "ZeroDivisionError" in next(c.reason for c in cells if c.accountant == "boom")
    assert flags[("some", 100)] == maps.UNSERVED and flags[("some", 10)] in ("OK", "LOOSE", "UNSAFE")


class _Cells(HTMLParser):
    """The td.cell elements of a page: their attributes, and the tables they are in."""

    def __init__(self):
        super().__init__()
        self.cells, self.tables = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables += 1
        if tag == "td" and attrs.get("class") == "cell":
            self.cells.append((self.tables, attrs))


@pytest.fixture(scope="module")
def planted_page(brackets):
    """The cells of the planted accountant over REGION, and their HTML page."""
    cells = maps.run(REGION, [_planted(brackets)], timeout=20, brackets=brackets)["cells"]
    return cells, page(cells, "map", "verialloc stability ...", maps.summary(cells))


def test_html_page_has_one_cell_per_point_with_its_numbers(planted_page):
    cells, html = planted_page
    parser = _Cells()
    parser.feed(html)
    parser.close()
    assert parser.tables == 1 and len(parser.cells) == len(cells) == 4
    by = {(a["data-sigma"], a["data-steps"]): a for _, a in parser.cells}
    for c in cells:
        a = by[f"{c.sigma:g}", str(c.steps)]
        assert a["data-flag"] == c.flag and a["data-reported"] == repr(c.reported)
        assert a["data-lower"] == c.lower and a["data-upper"] == c.upper
        assert repr(c.reported) in a["title"] and c.lower in a["title"] and c.upper in a["title"]
    assert "<script" not in html and "http" not in html  # self-contained


GET_A_BROWSER = "run `make browser` (or set VERIALLOC_BROWSER=/path/to/chrome with playwright installed)"
#: what Chromium needs in a container, as root: no sandbox, no zygote, /tmp instead of a small /dev/shm
CHROMIUM_ARGS = ["--no-sandbox", "--no-zygote", "--disable-dev-shm-usage", "--disable-gpu"]


def _chromium():
    """The Chromium to launch: $VERIALLOC_BROWSER, else the one `make browser` unpacked into .browser/, else None
    (playwright's own, where `playwright install chromium` could fetch it)."""
    unpacked = Path(__file__).resolve().parents[2] / ".browser" / "chrome"
    return os.environ.get("VERIALLOC_BROWSER") or (str(unpacked) if unpacked.exists() else None)


def _rgb(flag):
    return tuple(bytes.fromhex(COLOURS[flag][1:]))


def test_html_page_in_a_headless_browser(planted_page, tmp_path):
    """The page in a real headless Chromium (`make browser`; skipped without one): one td.cell per cell, the first visible, the element under the mouse
    at a hovered cell is that cell with its numbers in its title, each cell painted in its flag's colour, and a
    screenshot that is not blank and shows those colours."""
    try:
        from PIL import Image
        from playwright.sync_api import Error, sync_playwright
    except ImportError as e:
        pytest.skip(f"no headless browser: {e.name} is not installed; {GET_A_BROWSER}")
    cells, html = planted_page
    path = tmp_path / "map.html"
    path.write_text(html)
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, timeout=60_000)
        except Error as e:
            if _chromium() or "Executable doesn't exist" not in str(e):
                raise
            pytest.skip(f"no headless browser: playwright has no Chromium; {GET_A_BROWSER}")
        pg = browser.new_page(viewport={"width": 900, "height": 700})
        pg.goto(path.as_uri())
        tds = pg.locator("td.cell")
        assert tds.count() == len(cells) and tds.first.is_visible()
        by = {(f"{c.sigma:g}", str(c.steps)): c for c in cells}
        for i in range(len(cells)):
            td = tds.nth(i)
            c = by[td.get_attribute("data-sigma"), td.get_attribute("data-steps")]
            td.hover()
            box = td.bounding_box()
            under = pg.evaluate("([x, y]) => document.elementFromPoint(x, y).title", [box["x"] + 2, box["y"] + 2])
            hovered = pg.evaluate("() => [...document.querySelectorAll(':hover')].pop().title")
            assert under == hovered == td.get_attribute("title")
            assert repr(c.reported) in hovered and c.lower in hovered and c.upper in hovered
            rgb = td.evaluate("e => getComputedStyle(e).backgroundColor")
            assert rgb == "rgb({}, {}, {})".format(*_rgb(td.get_attribute("data-flag")))
        shot = tmp_path / "map.png"
        pg.locator("table.map").screenshot(path=str(shot))
        browser.close()
    colours = Image.open(shot).convert("RGB").getcolors(1 << 24)
    assert sum(n for n, rgb in colours if rgb != (255, 255, 255)) > 1000  # not blank
    painted = {rgb for n, rgb in colours if n > 100} & {_rgb(flag) for flag in COLOURS}  # flag colours shown
    assert painted == {_rgb(c.flag) for c in cells}


def test_cost_check_names_the_nearest_region_that_fits():
    big = Region((0.5, 1.0, 2.0, 4.0), (10, 100, 1000), (1e-10, 1e-5), "poisson", "0.1")
    acc = [_fake("x", lambda c, d: 1.0)]
    with pytest.raises(BudgetExceeded, match=r"nearest region that fits is --sigma [0-9.,]+ --steps [0-9,]+ --delta "):
        maps.check_cost(big, acc, timeout=30, budget=400)
    near = maps.nearest(big, acc, 30, maps.Budget.of(400))
    assert maps.estimate(near, acc, 30).seconds <= 400 and near.cells_count < big.cells_count
    with pytest.raises(BudgetExceeded, match="even one cell does not fit"):
        maps.check_cost(big, acc, timeout=1000, budget=100)


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--accountants", "nope", "--sigma", "1", "--steps", "10"], "accountants"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1,x", "--steps", "10"], "sigma"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "1:10:1"], "steps"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10", "--delta", "2"], "delta"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10", "--scheme", "poisson"], "rate"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10", "--scheme", "x"], "scheme"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10"], "accountants"),  # serves none
        (["--accountants", "dp_accounting.pld", "--steps", "10"], "sigma"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10", "--timeout", "0"], "timeout"),
        (["--accountants", "dp_accounting.pld", "--sigma", "1", "--steps", "10", "--x", "1"], "x"),
        (["--probe", "gaussian-delta", "--sigma", "1"], "sigma"),
        (["--probe", "gaussian-delta", "--accountants", "dp_accounting.pld"], "accountants"),
        (
            ["--accountants", "dp_accounting.rdp", "--sigma", "0.5:5:6", "--steps", "10:1e5:6"]
            + ["--scheme", "poisson", "--rate", "0.01"],
            "cells",
        ),
    ],
)
def test_cli_errors(argv, name, capsys):
    assert main(["stability", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verialloc: error:") and name in err and err.count("\n") == 1


def test_cli_writes_the_map(tmp_path, capsys):
    """One dp_accounting.pld cell end to end: CSV, JSON, HTML (and a PNG when matplotlib is there)."""
    out_dir = tmp_path / "map"
    argv = ["stability", "--accountants", "dp_accounting.pld", "--sigma", "2", "--steps", "10"]
    argv += ["--scheme", "poisson", "--rate", "0.1", "--timeout", "60", "--out", str(out_dir), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["flag"] for c in out["cells"]] == ["OK"] and out["regions"] == [
        "dp_accounting.pld delta=1e-05: OK in all 1 cells"
    ]
    rows = list(csv.DictReader(open(out_dir / "map.csv")))
    assert len(rows) == 1 and rows[0]["accountant"] == "dp_accounting.pld" and rows[0]["flag"] == "OK"
    assert json.loads((out_dir / "map.json").read_text())["cells"] == out["cells"]
    assert (out_dir / "map.html").read_text().count('class="cell"') == 1
    pngs = list(out_dir.glob("*.png"))
    assert len(pngs) in (0, 1) and all(p.read_bytes()[:4] == b"\x89PNG" for p in pngs)
    assert rows[0]["end"] == "upper" and abs(float(rows[0]["ratio"]) - out["cells"][0]["ratio"]) < 1e-15


def test_a_new_map_removes_the_pngs_of_an_earlier_one_and_nothing_else(tmp_path):
    """Re-running into the same --out: an earlier map's PNGs (another accountant, another δ) go, other files stay."""
    from verialloc.cli.stability import write_outputs
    from verialloc.stability import maps as files

    for name in ("dp_accounting.rdp_delta1e-10.png", "opacus.gdp_delta1e-05.png", "x_delta1e-05.png"):
        (tmp_path / name).write_bytes(b"old")
    for name in ("notes.png", "dp_accounting.rdp_delta1e-10.png.txt", "figure.csv"):
        (tmp_path / name).write_text("mine")
    cell = maps.Cell("x", 1.0, 10, 1e-5, "both", "upper", 1.0, "1", "2", 1.0, "upper", "OK", "", 0.1)
    out = {"accountants": ["x"], "skipped": [], "regions": []}
    written = write_outputs(out, [cell], tmp_path, "verialloc stability ...")
    left = sorted(p.name for p in tmp_path.iterdir())
    gone = {"dp_accounting.rdp_delta1e-10.png", "opacus.gdp_delta1e-05.png"}
    assert {tmp_path / n for n in gone} == {__import__("pathlib").Path(p) for p in out["removed"]}
    assert not gone & set(left) and {"notes.png", "dp_accounting.rdp_delta1e-10.png.txt", "figure.csv"} <= set(left)
    pngs = [p for p in written if p.endswith(".png")]
    assert ("x_delta1e-05.png" in left) == bool(pngs)  # rewritten when matplotlib is there, else an earlier map's
    assert files.stale(tmp_path, ["x"], written) == []


def test_an_interrupted_map_resumes_with_only_the_missing_calls(brackets, tmp_path):
    """A KeyboardInterrupt at the last cell (raised in the call's child, re-raised here as Ctrl-C would be) keeps
    the finished rows in the checkpoint; the same map again calls the accountant only for what is missing."""
    from verialloc.stability.checkpoint import Checkpoint

    calls = tmp_path / "calls"
    params = {"region": REGION.as_dict(), "accountants": ["flaky"], "timeout": 20}

    def epsilon(config, delta, interrupt=True):
        with open(calls, "a") as fh:
            fh.write(f"{float(config.mechanism.noise_multiplier):g} {config.steps}\n")
        if interrupt and (float(config.mechanism.noise_multiplier), config.steps) == (2.0, 100):
            raise KeyboardInterrupt
        return 1.0

    with pytest.raises(KeyboardInterrupt):
        maps.run(REGION, [_fake("flaky", epsilon)], timeout=20, checkpoint=Checkpoint(tmp_path, params))
    assert len(calls.read_text().splitlines()) == 4
    again = Checkpoint(tmp_path, params)
    assert len(again.brackets) == 4 and len(again.rows) == 3 and again.resumed == 7
    calls.unlink()
    cells = maps.run(REGION, [_fake("flaky", lambda c, d: epsilon(c, d, False))], timeout=20, checkpoint=again)
    assert calls.read_text().split() == ["2", "100"]
    assert len(cells["cells"]) == 4 and all(c.reported == 1.0 for c in cells["cells"])
    assert {p: out["brackets"] for p, out in cells["brackets"].items()} == {
        p: out["brackets"] for p, out in brackets.items()
    }
    again.finish()
    assert not again.path.exists()
