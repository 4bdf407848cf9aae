"""The local node's life cycle: a second node, sharing the installation, is started, asked and stopped."""

from __future__ import annotations

import shutil
import uuid

import pytest
import requests

from backends.opensearch import LocalNode
from backends.opensearch.node import default_heap_mb, free_port
from ratio import settings


@pytest.fixture
def second_node(local_node: LocalNode):
    local_node.install()
    home = settings.home_dir() / "test-nodes" / uuid.uuid4().hex[:8]  # the node user can enter it as root
    node = LocalNode(home=home, cache_dir=local_node.cache_dir, install_home=local_node.install_dir.parent,
                     heap_mb=512, port=free_port())
    yield node
    node.stop()
    shutil.rmtree(home, ignore_errors=True)


def test_start_status_stop(second_node: LocalNode) -> None:
    assert second_node.status()["running"] is False
    state = second_node.start()
    assert state["url"].startswith("http://127.0.0.1:")
    assert state["heap_mb"] == 512
    assert second_node.start()["pid"] == state["pid"], "a second start must reuse the running node"
    status = second_node.status()
    assert status["running"] and status["health"] in ("green", "yellow")
    info = requests.get(state["url"], timeout=10).json()
    assert info["version"]["number"] == second_node.manifest.version
    plugins = {row["component"] for row in requests.get(f"{state['url']}/_cat/plugins?format=json", timeout=10).json()}
    assert set(second_node.manifest.plugin_names) <= plugins
    assert "started" in second_node.logs(200).lower() or "ratio-local-1" in second_node.logs(200)
    assert second_node.stop() is True
    assert second_node.status()["running"] is False
    with pytest.raises(requests.ConnectionError):
        requests.get(state["url"], timeout=5)
    assert second_node.stop() is False


def test_install_is_idempotent(local_node: LocalNode) -> None:
    local_node.install()
    marker = local_node.install_dir / ".ratio-install.json"
    before = marker.stat().st_mtime_ns
    local_node.install()
    assert marker.stat().st_mtime_ns == before


def test_heap_is_sized_for_the_machine() -> None:
    gib = 1 << 30
    assert default_heap_mb(2 * gib) == 512
    assert default_heap_mb(24 * gib) == 3072
    assert default_heap_mb(512 * gib) == 8192
