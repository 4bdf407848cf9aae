"""``llm_rerank=K`` on the API and the Python client: the learned ranker's top K judgments of the sample corpus
graded by the real small model (answers cached in the session's temporary folder) and reordered, each graded hit
explained by its grounded reason or by the extractive one with a note; without an LLM the ranker's order and a
note; a K past the bound refused."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from search.query.errors import QueryError
from tests.ratio.web.answering import answering_app

QUERY = "dowry death harassment"


@pytest.fixture(scope="module")
def reranking(opensearch_settings, aliases, encoder, small_llm, tmp_path_factory):
    app = answering_app(opensearch_settings.url, aliases, encoder, small_llm,
                        tmp_path_factory.getbasetemp() / "rerank-answers.sqlite")
    with TestClient(app) as test_client:
        yield test_client


def test_the_api_reorders_the_rankers_top_k_by_the_llms_grades(reranking: TestClient) -> None:
    plain = reranking.get("/api/v1/search", params={"q": QUERY, "size": 4}).json()
    assert plain["llm_rerank"] is None
    response = reranking.get("/api/v1/search", params={"q": QUERY, "size": 4, "llm_rerank": 2})
    assert response.status_code == 200, response.text
    page = response.json()
    stage = page["llm_rerank"]
    assert stage["applied"] and stage["note"] is None and len(stage["grades"]) == 2
    top = [hit["judgment_id"] for hit in plain["hits"]]
    reranked = [hit["judgment_id"] for hit in page["hits"]]
    assert tuple(stage["order"]) == tuple(reranked[:2]) and sorted(reranked[:2]) == sorted(top[:2])
    assert reranked[2:] == top[2:]  # below k the ranker's order
    grades = {g["judgment_id"]: g for g in stage["grades"]}
    for hit in page["hits"][:2]:
        graded, shown = grades[hit["judgment_id"]], hit["explanation"]
        assert 0 <= graded["grade"] <= 3
        if shown["method"].startswith("llm-rerank:"):  # shown only when grounded in the judgment
            assert graded["problem"] is None and graded["reason"] in shown["text"]
        else:
            assert shown["method"] == "extractive" and "not shown" in shown["note"]
    assert reranking.get("/api/v1/search", params={"q": QUERY, "llm_rerank": 51}).status_code == 422


def test_without_an_llm_the_rankers_order_and_a_note(api: TestClient, ratio_client) -> None:
    plain = api.get("/api/v1/search", params={"q": QUERY, "size": 3}).json()
    page = api.get("/api/v1/search", params={"q": QUERY, "size": 3, "llm_rerank": 2}).json()
    assert [h["judgment_id"] for h in page["hits"]] == [h["judgment_id"] for h in plain["hits"]]
    assert not page["llm_rerank"]["applied"] and "needs an LLM" in page["llm_rerank"]["note"]
    assert any("needs an LLM" in note for note in page["notes"])
    from_client = ratio_client.search(QUERY, size=3, llm_rerank=2)  # the Python client takes the same option
    assert not from_client.llm_rerank.applied and [h.judgment_id for h in from_client.hits] == \
        [h["judgment_id"] for h in plain["hits"]]
    with pytest.raises(QueryError, match="llm_rerank must be between 0"):
        ratio_client.search(QUERY, llm_rerank=51)
