"""Every formula ID the repository cites (F… formulas, E… errata, I… invariants) has an entry in docs/formulas.md.

Citations are collected from the Python files under verialloc/, proofs_checks/, tests/, benchmarks/ and mutation/
and from docs/*.md and README.md, with `ID` below: an upper-case F, E or I, one or two digits and an optional
lower-case sub-item letter (F35a), as a whole word. A range written with an en dash ("F23–F26") cites every ID in
it. Definitions are the IDs of docs/formulas.md's headings ("### F27 — …"). Files are read relative to this test
file, so a worktree checks its own files; nothing else is needed (no network, no import of verialloc).

What the pattern does not match, by construction: ruff/flake8 codes (E402, E731, F401: three digits); git
hashes and other hex (lower case, or glued to neighbouring word characters, so there is no word boundary);
identifiers (no Python name in the scanned code is of the form F12 / E3 / I7 — checked when this test was
written). What it would match, and is not a citation, is blanked out first by `NOT_CITATIONS`. This file itself
is not scanned: it names IDs only as data.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMULAS = ROOT / "docs" / "formulas.md"
THIS = Path(__file__).resolve()
PY_DIRS = ("verialloc", "proofs_checks", "tests", "benchmarks", "mutation")

ID = re.compile(r"\b([FEI])(\d{1,2})([a-z]?)\b")
RANGE = re.compile(r"\b([FEI])(\d{1,2})\s*–\s*\1(\d{1,2})\b")
HEADING = re.compile(r"^#{2,6}[ \t]+([FEI]\d{1,2}[a-z]?)[ \t]+—", re.M)

# Text that the pattern matches but that is not a formula citation; blanked out of each line before scanning.
NOT_CITATIONS = {
    # golden-table entry ids such as alloc-s1-t10-E10-d1e-6 (verialloc/audit/golden, tests/audit): "E10" is
    # 10 epochs. An ID glued to a preceding hyphen is part of a hyphenated name; ranges use an en dash.
    "hyphenated name": re.compile(r"-[FEI]\d{1,2}[a-z]?\b"),
    # docs/cli.md's synopsis "--eps0 E0": the metavariable of ε0, not an erratum E0.
    "CLI metavariable": re.compile(r"--eps0 E0\b"),
    # lint codes in suppression comments; today's are 3-digit (E731, F401) and never match, but a prefix
    # selector such as "# noqa: E7" would.
    "noqa comment": re.compile(r"#\s*noqa:\s*[A-Z]+\d*(?:\s*,\s*[A-Z]+\d*)*"),
}

# Cited IDs that the external reference does not define, so docs/formulas.md has no entry for them.
NOT_IN_REFERENCE = {
    "F27u": "proofs_checks' own check name: F27 with blocks of unequal length (k − r blocks of ⌊t/k⌋ steps and "
    "r = t mod k of ⌈t/k⌉); the reference states F27 for k | t only (docs/verification.md describes it)",
}


def _sources() -> list[Path]:
    files = [p for d in PY_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    files += sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    return [p for p in files if p.resolve() != THIS]


def _clean(line: str) -> str:
    for pattern in NOT_CITATIONS.values():
        line = pattern.sub(lambda m: " " * len(m.group(0)), line)
    return line


def _ids_in(line: str):
    for m in ID.finditer(line):
        yield m.group(0)
    for m in RANGE.finditer(line):
        letter, low, high = m.group(1), int(m.group(2)), int(m.group(3))
        for n in range(low + 1, high):
            yield f"{letter}{n}"


def citations(skip: tuple[Path, ...] = ()) -> dict[str, str]:
    """Each cited ID -> 'file:line' of its first citation (files in `skip` not read)."""
    first: dict[str, str] = {}
    for path in _sources():
        if path in skip:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for cited in _ids_in(_clean(line)):
                first.setdefault(cited, f"{path.relative_to(ROOT).as_posix()}:{number}")
    return first


def headings() -> list[str]:
    return HEADING.findall(FORMULAS.read_text(encoding="utf-8"))


def _order(name: str):
    letter, number, sub = ID.fullmatch(name).groups()
    return "FEI".index(letter), int(number), sub


CITED = citations()


def test_every_cited_id_is_defined():
    defined = set(headings())
    missing = sorted(set(CITED) - defined - set(NOT_IN_REFERENCE), key=_order)
    assert not missing, (
        f"{len(missing)} cited ID(s) without a heading in docs/formulas.md "
        "(add an entry, or fix the citation):\n"
        + "\n".join(f"  {name}  first cited at {CITED[name]}" for name in missing)
    )


def test_heading_ids_are_unique():
    counts = Counter(headings())
    duplicates = sorted((name for name, n in counts.items() if n > 1), key=_order)
    assert not duplicates, "IDs with more than one heading in docs/formulas.md: " + ", ".join(duplicates)


def test_the_scan_is_not_vacuous():
    """Guards the patterns: a scan that finds nothing would pass the first test vacuously."""
    assert len(headings()) >= 140
    outside = citations(skip=(FORMULAS,))  # docs/formulas.md's own headings would count as citations
    assert {"F27", "E13", "I11", "F43a"} <= set(outside) and len(outside) >= 130


def test_the_exceptions_are_still_needed():
    """Each NOT_CITATIONS pattern still matches somewhere; each NOT_IN_REFERENCE ID is still cited and still has no
    heading (once docs/formulas.md defines it, drop it from the list)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    for reason, pattern in NOT_CITATIONS.items():
        assert pattern.search(text), f"NOT_CITATIONS[{reason!r}] matches nothing any more: drop it"
    for name in NOT_IN_REFERENCE:
        assert name in CITED, f"{name} is no longer cited: drop it from NOT_IN_REFERENCE"
        assert name not in headings(), f"docs/formulas.md now defines {name}: drop it from NOT_IN_REFERENCE"
