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
    ``kill``, so the writes of that judgment's batch (its chunks, then its commit records) meet the loss."""

    def __init__(self, pipeline: Any, n: int, kill: Callable[[], Any]) -> None:
        self.pipeline, self.n, self.kill, self.calls = pipeline, n, kill, 0
        self.seen: list[Any] = []  # the judgments processed before the kill

    def process_many(self, judgments: Any) -> Any:
        before, self.calls = self.calls, self.calls + len(judgments)
        if before < self.n <= self.calls:
            self.kill()
        elif self.calls < self.n:
            self.seen.extend(judgments)
        return self.pipeline.process_many(judgments)

    def process(self, judgment: Any) -> Any:
        return self.process_many([judgment])[0]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pipeline, name)


def wait_committed(client: OpenSearch, alias: str, ids: list[str], timeout: float = 120.0) -> None:
    """Wait until every id has its judgment document (a realtime get: the writer turns refresh off)."""
    deadline = time.monotonic() + timeout
    while True:
        docs = client.mget(index=alias, body={"ids": ids}, params={"_source": "false"})["docs"]
        if all(doc.get("found") for doc in docs):
            return
        assert time.monotonic() < deadline, f"the judgments {ids} were not committed within {timeout:.0f}s"
        time.sleep(0.1)


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
