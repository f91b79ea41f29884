"""Test names written in docs/*.md exist in the suite.

Every code span of docs/*.md (inline `…` and fenced ``` blocks) is scanned for references to our tests:

* `path.py::name` (and `path.py::Class::name`): the file must exist and define `name` (a function or class at any
  nesting level; a pytest parameter id `name[x]` is reduced to `name`). Paths are repository-relative, or use the
  abbreviations of docs/verification.md (`prop/…` = tests/properties/…, `num/…` = tests/numeric/…, `exact/…`,
  `inv/…`), or are a bare file name `test_x.py` (some file of that name under tests/);
* `…::name` / `::name` continue a file named earlier in the same paragraph or table (a row's first cell, or
  earlier in the same cell): `name` must be defined in one of those files;
* a bare `test_…` identifier must be defined somewhere under tests/ or proofs_checks/, or name a module there;
* a test file (`tests/…/x.py`, `test_x.py`, or a glob such as `test_prop_*.py`) must exist.

Paths of production code (`numeric/pld/compose.py`, …) are not references to the suite and are not checked.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
SUITES = ("tests", "proofs_checks")
ABBREVIATIONS = {
    "prop/": "tests/properties/",
    "num/": "tests/numeric/",
    "exact/": "tests/exact/",
    "inv/": "tests/invariants/",
}

# Names in docs that are not ours: docs/testing.md shows a test module another project would write
# ("Example to copy into another project": test_my_accountant.py and its three tests). They test the reader's
# accountant with verialloc.testing, so they are deliberately absent from our suite.
USER_CODE_EXAMPLES = {
    "testing.md": {
        "test_my_accountant",
        "test_gaussian_two_steps_both_directions",
        "test_large_t_against_the_certified_pld_bracket",
        "test_random_gaussian_allocations",
    },
}

SPAN = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+(?:\n[^`\n]+)?)`", re.S)
FILE_REF = re.compile(r"(?P<path>(?:[\w.*-]+/)*[\w*-]+\.py)(?P<names>(?:::\s*\w+(?:\[[^\]]*\])?)*)")
CONTINUATION = re.compile(r"(?<![\w.])(?:…|\.\.\.)?(?P<names>(?:::\s*\w+(?:\[[^\]]*\])?)+)")
BARE = re.compile(r"(?<![\w/.*…:])test_\w+(?![\w.*/])")


def _definitions() -> dict[str, set[str]]:
    defs = {}
    for suite in SUITES:
        for path in sorted((ROOT / suite).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            defs[path.relative_to(ROOT).as_posix()] = {
                node.name
                for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            }
    return defs


DEFINITIONS = _definitions()
ALL_NAMES = set().union(*DEFINITIONS.values())
MODULES = {Path(f).stem for f in DEFINITIONS}


def _names(chain: str) -> list[str]:
    return [re.sub(r"\[.*", "", part.strip()) for part in chain.split("::")[1:]]


def _files(path: str) -> list[str] | None:
    """The suite files a written path denotes; None if the path is not a reference to the suite (production code
    such as `exact/finite_pair.py`: not under tests/ or proofs_checks/, and not named test_*.py)."""
    if not path.startswith(SUITES) and not path.rpartition("/")[2].startswith("test_"):
        return None
    for short, full in ABBREVIATIONS.items():
        if path.startswith(short):
            path = full + path[len(short) :]
    pattern = re.escape(path).replace(r"\*", "[^/]*")
    if not path.startswith(SUITES):
        pattern = "(?:.*/)?" + pattern  # a bare file name: some file of that name in the suite
    return [f for f in DEFINITIONS if re.fullmatch(pattern, f)]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def references(doc: Path):
    """(line, written reference, problem or None) for each reference to the suite in the doc's code spans."""
    text = doc.read_text()
    user_code = USER_CODE_EXAMPLES.get(doc.name, set())
    current: set[str] = set()  # the files named so far in this paragraph or table ("…::name" refers to one)
    end = 0
    for span in SPAN.finditer(text):
        body = span.group(1) if span.group(1) is not None else span.group(2)
        line = _line_of(text, span.start())
        if re.search(r"\n\s*\n", text[end : span.start()]):
            current = set()
        end = span.end()
        rest = body
        for ref in FILE_REF.finditer(body):
            files = _files(ref.group("path"))
            rest = rest.replace(ref.group(0), " ", 1)
            if files is None or ref.group("path").removesuffix(".py") in user_code:
                continue
            written = ref.group(0).replace("\n", " ")
            if not files:
                yield line, written, "no such file"
                continue
            current.update(files)
            if not ref.group("names"):
                yield line, written, None
            for name in _names(ref.group("names")):
                if not any(name in DEFINITIONS[f] for f in files):
                    yield line, written, f"{name} is not defined in {', '.join(files)}"
                else:
                    yield line, written, None
        for ref in CONTINUATION.finditer(rest):
            written = ref.group(0).replace("\n", " ")
            rest = rest.replace(ref.group(0), " ", 1)
            for name in _names(ref.group("names")):
                if current and not any(name in DEFINITIONS[f] for f in current):
                    yield line, written, f"{name} is not defined in {', '.join(sorted(current))}"
                elif not current and name not in ALL_NAMES:
                    yield line, written, f"{name} is not defined under {' or '.join(SUITES)}/"
                else:
                    yield line, written, None
        for ref in BARE.finditer(rest):
            name = ref.group(0)
            if name in user_code:
                continue
            known = name in ALL_NAMES or name in MODULES
            yield line, name, None if known else f"not a test or test module under {' or '.join(SUITES)}/"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_test_names_in_docs_exist(doc):
    problems = [
        f"docs/{doc.name}:{line}: `{written}`: {problem}" for line, written, problem in references(doc) if problem
    ]
    assert not problems, "stale test references:\n" + "\n".join(problems)


def test_the_checker_sees_the_references():
    """Guards the regexes: the verification doc's tables are read (a scan that finds nothing passes vacuously)."""
    found = [written for doc in DOCS for _, written, _ in references(doc)]
    assert sum("::" in w for w in found) >= 50
    assert any(w.startswith("prop/test_prop_monotonicity.py::") for w in found)


def test_the_allow_list_is_still_needed():
    """Each allow-listed user-code name still occurs in its doc and is not the name of one of our tests."""
    for doc, names in USER_CODE_EXAMPLES.items():
        text = (ROOT / "docs" / doc).read_text()
        for name in names:
            assert name in text, f"{name} no longer in docs/{doc}: drop it from USER_CODE_EXAMPLES"
            assert name not in ALL_NAMES | MODULES, f"{name} is now one of our tests: drop it from USER_CODE_EXAMPLES"
