"""Helpers of the failover tests: kill a node this test started, sabotage a run at a chosen judgment, and
read back everything a run wrote (tests/failover is on sys.path, so the tests import this module by name).
Every node killed here is noted in ``KILLED``, which the failover conftest prints with the cluster's state when a
test fails."""

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
from tests.waiting import wait_for

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"
N_JUDGMENTS = 18

KILLED: list[str] = []  # the nodes the running test killed (emptied as each test starts: tests/failover/conftest.py)


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
    KILLED.append(f"{node.node_name} (pid {pid}, HTTP port {node.port}) at {time.strftime('%H:%M:%S')}")

    def gone() -> bool:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return node.state() is None

    wait_for(gone, 30, f"{node.node_name} (pid {pid}) to be gone after SIGKILL")
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


class Acknowledged:
    """The ids whose bulk writes through ``client`` came back accepted: what a writer on that client knows it
    wrote.

    A realtime get can already see a commit record whose bulk answer is still on its way back; a kill in that
    moment loses the answer, and the writer rightly lists the judgment as not written. A test that wants exact
    counts after a kill waits for the answers, not for the documents. The client stays the real one: its
    ``bulk`` is only read on the way back.
    """

    def __init__(self, client: OpenSearch) -> None:
        self.ids: set[str] = set()
        self._bulk = client.bulk
        client.bulk = self._record  # type: ignore[method-assign]

    def _record(self, *args: Any, **kwargs: Any) -> Any:
        response = self._bulk(*args, **kwargs)
        for item in response.get("items", []):
            result = next(iter(item.values()))
            if int(result.get("status", 500)) < 300:
                self.ids.add(str(result.get("_id")))
        return response

    def wait(self, ids: list[str], timeout: float = 120.0) -> None:
        """Wait until every id's write has been answered as accepted."""
        wait_for(lambda: self.ids.issuperset(ids), timeout,
                 f"the writes of {sorted(ids)} to be acknowledged (acknowledged so far: {len(self.ids)} ids)")


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
