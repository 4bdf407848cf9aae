"""Reading a page back and making its hits: the page's judgments and their best passages, in one ``_msearch``.

The learned ranker's page, the sorted page and a brief's page all show the same thing for a list of judgment ids:
each judgment's hit fields and up to three passages (the chunks matching the query's words, highlighted, else the
chunk closest to the query vector; a search of filters alone shows each judgment's opening chunk). The bodies are
:mod:`search.ranking.serve`'s; :func:`fetch_page` sends them together and reads the answers into
:class:`PageRecords`, so the three pages are read one way.

Each final stage then makes its :class:`~search.hits.JudgmentHit` list here (:func:`ranked_hits`,
:func:`sorted_hits`, :func:`fused_hits`): the score and what each judgment matched come from the stage, the
passages from the page, the explanation from the searcher's ``explain`` (None when the request asks for none).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from search.explain.extractive import Explanation
from search.hits import JudgmentHit, Passage
from search.query.request import SearchRequest
from search.ranking import serve
from search.ranking.evidence import evidence
from search.ranking.features import RankingError
from search.ranking.query import QueryProfile
from search.ranking.rank import RankedJudgment
from search.retrieval.matching import Matching
from search.retrieval.records import ChunkHit, JudgmentChunks, MatchKind, StoredJudgment

__all__ = ["Explainer", "PageRecords", "fetch_page", "fused_hits", "ranked_hits", "sorted_hits"]

# Explains one hit: its rank on the page (from 0), the judgment, its best passage.
Explainer = Callable[[int, StoredJudgment, Passage], Explanation]


@dataclass(frozen=True)
class PageRecords:
    """A page's stored judgments and passage rows (:data:`search.ranking.serve.PassageRow`), by judgment id."""

    stored: Mapping[str, StoredJudgment] = field(default_factory=dict)
    rows: Mapping[str, Sequence[serve.PassageRow]] = field(default_factory=dict)

    def judgment(self, judgment_id: str) -> StoredJudgment:
        """The judgment's hit fields (only its id when the index no longer holds it)."""
        return self.stored.get(judgment_id) or StoredJudgment(judgment_id)

    def passages(self, judgment_id: str) -> tuple[Passage, ...]:
        """The judgment's passages to show, best first, with their highlighted sentences."""
        return tuple(Passage.from_chunk(ChunkHit(chunk_id, score, source), marked)
                     for chunk_id, score, source, _, marked in self.rows.get(judgment_id, ()))

    def by_words(self, judgment_id: str) -> bool:
        """Whether any shown passage matched the query's words (not only its meaning)."""
        return any(row[3] for row in self.rows.get(judgment_id, ()))


def fetch_page(client: OpenSearch, aliases: Mapping[str, str], request: SearchRequest, ids: Sequence[str],
               vector: Sequence[float] | None, profile: QueryProfile | None = None) -> PageRecords:
    """The judgments ``ids`` with their best passages for ``request`` (``vector``: the query's, for the passages
    closest in meaning; ``profile``: the ranker's reading of a long query, whose distinctive terms choose the
    passages). A request without words shows each judgment's opening chunk. One round trip; a failed part raises
    :class:`~search.ranking.features.RankingError` with the cluster's answer."""
    if not ids:
        return PageRecords()
    lines: list[dict[str, Any]] = [{"index": aliases["judgments"]}, serve.judgments_body(ids)]
    bodies = (serve.passage_requests(request, ids, vector, profile) if request.query is not None
              else [serve.first_passages_body(ids)])
    for body in bodies:
        lines += [{"index": aliases["chunks"]}, body]
    found, *chunk_responses = client.msearch(body=lines)["responses"]
    for response in (found, *chunk_responses):
        if "error" in response:
            raise RankingError(f"fetching the page failed: {response['error']}", response)
    stored = {h["_id"]: StoredJudgment.from_source(h.get("_source", {}), h["_id"]) for h in found["hits"]["hits"]}
    return PageRecords(stored, serve.best_passages(chunk_responses))


def ranked_hits(page: Sequence[RankedJudgment], records: PageRecords, matching: Matching | None,
                profile: QueryProfile, explain: Explainer | None) -> list[JudgmentHit]:
    """The learned ranker's page as hits, each explained (when asked) by the evidence that placed it before the
    words of its best passage."""
    hits: list[JudgmentHit] = []
    for judged in page:
        judgment = records.judgment(judged.judgment_id)
        shown = records.passages(judged.judgment_id)
        explanation = None
        if explain is not None and shown:
            found = evidence(judged.contributions, judged.features, judged.meta, profile)
            base = explain(len(hits), judgment, shown[0])
            explanation = dataclasses.replace(base, text=f"{found.text}. {base.text}" if found.phrases
                                              else base.text, evidence=found.phrases)
        hits.append(JudgmentHit(judgment.judgment_id, judged.score, judgment.title, judgment.court,
                                judgment.decision_date, judgment.judges, shown, explanation,
                                matching.kinds[judged.judgment_id] if matching else MatchKind.WORDS,
                                matching.similarity.get(judged.judgment_id) if matching else None,
                                matching.missing.get(judged.judgment_id, ()) if matching else ()))
    return hits


def sorted_hits(ids: Sequence[str], scores: Sequence[float], records: PageRecords, matching: Matching,
                similarity: Mapping[str, float], explain: Explainer | None) -> list[JudgmentHit]:
    """A sorted page as hits, in the order given (``scores``: the sort's; ``similarity``: the sorted set's cosines,
    for a judgment the matching did not measure)."""
    hits: list[JudgmentHit] = []
    for doc, score in zip(ids, scores, strict=True):
        judgment = records.judgment(doc)
        shown = records.passages(doc)
        explanation = explain(len(hits), judgment, shown[0]) if explain is not None and shown else None
        hits.append(JudgmentHit(doc, score, judgment.title, judgment.court, judgment.decision_date, judgment.judges,
                                shown, explanation, matching.kinds.get(doc, MatchKind.MEANING),
                                matching.similarity.get(doc, similarity.get(doc)), matching.missing.get(doc, ())))
    return hits


def fused_hits(groups: Sequence[JudgmentChunks], stored: Mapping[str, StoredJudgment],
               marked: Mapping[str, tuple[str, ...]], matching: Matching,
               explain: Explainer | None) -> list[JudgmentHit]:
    """The fusion path's page as hits: each judgment with its rolled-up chunks as passages (``marked``: their
    highlighted sentences), scored as its group."""
    hits: list[JudgmentHit] = []
    for rank, group in enumerate(groups):
        judgment = stored.get(group.judgment_id) or StoredJudgment(group.judgment_id)
        passages = tuple(Passage.from_chunk(chunk, marked.get(chunk.chunk_id, ())) for chunk in group.chunks)
        explanation = explain(rank, judgment, passages[0]) if explain is not None else None
        hits.append(JudgmentHit.of(judgment, passages, explanation, matching.kinds[group.judgment_id],
                                   matching.similarity.get(group.judgment_id),
                                   matching.missing.get(group.judgment_id, ()), score=group.score))
    return hits
