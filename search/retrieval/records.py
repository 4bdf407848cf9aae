"""What the read path gets back from the index, decoded once: a stored judgment, a chunk hit, a judgment's chunks.

A ``judgments`` document is read by the client (one judgment, precedents for a document), the judgment page
(:mod:`search.pages.browse`), the searcher (a hit's title, court, date and the fields its explanation uses) and the
LLM explanation (:mod:`search.explain.llm`). They all decode it with :meth:`StoredJudgment.from_source`, and
they all ask OpenSearch for the fields named here (:data:`JUDGMENT_FIELDS`, or :data:`HIT_FIELDS` where the
text is not needed), so a field added to the index is read in one place.

A chunk hit keeps its ``_source`` whole (the builders choose which fields come back, and a ranker may read
more of them), with typed access to the fields the read path uses. Rescoring (fusion, reranking) makes a new
hit with :meth:`ChunkHit.rescored`; the source is shared, not copied.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from legal.judges import judge_names

__all__ = ["HIT_FIELDS", "JUDGMENT_FIELDS", "ChunkHit", "JudgmentChunks", "MatchKind", "StoredJudgment", "roll_up",
           "stored_date"]

# Every field of a ``judgments`` document that the read path decodes (the vector never leaves the index).
JUDGMENT_FIELDS: tuple[str, ...] = (
    "judgment_id", "title", "court", "decision_date", "judges", "case_number", "citations", "cited_judgments",
    "cited_provisions", "summary", "text")
# What a search hit needs of its judgment: no text, and of the summary only what an explanation reads.
HIT_SUMMARY_FIELDS: tuple[str, ...] = ("legal_issues", "facts", "reasoning")
HIT_FIELDS: tuple[str, ...] = (
    *(f for f in JUDGMENT_FIELDS if f not in ("summary", "text", "case_number", "citations")),
    *(f"summary.{name}" for name in HIT_SUMMARY_FIELDS))
_HIDDEN_SUMMARY = frozenset({"provenance"})  # how the summary was made: for the index's maintainers, not readers


class MatchKind(StrEnum):
    """What a hit matched (:mod:`search.retrieval.matching`): the query's words, only its meaning (found by the vector
    side alone, above the similarity floor), for a search with no words its filters, or, for a reporter citation
    typed alone, the citation: the judgment is the one the corpus cites by it, though its own text never writes it
    (:mod:`search.ranking.known`)."""

    WORDS = "words"
    MEANING = "meaning"
    FILTERS = "filters"
    CITATION = "citation"


def _judges(value: Any) -> tuple[str, ...]:
    """The stored judges in one form (an index built before the indexer wrote them so holds ``Dr. Arijit
    Pasayat``): :func:`legal.judges.judge_names`."""
    return tuple(dict.fromkeys(n for written in _strings(value) for n in judge_names(written)))


def _strings(value: Any) -> tuple[str, ...]:
    """A stored keyword list (or a single keyword, or nothing) as a tuple of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def stored_date(value: Any) -> dt.date | None:
    """The stored ``decision_date`` (``strict_date`` or ``strict_date_optional_time``) as a date."""
    if not value:
        return None
    return dt.date.fromisoformat(str(value)[:10])


@dataclass(frozen=True)
class StoredJudgment:
    """A judgment as the ``judgments`` index holds it. Fields the read did not ask for are empty (``text`` is
    ``""`` for a hit's judgment, which is read with :data:`HIT_FIELDS`)."""

    judgment_id: str
    title: str | None = None
    court: str | None = None
    decision_date: dt.date | None = None
    judges: tuple[str, ...] = ()
    case_number: str | None = None
    citations: tuple[str, ...] = ()
    cited_judgments: tuple[str, ...] = ()
    cited_provisions: tuple[str, ...] = ()
    summary: Mapping[str, Any] = field(default_factory=dict, hash=False)
    text: str = ""

    @classmethod
    def from_source(cls, source: Mapping[str, Any], judgment_id: str | None = None) -> StoredJudgment:
        """Decode a ``_source`` (any subset of :data:`JUDGMENT_FIELDS`); ``judgment_id`` is the document's
        ``_id``, used when the source does not carry the id itself. Raises ``ValueError`` when neither has it."""
        identifier = source.get("judgment_id") or judgment_id
        if not identifier:
            raise ValueError("a stored judgment needs its judgment_id (in the source or as the document id)")
        summary = {k: v for k, v in (source.get("summary") or {}).items() if k not in _HIDDEN_SUMMARY}
        return cls(judgment_id=str(identifier), title=source.get("title"), court=source.get("court"),
                   decision_date=stored_date(source.get("decision_date")), judges=_judges(source.get("judges")),
                   case_number=source.get("case_number"), citations=_strings(source.get("citations")),
                   cited_judgments=_strings(source.get("cited_judgments")),
                   cited_provisions=_strings(source.get("cited_provisions")), summary=summary,
                   text=source.get("text") or "")

    @property
    def date_text(self) -> str | None:
        """The decision date as the index stores it (ISO ``YYYY-MM-DD``), for views that show strings."""
        return self.decision_date.isoformat() if self.decision_date else None

    @property
    def legal_issues(self) -> tuple[str, ...]:
        return _strings(self.summary.get("legal_issues"))

    @property
    def facts(self) -> str:
        return self.summary.get("facts") or ""

    @property
    def reasoning(self) -> str:
        return self.summary.get("reasoning") or ""


@dataclass(frozen=True)
class ChunkHit:
    """A chunk that matched: its id, its score in the list it came from, and its ``_source``."""

    chunk_id: str
    score: float
    source: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def from_hit(cls, hit: Mapping[str, Any]) -> ChunkHit:
        """From one element of an OpenSearch response's ``hits.hits`` (a missing score counts as 0)."""
        return cls(hit["_id"], float(hit.get("_score") or 0.0), hit.get("_source") or {})

    @classmethod
    def from_response(cls, response: Mapping[str, Any]) -> list[ChunkHit]:
        return [cls.from_hit(h) for h in response["hits"]["hits"]]

    def rescored(self, score: float) -> ChunkHit:
        """The same chunk with another score (fused, reranked)."""
        return dataclasses.replace(self, score=float(score))

    @property
    def judgment_id(self) -> str:
        return self.source["judgment_id"]

    @property
    def role(self) -> str:
        return self.source.get("role") or "none"

    @property
    def text(self) -> str:
        return self.source.get("text") or ""

    @property
    def char_start(self) -> int:
        return int(self.source.get("char_start") or 0)

    @property
    def char_end(self) -> int:
        return int(self.source.get("char_end") or 0)

    @property
    def sentence_start(self) -> int | None:
        """The number of the chunk's first sentence in its judgment (the page's ``s{n}`` anchor); None when
        the source was read without it."""
        value = self.source.get("sentence_start")
        return int(value) if value is not None else None


@dataclass(frozen=True)
class JudgmentChunks:
    """A judgment in a ranked list, with the chunks it shows (best first); it scores as its best chunk, which
    ``best`` holds when the shown chunks were chosen by a weight (None: the first chunk is the best)."""

    judgment_id: str
    chunks: tuple[ChunkHit, ...]
    best: float | None = None

    @property
    def score(self) -> float:
        return self.chunks[0].score if self.best is None else self.best


def roll_up(chunks: Iterable[ChunkHit], passages: int = 3,
            weight: Callable[[ChunkHit], float] | None = None) -> list[JudgmentChunks]:
    """Group chunks (in score order) by judgment, keeping each judgment's first ``passages`` chunks; the
    judgments come in the order of their best chunk. With ``weight``, the kept chunks are those with the highest
    score times weight (in that order; ties keep score order), and each judgment still scores as its best chunk."""
    grouped: dict[str, list[ChunkHit]] = {}
    for chunk in chunks:
        group = grouped.setdefault(chunk.judgment_id, [])
        if weight is not None or len(group) < passages:
            group.append(chunk)
    if weight is None:
        return [JudgmentChunks(judgment_id, tuple(group)) for judgment_id, group in grouped.items()]
    return [JudgmentChunks(judgment_id, tuple(sorted(group, key=lambda c: -c.score * weight(c))[:passages]),
                           group[0].score) for judgment_id, group in grouped.items()]


def by_id(lists: Sequence[Sequence[ChunkHit]]) -> dict[str, ChunkHit]:
    """Each chunk id once, as it first appears in ``lists`` (to find a fused id's source again)."""
    found: dict[str, ChunkHit] = {}
    for hits in lists:
        for hit in hits:
            found.setdefault(hit.chunk_id, hit)
    return found
