"""Every example in docs/*.md runs under test, as the README's do (tests/test_readme.py): what a page shows is what
the code prints today.

What counts as an example (fenced blocks):
* console: a block whose first line starts with `$ `. Each `$ verialloc ...` line is run (verialloc.cli.main) and
  the lines after it, up to the next `$ ` line, must be its output (stdout and stderr); `...` in the expected text
  stands for any text (timings, run-dependent digits). `$ cat NAME` followed by text writes that text to NAME (an
  input file the next commands read); `$ echo $?` prints the last command's exit status; other `$ ` lines (`cut`,
  `grep`) run in the shell. A trailing `# comment` is not part of the command; a trailing `2>/dev/null` drops
  stderr (progress bars). Tables are drawn 120 columns wide (COLUMNS=120). A block without `$ ` (a usage synopsis, a list of messages) is no example.
* files: a ```toml block whose first line is `# NAME.toml` is written to NAME.toml for the examples after it.
* python: a ```python block is run (a fresh namespace, stdout captured; the `test_*` functions it defines are then
  called, as pytest would); when the next block is a ```text block that does not start with `$ `, that block is
  its expected output (`...` as above), else it only has to run.
Examples of a page run in order in one scratch directory (with `docs/` linked into it, so `docs/examples/...` paths
work), so a file written by one example is read by the next.

Markers, on the line right before a block's opening fence:
* `<!-- docs-test: skip REASON -->`: not run (a signature, a fragment needing a test fixture, an optional extra
  that is not installed here, a run of minutes); the reason is required.
* `<!-- docs-test: slow -->`: run only under the `slow` mark (`pytest -m slow`, `make test-all`): examples that take
  more than a few seconds, so `make test` stays fast.

`python tests/test_docs_examples.py` lists the examples with their markers.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|slow)\b\s*(.*?)\s*-->")
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    marker: str | None = None  # "skip" | "slow" | None
    reason: str = ""


def blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        mark = MARKER.search(prev)
        out.append(
            Block(
                path.name,
                i + 1,
                m.group(1),
                "\n".join(lines[i + 1 : j]),
                mark.group(1) if mark else None,
                mark.group(2) if mark else "",
            )
        )
        i = j + 1
    return out


@dataclass
class Example:
    page: str
    line: int
    kind: str  # "console" | "python" | "file"
    code: str  # a command line, python source, or a file's name
    expected: str | None  # expected output (None: only has to run), or the file's text
    marker: str | None
    reason: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def examples(path: Path) -> list[Example]:
    out = []
    found = blocks(path)
    for n, b in enumerate(found):
        if b.marker == "skip" and not b.reason:
            raise AssertionError(f"{b.page}:{b.line}: a skip marker needs its reason")
        first = b.text.split("\n", 1)[0]
        if b.lang == "toml" and re.fullmatch(r"#\s*\S+\.toml", first.strip()):
            name = first.strip().lstrip("#").strip()
            out.append(Example(b.page, b.line, "file", name, b.text + "\n", b.marker, b.reason))
        elif b.lang == "python":
            nxt = found[n + 1] if n + 1 < len(found) else None
            expected = nxt.text if nxt and nxt.lang == "text" and not nxt.text.startswith("$ ") else None
            out.append(Example(b.page, b.line, "python", b.text, expected, b.marker, b.reason))
        elif b.lang in ("", "text", "console") and first.startswith("$ "):
            parts = re.split(r"^\$ ", b.text, flags=re.M)[1:]
            offset = 0
            for part in parts:
                command, _, output = part.partition("\n")
                line = b.line + 1 + offset
                offset += part.count("\n") + (0 if part.endswith("\n") else 1)
                kind = "file" if command.startswith("cat ") else "console"
                code = command[4:].strip() if kind == "file" else command
                out.append(Example(b.page, line, kind, code, output.rstrip("\n"), b.marker, b.reason))
    return out


def matches(expected: str, shown: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.rstrip("\n").split("..."))
    return re.fullmatch(pattern, shown.rstrip("\n"), flags=re.S) is not None


_status = [0]


def run_console(command: str) -> str:
    """A `verialloc ...` line by verialloc.cli.main; `echo $?` the status of the last one; any other line by the
    shell (`cut`, `grep`: what a page does with a results file), in the scratch directory."""
    from verialloc.cli import main

    command = re.sub(r"\s+# .*$", "", command)  # a trailing comment
    if command.strip() == "echo $?":
        return f"{_status[0]}\n"
    argv = shlex.split(command)
    if argv[0] != "verialloc":
        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr
    quiet = argv[-1] == "2>/dev/null"  # stderr (progress bars) dropped, as the shell would
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        _status[0] = main(argv[1:-1] if quiet else argv[1:])
    return out.getvalue() + ("" if quiet else err.getvalue())


def run_python(source: str) -> str:
    """The block run in a fresh namespace; the `test_*` functions it defines are then called, as pytest would (a
    test file shown on a page)."""
    out, module = io.StringIO(), types.ModuleType("__docs_example__")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, "<docs example>", "exec"), module.__dict__)
            for name, fn in list(module.__dict__.items()):
                if name.startswith("test_") and callable(fn):
                    fn()
    finally:
        del sys.modules[module.__name__]
    return out.getvalue()


def _params():
    params = []
    for path in DOCS:
        exs = examples(path)
        if any(e.marker != "skip" for e in exs):
            params.append(pytest.param(path, False, id=path.name))
        if any(e.marker == "slow" for e in exs):  # the page again with its slow examples, under the slow mark
            params.append(pytest.param(path, True, id=path.name + "-slow", marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize("path, slow", _params())
def test_docs_examples_run_as_shown(path, slow, tmp_path, monkeypatch):
    """Every example of one page, in order, in one scratch directory; slow examples only in the page's -slow run
    (which runs the others too: a later example may read a file an earlier one wrote)."""
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")  # tables (rich) as wide as the pages show them
    monkeypatch.syspath_prepend(str(ROOT))
    failures = []
    for ex in examples(path):
        if ex.marker == "skip" or (ex.marker == "slow" and not slow):
            continue
        if ex.kind == "file":
            Path(ex.code).write_text(ex.expected)
            continue
        shown = run_console(ex.code) if ex.kind == "console" else run_python(ex.code)
        if ex.expected is not None and not matches(ex.expected, shown):
            failures.append(f"{ex.id} ({ex.kind}): expected\n{ex.expected}\n--- got\n{shown}")
    assert not failures, "\n\n".join(failures)


def test_markers_name_their_reason_and_every_page_parses():
    for path in DOCS:
        examples(path)  # raises on a skip marker without a reason


if __name__ == "__main__":
    for path in DOCS:
        for ex in examples(path):
            head = ex.code.splitlines()[0][:90] if ex.code else ""
            print(f"{ex.id:24} {ex.kind:8} {ex.marker or '':5} {head}", file=sys.stdout)
    os._exit(0)
