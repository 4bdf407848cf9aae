"""What the ranker knows about a query before it looks at any judgment: its terms, its legal entities, its age.

Long queries are the norm here: a lawyer pastes a fact pattern (AILA's average 500 words) or a whole judgment
or brief (FIRE IRLeD's query judgments average 8,151 words). Fed whole to BM25, most of their words are noise;
the AILA and IRLeD winners cut them to their most informative terms. :class:`QueryProfile` holds the query's
analysed terms with their corpus statistics (one ``_termvectors`` request on an artificial document: the
judgments' own index analyzer, so the terms are exactly the index's tokens), from which :meth:`reduced` picks
the ``k`` terms that set the query apart from the corpus, by KL divergence (``p(t|q) log p(t|q)/p(t|C)``) or by
tf-idf.

A document query also carries **citation contexts**: the words around each place it cites a judgment (a
citation found by the legal citation rules, or FIRE's ``[?CITATION?]`` mask). Each context says what the cited
judgment stands for; it is the strongest single clue to which precedent is meant. Provisions and judgments the
query cites, and the latest year it mentions (a precedent is older than the judgment citing it), are kept as
separate signals.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from legal.citations import Citation, extract_citations
from search.query.understand import QueryKind, Understanding, kind_rules, pasted, understand

__all__ = ["CITATION_MASK", "QueryProfile", "TermStat", "citation_contexts", "latest_year", "profile",
           "term_statistics"]

CITATION_MASK = "[?CITATION?]"  # FIRE IRLeD's mask for a removed citation
TEXT_FIELD = "text"
_YEAR = re.compile(r"(?<!\d)(?<!\d,)(1[89]\d\d|20[0-4]\d)(?!\d|,\d)")
_WORDS_BEFORE, _WORDS_AFTER = 60, 20
_MIN_CONTEXT_WORDS = 8
_BRACKETS = re.compile(r"[\[\]{}();]")
MAX_CONTEXTS = 40  # a judgment citing a hundred cases: the first forty distinct contexts carry the signal


@dataclass(frozen=True, slots=True)
class TermStat:
    """One analysed query term: its frequency in the query, and its document and total frequency in the corpus."""

    term: str
    tf: int
    df: int
    ttf: int


@dataclass(frozen=True)
class Corpus:
    """Field statistics of the judgments' text: how many judgments, how many tokens in all."""

    doc_count: int
    sum_ttf: int


@dataclass(frozen=True)
class QueryProfile:
    """A query's terms with corpus statistics, and the legal entities found in it."""

    text: str
    terms: tuple[TermStat, ...]
    corpus: Corpus
    contexts: tuple[str, ...] = ()
    provisions: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    year: int | None = None
    context_terms: tuple[tuple[tuple[str, float], ...], ...] = field(default=(), repr=False)
    understanding: Understanding | None = None  # what the text is (search.query.understand): a name, a citation, ...

    @property
    def typed(self) -> bool:
        """A query typed into the search box (not a pasted text or a whole document): the title, the judgment's
        own citations and every-word evidence are read for it."""
        return self.understanding is not None and self.understanding.kind is not QueryKind.PASTED

    @property
    def length(self) -> int:
        """Tokens in the analysed query (stopwords are not tokens)."""
        return sum(t.tf for t in self.terms)

    def reduced(self, k: int, method: str = "kl") -> tuple[tuple[str, float], ...]:
        """The ``k`` most informative terms with their weights, best first."""
        return select_terms(self.terms, self.corpus, k, method)


def select_terms(terms: Sequence[TermStat], corpus: Corpus, k: int,
                 method: str = "kl") -> tuple[tuple[str, float], ...]:
    """Terms ranked by KL divergence from the corpus language model (``kl``) or by tf-idf (``idf``); terms the
    corpus does not hold carry no evidence and are left out, as are terms rarer in the query than in the corpus."""
    length = sum(t.tf for t in terms) or 1
    n, total = max(corpus.doc_count, 1), max(corpus.sum_ttf, 1)
    scored: list[tuple[float, str]] = []
    for t in terms:
        if t.df <= 0:
            continue
        if method == "kl":
            p_query, p_corpus = t.tf / length, (t.ttf + 1) / (total + 1)
            weight = p_query * math.log(p_query / p_corpus)
        elif method == "idf":
            weight = t.tf * math.log(1 + (n - t.df + 0.5) / (t.df + 0.5))
        else:
            raise ValueError(f"term selection is 'kl' or 'idf', not {method!r}")
        if weight > 0:
            scored.append((weight, t.term))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return tuple((term, weight) for weight, term in scored[:k])


def _terms(vectors: dict[str, Any]) -> tuple[tuple[TermStat, ...], Corpus]:
    found = vectors.get("term_vectors", {}).get(TEXT_FIELD, {})
    stats = found.get("field_statistics", {})
    terms = tuple(TermStat(term, int(v.get("term_freq", 0)), int(v.get("doc_freq", 0)), int(v.get("ttf", 0)))
                  for term, v in sorted(found.get("terms", {}).items()))
    return terms, Corpus(int(stats.get("doc_count", 0)), int(stats.get("sum_ttf", 0)))


def _artificial(text: str) -> dict[str, Any]:
    return {"doc": {TEXT_FIELD: text}, "fields": [TEXT_FIELD], "term_statistics": True, "field_statistics": True,
            "positions": False, "offsets": False}


def term_statistics(client: OpenSearch, judgments: str,
                    texts: Sequence[str]) -> list[tuple[tuple[TermStat, ...], Corpus]]:
    """Analysed terms and corpus statistics for each text, in one ``_mtermvectors`` request."""
    if not texts:
        return []
    response = client.mtermvectors(index=judgments, body={"docs": [_artificial(t) for t in texts]})
    return [_terms(doc) for doc in response["docs"]]


def latest_year(text: str) -> int | None:
    """The latest plausible year the text mentions (1800-2049), or None."""
    years = [int(m.group(1)) for m in _YEAR.finditer(text)]
    return max(years) if years else None


def _spans(text: str, citations: Sequence[Citation]) -> list[tuple[int, int]]:
    spans = [(c.start, c.end) for c in citations if c.kind in ("judgment", "case_name")]
    start = text.find(CITATION_MASK)
    while start >= 0:
        spans.append((start, start + len(CITATION_MASK)))
        start = text.find(CITATION_MASK, start + 1)
    return sorted(spans)


def _words(text: str) -> list[str]:
    """The words of ``text`` with brackets dropped; tokens with no letter or digit are not words."""
    return [w for w in (_BRACKETS.sub("", w) for w in text.split()) if any(ch.isalnum() for ch in w)]


def _groups(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Citations next to each other (``[Vide A, B and C]``) as one span: fewer than four words between them."""
    groups: list[tuple[int, int]] = []
    for start, end in spans:
        if groups and len(text[groups[-1][1]:start].split()) < 4:
            groups[-1] = (groups[-1][0], max(end, groups[-1][1]))
        else:
            groups.append((start, end))
    return groups


def citation_contexts(text: str, citations: Sequence[Citation] = (), before: int = _WORDS_BEFORE,
                      after: int = _WORDS_AFTER) -> tuple[str, ...]:
    """The words around each place the text cites judgments (``before`` words before, ``after`` after), every
    citation and mask removed; citations next to each other share one context. Distinct contexts in text order,
    at most :data:`MAX_CONTEXTS`."""
    spans = _spans(text, citations)
    if not spans:
        return ()
    blank = list(text)
    for start, end in spans:
        blank[start:end] = " " * (end - start)
    cleaned = "".join(blank)
    contexts: list[str] = []
    for start, end in _groups(text, spans):
        left = _words(cleaned[max(0, start - before * 12):start])[-before:]
        words = left + _words(cleaned[end:end + after * 12])[:after]
        if len(words) >= _MIN_CONTEXT_WORDS:
            contexts.append(" ".join(words))
    return tuple(dict.fromkeys(contexts))[:MAX_CONTEXTS]


def profile(client: OpenSearch, judgments: str, text: str, *, context_terms: int = 30,
            understanding: Understanding | None = None) -> QueryProfile:
    """The query's profile against the corpus behind ``judgments``: two requests at most (terms of the query and
    of its citation contexts together, and nothing else). ``understanding`` is what the search box made of the
    typed text (read from ``text`` when not given)."""
    citations = extract_citations(text, kinds={"judgment", "case_name", "provision"})
    contexts = citation_contexts(text, citations)
    stats = term_statistics(client, judgments, [text, *contexts])
    terms, corpus = stats[0]
    reduced = tuple(select_terms(t, c, context_terms, "idf") for t, c in stats[1:])
    provisions = tuple(dict.fromkeys(c.normalized for c in citations if c.kind == "provision"))
    cited = tuple(dict.fromkeys(c.normalized for c in citations if c.kind != "provision"))
    if understanding is None:  # a long text given to the ranker is a fact pattern or a document, operators or not
        words = len(text.split())
        understanding = understand(text) if words <= kind_rules().pasted_words else pasted(text)
    return QueryProfile(text, terms, corpus, contexts, provisions, cited, latest_year(text), reduced, understanding)
