"""Losing nodes on purpose: fixtures for nodes and clusters these tests start and kill themselves.

Every node here has its own home (under ``$RATIO_HOME/test-nodes``, which the node user can enter when the
tests run as root), its own ports and its own name; the session's shared node is never touched. The real
encoder and role head index the 18 bundled sample judgments, through the session's embedding cache so that
only the first run embeds. The sabotage itself (killing, snapshots) is in ``sabotage.py``.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from backends.opensearch import LocalNode
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
