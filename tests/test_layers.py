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
