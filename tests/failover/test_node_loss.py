"""A single node lost while indexing (issue 16, item 4), and the node's ports.

The node is the test module's own (own home, own HTTP and transport ports): it is killed with SIGKILL in
the middle of a run. The run must end with its report, never a traceback: what was written, what was not
and why. After the node is back on the same port, re-running the same input resumes: nothing lost,
nothing twice.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch, helpers
from sabotage import SAMPLES, Acknowledged, KillBefore, assert_consistent, kill_node, two_free_ports

import mappings
from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, NodeError, connect, create_indices
from backends.opensearch.node import free_port, port_is_free
from indexer.document import Judgment
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.writer import BulkSettings, IndexWriter
from ratio.cli import cli
from tests.waiting import wait_for

JUDGMENTS = SAMPLES / "judgments"


@pytest.fixture(scope="module")
def own_node(installation, scratch_home, local_node: LocalNode) -> Iterator[LocalNode]:
    http_port, transport_port = two_free_ports()
    node = LocalNode(home=scratch_home(), cache_dir=local_node.cache_dir, install_home=installation,
                     java_home=local_node.java_home, heap_mb=512, port=http_port, transport_port=transport_port,
                     node_name="ratio-node-loss")
    node.start()
    yield node
    node.stop()


def _layout(client: OpenSearch) -> IndexLayout:
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    return layout


def _aliases(layout: IndexLayout) -> dict[str, str]:
    return layout.aliases()


def _json(output: str) -> dict:
    """The JSON report in the CLI's output (model loading may print a progress line before it)."""
    return json.JSONDecoder().raw_decode(output[output.index("{"):])[0]


def test_killed_node_ends_the_run_with_a_report_and_the_rerun_resumes(own_node: LocalNode, labeller) -> None:
    client = connect(ConnectionSettings(own_node.url))
    layout = _layout(client)
    aliases = _aliases(layout)
    acknowledged = Acknowledged(client)

    def kill() -> None:  # once the first two batches' commits are answered, so that the counts below are exact
        acknowledged.wait([j.judgment_id for j in sabotaged.seen])
        kill_node(own_node)

    # The 7th judgment opens the third batch of three: the node dies before it is processed, so its batch's
    # writes (on the writer's bulk thread) and the next batch's read of stored hashes both meet the loss.
    sabotaged = KillBefore(Pipeline(labeller), 7, kill)
    writer = IndexWriter(client, aliases, sabotaged, batch_size=3, bulk=BulkSettings(retry_seconds=3))
    report = writer.run(load([str(JUDGMENTS)]))

    assert len(sabotaged.seen) == 6 and own_node.state() is None
    assert report.stopped and "Connection refused" in report.stopped and "re-run" in report.stopped
    assert report.judgments_indexed == 6 and report.retries >= 1
    assert len(report.failed) >= 3 and all(reason.startswith("not written: OpenSearch did not answer")
                                           for _, reason in report.failed), report.failed
    not_written = {Path(item).stem for item, _ in report.failed}
    assert not_written.isdisjoint(report.indexed_ids) and not_written <= {p.stem for p in JUDGMENTS.glob("*.txt")}
    assert json.loads(json.dumps(report.as_dict()))["stopped"] == report.stopped

    state = own_node.start()  # the port it was named, although the kill left connections in TIME-WAIT
    assert state["http_port"] == own_node.port
    rerun = IndexWriter(client, aliases, Pipeline(labeller), batch_size=3).run(load([str(JUDGMENTS)]))
    assert rerun.failed == [] and rerun.stopped is None
    assert (rerun.judgments_unchanged, rerun.judgments_indexed) == (6, 12)
    assert_consistent(client, layout)
    pipeline = Pipeline(labeller)
    expected = {j.judgment_id: pipeline.hash_of(j) for j in load([str(JUDGMENTS)]) if isinstance(j, Judgment)}
    stored = {hit["_id"]: hit["_source"]["content_hash"] for hit in helpers.scan(
        client, index=layout.alias("judgments"), query={"query": {"match_all": {}}}, _source=["content_hash"])}
    assert stored == expected
    client.indices.delete(index=f"{layout.prefix}-*")


COUNT = 12  # judgments the CLI test indexes


def test_cli_report_when_the_node_dies_mid_run(own_node: LocalNode, tmp_path, monkeypatch) -> None:
    """``ratio index`` prints its JSON report and exits 1 (no traceback); the same command then resumes.

    The CLI has no hook, so a watcher kills the node once the first commit records are there; a fresh
    embedding cache, batches of one and twelve judgments keep the run long enough for the kill to land mid-run
    (the static encoder indexes four judgments in well under a second, so four were not enough under load).
    """
    own_node.start()
    client = connect(ConnectionSettings(own_node.url))
    layout = _layout(client)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for path in sorted(JUDGMENTS.glob("*.txt"))[:COUNT]:
        shutil.copy(path, corpus)
    monkeypatch.setenv("RATIO_CACHE", str(tmp_path / "cache"))  # the CLI's embedding cache: this test's own
    args = ["--url", own_node.url, "--prefix", layout.prefix, "index", str(corpus), "--batch-size", "1",
            "--retry-seconds", "2", "--json"]
    stop = threading.Event()

    ids = [path.stem for path in corpus.glob("*.txt")]

    def two_commits_visible() -> bool:  # realtime gets: the writer turns refresh off during a run
        docs = client.mget(index=layout.alias("judgments"), body={"ids": ids}, params={"_source": "false"})
        # two commit records visible: the first one's acknowledgement has come back (batches are committed in
        # order), so the report counts at least one; a kill right after the first could beat its answer
        return sum(bool(doc.get("found")) for doc in docs["docs"]) >= 2

    def kill_after_first_commits() -> None:  # (ends when the run does, killed or not: the test says which)
        wait_for(lambda: stop.is_set() or two_commits_visible(), 600, "two commit records of the CLI's run",
                 interval=0.1)
        if not stop.is_set():
            kill_node(own_node)

    watcher = threading.Thread(target=kill_after_first_commits, daemon=True)
    watcher.start()
    try:
        result = CliRunner().invoke(cli, args)
    finally:
        stop.set()
        watcher.join(timeout=60)
    assert own_node.state() is None, "the node should have been killed during the run"
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    report = _json(result.output)
    assert report["stopped"] and 1 <= report["judgments_indexed"] < COUNT
    assert report["failed"] and all(row["reason"].startswith("not written") for row in report["failed"])

    own_node.start()
    resumed = CliRunner().invoke(cli, args)
    assert resumed.exit_code == 0, resumed.output
    again = _json(resumed.output)
    assert again["failed"] == [] and again["stopped"] is None
    # a commit record written as the node died may be there without its answer having come back: the re-run
    # finds it unchanged, so count what is there rather than what the first report could confirm
    assert again["judgments_unchanged"] >= report["judgments_indexed"]
    assert again["judgments_unchanged"] + again["judgments_indexed"] == COUNT
    assert_consistent(client, layout, judgments=COUNT)
    client.indices.delete(index=f"{layout.prefix}-*")


def test_cli_without_a_cluster_fails_with_a_message(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RATIO_CACHE", str(tmp_path / "cache"))
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    result = CliRunner().invoke(cli, ["--url", url, "index", str(JUDGMENTS / "C1.txt"), "--json"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"cannot reach OpenSearch at {url}" in result.output


def test_a_named_port_that_is_taken_fails_the_start(installation, scratch_home, local_node: LocalNode) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        node = LocalNode(home=scratch_home(), cache_dir=local_node.cache_dir, install_home=installation,
                         java_home=local_node.java_home, heap_mb=512, port=port)
        with pytest.raises(NodeError, match=f"HTTP port {port} on 127.0.0.1 is taken"):
            node.start()
        assert node.state() is None, "a named port must never be swapped for another"
        result = CliRunner().invoke(cli, ["opensearch", "start"], env={
            "RATIO_HOME": str(scratch_home()), "RATIO_OPENSEARCH_PORT": str(port)})
        assert result.exit_code == 1 and f"HTTP port {port} on 127.0.0.1 is taken" in result.output
        assert free_port(port) != port, "without a named port, a taken 9200 moves to a free port"


def test_a_port_left_in_time_wait_is_free_for_the_node() -> None:
    """The check binds as the node does (SO_REUSEADDR): a plain bind would call this port taken."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        peer = socket.create_connection(("127.0.0.1", port))
        served, _ = listener.accept()
        served.close()  # the server's end closes first, so its side (local port = port) enters TIME-WAIT
        assert peer.recv(1) == b""
        peer.close()
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))
    assert port_is_free(port) and free_port(port) == port
