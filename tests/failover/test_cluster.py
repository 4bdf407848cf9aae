"""A real three-node OpenSearch cluster on loopback (issue 19, item 3), started by this module from the one
installation: a data node killed during a bulk load, and a rolling restart while searches run.

The client is given all three node URLs; nothing is mocked. The corpus is the 18 bundled sample judgments
and their 18 statutes, indexed once cleanly to compare with.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from opensearchpy import OpenSearch
from sabotage import N_JUDGMENTS, SAMPLES, KillBefore, kill_node, snapshot

import mappings
from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, connect, create_indices, install_pipelines
from backends.opensearch.cluster import LocalCluster, free_port_ranges
from backends.opensearch.indices import fit_to_cluster
from backends.opensearch.node import DISK_WATERMARKS, NodeError
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.writer import BulkSettings, IndexWriter
from ratio.client import Client

QUERY = {"query": {"match": {"text": "murder conviction appeal"}}, "size": 5, "track_total_hits": True}


@pytest.fixture(scope="module")
def cluster(installation, scratch_home, local_node: LocalNode) -> Iterator[LocalCluster]:
    local = LocalCluster(scratch_home(), local_node.cache_dir, installation, java_home=local_node.java_home)
    http_port, transport_port = free_port_ranges(3, 29201, 29301)  # away from the defaults a user may run
    local.start(3, http_port=http_port, transport_port=transport_port, heap_mb=512)
    yield local
    local.stop()


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> OpenSearch:
    """A client that knows every member, as a production client would."""
    client = connect(ConnectionSettings(",".join(cluster.urls)))
    install_pipelines(client)
    return client


@pytest.fixture(scope="module")
def options(client: OpenSearch) -> mappings.IndexOptions:
    return fit_to_cluster(client, mappings.IndexOptions(dimension=384))


def _index(client: OpenSearch, options: mappings.IndexOptions, pipeline: Any, **bulk: Any):
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, options)
    aliases = layout.aliases()
    writer = IndexWriter(client, aliases, pipeline, batch_size=3, bulk=BulkSettings(**bulk))
    return layout, writer.run(load([str(SAMPLES)]))


@pytest.fixture(scope="module")
def clean(client: OpenSearch, options, labeller) -> Iterator[tuple[IndexLayout, dict[str, dict[str, str]]]]:
    """The corpus indexed with every node up, and what it holds."""
    layout, report = _index(client, options, Pipeline(labeller))
    assert report.failed == [] and report.judgments_indexed == N_JUDGMENTS
    yield layout, snapshot(client, layout)
    client.indices.delete(index=f"{layout.prefix}-*")


@dataclass
class SearchLoop:
    """Searches in a loop on another thread: a raw query whose full answer is known (so a partial answer
    counts as a failure) and Ratio's own hybrid search, each round recording which members were down when it
    began. ``wait_for_rounds_without`` lets the one who stops a member wait until whole rounds have met its
    absence, however slow a round is on a loaded machine."""

    client: OpenSearch
    searcher: Client
    layout: IndexLayout
    cluster: LocalCluster
    expected_total: int
    failures: list[str] = field(default_factory=list)
    down_during: list[tuple[str, ...]] = field(default_factory=list)
    health: list[tuple[str, int]] = field(default_factory=list)
    red: list[dict[str, Any]] = field(default_factory=list)  # what was red, each time the cluster said red
    stop: threading.Event = field(default_factory=threading.Event)
    rounds: threading.Condition = field(default_factory=threading.Condition)

    def run(self) -> None:
        while not self.stop.is_set():
            down = tuple(m.node_name for m in self.cluster.members() if m.state() is None)
            try:
                raw = self.client.search(index=self.layout.alias("chunks"), body=QUERY)
                if raw["_shards"]["failed"] or raw["hits"]["total"]["value"] != self.expected_total:
                    self.failures.append(f"partial answer: {raw['_shards']}, {raw['hits']['total']}")
                if not self.searcher.search("murder conviction appeal").hits:
                    self.failures.append("Ratio's search found nothing")
                health = self.client.cluster.health()
                self.health.append((health["status"], health["number_of_nodes"]))
                if health["status"] == "red":
                    self._note_red()
            except Exception as exc:  # every failure is recorded, whatever its kind, with the cluster's words
                detail = json.dumps(getattr(exc, "info", None), default=str)[:2000]
                self.failures.append(f"{type(exc).__name__}: {exc} {detail}")
            with self.rounds:
                self.down_during.append(down)
                self.rounds.notify_all()
            self.stop.wait(0.2)  # a breath between rounds (not a wait for anything): over at once when stopped

    def _note_red(self) -> None:
        """Which indices were red and why their shards were unassigned (for the failure message)."""
        try:
            indices = self.client.cluster.health(level="indices")["indices"]
            shards = self.client.cat.shards(format="json", h="index,shard,prirep,state,node,unassigned.reason")
        except Exception as exc:  # diagnostics only
            self.red.append({"error": str(exc)})
            return
        red = sorted(name for name, row in indices.items() if row["status"] == "red")
        self.red.append({"indices": red, "shards": [row for row in shards if row["index"] in red]})

    def wait_for_rounds_without(self, name: str, count: int = 1, timeout: float = 240.0) -> None:
        """Block until ``count`` rounds that began with member ``name`` down have finished."""
        with self.rounds:
            met = self.rounds.wait_for(lambda: sum(name in down for down in self.down_during) >= count
                                       or not self.thread.is_alive(), timeout=timeout)
        assert met, f"fewer than {count} search rounds ran without {name} within {timeout:.0f}s"

    def __enter__(self) -> SearchLoop:
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join(timeout=120)


def _searches(client: OpenSearch, cluster: LocalCluster, layout: IndexLayout, labeller) -> SearchLoop:
    expected = client.search(index=layout.alias("chunks"), body=QUERY)["hits"]["total"]["value"]
    assert expected > 0
    searcher = Client(",".join(cluster.urls), prefix=layout.prefix, encoder=labeller.encoder, llm=None)
    # the first search loads the ranker's model and the citation graph (seconds under load): before the loop, so
    # a node restarted quickly still sees searches while it is away
    assert searcher.search("murder conviction appeal").hits
    return SearchLoop(client, searcher, layout, cluster, expected)


def test_the_cluster_forms_on_loopback(cluster: LocalCluster, options: mappings.IndexOptions) -> None:
    status = cluster.status()
    assert status["nodes_joined"] == 3 and status["health"] in ("green", "yellow")
    assert status["cluster_manager"] in {m["node"] for m in status["members"]}
    members = cluster.members()
    assert len({m.data_dir for m in members}) == len({m.port for m in members}) == len(
        {m.transport_port for m in members}) == 3
    config = (members[1].config_dir / "opensearch.yml").read_text()
    assert "discovery.type" not in config and "cluster.initial_cluster_manager_nodes" in config
    assert all(f"127.0.0.1:{m.transport_port}" in config for m in members)
    assert (options.shards, options.replicas) == (3, 1)


def test_disk_watermarks_are_free_space_and_an_unplaceable_shard_is_explained(cluster: LocalCluster,
                                                                             client: OpenSearch) -> None:
    """Members share one disk, whose percentage used says little about room left (OpenSearch's 85 % would hold
    replicas back on a big shared disk with tens of GB free): they hold back free space instead. A shard that
    cannot be placed makes the cluster's wait fail with OpenSearch's reason, not only the health."""
    settings = client.cluster.get_settings(include_defaults=True, flat_settings=True)["defaults"]
    assert {key: settings[key] for key in DISK_WATERMARKS} == DISK_WATERMARKS
    name = f"ratio-test-unplaceable-{uuid.uuid4().hex[:8]}"
    client.indices.create(index=name, body={"settings": {"number_of_shards": 1, "number_of_replicas": 3}})
    try:  # four copies of one shard, three members: one replica has nowhere to go
        with pytest.raises(NodeError, match=rf"{name}\[0\] \(replica\) is unassigned: .*already allocated"):
            cluster.wait(3, status=("green",), timeout=5)
    finally:
        client.indices.delete(index=name)
    cluster.wait(3, status=("green",), timeout=60)


def test_a_data_node_killed_during_a_bulk_load(cluster: LocalCluster, client: OpenSearch, options, labeller,
                                               clean) -> None:
    clean_layout, expected = clean
    victim_number = 2
    victim = cluster.member(victim_number)
    killed = threading.Event()

    def kill() -> None:
        # every shard's replica started first: a replica still initializing dies with its primary (red, not the
        # yellow this test is about; seen once in CI on the saved-searches index created just before)
        # (the cluster's wait says why a shard stays unassigned, if one does)
        cluster.wait(3, status=("green",), timeout=120)
        kill_node(victim)
        killed.set()

    with _searches(client, cluster, clean_layout, labeller) as searches:
        # The 7th judgment opens the third batch: from its chunks on, every write meets the loss.
        loaded, report = _index(client, options, KillBefore(Pipeline(labeller), 7, kill), retry_seconds=120)
        assert killed.is_set() and victim.state() is None
        assert report.stopped is None and report.failed == [], report.failed
        assert report.judgments_indexed == N_JUDGMENTS and report.provisions_indexed == N_JUDGMENTS
        # (``timeout`` alone would be taken for the client's own request timeout: give both)
        health = client.cluster.health(wait_for_nodes="2", timeout="60s", request_timeout=90)
        assert health["number_of_nodes"] == 2
        searches.wait_for_rounds_without(victim.node_name, 3)  # rounds are slow on a loaded machine
        cluster.start_node(victim_number)
        health = client.cluster.health(wait_for_status="green", wait_for_nodes="3", timeout="180s",
                                       request_timeout=200)
        assert health["status"] == "green" and not health["timed_out"]
    try:
        assert searches.failures == []
        assert sum(victim.node_name in down for down in searches.down_during) >= 3, "searches ran during the outage"
        assert ("yellow", 2) in searches.health, f"the cluster went yellow while the node was gone: {searches.red}"
        assert snapshot(client, loaded) == expected, "every judgment, chunk and provision, as in the clean run"
    finally:
        client.indices.delete(index=f"{loaded.prefix}-*")


def test_a_rolling_restart_fails_no_search(cluster: LocalCluster, client: OpenSearch, labeller, clean) -> None:
    clean_layout, expected = clean
    with _searches(client, cluster, clean_layout, labeller) as searches:
        # each member stays away until a whole round of searches has met its absence (a restart can be quicker
        # than one ranked search under load)
        rows = cluster.rolling_restart(
            while_away=lambda number: searches.wait_for_rounds_without(cluster.member(number).node_name))
    assert [row["node"] for row in rows] == [m.node_name for m in cluster.members()]
    assert searches.failures == []
    for member in cluster.members():
        assert any(member.node_name in down for down in searches.down_during), f"no search without {member.node_name}"
    assert client.cluster.health()["status"] == "green"
    assert snapshot(client, clean_layout) == expected
