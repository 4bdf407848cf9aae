"""The layer table holds: every import of every module of ours names only packages its layer may use.

The table (DESIGN.md, README "Layout"): data at the bottom, the legal-text knowledge both paths share above
it, the outside world beside that, the write and read paths above, the product on top. ``indexer`` and
``search`` never import each other, so each can change (or run on another machine) without the other.

    mappings, analyzers   (nothing of ours)
    legal                 mappings, analyzers
    backends              mappings, analyzers
    indexer               legal, backends, mappings, analyzers
    search                legal, backends, mappings, analyzers
    ratio                 everything

Imports are read with ``ast`` from the source, so an import inside a function or under ``TYPE_CHECKING``
counts as much as one at the top of a module.

A second rule draws the lab wing (docs/architecture.md): offline code that measures or trains (:data:`LAB`) lives
inside ``search`` and ``indexer`` for now, and no product module imports it; only the lab itself and the CLI
(``ratio/cli/``, where ``ratio eval``, ``ratio bench`` and ``ratio train`` live) may.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = frozenset({"mappings", "analyzers"})
ALLOWED: dict[str, frozenset[str]] = {
    "mappings": frozenset(),
    "analyzers": frozenset(),
    "legal": DATA,
    "backends": DATA,
    "indexer": DATA | {"legal", "backends"},
    "search": DATA | {"legal", "backends"},
    "ratio": DATA | {"legal", "backends", "indexer", "search"},
}
OURS = frozenset(ALLOWED)

# The lab wing: evaluation, training and benchmarks (dotted module or package names).
LAB: frozenset[str] = frozenset({
    "search.evaluate", "search.training", "search.benchmark", "search.knn_bench",
    "indexer.benchmark", "indexer.hostile", "indexer.sentence_eval", "indexer.roles.train", "indexer.roles.evaluate",
    "indexer.roles.data",
})
# Modules outside the lab that may import it: the command-line front end.
LAB_USERS: frozenset[str] = frozenset({"ratio.cli"})


def _modules(package: str, root: Path) -> list[Path]:
    return sorted(path for path in (root / package).rglob("*.py") if "__pycache__" not in path.parts)


def _imported(path: Path, root: Path) -> list[tuple[int, str]]:
    """``(line, dotted module)`` for every import in ``path``; relative ones are resolved against its package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(root).with_suffix("").parts[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])])))
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def violations(package: str, root: Path = ROOT) -> list[str]:
    """``file:line imports module`` for each import of ``package``'s modules that breaks the table."""
    allowed = ALLOWED[package] | {package}
    bad = []
    for path in _modules(package, root):
        for line, module in _imported(path, root):
            top = module.split(".", 1)[0]
            if top in OURS and top not in allowed:
                bad.append(f"{path.relative_to(root)}:{line} imports {module} ({package} may import "
                           f"{', '.join(sorted(ALLOWED[package])) or 'nothing of ours'})")
    return bad


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_the_layers_below_it(package: str) -> None:
    assert _modules(package, ROOT), f"no modules found under {package}/"
    bad = violations(package)
    assert not bad, "imports that break the layer table:\n" + "\n".join(bad)


def test_the_walk_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The checker itself, on a module written for it: an import inside a function, one under TYPE_CHECKING
    and a relative one are all read, resolved and named with their file and line."""
    (tmp_path / "legal").mkdir()
    (tmp_path / "legal" / "probe.py").write_text(
        "from typing import TYPE_CHECKING\nfrom .citations import Citation\n"
        "if TYPE_CHECKING:\n    from ..indexer import document\n\n"
        "def f():\n    import search.execute\n    import mappings\n", encoding="utf-8")
    assert {m for _, m in _imported(tmp_path / "legal" / "probe.py", tmp_path)} == {
        "typing", "legal.citations", "indexer", "search.execute", "mappings"}
    assert sorted(v.split(" (")[0] for v in violations("legal", tmp_path)) == [
        "legal/probe.py:4 imports indexer", "legal/probe.py:7 imports search.execute"]


def _dotted(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _within(module: str, names: frozenset[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def lab_violations(root: Path = ROOT) -> list[str]:
    """``file:line imports module`` for each product module that imports the lab wing (:data:`LAB`)."""
    bad = []
    for package in sorted(ALLOWED):
        for path in _modules(package, root):
            importer = _dotted(path, root)
            if _within(importer, LAB | LAB_USERS):
                continue
            for line, module in _imported(path, root):
                # ``from search import evaluate`` names the package, not the module: read both spellings
                if _within(module, LAB) or any(_within(f"{module}.{name}", LAB) for name in _names_at(path, line)):
                    bad.append(f"{path.relative_to(root)}:{line} imports {module} (the lab wing; only the lab "
                               f"and {', '.join(sorted(LAB_USERS))} may)")
    return bad


def _names_at(path: Path, line: int) -> list[str]:
    """The names a ``from X import a, b`` on ``line`` brings in (empty for any other statement)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.lineno == line
            for alias in node.names]


def test_lab_modules_exist() -> None:
    """Every name in LAB is a real module or package (a rename must update the boundary, not escape it)."""
    for name in LAB:
        base = ROOT.joinpath(*name.split("."))
        assert base.with_suffix(".py").is_file() or (base / "__init__.py").is_file(), f"{name} is not a module"


def test_product_modules_never_import_the_lab() -> None:
    bad = lab_violations()
    assert not bad, "product modules that import the lab wing:\n" + "\n".join(bad)


def test_the_lab_boundary_sees_every_spelling(tmp_path: Path) -> None:
    """The boundary checker itself: a product module importing the lab by each spelling is named, while the lab
    importing itself and the CLI importing the lab pass."""
    for folder in ("search/evaluate", "search/training", "ratio/cli", "indexer/roles"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "search" / "execute.py").write_text(
        "from search.evaluate import metrics\nfrom search import training\nfrom . import benchmark\n"
        "def f():\n    import indexer.roles.train\n    from search.options import SearchOptions\n",
        encoding="utf-8")
    (tmp_path / "search" / "evaluate" / "report.py").write_text("from search.training import pairs\n")
    (tmp_path / "ratio" / "cli" / "eval.py").write_text("from search.evaluate import metrics\n")
    (tmp_path / "indexer" / "roles" / "labeller.py").write_text("from .train import TrainSettings\n")
    assert sorted(v.split(" (")[0] for v in lab_violations(tmp_path)) == [
        "indexer/roles/labeller.py:1 imports indexer.roles.train",
        "search/execute.py:1 imports search.evaluate", "search/execute.py:2 imports search",
        "search/execute.py:3 imports search", "search/execute.py:5 imports indexer.roles.train"]
