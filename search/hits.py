"""What a search returns: the page's judgments (:class:`JudgmentHit`), each with its best passages
(:class:`Passage`), inside the engine's :class:`SearchResult` (hits, counts, timings, how they were ranked).

Frozen dataclasses that every final stage fills the same way (the learned ranker's, the fusion path's, the sorted
one's: :mod:`search.execute`) and that the product returns as they are (``ratio.results`` publishes them), so they
sit below the stages, importing none of them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from search.explain.extractive import Explanation
from search.llm.expand import Expansion
from search.llm.grades import LLMReranking
from search.provisions.retrieve import ProvisionHit
from search.retrieval.matching import CountRule
from search.retrieval.records import ChunkHit, MatchKind, StoredJudgment
from search.retrieval.sorting import SortValue

__all__ = ["JudgmentHit", "Passage", "SearchResult"]


@dataclass(frozen=True)
class Passage:
    """A chunk that matched, located in its judgment."""

    chunk_id: str
    role: str
    score: float
    text: str
    char_start: int
    char_end: int
    highlights: tuple[str, ...] = ()  # sentences with the matched words in <mark>, HTML-escaped
    sentence_start: int | None = None  # the number of its first sentence: the judgment page's anchor ``s{n}``

    @classmethod
    def from_chunk(cls, chunk: ChunkHit, highlights: tuple[str, ...] = ()) -> Passage:
        source = chunk.source
        return cls(chunk.chunk_id, source["role"], chunk.score, source["text"], source["char_start"],
                   source["char_end"], highlights, chunk.sentence_start)


@dataclass(frozen=True)
class JudgmentHit:
    """A judgment in the results, scored as its best chunk."""

    judgment_id: str
    score: float
    title: str | None
    court: str | None
    decision_date: dt.date | None
    judges: tuple[str, ...]
    passages: tuple[Passage, ...]
    explanation: Explanation | None = None
    match: MatchKind = MatchKind.WORDS  # "meaning": found by the vector side alone, none of the words matched
    similarity: float | None = None  # a meaning-only hit's cosine with the query (at least the floor)
    missing: tuple[str, ...] = ()  # the typed words (or OR-groups) the judgment lacks (search.retrieval.matching)
    cited_by: int = field(default=0, metadata={"description": "How many judgments of the corpus cite this one (the "
                                                              "citation graph the cited_by sort and the judgment "
                                                              "page's 'cited by' read); 0: none does."})

    @classmethod
    def of(cls, judgment: StoredJudgment, passages: tuple[Passage, ...], explanation: Explanation | None = None,
           match: MatchKind = MatchKind.WORDS, similarity: float | None = None,
           missing: tuple[str, ...] = (), score: float | None = None) -> JudgmentHit:
        """A hit for a judgment read back from the index, scored as ``score`` (None: its first passage's)."""
        return cls(judgment.judgment_id, passages[0].score if score is None else score, judgment.title,
                   judgment.court, judgment.decision_date, judgment.judges, passages, explanation, match, similarity,
                   missing)


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[JudgmentHit, ...]
    judgments_found: int
    fusion: str
    facets: dict[str, Any] = field(default_factory=dict)
    removed_by_role: int | None = None
    removed_roles: dict[str, int] = field(default_factory=dict)
    took_ms: float = 0.0
    rerank_ms: float | None = None
    expansion: Expansion | None = None
    provisions: tuple[ProvisionHit, ...] = ()
    expand_ms: float | None = None
    explain_ms: float | None = None
    ranking: str = "fusion"  # "ranker:<model>" when the learned ranker ordered the hits
    ranking_note: str | None = None  # why the fusion path ran instead of the ranker (None: it was not asked)
    total: int | None = None  # judgments matching the words (count_rule) and every constraint, exactly
    total_any: int | None = None  # judgments with any of the words (None: total counts any word, or no words)
    count_rule: str = CountRule.EVERY_WORD  # what total counts: every_word, any_word (pasted text) or filters
    meaning_floor: float | None = None  # the least similarity of a meaning-only hit
    below_floor: int = 0  # meaning-only judgments of the window dropped for being under the floor
    sort: str = "relevance"  # a search.query.options.SortOrder: anything else pages the whole matching set, sorted
    sort_values: tuple[tuple[SortValue, ...], ...] = ()  # each hit's sort values (a sorted search's page keys)
    pit_id: str | None = None  # the point in time a sorted page was read in (None: the live index)
    query_note: str | None = None  # what was left out of a query too long for the engine (search.query.bounds)
    llm_rerank: LLMReranking | None = None  # what the LLM rerank stage did, when asked (search.llm.rerank)
