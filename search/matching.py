"""What a hit matched, and how many judgments match the words: the match semantics a user can predict.

Three rules hold for every hit, whatever ranked it (the learned ranker or the chunk fusion):

* **Constraints hold.** Filters (court, judge, dates, ``cites:``, ``statute:``) and the hard parts of the query
  (quoted phrases, ``+``/``AND`` terms, ``-``/``NOT`` terms: :func:`search.ranking.serve.constraints`) hold over
  the judgment's whole text. A judgment the vector side found that breaks one is dropped, not flagged.
* **Words or meaning.** A judgment whose text matches the query's words (the lexical query over the whole
  text, with the constraints) is a ``words`` match. One that satisfies the constraints but matches none of the
  words was found by the vector side alone: a ``meaning`` match, kept only when its closest passage is at
  least :func:`meaning_floor` similar to the query (cosine). So gibberish and absent topics come back empty.
* **A true count.** ``total`` is the exact number of judgments matching the words and constraints
  (``track_total_hits``), beside the ranked window that is shown.

The floors are per encoder, since cosine scales differ between models (docs/evaluation.md, "Match semantics",
says how they were chosen): the static encoder gives nonsense words a higher similarity to every passage
(0.52 for ``the``) than any real query gives a passage without its words, so on a static index a meaning-only
hit effectively never passes and search is lexical; MiniLM separates them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from backends.encoders import DEFAULT_ENCODER, STATIC_ENCODER
from search.builders import text_query
from search.document_query import FULLTEXT_FIELDS
from search.ranking.bodies import IDS_ONLY
from search.ranking.serve import constraints
from search.records import MatchKind
from search.request import SearchRequest

__all__ = [
    "DEFAULT_MEANING_FLOOR",
    "MEANING_FLOORS",
    "Matching",
    "allowed_body",
    "cosine",
    "count_body",
    "lexical_query",
    "meaning_floor",
    "returned_ids",
    "words_body",
]

Body = dict[str, Any]

# The least cosine similarity between the query and a judgment's closest passage for a judgment that matches
# none of the query's words to be shown (chosen on the sample corpus's gibberish and absent-topic queries and
# checked on the tuning queries: docs/evaluation.md#match-semantics).
MEANING_FLOORS: Mapping[str, float] = {
    DEFAULT_ENCODER: 0.42,
    STATIC_ENCODER: 0.60,
}
DEFAULT_MEANING_FLOOR = 0.60  # an encoder nobody measured: strict, so meaning alone rarely brings a hit


def meaning_floor(encoder: str | None) -> float:
    """The similarity floor for meaning-only hits of an index built with ``encoder`` (its ``_meta.encoder``)."""
    return MEANING_FLOORS.get(encoder or "", DEFAULT_MEANING_FLOOR)


def cosine(knn_score: float) -> float:
    """A ``knn_score`` script score over ``cosinesimil`` vectors (``(1 + cos) / 2``) as the cosine itself."""
    return 2.0 * float(knn_score) - 1.0


def lexical_query(request: SearchRequest) -> Body:
    """The lexical part over whole judgments: the query's words (``match_all`` for a filter-only search) with
    every constraint as a filter. A judgment it matches is a ``words`` match."""
    words = text_query(request.query, FULLTEXT_FIELDS) if request.query is not None else {"match_all": {}}
    clauses = constraints(request)
    return {"bool": {"must": [words], "filter": clauses}} if clauses else words


def count_body(request: SearchRequest) -> Body:
    """How many judgments match the words and constraints, exactly (``hits.total.value``)."""
    return {"size": 0, "track_total_hits": True, "query": lexical_query(request)}


def _among(query: Body, ids: Sequence[str]) -> Body:
    """``query`` restricted to ``ids``, the hits identified by their ``judgment_id`` doc value (reading ``_id``
    would decompress each judgment's stored text)."""
    return {"size": len(ids), **IDS_ONLY,
            "query": {"bool": {"must": [query], "filter": [{"terms": {"judgment_id": list(ids)}}]}}}


def words_body(request: SearchRequest, ids: Sequence[str]) -> Body:
    """Which of the judgments ``ids`` match the words and constraints (their ``_id`` come back)."""
    return _among(lexical_query(request), ids)


def allowed_body(request: SearchRequest, ids: Sequence[str]) -> Body | None:
    """Which of ``ids`` satisfy the constraints (None: the request has none, so all do)."""
    clauses = constraints(request)
    return _among({"bool": {"filter": clauses}}, ids) if clauses else None


def returned_ids(response: Mapping[str, Any]) -> frozenset[str]:
    """The judgment ids of a response to :func:`words_body`, :func:`allowed_body` or a similarity body."""
    return frozenset(hit["fields"]["judgment_id"][0] for hit in response["hits"]["hits"])


@dataclass(frozen=True)
class Matching:
    """What each judgment kept in a ranked window matched, and what the window left out.

    ``kinds`` and ``similarity`` are keyed by judgment id; ``similarity`` (cosine with the closest passage) is
    known for meaning-only judgments. ``below_floor`` counts meaning-only judgments dropped for being under the
    floor, ``excluded`` those that broke a constraint (only the fusion path's vector half can bring them)."""

    total: int
    floor: float
    kinds: Mapping[str, MatchKind] = field(default_factory=dict)
    similarity: Mapping[str, float] = field(default_factory=dict)
    below_floor: int = 0
    excluded: int = 0

    def keeps(self, judgment_id: str) -> bool:
        return judgment_id in self.kinds

    @classmethod
    def decide(cls, request: SearchRequest, ids: Iterable[str], *, total: int, floor: float,
               words: frozenset[str], allowed: frozenset[str] | None,
               similarity: Mapping[str, float]) -> Matching:
        """Sort ``ids`` into words matches, meaning matches at or above ``floor``, and the rest.
        ``similarity`` must hold a cosine for every allowed id outside ``words`` (missing counts as no match)."""
        kinds: dict[str, MatchKind] = {}
        kept_similarity: dict[str, float] = {}
        below = excluded = 0
        only_filters = request.query is None
        for doc in ids:
            if allowed is not None and doc not in allowed:
                excluded += 1
            elif doc in words:
                kinds[doc] = MatchKind.FILTERS if only_filters else MatchKind.WORDS
            elif similarity.get(doc, float("-inf")) >= floor:
                kinds[doc] = MatchKind.MEANING
                kept_similarity[doc] = round(similarity[doc], 4)
            else:
                below += 1
        return cls(total, floor, kinds, kept_similarity, below, excluded)
