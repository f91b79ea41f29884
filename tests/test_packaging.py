"""Every folder of the package is a regular package, so a non-editable install ships all layers."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_has_an_init():
    for top in ("verialloc", "proofs_checks"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir() and p.name != "__pycache__")]:
            if any(folder.glob("*.py")):
                assert (folder / "__init__.py").exists(), f"{folder} lacks __init__.py"
