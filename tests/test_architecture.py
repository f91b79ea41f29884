"""Architecture: the floors of verialloc and the routes of verialloc.numeric, checked against the imports in the code.

Every import (module level or inside a function) is read from the source. A module imports only from its own floor
or the floors below it, exact and numeric never import each other, and a numeric route imports only from the
routes it declares. docs/architecture.md shows the picture `diagram()` draws from these declarations and the package
tree; after adding, moving or removing a module, `python tests/test_architecture.py` rewrites that block.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "verialloc"
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- diagram: python tests/test_architecture.py -->", "<!-- end of diagram -->"

#: floors of verialloc, top first: a module imports only from its own floor or the floors below it
FLOORS = (
    ("interfaces", ("cli", "integrations", "testing")),
    ("checks", ("audit", "certify", "stability")),
    ("dispatch", ("api", "auto_method", "cost", "registry")),
    ("engines", ("exact", "numeric")),
    (
        "foundation",
        (
            "budget",
            "config",
            "errors",
            "formatting",
            "io",
            "ledger",
            "mechanisms",
            "method",
            "mp_lock",
            "result",
            "rounding",
            "runtime",
            "validation",
        ),
    ),
)
#: parts of one floor that never import each other
INDEPENDENT = (("exact", "numeric"),)
#: routes of verialloc.numeric (subpackages, and best.py), top first, with the routes each one builds on
ROUTES = (
    ("best", ("analytic", "pld", "rdp")),
    ("analytic", ("pld",)),
    ("shuffle", ("rdp",)),
    ("montecarlo", ()),
    ("pld", ()),
    ("rdp", ()),
)
#: modules longer than this say why at the top of their docstring
LONG = 400
REASON = "Why this module is long:"


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict:
    """{module name: path} of every module of the package."""
    return {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> set:
    """Absolute names of the verialloc modules and attributes one module imports, anywhere in its source."""
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("verialloc.")}


def part(name: str) -> str | None:
    """The part of verialloc a module belongs to: its top-level module or subpackage (None: the package itself)."""
    head = name.split(".")[1] if name.count(".") else ""
    return head if head and ((PACKAGE / head).is_dir() or (PACKAGE / f"{head}.py").exists()) else None


def route(name: str) -> str | None:
    """The numeric route of a module: its subpackage of verialloc.numeric, or "best" for best.py."""
    parts = name.split(".")
    return parts[2] if parts[:2] == ["verialloc", "numeric"] and len(parts) > 2 else None


def edges(key) -> set:
    """{(from, to)} between different keys (parts or routes) over all imports; modules without a key are skipped."""
    out = set()
    for name, path in modules().items():
        for target in imports(path):
            a, b = key(name), key(target)
            if a is not None and b is not None and a != b:
                out.add((a, b))
    return out


def methods() -> dict:
    """{module name: method name} of the numeric methods: the module of each registered method object."""
    from verialloc import registry

    return {type(m).__module__: name for name, m in registry.METHODS.items() if route(type(m).__module__)}


def test_every_part_has_a_floor():
    parts = {part(name) for name in modules()} - {None}
    assert parts == {p for _, floor in FLOORS for p in floor}


def test_imports_go_down_the_floors():
    level = {p: len(FLOORS) - i for i, (_, floor) in enumerate(FLOORS) for p in floor}
    bad = sorted(
        (a, b) for a, b in edges(part) if level[b] > level[a] or (a, b) in INDEPENDENT or (b, a) in INDEPENDENT
    )
    assert not bad, f"imports going up the floors or between independent parts: {bad}"


def test_exact_layer_never_imports_numeric():
    """Architecture: data flows mechanism → (exact | numeric); the exact layer is the independent reference."""
    for path in (ROOT / "verialloc" / "exact").rglob("*.py"):
        text = path.read_text()
        assert "numeric" not in "".join(
            line for line in text.splitlines() if line.lstrip().startswith(("import", "from"))
        ), path


def test_numeric_layer_never_imports_exact():
    for path in (ROOT / "verialloc" / "numeric").rglob("*.py"):
        text = path.read_text()
        assert ".exact" not in "".join(
            line for line in text.splitlines() if line.lstrip().startswith(("import", "from"))
        ), path


def test_routes_import_only_the_routes_they_build_on():
    """Exactly the declared edges: none missing (the diagram would be wrong), none undeclared; each route builds
    only on routes declared after it (one direction)."""
    assert {route(name) for name in modules()} - {None} == {r for r, _ in ROUTES}
    declared = {(r, used) for r, uses in ROUTES for used in uses}
    assert edges(route) == declared
    order = [r for r, _ in ROUTES]
    assert all(order.index(used) > order.index(r) for r, used in declared)


def test_each_method_is_one_object_beside_its_accountant():
    """A numeric method's object lives in its route's method.py and runs the route's <name>_accountant module."""
    from verialloc import registry

    for module, name in methods().items():
        assert module.rpartition(".")[2] == "method", module
        accountant = registry.METHODS[name].accountant.__name__
        assert accountant == f"{module.rpartition('.')[0]}.{name}_accountant", accountant


def test_long_modules_say_why():
    for name, path in modules().items():
        text = path.read_text()
        if len(text.splitlines()) > LONG:
            assert REASON in (ast.get_docstring(ast.parse(text)) or ""), f"{name}: {len(text.splitlines())} lines"


#: modules that test a mechanism's type because their theorem holds for that mechanism alone (the Gaussian's analytic
#: bounds, its Monte Carlo estimator, the summed-output Gaussian, calibrating σ, third-party Gaussian accountants) or
#: because the type is the interface they read (a finite pair's atoms, a continuous pair's density); everything else
#: asks the mechanism (mechanisms.base.Mechanism) what it declares
TYPE_CHECKS = {
    "verialloc.numeric.analytic.direct_add": "Gaussian",
    "verialloc.numeric.analytic.asymptotic": "Gaussian",
    "verialloc.numeric.montecarlo.mc_accountant": "Gaussian",
    "verialloc.numeric.pld.summed_gaussian": "Gaussian",
    "verialloc.certify.calibrate": "Gaussian",
    "verialloc.cli.certify": "Gaussian",
    "verialloc.audit.adapters": "Gaussian",
    "verialloc.exact.finite_pair": "FinitePair",
    "verialloc.exact.quadrature": "ContinuousMechanism",
    "verialloc.exact.accountant": "ContinuousMechanism",
}
MECHANISM_CLASSES = (
    "Gaussian",
    "Laplace",
    "RandomizedResponse",
    "DiscretePair",
    "FinitePair",
    "ContinuousMechanism",
    "DiscreteGaussian",
)


def type_checks() -> dict:
    """{module: {mechanism classes it tests with isinstance}} outside verialloc.mechanisms."""
    out = {}
    for name, path in modules().items():
        if name.startswith("verialloc.mechanisms"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                found = {getattr(k, "id", None) for k in kinds} & set(MECHANISM_CLASSES)
                if found:
                    out.setdefault(name, set()).update(found)
    return out


def test_mechanism_knowledge_is_declared_not_switched_on():
    """A layer asks a mechanism what it declares; only the modules of TYPE_CHECKS test its type, each for one."""
    found = type_checks()
    assert {m: sorted(k) for m, k in found.items()} == {m: [k] for m, k in TYPE_CHECKS.items() if m in found}
    assert set(found) == set(TYPE_CHECKS)


def pipeline_callers() -> list:
    """The modules that run the one pld pipeline (numeric.pld.pipeline.answer)."""
    return sorted(
        name
        for name, path in modules().items()
        if any(i.startswith("verialloc.numeric.pld.pipeline") for i in imports(path)) and "answer(" in path.read_text()
    )


def registries() -> list:
    """The mechanism and method registries as the code holds them."""
    from verialloc import registry
    from verialloc.mechanisms.registry import MECHANISMS

    lines = [
        "mechanisms (mechanisms/registry.py): --mechanism NAME -> its module, which declares what each layer",
        "needs (parameter, exact profile, float loss law and moments, cost statistics, float64 range, closed forms)",
    ]
    width = max(len(n) for n in MECHANISMS)
    for name, cls in MECHANISMS.items():
        home = f"mechanisms/{cls.__module__.rpartition('.')[2]}.py"
        lines.append(f"  {name:<{width}}  {home:<31} --{cls.parameter}")
    lines += [
        "",
        "methods (registry.py): --method NAME -> one object (options, flags, cost, float64 range) beside",
        "the accountant module it runs",
    ]
    width = max(len(n) for n in registry.METHODS)
    for name, m in registry.METHODS.items():
        home = type(m).__module__.removeprefix("verialloc.").replace(".", "/") + ".py"
        flags = " ".join(f"--{f.name}" for f in m.flags) or "(no flags)"
        if m.accountant is None:  # auto: chooses a registered method per query
            lines.append(f"  {name:<{width}}  {home:<28} {'chooses exact or best':<25} {flags}")
            continue
        runs = m.accountant.__name__.rpartition(".")[2]
        lines.append(f"  {name:<{width}}  {home:<28} runs {runs:<20} {flags}")
    lines += [
        "",
        "the one pld pipeline: request -> numeric/pld/pipeline.answer (tail, tail-accurate, window, epochs,",
        "grid chain, tightened lower ends) -> table.build -> PLD.delta_bound / PLD.epsilon_bound; run by:",
    ]
    lines += [f"  {name}" for name in pipeline_callers()]
    return lines


def diagram() -> str:
    """The floors, the registries, the one pld pipeline, the routes and the tree of verialloc/numeric/."""
    lines = ["verialloc/ floors, top first: a module imports only from its own floor or the floors below it"]
    width = max(len(floor) for floor, _ in FLOORS)
    lines += [f"  {floor:<{width}}  " + "  ".join(parts) for floor, parts in FLOORS]
    lines += [f"  ({a} and {b} never import each other)" for a, b in INDEPENDENT]
    lines += [""] + registries()
    lines += ["", "verialloc/numeric/ routes, top first: a route imports only from the routes after its arrow"]
    by_route = {route(module): method for module, method in methods().items()}
    for r, uses in ROUTES:
        label = f"{r}/"
        method = f"method {by_route[r]}" if r in by_route else "no method"
        lines.append((f"  {label:<12} {method:<16}" + (" -> " + ", ".join(uses) if uses else "")).rstrip())
    lines += ["", "verialloc/numeric/"]
    entry = methods()

    def tree(folder: Path, prefix: str):
        entries = sorted(
            (p for p in folder.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()),
            key=lambda p: (p.is_dir(), p.name),
        )
        for i, p in enumerate(entries):
            last = i == len(entries) - 1
            mark = f"  <- method {entry[_name(p)]}" if p.is_file() and _name(p) in entry else ""
            lines.append(f"{prefix}{'└── ' if last else '├── '}{p.name}{'/' if p.is_dir() else ''}{mark}")
            if p.is_dir():
                tree(p, prefix + ("    " if last else "│   "))

    tree(PACKAGE / "numeric", "")
    return "\n".join(lines)


def _doc_block() -> str:
    text = DOC.read_text()
    return (
        text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
        .strip()
        .removeprefix("```text")
        .removesuffix("```")
        .strip()
    )


def test_every_pld_answer_comes_from_the_one_pipeline():
    """The pld method and certify's refinement run pipeline.answer; nothing else assembles PLD answers itself."""
    assert pipeline_callers() == ["verialloc.certify.refine", "verialloc.numeric.pld.pld_accountant"]


def test_architecture_doc_shows_the_code():
    assert _doc_block() == diagram(), "docs/architecture.md is out of date: run python tests/test_architecture.py"


if __name__ == "__main__":  # rewrite the diagram in docs/architecture.md
    sys.path.insert(0, str(ROOT))
    text = DOC.read_text()
    head, rest = text.split(BEGIN)
    DOC.write_text(f"{head}{BEGIN}\n```text\n{diagram()}\n```\n{END}{rest.split(END, 1)[1]}")
