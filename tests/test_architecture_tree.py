"""docs/architecture.md's tree is the code's: every package it names exists, and every package of ours is named.

The tree is the first map a newcomer reads; a package moved or added without it would send them to the wrong room.
Read from the fenced block under "## The tree": two spaces of indent per level, each line a folder (``name/``)
then what it holds."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("mappings", "analyzers", "legal", "backends", "indexer", "search", "lab", "ratio")


def tree_packages(text: str) -> list[str]:
    """The folders the tree names, as paths (``search/query``), in its order."""
    section = text.split("## The tree", 1)[1]
    block = section.split("```", 2)[1]
    found: list[str] = []
    stack: list[str] = []
    for line in block.splitlines():
        match = re.match(r"( *)([\w.-]+)/\s", line + " ")
        if not match:
            continue
        depth = len(match.group(1)) // 2
        stack[depth:] = [match.group(2)]
        found.append("/".join(stack))
    return found


def code_packages() -> set[str]:
    return {str(p.parent.relative_to(ROOT)) for top in TOPS for p in (ROOT / top).rglob("__init__.py")
            if "__pycache__" not in p.parts}


def test_every_package_the_tree_names_exists_and_every_package_is_named() -> None:
    named = tree_packages((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert len(named) == len(set(named)), "a package named twice"
    missing = [p for p in named if not (ROOT / p / "__init__.py").is_file()]
    assert not missing, f"docs/architecture.md names packages the code does not have: {missing}"
    unnamed = sorted(code_packages() - set(named))
    assert not unnamed, f"packages docs/architecture.md's tree does not name: {unnamed}"


def test_the_tree_reader_follows_the_indent() -> None:
    text = "## The tree\n\n```\nsearch/    read\n  query/   typed\n    deep/  x\n  graph/   g\nlab/  l\n```\n"
    assert tree_packages(text) == ["search", "search/query", "search/query/deep", "search/graph", "lab"]


def test_each_package_says_what_it_holds_and_no_room_is_flat() -> None:
    """Every package's ``__init__`` has a docstring (what lives there), and no package holds more than 20 modules
    at its top: past that, group them into rooms a reader can name (issue 50)."""
    import ast

    for package in sorted(code_packages()):
        init = ROOT / package / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init} has no docstring"
        modules = [p for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 20 or package in FLAT_BY_DESIGN, f"{package}/ holds {len(modules)} modules at its top"


# Packages allowed more than 20 modules at the top, each for a reason: the command line is one module per command,
# the web app one per route group.
FLAT_BY_DESIGN = frozenset({"ratio/cli", "ratio/web"})
