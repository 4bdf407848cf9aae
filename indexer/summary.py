"""Extractive structured summary of a judgment: the ``summary`` object of the ``judgments`` index.

Why extractive: every field is the judgment's own words (or a trimmed piece of one sentence), so it can be
checked against the text, and ``provenance`` names the sentences it came from. A later LLM step may rewrite
fields; it should then change their provenance method.

How each field is chosen (deterministic: no randomness, ties go to the earlier sentence):

* **facts**, **reasoning**, **legal_principles**: the candidate sentences are those with the field's roles
  (``facts``; ``analysis``, or ``ratio`` when there is no analysis; ``ratio``). Each candidate is scored
  ``0.6 * similarity + 0.25 * position + 0.15 * cue``: ``similarity`` is the cosine between the sentence's
  TF-IDF vector and the centroid of all candidates (IDF over the judgment's own sentences, so no corpus model
  is needed); ``position`` favours the start of the facts (where the story is introduced) and the end of the
  reasoning (where the court concludes); ``cue`` is 1 when a principle cue (``summary_cues.json``) matches.
  The best sentences are kept, up to ``max_sentences`` and ``max_chars``, and joined in document order. With
  no ``ratio`` sentence (Law-AI labels fold the ratio into analysis), legal_principles takes reasoning-role
  sentences that carry a principle cue, preferring ones not already in reasoning.
* **legal_issues**: ``issue`` sentences (fragments under 25 characters dropped while longer ones exist);
  failing those, sentences of the parties' and the court's own roles that frame a question (cue list
  ``issue_frames``); either way trimmed to start at ``whether`` where they contain it.
* **topics**: the provisions the judgment cites (most cited first), then recurring key phrases: runs of
  content words (1-3 words, no stop words, not mostly capitalised, since those are names) scored by
  frequency times length, with phrases inside a better one dropped.
* **cited_principles**: in precedent-role sentences, the text after a "held that"-style cue (or the next
  precedent sentence when the cue ends the sentence, as in "held as follows:"), with case names and reporter
  citations cut out. The cited judgment (the nearest citation at or before the sentence) goes to provenance
  as a short attribution, and each cited judgment contributes its first principle only.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from indexer.citations import citations_in
from indexer.document import Judgment, Summary
from legal.citations import Citation, extract_citations
from legal.roles import load_role_set
from legal.sentences import Sentence

__all__ = ["DEFAULT_CUES_PATH", "SummaryCues", "load_summary_cues", "summarise", "summary_document"]

DEFAULT_CUES_PATH = Path(__file__).with_name("summary_cues.json")
METHOD = "extractive"
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
_PHRASE_BREAK = re.compile(r"[^A-Za-z'’\- ]+")
_SPACES = re.compile(r"\s+")
_LEFTOVER = re.compile(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]|\s+([,.;:])")
_MIN_SENTENCE_CHARS = 25  # shorter candidates are headings and fragments ("Held", "Appeal allowed")
_MIN_PRINCIPLE_CHARS = 30
_MAX_ITEM_CHARS = 400


@dataclass(frozen=True, slots=True)
class SummaryCues:
    """The summariser's cue phrases, compiled; see ``summary_cues.json`` for what each list means."""

    issue_frames: tuple[re.Pattern[str], ...]
    issue_start: tuple[re.Pattern[str], ...]
    held: tuple[re.Pattern[str], ...]
    principle: tuple[re.Pattern[str], ...]
    topic_stopwords: frozenset[str]


def load_summary_cues(path: str | Path | None = None) -> SummaryCues:
    """Read a cue file; the packaged one (read once, on first use) when ``path`` is None."""
    return _default_cues() if path is None else _parse_cues(Path(path))


def _parse_cues(path: Path) -> SummaryCues:
    data = json.loads(path.read_text(encoding="utf-8"))

    def compiled(name: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(pattern, re.IGNORECASE) for pattern in data[name])

    return SummaryCues(
        issue_frames=compiled("issue_frames"),
        issue_start=compiled("issue_start"),
        held=compiled("held"),
        principle=compiled("principle"),
        topic_stopwords=frozenset(word.lower() for word in (*data["topic_stopwords"], *data["english_stopwords"])),
    )


@cache
def _default_cues() -> SummaryCues:
    return _parse_cues(DEFAULT_CUES_PATH)


def _any(patterns: Sequence[re.Pattern[str]], text: str) -> bool:
    """Whether any of ``patterns`` is found in ``text``: one search of their alternation (the same answer as one
    search each, since a match of the alternation is a match of one of them), a fifth of the calls."""
    return _alternation(tuple(patterns)).search(text) is not None


@cache
def _alternation(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """The patterns as one (all are compiled by :func:`_parse_cues` with the same flag, in non-capturing groups)."""
    return re.compile("|".join(f"(?:{pattern.pattern})" for pattern in patterns), re.IGNORECASE)


def _tfidf(sentences: Sequence[Sentence], stopwords: frozenset[str]) -> list[dict[str, float]]:
    """L2-normalised TF-IDF vectors, one per sentence, with IDF over the judgment's own sentences."""
    counts = [Counter(w for w in (m.lower() for m in _WORD.findall(s.text)) if w not in stopwords) for s in sentences]
    df = Counter(word for count in counts for word in count)
    total = len(sentences)
    vectors = []
    for count in counts:
        vector = {word: tf * (math.log((1 + total) / (1 + df[word])) + 1) for word, tf in count.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        vectors.append({word: v / norm for word, v in vector.items()})
    return vectors


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;: ") + " …"


def _select(
    candidates: Sequence[int],
    sentences: Sequence[Sentence],
    vectors: Sequence[Mapping[str, float]],
    *,
    position: str,
    cues: Sequence[re.Pattern[str]],
    max_sentences: int,
    max_chars: int,
) -> list[int]:
    """The best candidates (positions into ``sentences``) within the budgets, in document order."""
    usable = [p for p in candidates if len(sentences[p].text) >= _MIN_SENTENCE_CHARS] or list(candidates)
    if not usable or max_sentences < 1:
        return []
    centroid: Counter[str] = Counter()
    for p in usable:
        centroid.update(vectors[p])
    norm = math.sqrt(sum(v * v for v in centroid.values())) or 1.0
    last = max(len(usable) - 1, 1)

    def score(rank: int, p: int) -> float:
        similarity = sum(weight * centroid[word] for word, weight in vectors[p].items()) / norm
        prior = {"early": 1 - rank / last, "late": rank / last}.get(position, 0.5)
        return 0.6 * similarity + 0.25 * prior + 0.15 * _any(cues, sentences[p].text)

    ranked = sorted(enumerate(usable), key=lambda item: (-score(*item), item[1]))
    chosen: list[int] = []
    used = 0
    for _rank, p in ranked:
        size = len(sentences[p].text) + (1 if chosen else 0)
        if used + size <= max_chars:
            chosen.append(p)
            used += size
            if len(chosen) == max_sentences:
                break
    return sorted(chosen) or [ranked[0][1]]


def _joined(positions: Sequence[int], sentences: Sequence[Sentence], max_chars: int) -> str:
    return _trim(" ".join(sentences[p].text for p in positions), max_chars)


def _legal_issues(
    sentences: Sequence[Sentence], roles: Sequence[str], cues: SummaryCues, limit: int
) -> tuple[list[str], list[int], str]:
    positions = [p for p, role in enumerate(roles) if role == "issue"]
    selection = "role"
    if not positions:
        selection = "cue"
        framing = frozenset(load_role_set().named_set("issue_framing"))
        positions = [
            p for p, role in enumerate(roles) if role in framing and _any(cues.issue_frames, sentences[p].text)
        ]
    positions = [p for p in positions if len(sentences[p].text) >= _MIN_SENTENCE_CHARS] or positions
    issues: list[str] = []
    kept: list[int] = []
    for p in positions:
        text = sentences[p].text
        starts = [m.start() for pattern in cues.issue_start if (m := pattern.search(text))]
        if starts:  # "The only question is whether X" -> "Whether X"
            text = text[min(starts) :]
        text = _trim(text[:1].upper() + text[1:], _MAX_ITEM_CHARS)
        if text.lower() not in {issue.lower() for issue in issues}:
            issues.append(text)
            kept.append(p)
        if len(issues) == limit:
            break
    return issues, kept, selection


def _strip_citations(text: str) -> str:
    found = extract_citations(text, kinds={"judgment", "case_name"})
    for citation in sorted(found, key=lambda c: c.start, reverse=True):
        text = text[: citation.start] + " " + text[citation.end :]
    text = _LEFTOVER.sub(lambda m: m.group(1) or "", _SPACES.sub(" ", text))
    text = text.strip(" ,;:-–—\"'“”‘’")
    return text[:1].upper() + text[1:]


def _cited_principles(
    sentences: Sequence[Sentence], roles: Sequence[str], citations: Sequence[Citation], cues: SummaryCues, limit: int
) -> tuple[list[str], list[list[int]], list[str | None]]:
    precedent = frozenset(load_role_set().group("precedent"))
    principles: list[str] = []
    sources: list[list[int]] = []
    cited: list[str | None] = []
    seen: set[str] = set()
    latest: str | None = None
    ordered = sorted(citations, key=lambda c: c.start)
    cursor = 0
    for p, sentence in enumerate(sentences):
        if roles[p] not in precedent:
            latest = None  # a new run of precedent sentences discusses a new judgment
            continue
        match = next((m for pattern in cues.held for m in [pattern.search(sentence.text)] if m), None)
        before = match.start() if match else len(sentence.text)
        while cursor < len(ordered) and ordered[cursor].start < sentence.start + before:
            if ordered[cursor].start >= sentences[max(p - 5, 0)].start:  # near enough to be what is discussed
                latest = ordered[cursor].normalized
            cursor += 1
        if match is None:
            continue
        principle, used = _strip_citations(sentence.text[match.end() :]), [p]
        if len(principle) < _MIN_PRINCIPLE_CHARS and p + 1 < len(sentences) and roles[p + 1] in precedent:
            principle, used = _strip_citations(sentences[p + 1].text), [p, p + 1]
        key = latest or principle.lower()
        if len(principle) < _MIN_PRINCIPLE_CHARS or key in seen:
            continue
        seen.add(key)
        principles.append(_trim(principle, _MAX_ITEM_CHARS))
        sources.append([sentences[q].index for q in used])
        cited.append(latest)
        if len(principles) == limit:
            break
    return principles, sources, cited


def _phrases(text: str, stopwords: frozenset[str]) -> list[tuple[str, bool]]:
    """Runs of 1-3 content words in ``text``, each with whether all its words were capitalised: in each run its
    single words, then its pairs, then its triples. A word is lowered and tested once, whatever the number of
    phrases it is in (a third of the summary's time went here); a piece holds only ASCII letters, apostrophes,
    hyphens and spaces (``_PHRASE_BREAK``), so a phrase's lowered words joined are the joined phrase lowered."""
    found: list[tuple[str, bool]] = []
    for piece in _PHRASE_BREAK.split(text):
        low: list[str] = []
        caps: list[bool] = []
        for word in [*piece.split(), ""]:
            clean = word.strip("'’-")
            lowered = clean.lower()
            if len(clean) > 2 and lowered not in stopwords:
                low.append(lowered)
                caps.append(clean[0].isupper())
                continue
            if low:  # pairs and triples only from runs long enough: an empty zip costs as much as a short one
                found.extend(zip(low, caps, strict=True))
                if len(low) > 1:
                    found.extend((f"{a} {b}", ca and cb)
                                 for a, b, ca, cb in zip(low, low[1:], caps, caps[1:], strict=False))
                    if len(low) > 2:
                        found.extend((f"{a} {b} {c}", ca and cb and cc) for a, b, c, ca, cb, cc
                                     in zip(low, low[1:], low[2:], caps, caps[1:], caps[2:], strict=False))
                low, caps = [], []
    return found


def _topics(
    sentences: Sequence[Sentence],
    roles: Sequence[str],
    provisions: Sequence[str],
    citations: Sequence[Citation],
    cues: SummaryCues,
    limit: int,
) -> tuple[list[str], list[list[int]]]:
    topics = list(dict.fromkeys(provisions))[: max(limit // 2, 1)] if limit else []
    sources = [_first_sentence(sentences, [c.start for c in citations if c.normalized == t]) for t in topics]
    counts: Counter[str] = Counter()
    capitalised: Counter[str] = Counter()
    found: list[tuple[int, list[str]]] = []
    for p, sentence in enumerate(sentences):
        if roles[p] in {"preamble", "none"}:
            continue
        phrases = _phrases(sentence.text, cues.topic_stopwords)
        names = [phrase for phrase, _caps in phrases]
        counts.update(names)  # counted in C, as is each phrase's first sentence below
        capitalised.update([phrase for phrase, caps in phrases if caps])
        found.append((sentence.index, names))
    first: dict[str, int] = {}
    for index, names in reversed(found):  # an earlier sentence overwrites a later one's index
        first.update(dict.fromkeys(names, index))
    ranked = sorted(
        (phrase for phrase, n in counts.items() if n >= 2 and capitalised[phrase] * 2 <= n),
        key=lambda phrase: (-counts[phrase] * len(phrase.split()), first[phrase], phrase),
    )
    for phrase in ranked:
        if len(topics) >= limit:
            break
        if any(phrase in topic or topic in phrase for topic in topics):
            continue
        topics.append(phrase)
        sources.append([first[phrase]])
    return topics, sources


def _first_sentence(sentences: Sequence[Sentence], offsets: Sequence[int]) -> list[int]:
    """The index of the sentence holding the first of ``offsets``, as a one-item list (empty when none)."""
    for offset in sorted(offsets):
        for sentence in sentences:
            if sentence.start <= offset < sentence.end:
                return [sentence.index]
    return []


def summarise(
    judgment: Judgment,
    sentences: Sequence[Sentence],
    roles: Sequence[str],
    *,
    max_sentences: int = 5,
    max_chars: int = 1500,
    max_items: int = 6,
    max_topics: int = 10,
    cues: SummaryCues | None = None,
) -> Summary:
    """Build the extractive summary of ``judgment`` from its sentences and their canonical roles.

    ``max_sentences`` and ``max_chars`` bound each prose field (facts, reasoning, legal_principles);
    ``max_items`` bounds legal_issues and cited_principles, ``max_topics`` the topics. Provision topics come
    from ``judgment.cited_provisions`` when :func:`indexer.citations.enrich` has filled it, else from the
    judgment's citations (:func:`indexer.citations.citations_in`: the loader's scan, or one scan now).
    """
    if len(sentences) != len(roles):
        raise ValueError(f"got {len(sentences)} sentences but {len(roles)} roles; give one role per sentence")
    known = load_role_set().names
    unknown = sorted({role for role in roles if role not in known})
    if unknown:
        raise ValueError(f"unknown roles {unknown}; known roles: {', '.join(known)}")
    if not sentences:
        return Summary()
    cues = cues or load_summary_cues()
    vectors = _tfidf(sentences, cues.topic_stopwords)
    index = [s.index for s in sentences]

    def pick(wanted: set[str], position: str, exclude: Sequence[int] = ()) -> list[int]:
        candidates = [p for p, role in enumerate(roles) if role in wanted and p not in exclude]
        return _select(
            candidates, sentences, vectors, position=position, cues=cues.principle,
            max_sentences=max_sentences, max_chars=max_chars,
        )  # fmt: skip

    provenance: dict[str, dict[str, object]] = {}

    def note(field: str, positions: Sequence[int], selection: str, **extra: object) -> None:
        provenance[field] = {"method": METHOD, "selection": selection, "sentences": [index[p] for p in positions]}
        provenance[field].update(extra)

    facts = pick({"facts"}, "early")
    note("facts", facts, "role")
    reasoning_roles = {"analysis"} if "analysis" in roles else {"ratio"}
    reasoning = pick(reasoning_roles, "late")
    note("reasoning", reasoning, "role")
    principles, selection = pick({"ratio"}, "none"), "role"
    if not principles:
        cued = [p for p, r in enumerate(roles) if r == "analysis" and _any(cues.principle, sentences[p].text)]
        fresh = [p for p in cued if p not in reasoning] or cued
        principles = _select(
            fresh, sentences, vectors, position="late", cues=cues.principle,
            max_sentences=max_sentences, max_chars=max_chars,
        )  # fmt: skip
        selection = "cue"
    note("legal_principles", principles, selection)
    issues, issue_positions, issue_selection = _legal_issues(sentences, roles, cues, max_items)
    note("legal_issues", issue_positions, issue_selection, items=[[index[p]] for p in issue_positions])
    citations = citations_in(judgment)
    cases = [c for c in citations if c.kind != "provision"]
    cited, cited_sources, attributions = _cited_principles(sentences, roles, cases, cues, max_items)
    note(
        "cited_principles", sorted({i for s in cited_sources for i in s}), "cue", items=cited_sources,
        cited=attributions,
    )  # fmt: skip
    provisions = judgment.cited_provisions or _ranked_provisions(citations)
    topics, topic_sources = _topics(sentences, roles, provisions, citations, cues, max_topics)
    note("topics", [], "citations+phrases", items=topic_sources)
    provenance["topics"]["sentences"] = sorted({i for s in topic_sources for i in s})
    return Summary(
        facts=_joined(facts, sentences, max_chars),
        legal_issues=tuple(issues),
        reasoning=_joined(reasoning, sentences, max_chars),
        legal_principles=_joined(principles, sentences, max_chars),
        topics=tuple(topics),
        cited_principles=tuple(cited),
        provenance=provenance,
    )


def _ranked_provisions(citations: Sequence[Citation]) -> list[str]:
    counts = Counter(c.normalized for c in citations if c.kind == "provision")
    order = {name: i for i, name in reversed(list(enumerate(c.normalized for c in citations)))}
    return sorted(counts, key=lambda name: (-counts[name], order[name]))


def summary_document(summary: Summary) -> dict[str, object]:
    """The ``summary`` object of a ``judgments`` index document (``mappings/judgments.json``)."""
    return {
        "facts": summary.facts,
        "legal_issues": list(summary.legal_issues),
        "reasoning": summary.reasoning,
        "legal_principles": summary.legal_principles,
        "topics": list(summary.topics),
        "cited_principles": list(summary.cited_principles),
        "provenance": {field: dict(entry) for field, entry in summary.provenance.items()},
    }
