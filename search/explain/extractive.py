"""Extractive one-line explanations: why a judgment matched, from text that is in the hit.

The line names the role of the best passage, quotes the sentence of that passage that carries most of
the query's words, and adds the provisions and citations the query and the judgment share, and a legal
issue of the judgment that shares the query's words. Everything quoted is copied from the hit, so the
explanation can never claim what the judgment does not say. It costs no model call.

A filter-only search has no words to quote: :func:`explain_filters` says what the judgment has that the filters
asked for, from its stored fields ("Cites IPC s. 304B; Supreme Court of India; decided 12 March 2005").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import analyzers
from legal.citations import extract_citations
from legal.judges import judge_key
from legal.roles import role_label
from legal.sentences import split
from search.query.syntax import Filters

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
# The index's stopwords plus words every judgment has, which would make any sentence look relevant.
_STOP = frozenset(analyzers.stopwords()) | {"court", "appeal", "appellant", "respondent", "learned", "counsel",
                                             "has", "have", "been", "which", "who", "would", "shall", "under"}
MAX_QUOTE = 220


@dataclass(frozen=True)
class Explanation:
    """A one-line reason a hit matches, and the parts it was made from."""

    text: str
    role: str
    sentence: str
    shared_provisions: tuple[str, ...] = ()
    shared_citations: tuple[str, ...] = ()
    issue: str | None = None
    method: str = "extractive"
    note: str | None = None  # why an LLM explanation was asked for but not used
    evidence: tuple[str, ...] = ()  # the learned ranker's strongest evidence, in words (search.ranking.evidence)


def _stems(text: str) -> set[str]:
    """Lower-cased words without stopwords, cut to 6 letters: a cheap stand-in for the index's stemmer."""
    return {w.lower()[:6] for w in _WORD.findall(text) if w.lower() not in _STOP}


QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{3,})[\"\u201d]")  # a quotation of three or more characters
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def folded(text: str) -> str:
    """Lower case, punctuation and spacing as single spaces, padded: ``folded(q) in folded(source)`` tells
    whether a quotation is verbatim in a source, whatever its typography (used by every grounding check)."""
    return " " + _NOT_WORD.sub(" ", text.lower()).strip() + " "


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning, folded like :func:`best_sentence` compares them (lower case,
    stopwords out, cut to 6 letters)."""
    return _stems(text)


def best_sentence(query: str, passage: str) -> str:
    """The passage sentence sharing most query words (the first on a tie), whitespace-normalised."""
    wanted = _stems(query)
    sentences = split(passage) or []
    if not sentences:
        return " ".join(passage.split())
    scored = [(len(wanted & _stems(s.text)), -i, s.text) for i, s in enumerate(sentences)]
    return " ".join(max(scored)[2].split())


def _quote(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_QUOTE else sentence[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"


def explain(query: str, role: str, passage: str, *, statutes: Iterable[str] = (), cites: Iterable[str] = (),
            cited_provisions: Sequence[str] = (), cited_judgments: Sequence[str] = (),
            legal_issues: Sequence[str] = ()) -> Explanation:
    """Explain a hit from its best passage and its judgment's cited provisions, citations and issues."""
    sentence = best_sentence(query, passage)
    mentioned = {c.normalized for c in extract_citations(query)}
    provisions = tuple(p for p in cited_provisions if p in mentioned or p in set(statutes))
    citations = tuple(c for c in cited_judgments if c in mentioned or c in set(cites))
    wanted = _stems(query)
    issue = max(legal_issues, key=lambda i: len(wanted & _stems(i)), default=None)
    if issue is not None and len(wanted & _stems(issue)) < 2:
        issue = None
    parts = [f"{role_label(role)}: \u201c{_quote(sentence)}\u201d"]
    if provisions:
        parts.append("applies " + ", ".join(provisions))
    if citations:
        parts.append("cites " + ", ".join(citations))
    if issue:
        parts.append(f"issue: {_quote(' '.join(issue.split()))}")
    return Explanation("; ".join(parts), role, sentence, provisions, citations, issue)


def _day(day: dt.date) -> str:
    return f"{day.day} {day.strftime('%B')} {day.year}"


def explain_filters(filters: Filters, *, court: str | None = None, decision_date: dt.date | None = None,
                    judges: Sequence[str] = (), cited_provisions: Sequence[str] = (),
                    cited_judgments: Sequence[str] = ()) -> Explanation:
    """Why a judgment is a hit of a filter-only search, from its own fields: the provisions and judgments it cites
    that the filters name, its court, the judges the filters name, its decision date."""
    provisions = tuple(p for p in cited_provisions if p in set(filters.statutes))
    citations = tuple(c for c in cited_judgments if c in set(filters.cites))
    wanted = [" ".join(j.lower().split()) for j in filters.judges]
    keys = [k for j in filters.judges if (k := judge_key(j))]  # ``D.K. Jain`` names ``D. K. Jain`` (legal.judges)
    bench = tuple(j for j in judges if any(w in j.lower() for w in wanted) or judge_key(j) in keys)
    parts = [f"cites {', '.join(provisions + citations)}"] if provisions or citations else []
    parts += [court] if court else []
    parts += [f"bench: {', '.join(bench)}"] if bench else []
    parts += [f"decided {_day(decision_date)}"] if decision_date else []
    text = "; ".join(parts) if parts else "passes the filters"
    return Explanation(text[:1].upper() + text[1:], "none", "", provisions, citations)
