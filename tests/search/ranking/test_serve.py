"""How the ranker's path asks for a page's passages (search.ranking.serve): pure bodies, no node."""

from __future__ import annotations

from search.query.request import SearchRequest
from search.ranking import serve
from search.retrieval.records import ChunkHit

REASONING = ["ratio", "analysis", "ruling_lower_court", "ruling_present_court"]


def _preference(body: dict) -> tuple[list[str], float]:
    scored = body["query"]["bool"]["must"][0]["function_score"]
    (function,) = scored["functions"]
    assert scored["boost_mode"] == "multiply"
    return function["filter"]["terms"]["role"], function["weight"]


def test_passages_prefer_the_courts_reasoning_in_the_one_chunk_request() -> None:
    request = SearchRequest.from_query("offence committed beyond India")
    lexical, similar = serve.passage_requests(request, ["C1", "C2"], vector=[0.0] * 4)
    assert _preference(lexical) == (REASONING, serve.PREFERRED_WEIGHT) and serve.PREFERRED_WEIGHT > 1
    assert lexical["collapse"]["inner_hits"]["size"] == 3 and "function_score" not in str(similar)
    words = lexical["query"]["bool"]["must"][0]["function_score"]["query"]
    assert words == serve.passage_query(request, None)  # the words still choose; the role only weighs


def test_roles_the_request_names_are_preferred_instead() -> None:
    boosted = SearchRequest.from_query("murder", roles=["facts"], role_mode="boost")
    assert _preference(serve.passage_requests(boosted, ["C1"], None)[0])[0] == ["facts"]
    off = SearchRequest.from_query("murder", roles=["facts"], role_mode="off")
    assert _preference(serve.passage_requests(off, ["C1"], None)[0])[0] == REASONING
    weight = serve.passage_weight(SearchRequest.from_query("murder"))
    assert weight(ChunkHit("x", 1.0, {"role": "analysis"})) == serve.PREFERRED_WEIGHT
    assert weight(ChunkHit("y", 1.0, {"role": "statute"})) == weight(ChunkHit("z", 1.0, {})) == 1.0
