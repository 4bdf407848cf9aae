"""The loopback cluster's shape and the members' configuration, and several node URLs in one setting; no
node is started here (tests/failover starts and kills real ones)."""

from __future__ import annotations

import json
import re
import socket

import pytest
from click.testing import CliRunner
from opensearchpy.exceptions import TransportError

from backends.opensearch import ConnectionSettings
from backends.opensearch.client import lost_shards, lost_shards_error, node_lost
from backends.opensearch.cluster import ClusterSpec, LocalCluster, free_port_ranges
from backends.opensearch.node import NodeError
from ratio.cli import cli


def _cluster(tmp_path) -> LocalCluster:
    return LocalCluster(tmp_path / "cluster", tmp_path / "cache", install_home=tmp_path / "install")


def test_the_shape_is_recorded_and_gives_each_member_its_own_ports_name_and_home(tmp_path) -> None:
    cluster = _cluster(tmp_path)
    assert cluster.spec() is None and cluster.members() == [] and cluster.status()["created"] is False
    spec = cluster.create(3, http_port=29511, transport_port=29611, heap_mb=512)
    assert json.loads(cluster.spec_path.read_text())["nodes"] == 3 and cluster.spec() == spec
    members = cluster.members()
    assert [m.node_name for m in members] == ["ratio-cluster-1", "ratio-cluster-2", "ratio-cluster-3"]
    assert [(m.port, m.transport_port) for m in members] == [(29511, 29611), (29512, 29612), (29513, 29613)]
    assert len({m.home for m in members}) == 3 and all(m.install_home == tmp_path / "install" for m in members)
    assert members[0].seed_hosts == ("127.0.0.1:29611", "127.0.0.1:29612", "127.0.0.1:29613")
    assert members[0].initial_cluster_managers == tuple(m.node_name for m in members)
    discovery = members[0]._discovery()
    assert discovery["discovery.seed_hosts"] == list(members[0].seed_hosts) and "discovery.type" not in discovery
    assert discovery["cluster.initial_cluster_manager_nodes"] == [m.node_name for m in members]
    assert cluster.urls == ["http://127.0.0.1:29511", "http://127.0.0.1:29512", "http://127.0.0.1:29513"]
    status = cluster.status()
    assert [row["running"] for row in status["members"]] == [False] * 3 and status["health"] is None


def test_a_recorded_shape_is_kept_and_a_different_one_refused(tmp_path) -> None:
    cluster = _cluster(tmp_path)
    cluster.create(3, http_port=29521, transport_port=29621)
    assert cluster.create().nodes == 3, "no options: the recorded shape"
    with pytest.raises(NodeError, match=re.escape("differs in {'nodes': 5}")):
        cluster.create(5)
    with pytest.raises(NodeError, match="nodes 1 to 3"):
        cluster.member(4)


def test_default_ports_skip_a_taken_range(tmp_path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        http_port, _ = free_port_ranges(3, taken - 1, taken + 1000)
        assert taken not in range(http_port, http_port + 3) and http_port > taken - 1


def test_a_single_member_is_a_single_node_cluster_and_bad_shapes_are_refused(tmp_path) -> None:
    cluster = _cluster(tmp_path)
    cluster.create(1, http_port=29531, transport_port=29631)
    assert cluster.member(1)._discovery() == {"discovery.type": "single-node"}
    for bad in ({"nodes": 0}, {"nodes": 10}, {"heap_mb": 128}, {"http_port": 9300, "transport_port": 9301}):
        with pytest.raises(ValueError):
            ClusterSpec(**bad)


def test_a_url_may_name_several_nodes() -> None:
    settings = ConnectionSettings("http://127.0.0.1:9201, http://127.0.0.1:9202,http://127.0.0.1:9203")
    assert settings.hosts == ["http://127.0.0.1:9201", "http://127.0.0.1:9202", "http://127.0.0.1:9203"]
    assert ConnectionSettings("http://127.0.0.1:9200").hosts == ["http://127.0.0.1:9200"]
    with pytest.raises(ValueError, match="empty"):
        _ = ConnectionSettings(" , ").hosts


def test_cli_status_and_a_taken_port(tmp_path) -> None:
    env = {"RATIO_HOME": str(tmp_path)}
    result = CliRunner().invoke(cli, ["opensearch", "cluster", "status"], env=env)
    assert result.exit_code == 0 and "no cluster yet" in result.output
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = CliRunner().invoke(cli, ["opensearch", "cluster", "start", "--port", str(port),
                                          "--transport-port", str(port + 100)], env=env)
    assert result.exit_code == 1
    assert f"ratio-cluster-1's HTTP port {port} on 127.0.0.1 is taken" in result.output
    assert not (tmp_path / "opensearch").exists(), "nothing was installed or started"
    status = json.loads(CliRunner().invoke(cli, ["opensearch", "cluster", "status", "--json"], env=env).output)
    assert status["http_port"] == port and [m["running"] for m in status["members"]] == [False] * 3
    assert CliRunner().invoke(cli, ["opensearch", "cluster", "stop"], env=env).output.strip() == "not running"


def _failure(kind: str, caused_by: str | None = None) -> dict:
    reason = {"type": kind, "reason": "[ratio-cluster-2][127.0.0.1:29302][indices:data/read/search[phase/fetch/id]]"}
    if caused_by:
        reason["caused_by"] = {"type": caused_by, "reason": "disconnected"}
    return {"shard": 1, "index": "ratio-test-chunks-v1", "node": "x", "reason": reason}


def _answer(*failures: dict) -> dict:
    return {"_shards": {"total": 3, "successful": 3 - len(failures), "skipped": 0, "failed": len(failures),
                        "failures": list(failures)}, "hits": {"hits": []}}


def test_a_search_that_lost_shards_to_a_departing_node_is_told_apart() -> None:
    """What the kill test saw once: a node killed between a search's query and fetch phases left a 200 with
    two of three shards failed ("disconnected"). Only such answers are asked again, never a query error."""
    assert lost_shards(_answer(_failure("node_disconnected_exception"), _failure("node_not_connected_exception")))
    assert lost_shards(_answer(_failure("transport_exception", caused_by="node_closed_exception")))
    assert lost_shards({"responses": [_answer(), _answer(_failure("search_context_missing_exception"))]})
    assert not lost_shards(_answer())
    assert not lost_shards(_answer(_failure("query_shard_exception")))
    assert not lost_shards(_answer(_failure("node_disconnected_exception"), _failure("query_shard_exception")))
    assert not lost_shards({"_shards": {"total": 3, "successful": 2, "failed": 1}}), "no failures listed: unknown"
    assert not lost_shards({"acknowledged": True}) and not lost_shards(b"raw")


def _error(*failures: dict) -> TransportError:
    body = {"error": {"root_cause": [], "type": "search_phase_execution_exception", "reason": "all shards failed",
                      "phase": "fetch", "grouped": True, "failed_shards": list(failures)}, "status": 500}
    return TransportError(500, "search_phase_execution_exception", body)


def test_a_search_that_failed_only_because_a_node_left_is_told_apart() -> None:
    """What the rolling restart saw once: a 500 search_phase_execution_exception while a node was stopping."""
    assert lost_shards_error(_error(_failure("node_closed_exception"), _failure("transport_exception")))
    assert lost_shards_error(_error(_failure("illegal_state_exception", caused_by="node_disconnected_exception")))
    assert not lost_shards_error(_error(_failure("query_shard_exception")))
    assert not lost_shards_error(_error())
    assert not lost_shards_error(TransportError(400, "parsing_exception", {"error": {"type": "parsing_exception"}}))
    assert not lost_shards_error(TransportError(500, "N/A", "not json"))


def test_an_msearch_item_that_failed_only_because_a_node_left_is_told_apart() -> None:
    """What the rolling restart saw with the ranked search: one item of the ranker's msearch failed whole
    (node_not_connected_exception on every shard it asked) while the member stopped; the others answered."""
    lost = _error(_failure("node_not_connected_exception")).info
    wrong = _error(_failure("query_shard_exception")).info
    assert lost_shards({"responses": [_answer(), lost]})
    assert lost_shards({"responses": [lost, _answer(_failure("node_closed_exception"))]})
    assert not lost_shards({"responses": [_answer(), wrong]}), "a wrong query is not asked again"
    assert not lost_shards({"responses": [lost, wrong]})
    assert not lost_shards({"responses": [_answer(), {"error": {"type": "parsing_exception"}, "status": 400}]})


def test_a_collapsed_search_whose_expand_phase_met_a_departed_node_is_told_apart() -> None:
    """What the rolling restart saw in CI (stop 22): the page fetch's collapsed search failed in its expand phase,
    which wraps the fetch phase's failure with no shards listed at either level; only the innermost cause says a
    node left. The transport asks it again; a wrong query wrapped the same way is not."""
    def expand(cause: str) -> dict:
        return {"root_cause": [], "type": "search_phase_execution_exception", "reason": "failed to expand hits",
                "phase": "expand", "grouped": True, "failed_shards": [],
                "caused_by": {"type": "search_phase_execution_exception", "reason": "", "phase": "fetch",
                              "grouped": True, "failed_shards": [],
                              "caused_by": {"type": cause, "reason": "[ratio-cluster-1][127.0.0.1:29301] gone"}}}

    assert node_lost(expand("node_not_connected_exception"))
    assert lost_shards({"responses": [_answer(), {"error": expand("node_not_connected_exception"), "status": 500}]})
    assert lost_shards_error(TransportError(500, "search_phase_execution_exception",
                                            {"error": expand("node_not_connected_exception"), "status": 500}))
    assert not node_lost(expand("illegal_argument_exception"))
    assert not lost_shards({"responses": [{"error": expand("query_shard_exception"), "status": 400}]})


def test_a_node_loss_is_told_from_a_wrong_request_whatever_the_nesting() -> None:
    """One test of an error, for the transport and the ranker alike: an item failed whole, a bare node error, a
    node error as a shard failure's cause; the ranker's message quotes the innermost reason."""
    from search.ranking.features import _cause

    whole = _error(_failure("node_not_connected_exception")).info["error"]
    assert node_lost(whole) and _cause(whole).startswith("node_not_connected_exception")
    assert node_lost(_error(_failure("transport_exception", caused_by="node_closed_exception")).info["error"])
    assert node_lost({"type": "node_disconnected_exception", "reason": "gone"})
    assert not node_lost(_error(_failure("query_shard_exception")).info["error"])
    assert not node_lost({"type": "parsing_exception", "reason": "bad"}) and not node_lost("text")
