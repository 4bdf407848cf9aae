"""A judgment (or a brief) as the query: precedents for a whole document, past the query parser's limits.

A typed query stops at 1,000 terms; a judgment runs to thousands of words (IRLeD's query judgments average
8,151). Cutting it to its first 1,000 words loses most of what it is about: on FIRE 2017 IRLeD, BM25 over
whole judgments scored MAP 0.1659 with the cut query and 0.2402 with the whole one (docs/evaluation.md).
BM25 adds up over query terms, so the whole query runs as segments of ``segment`` words whose scores are
summed per judgment. The sum is exact but for judgments outside a segment's top ``depth``, which count 0 for
that segment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from opensearchpy import OpenSearch

from search.query.errors import EmptyQueryError
from search.query.request import SearchRequest
from search.query.syntax import as_plain_text
from search.retrieval.builders import FULLTEXT_FIELDS, text_query

if TYPE_CHECKING:
    from search.execute import Searcher
    from search.ranking.rank import Ranking

__all__ = ["SEGMENT_WORDS", "document_ranked", "document_ranking", "rank_by_document"]

SEGMENT_WORDS = 900  # under the parser's 1,000 terms, with room for the words it splits further


def rank_by_document(client: OpenSearch, judgments_alias: str, text: str, *, depth: int = 1000,
                     segment: int = SEGMENT_WORDS, exclude: str | None = None,
                     filters: Sequence[dict[str, Any]] = ()) -> list[tuple[str, float]]:
    """``(judgment_id, score)`` best first for the whole of ``text``, searched as plain words over whole
    judgment texts; ``exclude`` leaves out one judgment (the query's own, when it is in the corpus);
    ``filters`` (clauses of :func:`search.retrieval.builders.filter_clauses`) keep only the judgments they match."""
    words = as_plain_text(text).split()
    if not words:
        raise EmptyQueryError("the document has no words to search for")
    totals: dict[str, float] = {}
    for start in range(0, len(words), segment):
        query = SearchRequest.from_query(" ".join(words[start:start + segment]), classify=False).query
        if query is None:
            continue
        scored = text_query(query, FULLTEXT_FIELDS)
        if filters:
            scored = {"bool": {"must": [scored], "filter": list(filters)}}
        body = {"query": scored, "size": depth, "_source": False}
        for hit in client.search(index=judgments_alias, body=body)["hits"]["hits"]:
            totals[hit["_id"]] = totals.get(hit["_id"], 0.0) + float(hit["_score"] or 0.0)
    totals.pop(exclude or "", None)
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:depth]


def document_ranked(searcher: Searcher, text: str, *, filters: Sequence[dict[str, Any]] = (),
                    exclude: str | None = None, explain: int = 0) -> Ranking | None:
    """The learned ranker's :class:`~search.ranking.rank.Ranking` of a whole document (its profile takes any
    length; ``explain`` judgments keep their feature contributions), or None when the searcher has no ranker."""
    if not as_plain_text(text).strip():
        raise EmptyQueryError("the document has no words to search for")
    ranker = searcher.ranker
    if ranker is None:
        return None
    plain = as_plain_text(text)
    return ranker.rank(text, vector=searcher.text_vector(plain), filters=filters, exclude=[exclude] if exclude else (),
                       explain=explain, tuned=searcher.tuned_query(plain, ranker.model))


def document_ranking(searcher: Searcher, text: str, *, depth: int = 1000, exclude: str | None = None,
                     filters: Sequence[dict[str, Any]] = ()) -> list[tuple[str, float]]:
    """``(judgment_id, score)`` best first for a whole document: the learned ranker reading all of it when the
    searcher has one (:func:`document_ranked`), else :func:`rank_by_document`. ``filters`` hold for every one."""
    found = document_ranked(searcher, text, filters=filters, exclude=exclude)
    if found is None:
        return rank_by_document(searcher.client, searcher.aliases["judgments"], text, depth=depth, exclude=exclude,
                                filters=filters)
    return [(j.judgment_id, j.score) for j in found.judgments][:depth]
