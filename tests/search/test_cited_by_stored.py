"""The cited-by sort on stored counts: the field order is the script order, ``ratio index`` writes only the changed
counts and leaves a snapshot a server maps and counts it sorts by, and a corpus whose counts are not current (written
by other means, or never marked) falls back to the graph's counts, in the same order."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from ratio.cli import cli
from search.execute import Searcher
from search.graph.cache import GraphCache
from search.graph.snapshot import index_state
from search.graph.store import FIELD, read_mark, stored_counts, write_mark
from search.provisions.retrieve import citing_judgments
from search.query.options import SortOrder
from search.query.request import SearchRequest
from search.retrieval.sorting import STORED_COUNTS, SortPosition, cited_by_counts, fetch, sort_clauses, sorted_body

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"
EVERY = SearchRequest.from_query("", date_from="1800-01-01", sort=SortOrder.CITED_BY, classify=False, size=50)


def order(client: OpenSearch, aliases: dict[str, str], counts, request: SearchRequest = EVERY) -> list[str]:
    """Every judgment of the request's set in cited-by order, paged two at a time by search_after (the cursor's
    path), checked against one page from the top."""
    whole = fetch(client, aliases, request, vector=None, floor=0.5, size=50, counts=counts)
    paged: list[str] = []
    position = None
    while True:
        window = fetch(client, aliases, request, vector=None, floor=0.5, size=2, position=position, counts=counts)
        paged += window.ids
        if len(window.ids) < 2:
            break
        position = SortPosition(None, window.sort_values[-1])
    assert paged == list(whole.ids) and whole.found == len(whole.ids)
    return paged


def test_a_stored_sort_is_a_field_sort_without_parameters() -> None:
    clauses = sort_clauses(SortOrder.CITED_BY, STORED_COUNTS)
    assert clauses[0] == {FIELD: {"order": "desc", "missing": 0, "unmapped_type": "integer"}}
    assert [next(iter(c)) for c in clauses] == [FIELD, "decision_date", "judgment_id"]
    assert sort_clauses(SortOrder.CITED_BY, STORED_COUNTS, reverse=True)[0][FIELD]["order"] == "asc"
    body = json.dumps(sorted_body(EVERY, {"match_all": {}}, size=10, counts=STORED_COUNTS))
    assert "params" not in body and "_script" not in body
    assert "params" in json.dumps(sorted_body(EVERY, {"match_all": {}}, size=10, counts={"C1": 2}))


@pytest.fixture
def written(client: OpenSearch) -> Iterator[dict[str, str]]:
    """A corpus written by other means than ``ratio index`` (documents put straight into the real mappings, two
    shards): ties on counts and on dates, one judgment cited by name and by citation."""
    layout = IndexLayout(f"ratio-test-cbs-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(shards=2), kinds=("judgments",))
    aliases = layout.aliases(("judgments",))
    docs = [("A", "State Of U.P. v Anil Singh", ["(1995) 6 SCC 315"], [], "1990-01-01"),
            ("B", "Bharat v Union of India", ["AIR 1973 SC 1461"], ["(1995) 6 SCC 315"], "1995-01-01"),
            ("C", "Chandra v State of Bihar", [], ["State of U.P. v. Anil Singh", "AIR 1973 SC 1461"], "2001-01-01"),
            ("D", "Devi v State of Kerala", [], [], "2001-01-01"),
            ("E", "Edwin v State of Goa", [], ["AIR 1973 SC 1461"], "1980-01-01"),
            ("F", "Farooq v State of Assam", [], [], "1980-01-01")]
    for judgment, title, citations, cited, date in docs:
        put(client, aliases, judgment, title, citations, cited, date)
    client.indices.refresh(index=aliases["judgments"])
    try:
        yield aliases
    finally:
        client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


def put(client: OpenSearch, aliases: dict[str, str], judgment: str, title: str, citations: list[str],
        cited: list[str], date: str) -> None:
    source = {"judgment_id": judgment, "title": title, "citations": citations, "cited_judgments": cited,
              "decision_date": date}
    client.index(index=aliases["judgments"], id=judgment, body=source)


def test_stored_counts_sort_as_the_graph_and_a_later_write_falls_back(client: OpenSearch, written: dict[str, str],
                                                                      tmp_path: Path) -> None:
    judgments = written["judgments"]
    cache = GraphCache(client, judgments, tmp_path, background=False, check_every=0)
    graph_order = order(client, written, cited_by_counts(cache.graph()))
    assert graph_order == ["B", "A", "C", "D", "E", "F"]  # ties newest first, then by id
    assert not cache.counts_current()  # nothing stored, nothing marked: the script sort
    before = index_state(client, judgments)
    stored = cache.store_counts()
    assert stored.updated == 2 and stored.failed == 0 and stored_counts(client, judgments) == {"A": 2, "B": 2}
    assert sum(s["max_seq_no"] for s in stored.state) == sum(s["max_seq_no"] for s in before) + 2  # two shards
    assert read_mark(client, judgments) == stored.state == index_state(client, judgments) == cache.state
    assert cache.counts_current() and order(client, written, STORED_COUNTS) == graph_order
    again = GraphCache(client, judgments, tmp_path, check_every=0)  # a server's start: the snapshot, re-keyed
    assert again.counts_current() and again.source == "snapshot"
    assert again.store_counts().updated == 0 and again.counts_current()  # nothing changed: nothing written

    put(client, written, "G", "Gopal v State of Orissa", [], ["Bharat v. Union of India"], "2010-01-01")
    client.indices.refresh(index=judgments)  # written by other means: the stored counts are stale (B has 3)
    assert not again.counts_current() and again.wait(30)
    counts = cited_by_counts(again.graph())
    assert counts["B"] == 3 and order(client, written, counts)[:3] == ["B", "A", "G"]
    write_mark(client, judgments, None)  # an index whose counts were never marked
    assert not GraphCache(client, judgments, tmp_path, check_every=0).counts_current()


def test_ratio_index_stores_the_changed_counts_and_a_server_start_sorts_by_them(
        client: OpenSearch, opensearch_settings, layout: IndexLayout, static_encoder) -> None:
    """C152 and C26 cite C99 (by parties); an incremental run that adds them writes C99's count alone."""
    from ratio.settings import graphs_dir

    def index(*names: str) -> dict:
        result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index",
                                          *(str(SAMPLES / f"{name}.txt") for name in names), "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    aliases = layout.aliases()
    first = index("C99", "C1", "C11")
    assert first["cited_by_counts_written"] == 0 and stored_counts(client, aliases["judgments"]) == {}
    searcher = Searcher(client, aliases, static_encoder, ranker=None,
                        graphs=GraphCache(client, aliases["judgments"], graphs_dir()))
    assert searcher.cited_by_order() is STORED_COUNTS and searcher.graphs.source == "snapshot"
    assert order(client, aliases, STORED_COUNTS) == order(client, aliases, searcher.cited_by_counts()) == [
        "C11", "C99", "C1"]  # no citations among them: newest first

    second = index("C152", "C26")
    assert second["cited_by_counts_written"] == 1 and stored_counts(client, aliases["judgments"]) == {"C99": 2}
    started = Searcher(client, aliases, static_encoder, ranker=None,
                       graphs=GraphCache(client, aliases["judgments"], graphs_dir()))
    assert started.cited_by_order() is STORED_COUNTS and started.graphs.source == "snapshot"
    result = started.search(EVERY)
    assert [h.judgment_id for h in result.hits] == ["C99", "C152", "C26", "C11", "C1"]
    assert result.sort_values[0][0] == 2 and isinstance(result.sort_values[0][0], int)  # the field, not the script
    assert [h.cited_by for h in result.hits] == [2, 0, 0, 0, 0]
    assert order(client, aliases, STORED_COUNTS) == order(client, aliases, started.cited_by_counts())
    keys = ["CrPC s. 82", "Constitution art. 14", "IPC s. 302", "IPC s. 366"]  # cited by C99, C152, C26, C11
    citing = [citing_judgments(client, aliases["judgments"], keys, 10, 1, SortOrder.CITED_BY, started.cited_by_counts(),
                               source) for source in (STORED_COUNTS, None)]  # a provision page's most-cited order
    assert [[j.judgment_id for j in c.judgments] for c in citing] == [["C99", "C152", "C26", "C11"]] * 2
