"""A pytest plugin for tests/test_tiers.py: after collection, writes each test's markers and what it does to
nodes to the JSON file named by ``RATIO_TIER_DUMP`` (``python -m pytest --collect-only -p tests.tier_dump``).

What a test does to nodes is read from the code, not from its markers, so the check cannot agree with itself:
a test *starts nodes* when a fixture it uses (directly or through another) is defined under tests/failover and
calls ``.start(`` (a node or a cluster); it *kills or restarts* them when its own body does.
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any

import pytest

FAILOVER = Path(__file__).resolve().parent / "failover"
KILLS_OR_RESTARTS = ("kill_node(", ".start_node(", ".stop_node(", ".rolling_restart(")


def _source(func: Any) -> tuple[Path | None, str]:
    try:
        return Path(inspect.getsourcefile(func) or "").resolve(), inspect.getsource(func)
    except (OSError, TypeError):
        return None, ""


def _starts_nodes(item: pytest.Item) -> list[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    starting = []
    for name in info.names_closure:
        for definition in info.name2fixturedefs.get(name, ()):
            path, text = _source(definition.func)
            if path is not None and path.is_relative_to(FAILOVER) and ".start(" in text:
                starting.append(name)
    return sorted(set(starting))


def pytest_collection_finish(session: pytest.Session) -> None:
    rows = []
    for item in session.items:
        _, body = _source(getattr(item, "function", None))
        rows.append({"nodeid": item.nodeid, "markers": sorted({m.name for m in item.iter_markers()}),
                     "starts_nodes": _starts_nodes(item),
                     "kills_or_restarts": [act for act in KILLS_OR_RESTARTS if act in body]})
    Path(os.environ["RATIO_TIER_DUMP"]).write_text(json.dumps(rows, indent=1))
