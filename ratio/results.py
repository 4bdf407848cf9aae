"""The public result types: one per operation, the REST API's shapes (the OpenAPI spec is the contract).

``ratio.Client`` and ``ratio.RemoteClient`` return these same classes, so code reads a result the same way
whichever client made it, and ``ratio ... --json`` prints them as the API does. Dates are ``datetime.date``
in Python and ISO strings (``YYYY-MM-DD``) in JSON.

They live here, beside the clients, rather than in :mod:`ratio.web`: the clients and the CLI build and read them
without the web package, and the API publishes them from here (the web imports down, never the reverse).

======================  ====================================  =========================================
operation               type                                   route
======================  ====================================  =========================================
``search``              :class:`SearchPage` of                 ``GET``/``POST /api/v1/search``
                        :class:`JudgmentHit` (with
                        :class:`Passage`)
``search_document``     :class:`BriefPage`                     ``POST /api/v1/search/document``
``facets``              ``dict[str, list[dict]]``              ``GET /api/v1/facets``
``explore``             :class:`ExploreView`                   ``GET /api/v1/explore``
``judgment``            :class:`JudgmentView`                  ``GET /api/v1/judgments/{id}``
``explain``             :class:`Explanation`                   ``GET /api/v1/explain``
``provisions``          ``list[``:class:`ProvisionHit```]``    ``GET /api/v1/provisions``
``ask``                 :class:`ratio.answer_results.AnswerOut` ``POST /api/v1/ask``
``health``              :class:`Health`                        ``GET /api/v1/health``
======================  ====================================  =========================================

A hit's passage links to the judgment page by :func:`passage_link`, the one address search hits, briefs and
answers share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import quote, urlencode

from pydantic import BaseModel, Field

from search.brief import BriefHit, BriefProfile, BriefResult
from search.explain.extractive import Explanation
from search.hits import JudgmentHit, Passage, SearchResult
from search.llm.expand import Expansion
from search.llm.grades import LLMReranking
from search.pages.browse import ExploreView, JudgmentView
from search.provisions.retrieve import ProvisionHit
from search.query.options import DEFAULTS, SortOrder
from search.retrieval.matching import CountRule

__all__ = ["BriefPage", "ExplainResponse", "Explanation", "ExploreView", "Health", "JudgmentHit", "JudgmentView",
           "Passage", "ProvisionHit", "ProvisionsResponse", "SearchPage", "passage_link", "to_page"]


class SearchPage(BaseModel):
    """One page of judgments for a search."""

    query: str
    sort: SortOrder = Field(SortOrder.RELEVANCE, description="The order of the hits (newest for a filter-only search "
                            "asked in relevance order: ranking_note says why).")
    judgments_found: int = Field(description="Judgments in the ranked window (not the whole corpus); for a sorted "
                                 "search, every judgment in the sorted set (those matching the words and every "
                                 "constraint, plus those matching by meaning only).")
    total: int | None = Field(None, description="Judgments matching the query's words by count_rule and every "
                              "filter, phrase and excluded word: an exact count. A typed query's count requires every "
                              "word; the ranked window may also hold judgments with only some (each hit's missing "
                              "says which words it lacks) and judgments found by meaning only.")
    total_any: int | None = Field(None, description="Judgments with any of the query's words (and every filter, "
                                  "phrase and excluded word), beside total when total requires every word; null "
                                  "when total already counts any word (a pasted text) or there are no words.")
    count_rule: CountRule = Field(CountRule.EVERY_WORD, description="What total counts: every_word (a typed query: "
                                  "judgments whose text has every word), any_word (a pasted text of more than 30 "
                                  "words: its words are evidence, not conditions) or filters (no words).")
    meaning_floor: float | None = Field(None, description="The least similarity (cosine) of a hit found by "
                                        "meaning only (match 'meaning').")
    below_floor: int = Field(0, description="Judgments of the window found by meaning only and dropped for being "
                             "under the floor.")
    fusion: str
    ranking: str = Field("fusion", description="ranker:MODEL when the learned ranker ordered the hits.")
    ranking_note: str | None = Field(None, description="Why the fusion path ran instead of the learned ranker, or "
                                     "why the hits are sorted though relevance was asked (a filter-only search has "
                                     "no words to rank by: newest first).")
    took_ms: float
    hits: list[JudgmentHit]
    facets: dict[str, list[dict[str, Any]]]
    provisions: list[ProvisionHit] = Field(default_factory=list)
    expansion: Expansion | None = None
    llm_rerank: LLMReranking | None = Field(None, description="What the LLM rerank stage did when llm_rerank was "
                                            "asked: each graded judgment's grade (0-3) and reason, whether the new "
                                            "order was applied, and why not (note) when the ranker's was kept.")
    removed_by_role: int | None = None
    removed_roles: dict[str, int] = Field(default_factory=dict)
    page: int
    size: int = Field(DEFAULTS.size,
                      description="Judgments per page (the hits are judgments (page - 1) * size + 1 on).")
    next_cursor: str | None = Field(None, description="Pass as cursor for the next page; null on the last.")
    prev_cursor: str | None = Field(None, description="Pass as cursor for the previous page; null on the first.")
    next: str | None = Field(None, description="The API's URL of the next page (absolute, GET, the same parameters "
                             "and next_cursor); null on the last page, and from ratio.Client (it pages by number).")
    notes: list[str] = Field(default_factory=list)


class Health(BaseModel):
    status: Literal["ok", "degraded", "unavailable"]
    opensearch: str | None = None
    cluster_status: str | None = None
    indices: dict[str, int | None] = Field(default_factory=dict, description="Documents per index alias.")
    message: str | None = None


class ExplainResponse(BaseModel):
    judgment_id: str
    query: str
    explanation: Explanation


class ProvisionsResponse(BaseModel):
    query: str
    provisions: list[ProvisionHit]


class BriefPage(BaseModel):
    """Judgments for a brief, best first, each with the parts of the brief it matched."""

    judgments_found: int = Field(description="Judgments the ranker placed (the page shows the first ``size``).")
    ranking: str = Field(description="ranker:MODEL, or bm25:whole-text where no ranker model is loaded.")
    ranking_note: str | None = None
    took_ms: float
    brief: BriefProfile = Field(description="What was read from the brief: length, cited provisions and "
                                            "judgments, citation contexts, most distinctive terms.")
    excluded: str | None = None
    source: str = Field("text", description="How the brief came: text, or the uploaded file's kind (txt, pdf).")
    characters: int = Field(0, description="Characters of brief text searched with.")
    hits: list[BriefHit]

    @classmethod
    def of(cls, result: BriefResult, source: str, characters: int) -> BriefPage:
        return cls(judgments_found=result.judgments_found, ranking=result.ranking, ranking_note=result.ranking_note,
                   took_ms=result.took_ms, brief=result.brief, excluded=result.excluded, source=source,
                   characters=characters, hits=list(result.hits))


def to_page(query: str, result: SearchResult, page: int, next_cursor: str | None, notes: list[str], *,
            size: int = DEFAULTS.size, prev_cursor: str | None = None) -> SearchPage:
    """The API's page of an engine result: what ``ratio.Client.search``, the API and ``ratio search --json`` return
    (the cursors are the API's; the clients page by number and pass None)."""
    return SearchPage(
        query=query, sort=SortOrder(result.sort), size=size, prev_cursor=prev_cursor,
        judgments_found=result.judgments_found, fusion=result.fusion, took_ms=result.took_ms,
        hits=list(result.hits), facets=result.facets, provisions=list(result.provisions),
        expansion=result.expansion, removed_by_role=result.removed_by_role, removed_roles=result.removed_roles,
        page=page, next_cursor=next_cursor,
        notes=[n for n in (result.query_note, result.llm_rerank.note if result.llm_rerank else None) if n] + notes,
        ranking=result.ranking, ranking_note=result.ranking_note,
        total=result.total, meaning_floor=result.meaning_floor, below_floor=result.below_floor,
        total_any=result.total_any, count_rule=result.count_rule, llm_rerank=result.llm_rerank)


def passage_link(judgment_id: str, sentence: int | None, words: Sequence[str]) -> str:
    """``/judgments/{id}?hl=...#s{n}``; without a sentence number (an old chunk), the judgment with its marks."""
    link = f"/judgments/{quote(judgment_id, safe='')}"
    if words:
        link += "?" + urlencode({"hl": " ".join(words)})
    return link + (f"#s{sentence}" if sentence is not None else "")
