"""Search end to end on the real node: the bundled sample judgments, real embeddings, both fusion paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from search.execute import Searcher
from search.query.options import SearchOptions
from search.query.request import SearchRequest

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"


QUERIES = [
    "a public servant entrusted with property dishonestly misappropriated it",
    "detention of a foreigner under the Foreigners (Internment) Order",
    "dying declaration recorded by the magistrate murder conviction",
]


@pytest.mark.parametrize("query", QUERIES)
def test_server_and_client_fusion_rank_the_same(client: OpenSearch, aliases, encoder, query: str) -> None:
    request = SearchRequest.from_query(query, role_mode="off", candidates=50)
    server = Searcher(client, aliases, encoder, server_fusion=True)
    local = Searcher(client, aliases, encoder, server_fusion=False)
    server_chunks, how_server, _ = server.chunks(request)
    client_chunks, how_client, _ = local.chunks(request)
    assert how_server == "server:ratio-hybrid-minmax" and how_client == "client:minmax"
    assert len(server_chunks) == len(client_chunks) > 10
    for server_hit, client_hit in zip(server_chunks[:20], client_chunks[:20], strict=True):
        (sid, sscore), (cid, cscore) = (server_hit.chunk_id, server_hit.score), (client_hit.chunk_id, client_hit.score)
        assert sscore == pytest.approx(cscore, abs=1e-4)
        assert sid == cid or sscore == pytest.approx(cscore, abs=1e-4)  # equal scores may swap
    rrf = SearchRequest.from_query(query, role_mode="off", candidates=50, fusion="rrf")
    server_rrf = [c.chunk_id for c in server.chunks(rrf)[0][:10]]
    client_rrf = [c.chunk_id for c in local.chunks(rrf)[0][:10]]
    assert len(set(server_rrf) & set(client_rrf)) >= 8


def test_case_level_hits_with_passages_and_facets(client: OpenSearch, aliases, encoder) -> None:
    searcher = Searcher(client, aliases, encoder)
    result = searcher.search(SearchRequest.from_query(QUERIES[1], size=5))
    assert result.hits[0].judgment_id == "C1"
    assert len({h.judgment_id for h in result.hits}) == len(result.hits) == 5
    best = result.hits[0].passages[0]
    text = (SAMPLES / "judgments" / "C1.txt").read_text(encoding="utf-8")
    assert text[best.char_start:best.char_end] == best.text
    # the facets count the judgments with every word: none has "detention" with the rest (C1 says "detained"),
    # which C1 says it lacks
    assert result.total == 0 and result.facets["court"] == [] and result.hits[0].missing == ("detention",)
    facets = searcher.search(SearchRequest.from_query("murder evidence")).facets  # seven samples have both
    assert {f["key"] for f in facets["court"]} == {"Supreme Court of India"}
    assert sum(f["judgments"] for f in facets["year"]) >= 5
    second = searcher.search(SearchRequest.from_query(QUERIES[1], size=5, page=2))
    assert not {h.judgment_id for h in result.hits} & {h.judgment_id for h in second.hits}


def test_filter_mode_reports_removed_chunks(client: OpenSearch, aliases, encoder) -> None:
    searcher = Searcher(client, aliases, encoder)
    result = searcher.search(SearchRequest.from_query(f"role:facts {QUERIES[0]}", size=5))
    assert result.removed_by_role and result.removed_by_role > 0
    assert "facts" not in result.removed_roles
    assert all(p.role == "facts" for h in result.hits for p in h.passages)


def test_fielded_filters_apply_inside_both_parts(client: OpenSearch, aliases, encoder) -> None:
    searcher = Searcher(client, aliases, encoder)
    result = searcher.search(SearchRequest.from_query(f"year:1950..1979 {QUERIES[2]}", size=10))
    assert result.hits
    assert all(h.decision_date and 1950 <= h.decision_date.year <= 1979 for h in result.hits)


def test_client_reranks_explains_and_fetches_judgments(opensearch_settings, aliases, encoder) -> None:
    from ratio import Client

    client = Client(opensearch_settings.url, prefix=aliases["chunks"].removesuffix("-chunks"), encoder=encoder)
    page = client.search(QUERIES[0], size=3, rerank=True, rerank_top=20, explain=True)
    result = client.run(SearchRequest.from_options(QUERIES[0], SearchOptions(size=3, rerank=True, rerank_top=20,
                                                                             explain=True)))
    assert result.rerank_ms is not None and len(result.hits) == len(page.hits) == 3
    for hit in page.hits:
        assert hit.explanation is not None
        assert hit.explanation.sentence in " ".join(hit.passages[0].text.split())
    record = client.record("C1")
    assert record.title == "Masud Khan v State Of Uttar Pradesh" and record.decision_date.year == 1973
    assert record.text.startswith("Masud Khan v State Of Uttar Pradesh")
    assert client.judgment("C1").decision_date == record.decision_date
    assert "Supreme Court of India" in {f["key"] for f in client.facets("murder evidence")["court"]}
    why = client.explain('statute:"s. 409 IPC" public servant misappropriated property', "C7")
    assert why.text and why.sentence


def test_benchmark_command_reports_every_path(opensearch_settings, aliases, tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from ratio.cli import cli

    queries = tmp_path / "queries.txt"
    queries.write_text("AILA_Q1||" + QUERIES[0] + "\n" + QUERIES[1] + "\n\n")
    prefix = aliases["chunks"].removesuffix("-chunks")
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "bench", "search",
                                      str(queries), "--rerank-top", "10", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # stderr carries the model-loading progress
    assert data["judgments"] == 18
    assert [row["mode"] for row in data["latency"]] == ["bm25", "bm25_page", "knn", "hybrid", "hybrid_rerank",
                                                        "ranker", "document"]
    assert all(row["queries"] == 2 and 0 < row["p50_ms"] <= row["p95_ms"] for row in data["latency"])


def test_benchmark_of_typed_queries(opensearch_settings, aliases, tmp_path) -> None:
    """ratio eval build-typed draws a typed benchmark from the samples; ratio bench search --typed times its
    queries as typed, every kind in turn."""
    import json

    from click.testing import CliRunner

    from lab.evaluate.typed import load
    from ratio.cli import cli

    prefix = aliases["chunks"].removesuffix("-chunks")
    base = ["--url", opensearch_settings.url, "--prefix", prefix]
    built = CliRunner().invoke(cli, [*base, "eval", "build-typed", "--out", str(tmp_path / "typed")],
                               catch_exceptions=False)
    assert built.exit_code == 0, built.output
    kinds = load(tmp_path / "typed").kinds
    assert {"title", "short", "provision"} <= set(kinds)
    result = CliRunner().invoke(cli, [*base, "bench", "search", str(tmp_path / "typed"), "--typed", "--limit",
                                      str(len(kinds)), "--measure", "bm25_page", "--measure", "ranker", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["latency"]
    assert [row["mode"] for row in rows] == ["bm25_page", "ranker"]
    assert all(row["queries"] == len(kinds) for row in rows)


# C182 quotes s. 3 IPC in a statute chunk and discusses the same words in its own analysis; on the words alone the
# quotation scores 1.7 times the discussion (search.ranking.serve.PREFERRED_WEIGHT)
REASONING_QUERY = "offences committed beyond India territorial operation"


@pytest.mark.parametrize("ranking", ["ranker", "fusion"])
def test_a_hit_shows_the_courts_reasoning_before_the_statute_it_quotes(client: OpenSearch, aliases, encoder,
                                                                      ranking: str) -> None:
    from legal.roles import load_role_set

    roles = load_role_set()
    reasoning = {*roles.group("reasoning"), *roles.group("rulings")}
    result = Searcher(client, aliases, encoder).search(SearchRequest.from_query(REASONING_QUERY, ranking=ranking))
    assert result.ranking.startswith(ranking)
    hit = next(h for h in result.hits if h.judgment_id == "C182")
    shown = [p.role for p in hit.passages]
    assert shown[0] in reasoning, shown
    statute = next(p for p in hit.passages if p.role == "statute")  # it matched the words too, and comes after
    assert "territorial operation" in statute.text and "territorial operation" in hit.passages[0].text
    if ranking == "fusion":  # the judgment still scores as its best chunk: the quotation
        assert hit.score == statute.score == max(p.score for p in hit.passages)
