"""What a hit matched, and how many judgments match the words: the match semantics a user can predict.

Three rules hold for every hit, whatever ranked it (the learned ranker or the chunk fusion):

* **Constraints hold.** Filters (court, judge, dates, ``cites:``, ``statute:``) and the hard parts of the query
  (quoted phrases, ``+``/``AND`` terms, ``-``/``NOT`` terms: :func:`search.retrieval.builders.constraints`) hold over
  the judgment's whole text. A judgment the vector side found that breaks one is dropped, not flagged.
* **Words or meaning.** A judgment whose text matches the query's words (the lexical query over the whole
  text, with the constraints) is a ``words`` match. One that satisfies the constraints but matches none of the
  words was found by the vector side alone: a ``meaning`` match, kept only when its closest passage is at
  least :func:`meaning_floor` similar to the query (cosine). So gibberish and absent topics come back empty.
* **A true count.** ``total`` is the exact number of judgments matching the words and constraints
  (``track_total_hits``), beside the ranked window that is shown.

Which judgments "match the words" is the **counting rule**, and this module is its one home: the headline count,
the date and cited-by sorts (:mod:`search.retrieval.sorting`), the facets and Explore (:mod:`search.pages.facets`) all
count
:func:`lexical_query`. A typed query (:attr:`search.query.request.SearchRequest.every_word`, as on Indian Kanoon and
CourtListener) requires **every word** (:func:`every_word_query`): its bare words become required, each over the
judgment's whole text (one ``match`` with ``operator: and``, so a stopword the analyzer drops, such as "by",
drops out), an OR-group needs one of its alternatives, and phrases, ``+``/``AND``, ``-``/``NOT`` and filters keep
their meaning. A pasted text (more than 30 words, read as plain words) counts judgments with **any** of its words:
its words are evidence, not conditions.

The ranking still reaches judgments with only some of the words (the learned ranker's candidates and the fusion
window are any-word), so a hit says which typed words its judgment lacks: :func:`words_body`, the request that
checks which of the window's judgments match the words, carries one named query per word the rule requires
(:func:`required_words`), and :attr:`Matching.missing` lists the words whose query a judgment did not match. The
result states both counts: ``total`` (every word) and ``total_any`` (any word, :func:`count_body` with
``any_word``).

The floors are per encoder, since cosine scales differ between models (docs/evaluation.md, "Match semantics",
says how they were chosen): the static encoder gives nonsense words a higher similarity to every passage
(0.52 for ``the``) than any real query gives a passage without its words, so on a static index a meaning-only
hit effectively never passes and search is lexical; MiniLM separates them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from backends.encoders import DEFAULT_ENCODER, STATIC_ENCODER
from legal.citations import extract_citations
from search.query.request import SearchRequest
from search.query.syntax import AnyOf, Clauses, Node, Phrase, Term, positive_text
from search.retrieval.bodies import IDS_ONLY, cites_query
from search.retrieval.builders import FULLTEXT_FIELDS, constraints, text_query
from search.retrieval.records import MatchKind

__all__ = [
    "DEFAULT_MEANING_FLOOR",
    "MEANING_FLOORS",
    "CountRule",
    "Matching",
    "allowed_body",
    "cosine",
    "count_body",
    "every_word_query",
    "lexical_query",
    "meaning_floor",
    "missing_words",
    "required_words",
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


class CountRule(StrEnum):
    """Which judgments a search's ``total`` counts: those with every word (a typed query), with any word (a pasted
    text), or passing the filters (no words)."""

    EVERY_WORD = "every_word"
    ANY_WORD = "any_word"
    FILTERS = "filters"

    @classmethod
    def of(cls, request: SearchRequest) -> CountRule:
        if request.query is None:
            return cls.FILTERS
        return cls.EVERY_WORD if request.every_word else cls.ANY_WORD


def cosine(knn_score: float) -> float:
    """A ``knn_score`` script score over ``cosinesimil`` vectors (``(1 + cos) / 2``) as the cosine itself."""
    return 2.0 * float(knn_score) - 1.0


def _all_words(words: Sequence[str], *, name: str | None = None) -> Body:
    """Every one of ``words`` over the whole text: one ``match`` with ``operator: and``, so the analyzer decides
    what a word is (a stopword drops out; a word it splits needs all its parts). ``name``: a named query for one
    word, which a stopword alone (no token) must not fail (``zero_terms_query: all``)."""
    match: Body = {"query": " ".join(words), "operator": "and"}
    if name is not None:
        match.update(zero_terms_query="all", _name=name)
    return {"match": {FULLTEXT_FIELDS.words[0]: match}}


def every_word_query(node: Node) -> Body:
    """``node`` over the judgments' whole text with every word required (the counting rule of a typed query):
    bare words, ``+``/``AND`` words and the words of a group all required, an OR-group satisfied by one of its
    alternatives (each alternative read by the same rule), phrases exact, ``-``/``NOT`` items excluded as typed."""
    if isinstance(node, Term):
        return _all_words([node.text])
    if isinstance(node, Phrase):
        return text_query(node, FULLTEXT_FIELDS)
    if isinstance(node, AnyOf):
        if all(isinstance(item, Term) for item in node.items):  # a OR b: what match does with "a b"
            return text_query(node, FULLTEXT_FIELDS)
        return {"bool": {"should": [every_word_query(item) for item in node.items], "minimum_should_match": 1}}
    legal = _legal_words(node.should)
    words = [item.text for position, item in enumerate(node.should)
             if isinstance(item, Term) and not legal.get(position, (0, 0, ()))[2]]
    must = [every_word_query(item) for item in node.must]
    if words:
        must.append(_all_words(words))
    for first, last, provisions in dict.fromkeys(legal.values()):
        if provisions:  # a provision's words, or a judgment citing it however it wrote it
            run = [term.text for term in node.should[first:last + 1]]  # type: ignore[union-attr]
            must.append(_written_or_cited(run, provisions))
    must += [every_word_query(item) for item in node.should if not isinstance(item, Term)]
    bool_: Body = {}
    if must:
        bool_["must"] = must
    if node.must_not:
        bool_["must_not"] = [text_query(item, FULLTEXT_FIELDS) for item in node.must_not]
    return {"bool": bool_}


def required_words(request: SearchRequest) -> list[tuple[str, Body]]:
    """What the every-word rule requires beyond what the query's syntax already requires, each as a label (the
    word as typed; ``a OR b`` for an OR-group; ``(a b)`` for a group) and a named query over the whole text: the
    items a hit of the any-word ranking may lack. Empty when the rule does not apply (a pasted text, a filter-only
    search) or when the syntax already requires every item (a single word or OR-group, phrases, ``+`` words)."""
    query = request.query
    if query is None or not request.every_word or not isinstance(query, Clauses):
        return []
    if not query.should or (len(query.should) == 1 and not query.must):
        return []
    items: dict[str, Body] = {}  # a word typed twice is one condition
    legal = _legal_words(query.should)
    for position, item in enumerate(query.should):
        if position in legal:  # the words of a citation or provision are one condition, as the index reads them
            first, last, provisions = legal[position]
            if position == first:
                words = [term.text for term in query.should[first:last + 1]]  # type: ignore[union-attr]
                label = " ".join(words)
                items.setdefault(label, _written_or_cited(words, provisions, name=label) if provisions
                                 else _all_words(words, name=label))
            continue
        if isinstance(item, Term):
            items.setdefault(item.text, _all_words([item.text], name=item.text))
            continue
        if isinstance(item, AnyOf):
            label = " OR ".join(positive_text(alternative) for alternative in item.items)
        else:
            label = f"({positive_text(item)})"
        items.setdefault(label, {"bool": {"must": [every_word_query(item)], "_name": label}})
    return list(items.items())


def _written_or_cited(words: Sequence[str], provisions: Sequence[str], name: str | None = None) -> Body:
    """A provision's words as typed, or a judgment citing it (every one, for ``ss. 302 and 34 IPC``), read by the
    citation parser at indexing however the judgment wrote it (``s. 304-B``, ``Section 304B of the Indian Penal
    Code``): a search for ``section 304B IPC`` counts the judgments that cite it."""
    cited = [cites_query([provision]) for provision in provisions]
    body: Body = {"bool": {"should": [_all_words(words), {"bool": {"filter": cited}}], "minimum_should_match": 1}}
    if name is not None:
        body["bool"]["_name"] = name
    return body


def _legal_words(items: Sequence[Node]) -> dict[int, tuple[int, int, tuple[str, ...]]]:
    """Positions of the bare words in ``items`` that together write a reporter citation or a provision (``AIR 1958
    SC 465``, ``section 304B IPC``), each mapped to its run's first and last position and, for a provision, its
    canonical citations: the index reads such a run as one token (``air_1958_sc_465``), so its words are required,
    and found missing, together; a provision's run is also met by citing it."""
    starts: list[tuple[int, int]] = []  # (character offset, position) of each bare word in the joined text
    text = ""
    for position, item in enumerate(items):
        if isinstance(item, Term):
            starts.append((len(text), position))
            text += item.text + " "
        else:
            text += "\n"  # a phrase or group between words breaks a run
    runs: dict[int, tuple[int, int, tuple[str, ...]]] = {}
    for citation in extract_citations(text, kinds={"judgment", "provision"}):
        inside = [position for offset, position in starts if citation.start <= offset < citation.end]
        if len(inside) > 1 or (inside and citation.kind == "provision"):
            cited = (citation.normalized,) if citation.kind == "provision" else ()
            for position in inside:  # a match naming several sections gives one Citation each, on one span
                earlier = runs.get(position, (0, 0, ()))[2]
                runs[position] = (inside[0], inside[-1], tuple(dict.fromkeys((*earlier, *cited))))
    return runs


def lexical_query(request: SearchRequest, *, any_word: bool = False) -> Body:
    """The lexical part over whole judgments by the counting rule: the query's words (every word of a typed query,
    any word of a pasted text or with ``any_word``; ``match_all`` for a filter-only search) with every constraint
    as a filter. A judgment it matches (with ``any_word``) is a ``words`` match."""
    if request.query is None:
        words: Body = {"match_all": {}}
    elif request.every_word and not any_word:
        words = every_word_query(request.query)
    else:
        words = text_query(request.query, FULLTEXT_FIELDS)
        provisions = request.understanding.provisions if request.every_word and request.understanding else ()
        if provisions:  # as the every-word rule reads a typed provision: its words, or citing it
            words = {"bool": {"should": [words, cites_query(list(provisions))], "minimum_should_match": 1}}
    clauses = constraints(request)
    return {"bool": {"must": [words], "filter": clauses}} if clauses else words


def count_body(request: SearchRequest, *, any_word: bool = False) -> Body:
    """How many judgments match the words (by the counting rule, or any word with ``any_word``) and constraints,
    exactly (``hits.total.value``)."""
    return {"size": 0, "track_total_hits": True, "query": lexical_query(request, any_word=any_word)}


def _among(query: Body, ids: Sequence[str]) -> Body:
    """``query`` restricted to ``ids``, the hits identified by their ``judgment_id`` doc value (reading ``_id``
    would decompress each judgment's stored text)."""
    return {"size": len(ids), **IDS_ONLY,
            "query": {"bool": {"must": [query], "filter": [{"terms": {"judgment_id": list(ids)}}]}}}


def words_body(request: SearchRequest, ids: Sequence[str]) -> Body:
    """Which of the judgments ``ids`` match any of the words, with the constraints (their ``judgment_id`` come
    back), and, by a named query per word the counting rule requires (:func:`required_words`), which of those
    words each has (``matched_queries``; :func:`missing_words` reads the rest)."""
    query = lexical_query(request, any_word=True)
    named = [body for _, body in required_words(request)]
    if named:
        query = {"bool": {"must": [query], "should": named}}
    return _among(query, ids)


def missing_words(request: SearchRequest, response: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Per judgment of a :func:`words_body` response, the required words (labels of :func:`required_words`) its
    text lacks, in the order typed; judgments lacking none are left out."""
    labels = [label for label, _ in required_words(request)]
    missing: dict[str, tuple[str, ...]] = {}
    for hit in response["hits"]["hits"]:
        matched = set(hit.get("matched_queries") or ())
        lacking = tuple(label for label in labels if label not in matched)
        if lacking:
            missing[hit["fields"]["judgment_id"][0]] = lacking
    return missing


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
    known for meaning-only judgments. ``missing`` holds, for the words matches lacking some of the words the
    counting rule requires, those words (:func:`missing_words`). ``below_floor`` counts meaning-only judgments
    dropped for being under the floor, ``excluded`` those that broke a constraint (only the fusion path's vector
    half can bring them). ``total`` counts by the counting rule; ``total_any`` counts judgments with any of the
    words (None where ``total`` already does: a pasted text, or no words)."""

    total: int
    floor: float
    kinds: Mapping[str, MatchKind] = field(default_factory=dict)
    similarity: Mapping[str, float] = field(default_factory=dict)
    below_floor: int = 0
    excluded: int = 0
    total_any: int | None = None
    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def keeps(self, judgment_id: str) -> bool:
        return judgment_id in self.kinds

    @classmethod
    def decide(cls, request: SearchRequest, ids: Iterable[str], *, total: int, floor: float,
               words: frozenset[str], allowed: frozenset[str] | None,
               similarity: Mapping[str, float], total_any: int | None = None,
               missing: Mapping[str, tuple[str, ...]] | None = None,
               named: Collection[str] = ()) -> Matching:
        """Sort ``ids`` into words matches (``words``: those with any of the words), citation matches (``named``:
        the judgments a citation typed alone names through the corpus's use of it), meaning matches at or above
        ``floor``, and the rest. ``similarity`` must hold a cosine for every allowed id outside ``words`` (missing
        counts as no match); ``missing`` (by judgment) is kept for the words matches."""
        kinds: dict[str, MatchKind] = {}
        kept_similarity: dict[str, float] = {}
        below = excluded = 0
        only_filters = request.query is None
        for doc in ids:
            if allowed is not None and doc not in allowed:
                excluded += 1
            elif doc in words:
                kinds[doc] = MatchKind.FILTERS if only_filters else MatchKind.WORDS
            elif doc in named:
                kinds[doc] = MatchKind.CITATION
            elif similarity.get(doc, float("-inf")) >= floor:
                kinds[doc] = MatchKind.MEANING
                kept_similarity[doc] = round(similarity[doc], 4)
            else:
                below += 1
        lacking = {doc: words for doc, words in (missing or {}).items() if kinds.get(doc) is MatchKind.WORDS}
        return cls(total, floor, kinds, kept_similarity, below, excluded, total_any, lacking)
