"""A brief (or a whole judgment) as the query: the document path's ranking shown as search hits, each saying
which parts of the brief it matched.

The ranking is the one :func:`search.document_query.document_ranking` gives (what ``Client.search_by_document``
returns): the learned ranker reading the whole brief, its filters applied to every candidate source, the
brief's own judgment excluded when it is in the corpus. A page of it is shown like a search's: each judgment with
its best passages for the brief's most distinctive terms, highlighted (:mod:`search.ranking.serve`).

What each hit matched is read off what the ranking computed, never guessed (:func:`matched_parts`):

* **provisions** the brief cites and the judgment cites too (the ranker's ``prov_shared`` feature);
* **precedents** the brief cites and the judgment cites too (``cites_shared``), and whether the brief cites the
  judgment itself (``cited_by_query``);
* **citation contexts**: the passages around the brief's citations whose terms rank the judgment in their top
  ten (the ``ctx_*`` features' source);
* **facts** and **issues**: the judgment's passages of those roles that the brief's terms matched, with the
  brief's sentences that hold the highlighted words; other roles' passages likewise as **passages**.

Each part carries the model's contribution of the features behind it (positive: it raised the judgment), when
the ranker explained it.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from legal.sentences import split
from search.document_query import document_ranked, rank_by_document
from search.hits import JudgmentHit, Passage
from search.page import fetch_page
from search.query.request import SearchRequest
from search.query.syntax import as_plain_text
from search.ranking.evidence import evidence as ranker_evidence
from search.ranking.query import QueryProfile
from search.retrieval.builders import constraints
from search.retrieval.records import MatchKind

if TYPE_CHECKING:
    from search.execute import Searcher
    from search.ranking.rank import RankedJudgment

__all__ = ["BriefHit", "BriefProfile", "BriefResult", "MatchedPart", "brief_request", "matched_parts",
           "search_brief"]

MAX_ITEMS = 5  # items shown per part: the brief's provisions, contexts or sentences
CONTEXT_TOP = 10  # a context "found" a judgment that ranks in its top ten (what ctx_top10 counts)
_MARK = re.compile(r"<mark>(.*?)</mark>", re.DOTALL)
_WORD = re.compile(r"\w+")
# feature -> the part of the brief it measures (contributions add up per part)
_PART_FEATURES = {
    "provisions": ("prov_shared", "prov_shared_idf"),
    "precedents": ("cites_shared",),
    "cited_by_brief": ("cited_by_query",),
    "contexts": ("ctx_max", "ctx_mean", "ctx_top10", "ctx_best_rank"),
    "facts": ("role_facts_norm", "sim_facts"),
    "issues": ("role_facts_norm",),
    "passages": ("role_any_norm", "role_arguments_norm", "role_statute_norm", "role_precedent_norm",
                 "role_reasoning_norm", "role_rulings_norm", "sim_reasoning"),
}
_LABELS = {
    "provisions": "provisions the brief cites, cited here too",
    "precedents": "judgments the brief cites, cited here too",
    "cited_by_brief": "the brief cites this judgment",
    "contexts": "what the brief cites precedents for",
    "facts": "the brief's sentences matching this judgment's facts",
    "issues": "the brief's sentences matching the issues this judgment frames",
    "passages": "the brief's sentences matching this judgment's passages",
}


@dataclass(frozen=True)
class MatchedPart:
    """One part of the brief that a hit matched: what kind, in words, the brief's own items (provisions,
    citation contexts or sentences), the words they share with the hit's passage, and the model's contribution
    of the features behind it (None when the ranker did not explain this hit)."""

    kind: str
    label: str
    items: tuple[str, ...]
    words: tuple[str, ...] = ()
    contribution: float | None = None


@dataclass(frozen=True)
class BriefHit(JudgmentHit):
    """A search hit for a brief: the judgment with its passages, and the parts of the brief it matched."""

    matched: tuple[MatchedPart, ...] = ()
    evidence: tuple[str, ...] = ()  # the ranker's strongest evidence in words (search.ranking.evidence)


@dataclass(frozen=True)
class BriefProfile:
    """What was read from the brief: its length, the provisions and judgments it cites, how many citation
    contexts it has, and its most distinctive terms (analysed, as the index holds them)."""

    words: int
    provisions: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    contexts: int = 0
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class BriefResult:
    hits: tuple[BriefHit, ...]
    judgments_found: int
    ranking: str
    brief: BriefProfile
    took_ms: float = 0.0
    ranking_note: str | None = None
    excluded: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def brief_request(text: str, *, courts: Sequence[str] = (), date_from: str | None = None,
                  date_to: str | None = None, size: int = 10) -> SearchRequest:
    """The search request a brief amounts to: the brief as the search box reads it, as plain words (its parsed
    query, for choosing and highlighting passages, holds what one engine query may), with the filters every hit
    must satisfy. Raises ``QueryError`` for bad filters."""
    return SearchRequest.from_query(text, courts=courts, date_from=date_from, date_to=date_to, size=size,
                                    classify=False, facets=False, plain=True)


def _marked_words(highlights: Sequence[str]) -> tuple[str, ...]:
    """The distinct words OpenSearch highlighted in a passage (lower case, in order), numbers left out."""
    words = [html.unescape(w).lower() for fragment in highlights for m in _MARK.finditer(fragment)
             for w in _WORD.findall(html.unescape(m.group(1)))]
    # numbers and two-letter tokens (dates, "rs") match everywhere: they would pick the brief's sentences by chance
    return tuple(dict.fromkeys(w for w in words if len(w) > 2 and not w.isdigit()))


def _brief_sentences(text: str) -> list[tuple[str, frozenset[str]]]:
    return [(" ".join(s.text.split()), frozenset(w.lower() for w in _WORD.findall(s.text))) for s in split(text)]


def _matching_sentences(sentences: Sequence[tuple[str, frozenset[str]]],
                        words: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The brief's sentences holding the most of ``words`` (at least two, or the only one), best first, and the
    words those sentences hold."""
    wanted = set(words)
    need = 1 if len(wanted) == 1 else 2
    scored = sorted(((len(wanted & found), i) for i, (_, found) in enumerate(sentences)), key=lambda x: (-x[0], x[1]))
    chosen = [i for count, i in scored if count >= need][:MAX_ITEMS]
    shown = tuple(_cut(sentences[i][0]) for i in sorted(chosen))
    held = {w.lower() for item in shown for w in _WORD.findall(item)}  # what the shown (cut) sentences hold
    return shown, tuple(w for w in words if w in held)


def _cut(text: str, words: int = 40) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _contribution(kind: str, judged: RankedJudgment | None) -> float | None:
    if judged is None or not judged.contributions:
        return None
    return round(sum(judged.contributions.get(name, 0.0) for name in _PART_FEATURES[kind]), 4)


def _positive(judged: RankedJudgment | None, *names: str) -> bool:
    if judged is None:
        return True
    values = [judged.features.get(name) for name in names]
    return any(v is not None and not math.isnan(v) and v > 0 for v in values)


def matched_parts(profile: QueryProfile | None, judged: RankedJudgment | None, passages: Sequence[Passage],
                  sentences: Sequence[tuple[str, frozenset[str]]],
                  contexts: Sequence[Mapping[str, float]] = ()) -> tuple[MatchedPart, ...]:
    """The parts of the brief that one hit matched (see the module docstring): from the ranker's profile of the
    brief and the hit's features and stored citations (``judged``), the hit's highlighted passages and the
    brief's sentences; ``contexts`` is each citation context's candidate scores, in the profile's order."""
    parts: list[MatchedPart] = []
    meta = judged.meta if judged is not None else {}
    if profile is not None:
        shared = [p for p in profile.provisions if p in set(meta.get("cited_provisions") or ())]
        if shared:
            parts.append(MatchedPart("provisions", _LABELS["provisions"], tuple(shared[:MAX_ITEMS]),
                                     contribution=_contribution("provisions", judged)))
        cited = [c for c in profile.cited if c in set(meta.get("cited_judgments") or ())]
        if cited:
            parts.append(MatchedPart("precedents", _LABELS["precedents"], tuple(cited[:MAX_ITEMS]),
                                     contribution=_contribution("precedents", judged)))
        cites_it = [c for c in profile.cited if c in set(meta.get("citations") or ())]
        if cites_it:
            parts.append(MatchedPart("cited_by_brief", _LABELS["cited_by_brief"], tuple(cites_it[:MAX_ITEMS]),
                                     contribution=_contribution("cited_by_brief", judged)))
        if judged is not None and contexts:
            found = [_cut(text, 40) for text, scores in zip(profile.contexts, contexts, strict=False)
                     if judged.judgment_id in list(scores)[:CONTEXT_TOP]]
            if found:
                parts.append(MatchedPart("contexts", _LABELS["contexts"], tuple(found[:MAX_ITEMS]),
                                         contribution=_contribution("contexts", judged)))
    by_kind: dict[str, list[str]] = {}
    for passage in passages:
        words = _marked_words(passage.highlights)
        if not words:
            continue
        kind = "issues" if passage.role == "issue" else "facts" if passage.role == "facts" else "passages"
        by_kind.setdefault(kind, []).extend(w for w in words if w not in by_kind.get(kind, ()))
    for kind in ("facts", "issues", "passages"):
        words = by_kind.get(kind)
        if not words or (kind in ("facts", "issues") and not _positive(judged, "role_facts_norm", "sim_facts")):
            continue
        shown, held = _matching_sentences(sentences, words)
        if shown:
            parts.append(MatchedPart(kind, _LABELS[kind], shown, held, _contribution(kind, judged)))
    return tuple(parts)


def search_brief(searcher: Searcher, text: str, *, size: int = 10, courts: Sequence[str] = (),
                 date_from: str | None = None, date_to: str | None = None,
                 exclude: str | None = None) -> BriefResult:
    """Precedents for a brief, best first, as hits with their passages and the parts of the brief they matched.

    The order is :func:`search.document_query.document_ranking`'s with the same filters and exclusion (so
    ``Client.search_by_document`` returns the same judgments); ``size`` judgments are shown."""
    started = time.perf_counter()
    request = brief_request(text, courts=courts, date_from=date_from, date_to=date_to, size=size)
    filters = constraints(request)
    ranked = document_ranked(searcher, text, filters=filters, exclude=exclude, explain=size)
    note = None
    if ranked is None:
        note = searcher.ranker_note or "no learned ranker: whole-text BM25 of the brief"
        order = rank_by_document(searcher.client, searcher.aliases["judgments"], text, exclude=exclude,
                                 filters=filters)
        page_ids, total, judged_by_id = [doc for doc, _ in order[:size]], len(order), {}
        scores = dict(order)
        profile, vector, contexts = None, searcher.vector(request), ()
    else:
        judged_by_id = {j.judgment_id: j for j in ranked.judgments[:size]}
        page_ids, total = list(judged_by_id), len(ranked.judgments)
        scores = {j.judgment_id: j.score for j in ranked.judgments[:size]}
        profile, vector = ranked.profile, ranked.vector
        contexts = ranked.sources.contexts if ranked.sources is not None else ()
    records = fetch_page(searcher.client, searcher.aliases, request, page_ids, vector, profile)
    sentences = _brief_sentences(text)
    cited_by = searcher.cited_by_counts() if page_ids else {}
    hits = []
    for doc in page_ids:
        judgment = records.judgment(doc)
        shown = records.passages(doc)
        judged = judged_by_id.get(doc)
        evidence: tuple[str, ...] = ()
        if judged is not None and profile is not None:
            evidence = ranker_evidence(judged.contributions, judged.features, judged.meta, profile).phrases
        by_words = records.by_words(doc)
        hits.append(BriefHit(judgment_id=doc, score=scores[doc], title=judgment.title, court=judgment.court,
                             decision_date=judgment.decision_date, judges=judgment.judges, passages=shown,
                             match=MatchKind.WORDS if by_words or not shown else MatchKind.MEANING,
                             matched=matched_parts(profile, judged, shown, sentences, contexts), evidence=evidence,
                             cited_by=cited_by.get(doc, 0)))
    brief = BriefProfile(len(as_plain_text(text).split()))
    if profile is not None:
        brief = dataclasses.replace(brief, provisions=profile.provisions, cited=profile.cited,
                                    contexts=len(profile.contexts),
                                    terms=tuple(term for term, _ in profile.reduced(12, "idf")))
    return BriefResult(tuple(hits), total, f"ranker:{ranked.model}" if ranked is not None else "bm25:whole-text",
                       brief, round((time.perf_counter() - started) * 1000, 1), note, exclude)
