"""Copies of the repository's tracked files (plus uncommitted edits to them): mutations never touch the work tree."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path


def copy_tracked(root: Path, target: Path) -> None:
    """Copy every tracked file of `root` into `target` (kept: mutmut's incremental state lives there)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (root / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target / name)


@contextlib.contextmanager
def scratch_copy(root: Path):
    """Yield a temporary directory holding every tracked file of `root`, deleted on exit."""
    target = Path(tempfile.mkdtemp(prefix="verialloc-mutation-"))
    try:
        copy_tracked(root, target)
        yield target
    finally:
        shutil.rmtree(target, ignore_errors=True)
