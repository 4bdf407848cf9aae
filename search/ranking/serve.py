"""The learned ranker as the search's final stage: when it applies, what it must respect, how hits are shown.

:func:`fallback_reason` says why a request cannot be ranked by the model (``None``: it can): a filter-only search
has no text to rank on, a role filter, an explicit cross-encoder rerank or an LLM issue expansion asks for the
fusion path's own machinery, and ``search_after`` pages a sorted chunk list. Everything else (plain words,
pasted fact patterns, phrases, AND/NOT, court/year/statute/citation filters) goes through the ranker, with
:func:`search.retrieval.builders.constraints` applied to every candidate source so what the user asked for exactly
holds for
every hit: the filters, every quoted phrase and required word, and every excluded word, over the judgment's whole
text.

A ranked judgment is shown with its best passages: the chunks that match the query's words, highlighted, else
(a judgment found by meaning or by its citations only) the chunk closest to the query vector. One ``_msearch``
fetches both for a page, with the page's judgments. Among the matching chunks the court's own reasoning comes
first (:func:`preferred_roles`): a chunk of the reasoning or rulings roles scores :data:`PREFERRED_WEIGHT` times its
words' score, so a judgment's quotation of a statute or counsel's argument is shown after the court's discussion of
the same words unless it matches them more than twice as well. The fusion path orders its passages by the same
weight (:func:`passage_weight`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from legal.roles import load_role_set
from search.query.request import RankingMode, RoleMode, SearchRequest
from search.ranking.query import QueryProfile
from search.retrieval.bodies import chunk_similarity_body, terms_query
from search.retrieval.builders import HIGHLIGHT, SOURCE_EXCLUDES, hard_text, text_query
from search.retrieval.records import HIT_FIELDS, ChunkHit

__all__ = ["PREFERRED_GROUPS", "PREFERRED_WEIGHT", "best_passages", "fallback_reason",
           "first_passages_body", "judgments_body", "passage_requests", "passage_weight",
           "preferred_roles"]

Body = dict[str, Any]
_PASSAGES = 3
PASSAGE_TERMS = 50  # a longer query picks its passages by its most distinctive terms (the ranker's short reduction)
# The passages shown first: the court's own reasoning (ratio, analysis) and rulings, before the statute text, the
# arguments and the precedents a judgment quotes. On the sample corpus the statute chunk C182:5 (s. 3 IPC quoted)
# scores 1.7 to 1.9 times the court's discussion of the same words ("offence committed beyond India"); a weight of
# 2 puts the discussion first there, while a reasoning chunk matching one word of several stays behind.
PREFERRED_GROUPS = ("reasoning", "rulings")
PREFERRED_WEIGHT = 2.0


def preferred_roles(request: SearchRequest) -> tuple[str, ...]:
    """The roles whose passages a hit shows first: the roles the request names (``role:``, ``roles=``) unless its
    role mode is off, else the court's reasoning and rulings (:data:`PREFERRED_GROUPS` of ``legal/roles.json``)."""
    if request.roles and request.role_mode is not RoleMode.OFF:
        return request.roles
    roles = load_role_set()
    return tuple(name for group in PREFERRED_GROUPS for name in roles.group(group))


def passage_weight(request: SearchRequest) -> Callable[[ChunkHit], float]:
    """How much a chunk counts when choosing a hit's passages: :data:`PREFERRED_WEIGHT` for a preferred role
    (:func:`preferred_roles`), else 1. The fusion path orders its passages by it
    (:func:`search.retrieval.records.roll_up`);
    the ranker's path asks OpenSearch for the same (:func:`passage_requests`)."""
    preferred = frozenset(preferred_roles(request))
    return lambda chunk: PREFERRED_WEIGHT if chunk.role in preferred else 1.0


def _preferring(query: Body, roles: Sequence[str]) -> Body:
    """``query`` with the chunks of ``roles`` scoring :data:`PREFERRED_WEIGHT` times as much (others as they are)."""
    return {"function_score": {"query": query, "boost_mode": "multiply", "score_mode": "max",
                               "functions": [{"filter": {"terms": {"role": list(roles)}}, "weight": PREFERRED_WEIGHT}]}}


def fallback_reason(request: SearchRequest, issues: bool | None = None) -> str | None:
    """Why ``request`` runs on the fusion path rather than the learned ranker (None: the ranker takes it).
    ``issues`` says whether an issue expansion produced issues (None: unknown yet, the request decides); an
    expansion that produced none (no LLM, or it failed) leaves the search as if none was asked."""
    if request.ranking is RankingMode.FUSION:
        return "fusion was asked for"
    if request.query is None:
        return "a filter-only search has no text to rank by"
    if request.role_mode is RoleMode.FILTER:
        return "role mode 'filter' searches only the chosen roles' chunks"
    if request.rerank:
        return "a cross-encoder rerank was asked for"
    if "issues" in request.expand and issues is not False:
        return "issue expansion fuses the LLM's issues on the chunk path"
    if request.search_after is not None:
        return "search_after pages the chunk path's sorted list"
    return None


def passage_query(request: SearchRequest, profile: QueryProfile | None) -> Body:
    """The words the page's passages are chosen and highlighted by: the query itself when it is short; for a
    pasted fact pattern, its :data:`PASSAGE_TERMS` most distinctive terms (the ranker's tf-idf reduction), with
    its phrases and required words kept as a preference. Scoring a thousand-word query over the chunks costs as
    much as a whole BM25 search (about 190 ms of ``took`` here), even restricted to the page's judgments."""
    assert request.query is not None
    if profile is None or len(profile.terms) <= PASSAGE_TERMS:
        return text_query(request.query)
    should = [terms_query(profile.reduced(PASSAGE_TERMS, "idf"), weighted=False)]
    hard = hard_text(request.query)
    if hard is not None:
        should.append(text_query(hard))
    return {"bool": {"should": should}}


def passage_requests(request: SearchRequest, ids: Sequence[str], vector: Sequence[float] | None,
                     profile: QueryProfile | None = None) -> list[Body]:
    """Two chunk searches for the page's judgments: the chunks matching the query's words (best first, the
    court's reasoning preferred (:func:`preferred_roles`), with their highlighted sentences when the request asks
    for highlights; see :func:`passage_query`) and, when a vector is given, each judgment's chunk most similar to
    it."""
    where = {"terms": {"judgment_id": list(ids)}}
    shown = {"excludes": SOURCE_EXCLUDES}
    # one group per judgment, its best matching chunks inside: only the shown chunks' texts are read, and only
    # they are highlighted (in the same request: the query is the same)
    inner: Body = {"name": "passages", "size": _PASSAGES, "_source": shown}
    if request.highlight:
        inner["highlight"] = HIGHLIGHT
    words = _preferring(passage_query(request, profile), preferred_roles(request))
    lexical = {"query": {"bool": {"must": [words], "filter": [where]}},
               "size": max(len(ids), 1), "_source": False, "track_total_hits": False,
               "collapse": {"field": "judgment_id", "inner_hits": inner}}
    bodies = [lexical]
    if vector is not None:  # the ranker's own similarity body, with the chunk's text kept for display
        similar = {**chunk_similarity_body(vector, ids), "_source": shown}
        similar.pop("stored_fields")
        bodies.append(similar)
    return bodies


def first_passages_body(ids: Sequence[str]) -> Body:
    """Each judgment's opening chunk, in :func:`passage_requests`' shape: what a filter-only page shows, having
    no words to choose passages by."""
    inner = {"name": "passages", "size": 1, "sort": [{"ordinal": "asc"}], "_source": {"excludes": SOURCE_EXCLUDES}}
    return {"query": {"terms": {"judgment_id": list(ids)}}, "size": max(len(ids), 1), "_source": False,
            "track_total_hits": False, "collapse": {"field": "judgment_id", "inner_hits": inner}}


def judgments_body(ids: Sequence[str]) -> Body:
    """The page's judgments (their hit fields), as a search on the judgments index so that it shares the
    page's ``_msearch`` with the passage requests."""
    return {"query": {"ids": {"values": list(ids)}}, "size": len(ids), "_source": {"includes": list(HIT_FIELDS)},
            "track_total_hits": False}


PassageRow = tuple[str, float, dict[str, Any], bool, tuple[str, ...]]


def best_passages(responses: Sequence[Mapping[str, Any]]) -> dict[str, list[PassageRow]]:
    """Per judgment, up to three ``(chunk_id, score, source, by_words, highlighted sentences)``: matching chunks
    first; a judgment with none gets its most similar chunk (``by_words`` False, nothing highlighted)."""
    found: dict[str, list[PassageRow]] = {}
    for group in responses[0]["hits"]["hits"]:
        inner = group["inner_hits"]["passages"]["hits"]["hits"]
        found[group["fields"]["judgment_id"][0]] = [
            (hit["_id"], float(hit["_score"] or 0.0), hit["_source"], True,
             tuple(hit.get("highlight", {}).get("text", ()))) for hit in inner[:_PASSAGES]]
    for response in responses[1:]:
        for hit in response["hits"]["hits"]:
            found.setdefault(hit["_source"]["judgment_id"], [(hit["_id"], float(hit["_score"] or 0.0),
                                                               hit["_source"], False, ())])
    return found
