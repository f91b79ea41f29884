"""A scratch copy of the repository's tracked files (plus uncommitted edits to them), removed afterwards."""
from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path


@contextlib.contextmanager
def scratch_copy(root: Path, keep: Path | None = None):
    """Yield a directory holding every tracked file of `root`; `keep` puts it there and leaves it (for mutmut's
    incremental state), otherwise it is a temporary directory deleted on exit."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    target = keep or Path(tempfile.mkdtemp(prefix="verialloc-mutation-"))
    try:
        for name in files.decode().split("\0"):
            if name and (root / name).is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / name, target / name)
        yield target
    finally:
        if keep is None:
            shutil.rmtree(target, ignore_errors=True)
