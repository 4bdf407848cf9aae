"""The hybrid body is a pure function of the request and the query vector."""

from __future__ import annotations

import pytest

from search.basic import BasicRequest, QueryError, hybrid_body, roll_up


def test_filters_are_applied_inside_both_sub_queries() -> None:
    body = hybrid_body(BasicRequest("detention of a foreigner", court="Supreme Court of India",
                                    roles=("facts", "ratio"), candidates=50), [0.1, 0.2])
    bm25, knn = body["query"]["hybrid"]["queries"]
    expected = [{"term": {"court": "Supreme Court of India"}}, {"terms": {"role": ["facts", "ratio"]}}]
    assert bm25 == {"bool": {"must": [{"match": {"text": {"query": "detention of a foreigner"}}}], "filter": expected}}
    assert knn == {"knn": {"vector": {"vector": [0.1, 0.2], "k": 50, "filter": {"bool": {"filter": expected}}}}}
    assert body["size"] == 50


def test_user_text_is_only_ever_a_match_query_value() -> None:
    hostile = '{"query": {"match_all": {}}} OR *:* AND _exists_:text'
    bm25 = hybrid_body(BasicRequest(hostile), [0.0])["query"]["hybrid"]["queries"][0]
    assert bm25["bool"]["must"] == [{"match": {"text": {"query": hostile}}}]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"text": "   "}, "empty"), ({"text": "x" * 10_001}, "shorten"), ({"text": "a", "size": 0}, "size")])
def test_bad_requests_say_what_to_fix(kwargs, message) -> None:
    with pytest.raises(QueryError, match=message):
        BasicRequest(**kwargs)


def test_roll_up_keeps_score_order_and_best_chunks() -> None:
    hits = [{"_id": f"{j}:{i}", "_score": s, "_source": {"judgment_id": j}}
            for j, i, s in [("A", 0, 0.9), ("B", 3, 0.8), ("A", 2, 0.7), ("A", 5, 0.6), ("A", 1, 0.5), ("C", 0, 0.4)]]
    groups = roll_up(hits, size=2, chunks_per_judgment=3)
    assert [jid for jid, _ in groups] == ["A", "B"]
    assert [h["_id"] for h in groups[0][1]] == ["A:0", "A:2", "A:5"]
