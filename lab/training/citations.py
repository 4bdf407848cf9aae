"""Citation-context training groups: the words around a citation, and the cited judgment's reasoning.

A judgment that cites another says why, in the sentences just before the citation. When the cited judgment is
in the corpus, that context is a query whose answer is known without anyone judging relevance: the cited
judgment's reasoning (its best-matching ``ratio``/``analysis`` chunk, else its best non-header chunk). This is
the shape of case-to-case retrieval (FIRE IRLeD masks exactly these citations in its queries) and of a lawyer
looking for authority for a proposition.

The context is cut from the citing judgment's text around the citation's span (found by the indexer's own
citation rules, :func:`legal.citations.extract_citations`), with every citation inside it removed, so the
model learns the proposition rather than the reporter string or the party names. Citations are resolved to
corpus judgments exactly as the judgment page resolves them (:func:`search.pages.browse.resolve_judgments`); an
ambiguous or unknown one is skipped. Hard negatives never come from the citing judgment or anything it cites.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from opensearchpy import OpenSearch

from lab.training.pairs import (
    TrainingGroup,
    best_chunks_body,
    judgment_ids,
    negatives_body,
    quotes_query,
    reasoning_roles,
    search_passages,
)
from legal.citations import Citation, extract_citations
from search.pages.browse import resolve_judgments

__all__ = ["citation_context", "mine_citation_groups"]

_CITING = ("judgment", "case_name")
_LEFTOVER = re.compile(r"[\[\](){};]+|\s+(?:at\s+)?p(?:p|age)?\.?\s*\d+\b", re.IGNORECASE)
_WORD_CHARS = re.compile(r"[A-Za-z0-9]")
MAX_TEXT_CHARS = 400_000  # citations past this point are not looked for (one very long judgment is not many)


def citation_context(text: str, citation: Citation, citations: Sequence[Citation], before: int = 60,
                     after: int = 15) -> str:
    """About ``before`` words before ``citation`` and ``after`` words after it, every citation removed."""
    left = text[max(0, citation.start - before * 12):citation.start]
    right = text[citation.end:citation.end + after * 12]
    spans = [(c.start, c.end) for c in citations if c.kind in _CITING]

    def strip(start: int, piece: str) -> str:
        chars = list(piece)
        for s, e in spans:
            for i in range(max(s, start), min(e, start + len(piece))):
                chars[i - start] = " "
        return _LEFTOVER.sub(" ", "".join(chars))

    words_left = strip(max(0, citation.start - before * 12), left).split()[-before:]
    words_right = strip(citation.end, right).split()[:after]
    return " ".join(w for w in [*words_left, *words_right] if _WORD_CHARS.search(w))


def mine_citation_groups(client: OpenSearch, chunks: str, judgments: str, count: int, *, seed: int = 13,
                         negatives: int = 4, per_judgment: int = 2, min_words: int = 20,
                         exclude: Sequence[str] = (),
                         progress: Callable[[int], None] | None = None) -> list[TrainingGroup]:
    """Up to ``count`` groups from citations between corpus judgments, citing judgments sampled with ``seed``.

    At most ``per_judgment`` groups come from one citing judgment (its first resolvable citations of distinct
    judgments), so a judgment that cites fifty others does not fill the set. ``exclude`` names judgments that
    must play no part (neither citing nor cited).
    """
    excluded = set(exclude)
    ids = [i for i in judgment_ids(client, judgments) if i not in excluded]
    random.Random(seed).shuffle(ids)
    groups: list[TrainingGroup] = []
    for start in range(0, len(ids), 20):
        if len(groups) >= count:
            break
        docs = client.mget(index=judgments, body={"ids": ids[start:start + 20]}, _source_includes=["text"])["docs"]
        for doc in docs:
            if len(groups) >= count:
                break
            found = _citing(client, chunks, judgments, doc["_id"], str((doc.get("_source") or {}).get("text") or ""),
                            negatives=negatives, limit=min(per_judgment, count - len(groups)), min_words=min_words,
                            excluded=excluded)
            groups += found
            if progress and found:
                progress(len(found))
    return groups


def _citing(client: OpenSearch, chunks: str, judgments: str, citing: str, text: str, *, negatives: int, limit: int,
            min_words: int, excluded: set[str]) -> list[TrainingGroup]:
    """The groups one citing judgment gives."""
    text = text[:MAX_TEXT_CHARS]
    citations = extract_citations(text, kinds=_CITING)
    if not citations:
        return []
    resolved = resolve_judgments(client, judgments, list(dict.fromkeys(c.normalized for c in citations)))
    cited = {name: judgment_id for name, (judgment_id, _) in resolved.items()}
    everything = sorted({*cited.values(), citing})
    groups: list[TrainingGroup] = []
    seen: set[str] = set()
    for citation in citations:
        target = cited.get(citation.normalized)
        if target is None or target == citing or target in seen or target in excluded:
            continue
        query = citation_context(text, citation, citations)
        if len(query.split()) < min_words:
            continue
        positive = _positive(client, chunks, query, target)
        hard = search_passages(client, chunks, negatives_body(query, everything, negatives)) if positive else []
        if positive and hard:
            seen.add(target)
            groups.append(TrainingGroup(query, f"citation:{citing}:{target}", (positive,), tuple(hard)))
            if len(groups) >= limit:
                break
    return groups


def _positive(client: OpenSearch, chunks: str, query: str, judgment_id: str):
    """The cited judgment's best reasoning chunk for the context, else its best non-header chunk."""
    for roles in (reasoning_roles(), ()):
        found = [p for p in search_passages(client, chunks, best_chunks_body(query, judgment_id, 4, roles))
                 if not quotes_query(p, query)]
        if found:
            return found[0]
    return None
