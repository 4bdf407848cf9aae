"""The counting rule's bodies (search.retrieval.matching), pure: every word of a typed query required, OR-groups,
phrases,
required and excluded words as typed, any word for a pasted text, and one named query per word a hit may lack.
On the node, tests/search/test_match_semantics.py checks what they count."""

from __future__ import annotations

from search.query.request import SearchRequest
from search.query.syntax import parse_query
from search.retrieval.matching import CountRule, count_body, every_word_query, lexical_query, required_words, words_body


def _request(text: str) -> SearchRequest:
    return SearchRequest.from_query(text, classify=False)


def test_bare_words_are_one_match_with_every_word_required() -> None:
    request = _request("dowry death cruelty by husband")
    assert request.every_word and CountRule.of(request) is CountRule.EVERY_WORD
    assert lexical_query(request) == {"bool": {"must": [
        {"match": {"text": {"query": "dowry death cruelty by husband", "operator": "and"}}}]}}
    # the any-word count is the query as the ranking reads it: one match, any word
    assert lexical_query(request, any_word=True) == {"match": {"text": {"query": "dowry death cruelty by husband"}}}
    assert count_body(request)["track_total_hits"] is True and count_body(request)["size"] == 0


def test_or_groups_phrases_required_and_excluded_words_keep_their_meaning() -> None:
    query = parse_query('(murder OR homicide) dowry "dying declaration" +cruelty -acquittal').query
    assert query is not None
    built = every_word_query(query)["bool"]
    must, must_not = built["must"], built["must_not"]
    assert {"match_phrase": {"text.exact": {"query": "dying declaration"}}} in must
    assert {"match": {"text": {"query": "cruelty", "operator": "and"}}} in must
    assert {"match": {"text": {"query": "dowry", "operator": "and"}}} in must
    assert {"match": {"text": {"query": "murder homicide"}}} in must  # one alternative is enough
    assert must_not == [{"match": {"text": {"query": "acquittal"}}}]
    # a group inside an OR needs every word of that alternative
    grouped = every_word_query(parse_query("(dowry death) OR suicide").query)
    assert grouped == {"bool": {"minimum_should_match": 1, "should": [
        {"bool": {"must": [{"match": {"text": {"query": "dowry death", "operator": "and"}}}]}},
        {"match": {"text": {"query": "suicide", "operator": "and"}}}]}}


def test_a_pasted_text_and_a_filter_only_search_count_as_before() -> None:
    pasted = _request(" ".join(f"word{i}" for i in range(40)))
    assert not pasted.every_word and CountRule.of(pasted) is CountRule.ANY_WORD
    assert lexical_query(pasted) == lexical_query(pasted, any_word=True)
    assert required_words(pasted) == []
    filters = _request('statute:"s. 302 IPC"')
    assert CountRule.of(filters) is CountRule.FILTERS and filters.query is None
    assert lexical_query(filters) == {"bool": {"must": [{"match_all": {}}],
                                               "filter": [{"term": {"cited_provisions": "IPC s. 302"}}]}}


def test_one_named_query_per_word_a_hit_may_lack() -> None:
    request = _request("dowry death (cruelty harassment) murder OR suicide by")
    labels = [label for label, _ in required_words(request)]
    assert labels == ["dowry", "death", "(cruelty harassment)", "murder OR suicide", "by"]
    named = dict(required_words(request))
    # a stopword alone has no token: its query matches every judgment, so it is never said to be missing
    assert named["by"] == {"match": {"text": {"query": "by", "operator": "and", "zero_terms_query": "all",
                                              "_name": "by"}}}
    body = words_body(request, ["C1", "C2"])
    query = body["query"]["bool"]["must"][0]["bool"]
    assert query["must"] == [lexical_query(request, any_word=True)] and len(query["should"]) == 5
    assert body["query"]["bool"]["filter"] == [{"terms": {"judgment_id": ["C1", "C2"]}}]
    # nothing to lack: a single word or OR-group (a words match has it), phrases and +words (constraints)
    for text in ("murder", "murder OR homicide", '"dying declaration" +cruelty'):
        assert required_words(_request(text)) == [], text
    assert [label for label, _ in required_words(_request("+cruelty dowry"))] == ["dowry"]
