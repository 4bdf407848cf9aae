"""The layer table holds: every import of every module of ours names only packages its layer may use.

The table (DESIGN.md, README "Layout"): data at the bottom, the legal-text knowledge both paths share above
it, the outside world beside that, the write and read paths above, the product on top. ``indexer`` and
``search`` never import each other, so each can change (or run on another machine) without the other.

    mappings, analyzers   (nothing of ours)
    legal                 mappings, analyzers
    backends              mappings, analyzers
    indexer               legal, backends, mappings, analyzers
    search                legal, backends, mappings, analyzers
    lab                   indexer, search and what they may use
    ratio                 everything

Imports are read with ``ast`` from the source, so an import inside a function or under ``TYPE_CHECKING``
counts as much as one at the top of a module.

A second rule fences the lab (docs/architecture.md): offline code that measures or trains lives in one package,
``lab`` (:data:`LAB`), and no product module imports it; only the lab itself and the CLI (``ratio/cli/``, where
``ratio eval``, ``ratio bench`` and ``ratio train`` live) may. The table already keeps ``indexer`` and ``search``
from it; this rule keeps the rest of ``ratio`` (the web app, the clients) from it too.

A third rule keeps the house without circles: inside a package too, no module imports (even lazily, or for
annotations) one that imports it back, directly or through others. A circle ties its modules into one unit that
can only be read, tested and changed together, and its lazy imports hide an order that breaks when one moves to
the top. The allow-list (:data:`ALLOWED_CIRCLES`) is empty and stays so: a circle is opened by moving what both
sides need below them.
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
    "lab": DATA | {"legal", "backends", "indexer", "search"},
    "ratio": DATA | {"legal", "backends", "indexer", "search", "lab"},
}
OURS = frozenset(ALLOWED)

# The lab: evaluation, training, benchmarks and probes (dotted module or package names).
LAB: frozenset[str] = frozenset({"lab"})
# Modules outside the lab that may import it: the command-line front end.
LAB_USERS: frozenset[str] = frozenset({"ratio.cli"})


def _modules(package: str, root: Path) -> list[Path]:
    return sorted(path for path in (root / package).rglob("*.py") if "__pycache__" not in path.parts)


def _imports(path: Path, root: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """``(line, dotted module, names)`` for every import in ``path``: ``names`` are what a ``from module import
    a, b`` brings in (empty for ``import module``); relative modules are resolved against the file's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(root).with_suffix("").parts[:-1]
    found: list[tuple[int, str, tuple[str, ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])]), names))
            elif node.module:
                found.append((node.lineno, node.module, names))
    return found


def _imported(path: Path, root: Path) -> list[tuple[int, str]]:
    """``(line, dotted module)`` for every import in ``path``; relative ones are resolved against its package."""
    return [(line, module) for line, module, _ in _imports(path, root)]


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
            for line, module, names in _imports(path, root):
                # ``from search import evaluate`` names the package, not the module: read both spellings
                if _within(module, LAB) or any(_within(f"{module}.{name}", LAB) for name in names):
                    bad.append(f"{path.relative_to(root)}:{line} imports {module} (the lab wing; only the lab "
                               f"and {', '.join(sorted(LAB_USERS))} may)")
    return bad


def test_lab_modules_exist() -> None:
    """Every name in LAB is a real module or package (a rename must update the boundary, not escape it)."""
    for name in LAB:
        base = ROOT.joinpath(*name.split("."))
        assert base.with_suffix(".py").is_file() or (base / "__init__.py").is_file(), f"{name} is not a module"


def test_product_modules_never_import_the_lab() -> None:
    bad = lab_violations()
    assert not bad, "product modules that import the lab wing:\n" + "\n".join(bad)


def test_the_lab_boundary_sees_every_spelling(tmp_path: Path) -> None:
    """The boundary checker itself: a product module importing the lab by each spelling (a module, the package, a
    name from it, lazily inside a function) is named, while the lab importing itself (absolutely or relatively) and
    the CLI importing the lab pass."""
    for folder in ("lab/evaluate", "lab/training", "ratio/cli", "ratio/web", "search"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "ratio" / "web" / "app.py").write_text(
        "from lab.evaluate import metrics\nfrom lab import training\nimport lab\n"
        "def f():\n    import lab.training.train\n    from search.query.options import SearchOptions\n",
        encoding="utf-8")
    (tmp_path / "search" / "execute.py").write_text("def f():\n    from lab.evaluate.metrics import score\n")
    (tmp_path / "lab" / "evaluate" / "report.py").write_text("from lab.training import pairs\nfrom . import metrics\n")
    (tmp_path / "ratio" / "cli" / "eval.py").write_text("from lab.evaluate import metrics\n")
    assert sorted(v.split(" (")[0] for v in lab_violations(tmp_path)) == [
        "ratio/web/app.py:1 imports lab.evaluate", "ratio/web/app.py:2 imports lab", "ratio/web/app.py:3 imports lab",
        "ratio/web/app.py:5 imports lab.training.train", "search/execute.py:2 imports lab.evaluate.metrics"]


# Circles between modules that are accepted (each a frozenset of dotted module names): none.
ALLOWED_CIRCLES: frozenset[frozenset[str]] = frozenset()


def import_graph(root: Path = ROOT) -> dict[str, dict[str, list[str]]]:
    """Each module of ours -> the modules of ours it imports -> where (``file:line``), read by the layer test's walk.

    ``from package import name`` is an import of the module ``package.name`` when there is one (as ``import
    package.name`` is), else of the package itself: a name its ``__init__`` defines or re-exports."""
    modules = {_dotted(path, root): path for package in sorted(ALLOWED) if (root / package).is_dir()
               for path in _modules(package, root)}
    graph: dict[str, dict[str, list[str]]] = {}
    for importer, path in modules.items():
        edges = graph.setdefault(importer, {})
        for line, module, names in _imports(path, root):
            targets = {f"{module}.{name}" if f"{module}.{name}" in modules else module for name in names} or {module}
            for target in targets:
                if target in modules and target != importer:
                    edges.setdefault(target, []).append(f"{path.relative_to(root)}:{line}")
    return graph


def _reachable(graph: dict[str, dict[str, list[str]]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        for target in graph.get(stack.pop(), {}):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def circles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The circles of ``graph``: each set of two or more modules that all reach one another (a strongly connected
    component), sorted. Quadratic in the modules, which is a second for the few hundred of ours."""
    reach = {module: _reachable(graph, module) for module in graph}
    found: list[list[str]] = []
    placed: set[str] = set()
    for module in sorted(graph):
        if module in placed or module not in reach[module]:
            continue
        circle = sorted(other for other in reach[module] if module in reach[other])
        placed.update(circle)
        found.append(circle)
    return found


def _described(circle: list[str], graph: dict[str, dict[str, list[str]]]) -> str:
    inside = set(circle)
    edges = [f"    {a} -> {b} ({', '.join(graph[a][b])})" for a in circle for b in sorted(graph[a]) if b in inside]
    return f"  {', '.join(circle)}:\n" + "\n".join(edges)


def test_no_module_imports_itself_back() -> None:
    """The import graph of every package of ours has no circle (the allow-list is empty)."""
    assert not ALLOWED_CIRCLES, "a circle is opened, not allowed: move what both sides need below them"
    graph = import_graph()
    assert len(graph) > 100, "the walk found too few modules"
    found = [c for c in circles(graph) if frozenset(c) not in ALLOWED_CIRCLES]
    assert not found, "modules that import each other, directly or through others:\n" + "\n".join(
        _described(circle, graph) for circle in found)


def test_the_circle_check_sees_every_spelling(tmp_path: Path) -> None:
    """The circle checker itself, on a package written for it: a circle closed by a function-level import, one under
    TYPE_CHECKING and a relative one is found; ``from package import module`` leads to the module, not to the
    package's ``__init__`` (whose lazy import of its submodule is then no circle), while ``from package import
    name`` of a name the ``__init__`` defines leads to the ``__init__``."""
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "__init__.py").write_text("def helper():\n    from search import d\n    from . import e\n")
    (tmp_path / "search" / "a.py").write_text("def f():\n    import search.b\n")
    (tmp_path / "search" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from search.c import C\n")
    (tmp_path / "search" / "c.py").write_text("from . import a\nimport json\n")
    (tmp_path / "search" / "d.py").write_text("from search import a, b\n")
    (tmp_path / "search" / "e.py").write_text("from search import helper\n")
    graph = import_graph(tmp_path)
    assert graph["search.d"] == {"search.a": ["search/d.py:1"], "search.b": ["search/d.py:1"]}
    assert circles(graph) == [["search", "search.e"], ["search.a", "search.b", "search.c"]]
    assert "search/c.py:1" in _described(["search.a", "search.b", "search.c"], graph)


# The rooms of ``search`` (docs/architecture.md, "The tree"), bottom up, and the rooms each may import besides
# itself. The modules at the top of ``search`` (the searcher, the page, the hits, the brief, alerts) and
# ``search.answer`` sit above every room and may import any. A room that needs one above it is a sign that what
# both need belongs lower.
ROOMS: dict[str, frozenset[str]] = {
    "query": frozenset(),
    "graph": frozenset({"query"}),
    "retrieval": frozenset({"query", "graph"}),
    "explain": frozenset({"query", "retrieval"}),
    "llm": frozenset({"query", "explain"}),
    "provisions": frozenset({"query", "retrieval", "llm"}),
    "ranking": frozenset({"query", "retrieval", "graph"}),
    "pages": frozenset({"query", "retrieval", "graph", "provisions"}),
}


def room_violations(root: Path = ROOT) -> list[str]:
    """``file:line imports module`` for each import of a module of a search room from a room it may not use."""
    bad = []
    for room, allowed in sorted(ROOMS.items()):
        for path in _modules(f"search/{room}", root):
            for line, module, names in _imports(path, root):
                targets = [f"{module}.{n}" for n in names] if module == "search" else [module]
                for target in targets:
                    parts = target.split(".")
                    if parts[0] != "search" or len(parts) < 2 or parts[1] == room:
                        continue
                    other = parts[1] if parts[1] in ROOMS or parts[1] == "answer" else "the top of search"
                    if other not in allowed:
                        bad.append(f"{path.relative_to(root)}:{line} imports {target} (search.{room} may import "
                                   f"{', '.join(sorted(allowed)) or 'no other room'})")
    return bad


def test_each_room_of_search_imports_only_the_rooms_below_it() -> None:
    assert {p.name for p in (ROOT / "search").iterdir() if (p / "__init__.py").is_file()} == {*ROOMS, "answer"}, \
        "a room of search was added or removed: give it its row in ROOMS (and its line in docs/architecture.md)"
    bad = room_violations()
    assert not bad, "imports that break the rooms' order:\n" + "\n".join(bad)


def test_the_room_check_sees_a_room_above(tmp_path: Path) -> None:
    for room in ("query", "graph"):
        (tmp_path / "search" / room).mkdir(parents=True)
    (tmp_path / "search" / "query" / "syntax.py").write_text(
        "from search.graph.cache import GraphCache\nfrom search import execute\nfrom search.query.errors import E\n")
    (tmp_path / "search" / "graph" / "cache.py").write_text("def f():\n    from search.query.errors import E\n")
    assert sorted(v.split(" (")[0] for v in room_violations(tmp_path)) == [
        "search/query/syntax.py:1 imports search.graph.cache", "search/query/syntax.py:2 imports search.execute"]
