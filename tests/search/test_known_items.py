"""Finding a judgment by its name in the default search (the learned ranker) on the sample corpus: the full title,
``v``/``vs``/``versus`` alike, a party alone, abbreviations both ways; and the typed-query benchmark drawn from the
samples, scored against plain BM25."""

from __future__ import annotations

from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from lab.evaluate import evaluate, ranked_run
from lab.evaluate.systems import Runner
from lab.evaluate.typed import build, drop_excluded, load, measures, write
from search.execute import Searcher
from search.query.request import SearchRequest
from search.query.understand import QueryKind

TITLES = [  # five sample titles as the corpus spells them, and their judgments
    ("Masud Khan v State Of Uttar Pradesh", "C1"),
    ("Kashmiri Lal v State Of Haryana", "C152"),
    ("Anil Kumar v State of U.P.", "C5"),
    ("State Of U.P. v Anil Singh", "C99"),
    ("Ajay Agarwal v Union Of India And Ors", "C182"),
]


@pytest.fixture(scope="module")
def searcher(client: OpenSearch, aliases, encoder) -> Searcher:
    return Searcher(client, aliases, encoder)


def first(searcher: Searcher, text: str) -> tuple[str, SearchRequest]:
    request = SearchRequest.from_query(text, size=10, facets=False)
    result = searcher.search(request)
    assert result.ranking.startswith("ranker:"), result.ranking_note
    return result.hits[0].judgment_id, request


@pytest.mark.parametrize(("title", "judgment"), TITLES)
def test_a_typed_title_finds_its_judgment_first(searcher: Searcher, title: str, judgment: str) -> None:
    found, request = first(searcher, title)
    assert request.kind is QueryKind.NAME
    assert found == judgment


@pytest.mark.parametrize("connector", ["v", "v.", "vs", "vs.", "versus", "Vs."])
def test_v_vs_and_versus_alike(searcher: Searcher, connector: str) -> None:
    assert first(searcher, f"Anil Kumar {connector} State of Uttar Pradesh")[0] == "C5"
    assert first(searcher, f"State of UP {connector} Anil Singh")[0] == "C99"


@pytest.mark.parametrize(("text", "judgment"), [
    ("Kashmiri Lal", "C152"),  # a party alone
    ("Earabhadrappa", "C16"),
    ("Mohammad Iqbal Ahmed v State of Andhra Pradesh", "C130"),  # Mohd. and A.P. spelt out
    ("Inder Parkash Gupta vs State of J&K", "C17"),
])
def test_parties_and_abbreviations(searcher: Searcher, text: str, judgment: str) -> None:
    assert first(searcher, text)[0] == judgment


def test_the_typed_benchmark_of_the_samples_beats_plain_bm25_on_names(client: OpenSearch, aliases, encoder,
                                                                     tmp_path: Path) -> None:
    benchmark = build(client, aliases["judgments"])
    write(benchmark, tmp_path)
    assert load(tmp_path) == benchmark  # written and read back whole
    again = build(client, aliases["judgments"])
    assert again == benchmark  # drawn with a fixed seed: the same corpus gives the same benchmark
    runner = Runner(Searcher(client, aliases, encoder), candidates=200)
    for kind in ("title", "short"):
        queries = benchmark.part(kind=kind)
        assert queries, kind
        qrels = {q.qid: dict.fromkeys(q.relevant, 1) for q in queries}
        scores = {name: evaluate(ranked_run({q.qid: drop_excluded(runner.rank(name, q.text), q) for q in queries}),
                                 qrels, measures(kind)).mean for name in ("default", "fulltext_bm25")}
        assert scores["default"]["Success@1"] == 1.0, (kind, scores)
        assert scores["default"]["RR@10"] >= scores["fulltext_bm25"]["RR@10"]
