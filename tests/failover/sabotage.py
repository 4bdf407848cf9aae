"""Helpers of the failover tests: kill a node this test started, sabotage a run at a chosen judgment, and
read back everything a run wrote (tests/failover is on sys.path, so the tests import this module by name)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch, helpers

from backends.opensearch import IndexLayout, LocalNode
from backends.opensearch.node import free_port

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"
N_JUDGMENTS = 18


def two_free_ports() -> tuple[int, int]:
    first = free_port()
    second = free_port()
    while second == first:
        second = free_port()
    return first, second


def kill_node(node: LocalNode) -> int:
    """SIGKILL a node this test started (its whole process group) and wait until it is gone; its pid."""
    state = node.state()
    assert state, f"{node.node_name} is not running"
    pid = int(state["pid"])
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while node.state() is not None and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    assert node.state() is None, f"{node.node_name} survived SIGKILL"
    return pid


class KillBefore:
    """The real pipeline, with one act of sabotage: just before it processes its ``n``-th judgment it calls
    ``kill``, so the writes of that judgment's batch (its chunks, then its commit record) meet the loss."""

    def __init__(self, pipeline: Any, n: int, kill: Callable[[], Any]) -> None:
        self.pipeline, self.n, self.kill, self.calls = pipeline, n, kill, 0

    def process(self, judgment: Any) -> Any:
        self.calls += 1
        if self.calls == self.n:
            self.kill()
        return self.pipeline.process(judgment)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pipeline, name)


def _digest(source: dict[str, Any]) -> str:
    stable = {k: v for k, v in source.items() if k != "indexed_at"}  # the only field that depends on when
    return hashlib.sha256(json.dumps(stable, sort_keys=True).encode()).hexdigest()


def snapshot(client: OpenSearch, layout: IndexLayout) -> dict[str, dict[str, str]]:
    """Every judgment, chunk and provision under ``layout``: id -> sha256 of its stored document."""
    client.indices.refresh(index=f"{layout.prefix}-*")
    found: dict[str, dict[str, str]] = {}
    for kind in ("judgments", "chunks", "provisions"):
        docs = {}
        for hit in helpers.scan(client, index=layout.alias(kind), query={"query": {"match_all": {}}}):
            assert hit["_id"] not in docs, f"{kind} {hit['_id']} came back twice"
            docs[hit["_id"]] = _digest(hit["_source"])
        assert client.count(index=layout.alias(kind))["count"] == len(docs)
        found[kind] = docs
    return found


def assert_consistent(client: OpenSearch, layout: IndexLayout, judgments: int = N_JUDGMENTS) -> None:
    """``judgments`` judgments, each with exactly the chunks its commit record counts (ordinals 0..n-1)."""
    client.indices.refresh(index=f"{layout.prefix}-*")
    records = {hit["_id"]: hit["_source"]["n_chunks"] for hit in helpers.scan(
        client, index=layout.alias("judgments"), query={"query": {"match_all": {}}}, _source=["n_chunks"])}
    assert len(records) == judgments
    chunks: dict[str, list[int]] = {}
    for hit in helpers.scan(client, index=layout.alias("chunks"), query={"query": {"match_all": {}}},
                            _source=["judgment_id", "ordinal"]):
        chunks.setdefault(hit["_source"]["judgment_id"], []).append(hit["_source"]["ordinal"])
    assert {jid: sorted(ordinals) for jid, ordinals in chunks.items()} == {
        jid: list(range(n)) for jid, n in records.items()}
