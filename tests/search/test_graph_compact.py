"""The citation graph as arrays: the same graph as the dict-built one on the real corpora (read from the shared
data's files with the loaders ``ratio index`` uses, so a fresh machine needs no corpus indexed), saved and mapped back,
kept fresh by the index state (a write, a re-index), served stale while one thread rebuilds, and rebuilt from a
corrupt snapshot; and the graph-only benchmark at a small size."""

from __future__ import annotations

import json
import multiprocessing
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

from indexer.document import Judgment, LoadError
from indexer.loaders import load
from indexer.loaders.dispatch import iter_files
from lab.bench.graph import REAL_OUT_DEGREE, DictGraph, dict_graph, synthetic_entries
from ratio.cli import cli
from search.graph.cache import GraphCache
from search.graph.citation_graph import CitationGraph, GraphEntry, build_graph, build_graphs
from search.graph.snapshot import index_state, load_snapshot, save_snapshot, snapshot_folder

# AILA whole (its graph's mean out-degree is the benchmark's default) and IRLeD's first 500 candidates by file name
# (these already cite each other by case name). Citation extraction is what costs: about 60 s on one core, so the
# files are read by two processes (the entries are the same in any order; the graph is built from the sorted list).
REAL = {"aila": ("aila-2019", None), "irled": ("fire2017-irled-precedent/Prior_Cases", 500)}


def _load_entries(files: list[str]) -> tuple[list[GraphEntry], list[str]]:
    """What resolution needs of the judgments in ``files`` and the reasons of any that did not load (a worker)."""
    items = list(load(files))
    return ([GraphEntry(j.judgment_id, j.title, tuple(j.citations), tuple(j.cited_judgments))
             for j in items if isinstance(j, Judgment)], [item.reason for item in items if isinstance(item, LoadError)])


@pytest.fixture(scope="module")
def real_entries(shared_data: Path) -> dict[str, list[GraphEntry]]:
    """What resolution needs of each real corpus's judgments, as the loaders give them to ``ratio index`` (the
    title, citations and cited_judgments it writes, which :func:`search.graph.citation_graph.load_entries` reads
    back)."""
    out = {}
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        for name, (folder, limit) in REAL.items():
            files = [str(found[0]) for found in iter_files([shared_data / folder]) if not isinstance(found, LoadError)]
            files = files[:limit]
            entries: list[GraphEntry] = []
            for part, reasons in pool.map(_load_entries, [files[0::2], files[1::2]]):
                assert set(reasons) <= {"empty file"}, reasons  # IRLeD has a few empty files
                entries.extend(part)
            out[name] = sorted(entries, key=lambda entry: entry.judgment_id)
    return out


def same_graph(graph: CitationGraph, reference: DictGraph, entries: list[GraphEntry]) -> None:
    """``graph`` answers as ``reference`` does: every edge both ways in order, every citation's target."""
    assert dict(graph.cites) == reference.cites
    assert dict(graph.cited_by) == reference.cited_by
    assert len(graph.targets) == len(reference.targets)
    assert graph.cited_by_counts() == {doc: len(citers) for doc, citers in reference.cited_by.items()}
    for entry in entries:
        assert graph.cited_by_count(entry.judgment_id) == len(reference.cited_by.get(entry.judgment_id, ()))
        for citation in (*entry.cited, *entry.citations, *((entry.title,) if entry.title else ())):
            assert graph.target(citation) == reference.target(citation), (entry.judgment_id, citation)
    assert graph.cites.get("no such judgment") is None and "no such judgment" not in graph.cited_by


@pytest.mark.parametrize("alias", REAL)
def test_the_array_graph_is_the_dict_graph_on_the_real_corpora(real_entries: dict[str, list[GraphEntry]], alias: str,
                                                                tmp_path: Path) -> None:
    entries = real_entries[alias]
    graphs = build_graphs(entries)
    save_snapshot(tmp_path, alias, [], graphs)
    state, mapped = load_snapshot(tmp_path, alias)
    assert state == [] and isinstance(mapped[True].cites_indices, np.memmap)
    for by_parties in (True, False):
        reference = dict_graph(entries, by_parties=by_parties)
        assert reference.cites, "the corpus cites itself"
        same_graph(graphs[by_parties], reference, entries)
        same_graph(mapped[by_parties], reference, entries)
        assert build_graph(entries, by_parties=by_parties).arrays().keys() == graphs[by_parties].arrays().keys()


def test_the_benchmark_default_is_the_real_mean_out_degree(real_entries: dict[str, list[GraphEntry]]) -> None:
    assert len(real_entries["aila"]) == 2914
    graph = build_graph(real_entries["aila"])
    assert len(graph.cites_indices) / len(graph.nodes) == pytest.approx(REAL_OUT_DEGREE, abs=0.01)


def test_the_array_graph_is_the_dict_graph_on_a_synthetic_corpus() -> None:
    entries = synthetic_entries(3000, edges_per_node=3.0, seed=7)
    for by_parties in (True, False):
        same_graph(build_graph(entries, by_parties=by_parties), dict_graph(entries, by_parties=by_parties), entries)
    in_degrees = np.sort(np.diff(build_graph(entries).cited_by_indptr))[::-1]
    assert in_degrees[0] > 20 * max(1, int(np.median(in_degrees)))  # a power law: the most cited stand out


# ---------------------------------------------------------------- snapshots on a throwaway index


@pytest.fixture
def judgments(client: OpenSearch) -> Iterator[str]:
    """A throwaway judgments alias (its own prefix) holding three judgments: B and C cite A."""
    prefix = f"ratio-test-graph-{uuid.uuid4().hex[:10]}"
    alias = f"{prefix}-judgments"
    client.indices.create(index=f"{alias}-v1", body={"settings": {"number_of_replicas": 0},
                                                     "aliases": {alias: {}}})
    try:
        write(client, alias, "A", "State Of U.P. v Anil Singh", ["(1995) 6 SCC 315"])
        write(client, alias, "B", "Bharat v. Union of India", ["AIR 1973 SC 1461"], ["(1995) 6 SCC 315"])
        write(client, alias, "C", None, [], ["State of U.P. v. Anil Singh"])
        yield alias
    finally:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)


def write(client: OpenSearch, alias: str, judgment_id: str, title: str | None, citations: list[str],
          cited: list[str] = ()) -> None:
    source = {"judgment_id": judgment_id, "title": title, "citations": citations, "cited_judgments": list(cited)}
    client.index(index=alias, id=judgment_id, body=source, refresh=True)


def test_a_fresh_snapshot_is_mapped_instead_of_scrolled(client: OpenSearch, judgments: str, tmp_path: Path) -> None:
    first = GraphCache(client, judgments, tmp_path)
    assert dict(first.graph().cited_by) == {"A": ("B", "C")} and first.source == "scroll"
    assert dict(first.graph(by_parties=False).cites) == {"B": ("A",)}
    started = GraphCache(client, judgments, tmp_path)
    graph = started.graph()
    assert started.source == "snapshot" and isinstance(graph.cited_by_indptr, np.memmap)
    assert dict(graph.cited_by) == {"A": ("B", "C")} and graph.target("(1995) 6 SCC 315") == "A"


def test_a_changed_index_is_served_stale_while_one_thread_rebuilds(client: OpenSearch, judgments: str,
                                                                   tmp_path: Path) -> None:
    cache = GraphCache(client, judgments, tmp_path, check_every=0)
    before = cache.graph()
    write(client, judgments, "B", "Bharat v. Union of India", ["AIR 1973 SC 1461"])  # re-indexed: same count
    with cache._building:  # the rebuild waits here, so the answer below is the one served meanwhile
        assert cache.graph() is before and cache.graph(by_parties=False).cites == {"B": ("A",)}
        assert cache._thread is not None and cache._thread.is_alive()
    assert cache.wait(30) and cache.error is None
    assert dict(cache.graph().cited_by) == {"A": ("C",)} and not cache.graph(by_parties=False).cites
    write(client, judgments, "D", None, [], ["AIR 1973 SC 1461"])  # a new judgment
    cache.graph()
    assert cache.wait(30) and dict(cache.graph().cites) == {"C": ("A",), "D": ("B",)}
    state, saved = load_snapshot(tmp_path, judgments)  # the snapshot was rewritten with the new state
    assert state == index_state(client, judgments) and dict(saved[True].cites) == {"C": ("A",), "D": ("B",)}


def test_a_corrupt_snapshot_is_ignored_and_rebuilt(client: OpenSearch, judgments: str, tmp_path: Path) -> None:
    GraphCache(client, judgments, tmp_path).graph()
    folder = snapshot_folder(tmp_path, judgments)
    stamp = json.loads((folder / "current.json").read_text())["stamp"]
    indices = folder / stamp / "parties_cited_by_indices.npy"
    indices.write_bytes(indices.read_bytes()[:-4])  # truncated
    assert load_snapshot(tmp_path, judgments) is None
    cache = GraphCache(client, judgments, tmp_path)
    assert dict(cache.graph().cited_by) == {"A": ("B", "C")} and cache.source == "scroll"
    assert load_snapshot(tmp_path, judgments) is not None  # written again, whole
    (folder / "current.json").write_text("{not json")
    cache = GraphCache(client, judgments, tmp_path)
    assert dict(cache.graph().cited_by) == {"A": ("B", "C")} and cache.source == "scroll"


# ---------------------------------------------------------------- the graph-only benchmark, small


def test_ratio_bench_graph_measures_build_save_and_load() -> None:
    result = CliRunner().invoke(cli, ["bench", "graph", "--nodes", "20000", "--dict-nodes", "5000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["nodes"] == 20000 and data["edges"] == pytest.approx(20000 * REAL_OUT_DEGREE, rel=0.1)
    assert 0 < data["exact_edges"] < data["edges"]  # names cited not as titled resolve by parties only
    assert data["load_s"] > 0 and data["build_s"] > 0
    assert data["snapshot_bytes"] >= data["arrays_bytes"] and data["arrays_bytes"] < 200 * 20000
    assert data["dict_rss_bytes"] > 0


def test_ratio_index_leaves_a_snapshot_a_server_maps(client: OpenSearch, opensearch_settings, layout,
                                                     tmp_path: Path) -> None:
    """The graph is written at index time, so a server's first start maps it instead of scrolling; a run that
    wrote nothing leaves the snapshot as it was."""
    from ratio.settings import graphs_dir

    sample = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"
    base = ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index", str(sample / "C1.txt"),
            str(sample / "C11.txt"), "--json"]
    first = CliRunner().invoke(cli, base)
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["graph_snapshot_seconds"] >= 0
    alias = layout.aliases()["judgments"]
    cache = GraphCache(client, alias, graphs_dir())
    graph = cache.graph()
    assert sorted(graph.nodes.id(n) for n in range(len(graph.nodes))) == ["C1", "C11"] and cache.source == "snapshot"
    again = CliRunner().invoke(cli, base)
    assert again.exit_code == 0 and "graph_snapshot_seconds" not in json.loads(again.output), again.output
