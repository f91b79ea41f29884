"""Every folder of the package is a regular package, so a non-editable install ships all layers."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_has_an_init():
    for top in ("verialloc", "proofs_checks"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir() and p.name != "__pycache__")]:
            if any(folder.glob("*.py")):
                assert (folder / "__init__.py").exists(), f"{folder} lacks __init__.py"


def test_exact_layer_never_imports_numeric():
    """Architecture: data flows mechanism → (exact | numeric); the exact layer is the independent reference."""
    for path in (ROOT / "verialloc" / "exact").rglob("*.py"):
        text = path.read_text()
        assert "numeric" not in "".join(line for line in text.splitlines() if line.lstrip().startswith(("import", "from"))), path


def test_numeric_layer_never_imports_exact():
    for path in (ROOT / "verialloc" / "numeric").rglob("*.py"):
        text = path.read_text()
        assert ".exact" not in "".join(line for line in text.splitlines() if line.lstrip().startswith(("import", "from"))), path
