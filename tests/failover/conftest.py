"""Losing nodes on purpose: fixtures for nodes and clusters these tests start and kill themselves.

Every node here has its own home (under ``$RATIO_HOME/test-nodes``, which the node user can enter when the
tests run as root), its own ports and its own name; the session's shared node is never touched. The real
encoder and role head index the 18 bundled sample judgments, through the session's embedding cache so that
only the first run embeds. The sabotage itself (killing, snapshots) is in ``sabotage.py``.

A test that fails here says what its cluster looked like: the report gets a section with the nodes the test
killed, its members up and down, and ``_cluster/health``, ``_cat/nodes`` and ``_cat/shards`` as a member still
running answers them. The fixtures that start nodes (``cluster``, ``own_node``) give their tests the ``cluster``
marker (``FIXTURE_TIERS`` in tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sabotage

from backends.opensearch import LocalNode
from backends.opensearch.cluster import LocalCluster
from ratio import settings


@pytest.fixture(scope="session")
def installation(local_node: LocalNode) -> Path:
    """The folder holding the one OpenSearch installation (installed if needed); nodes share it."""
    local_node.install()
    return local_node.install_dir.parent


@pytest.fixture(scope="session")
def labeller(embedding_cache: Path):
    from backends.encoders import load_encoder
    from indexer.roles.labeller import RoleLabeller

    return RoleLabeller.load(load_encoder(), cache_dir=embedding_cache)


@pytest.fixture(scope="module")
def scratch_home() -> Iterator[Callable[[], Path]]:
    """Fresh folders for the nodes of a test module; removed after it."""
    made: list[Path] = []

    def make() -> Path:
        home = settings.home_dir() / "test-nodes" / uuid.uuid4().hex[:8]
        home.mkdir(parents=True)
        made.append(home)
        return home

    yield make
    for home in made:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------- the cluster's state, when a test fails


def pytest_runtest_setup(item: pytest.Item) -> None:
    sabotage.KILLED.clear()  # the kills of the test about to run, and no other's


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and report.when in ("setup", "call"):
        report.sections.append(("cluster state at the failure", cluster_state(item)))


def _nodes_of(item: pytest.Item) -> list[LocalNode]:
    """The nodes this test started (directly or as members of its cluster); never the session's own node."""
    nodes: list[LocalNode] = []
    for name, value in (getattr(item, "funcargs", None) or {}).items():
        if isinstance(value, LocalCluster):
            nodes.extend(value.members())
        elif isinstance(value, LocalNode) and name != "local_node":
            nodes.append(value)
    return nodes


def _get(url: str, path: str) -> str:
    with urllib.request.urlopen(f"{url}/{path}", timeout=10) as response:
        return response.read().decode(errors="replace")


def cluster_state(item: pytest.Item) -> str:
    """The nodes the test killed, its members' states, and what a running member says of the cluster."""
    lines = [f"nodes this test killed: {', '.join(sabotage.KILLED) or 'none'}"]
    nodes = _nodes_of(item)
    if not nodes:
        return "\n".join([*lines, "this test started no node of its own"])
    running: list[str] = []
    for node in nodes:
        state: dict[str, Any] | None = node.state()
        lines.append(f"  {node.node_name}: HTTP port {node.port}, "
                     + (f"running (pid {state['pid']})" if state else "not running"))
        if state:
            running.append(state["url"])
    for url in running:
        try:
            health = json.dumps(json.loads(_get(url, "_cluster/health")), indent=1)
        except Exception as exc:  # diagnostics only: the next member may answer
            lines.append(f"{url} did not answer _cluster/health: {type(exc).__name__}: {exc}")
            continue
        lines.append(f"as {url} sees it:\n_cluster/health {health}")
        for path in ("_cat/nodes?v&h=name,ip,port,node.role,cluster_manager,heap.percent,load_1m",
                     "_cat/shards?v&h=index,shard,prirep,state,node,unassigned.reason"):
            try:
                text = _get(url, path)
            except Exception as exc:  # diagnostics only
                text = f"no answer: {type(exc).__name__}: {exc}\n"
            lines.append(f"{path.split('?')[0]}\n{text[:20_000]}")
        break
    else:
        lines.append("no member of this test answered: nothing more to say of the cluster")
    return "\n".join(lines)
