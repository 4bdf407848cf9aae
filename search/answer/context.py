"""The passages an answer may use: chosen from the retrieved chunks, trimmed and packed into a token budget.

A small model answers well only from a short context, so the packer is selective. Chunks come in the
order retrieval (and reranking) gave them; a judgment contributes at most ``per_judgment`` of them, so one
long judgment cannot fill the context; each is cut to the sentences that share most words with the
question (kept in their order in the judgment, so the passage still reads as the judgment does); and the
roles the question's intent prefers (the ratio and the ruling for a point of law, the statute for a
question about a provision) are packed before the others when the budget cannot hold everything.

Each packed passage is numbered from 1: the model cites ``[n]``, and :class:`ContextPassage` turns that back
into a chunk id and a link to the judgment's sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from backends.llm import untrusted
from legal.roles import role_label
from search.explain.extractive import content_words
from search.retrieval.records import ChunkHit

TOKENS_PER_WORD = 1.5  # legal English with citations and numbers, by Qwen's tokenizer (measured ~1.3-1.45)
PASSAGE_WORDS = 160


@dataclass(frozen=True)
class ContextPassage:
    """A numbered passage of the context: where it comes from and the text the model reads."""

    number: int
    chunk_id: str
    judgment_id: str
    title: str | None
    role: str
    text: str
    sentence_start: int  # the first sentence the passage kept (the chunk may start earlier)
    sentence_end: int
    char_start: int
    char_end: int
    score: float
    kind: str = "chunk"  # or "provision"

    @property
    def label(self) -> str:
        return f"[{self.number}]"

    @property
    def link(self) -> str:
        """The judgment page's anchor for the passage's first sentence, or the provision's page."""
        if self.kind == "provision":
            return f"/provisions/{self.chunk_id}"
        return f"/judgments/{self.judgment_id}#s{self.sentence_start}"

    def prompt_block(self) -> str:
        """The passage as the prompt shows it, cleaned like every untrusted document text (again: a passage
        may be built by a caller rather than by :func:`pack`)."""
        source = untrusted(self.title or self.judgment_id, 20)
        text = untrusted(self.text, len(self.text.split()))
        return f"[{self.number}] ({role_label(self.role)}; {source}) {text}"


@dataclass(frozen=True)
class Trimmed:
    """A chunk cut to the sentences that share most words with the question: the text the model reads, and
    where it starts (the first kept sentence's number and character offset in the judgment), so a citation
    lands on the passage the model read, not on the head of a long chunk."""

    text: str
    sentence_start: int
    char_start: int


def _sentences(source: Mapping[str, Any]) -> list[tuple[int, int, str]]:
    """The chunk's non-blank sentences as (number in the judgment, character offset, text), cut at the offsets
    the indexer stored (the whole text as one sentence when it has none)."""
    text, offsets = source.get("text") or "", source.get("sentence_offsets") or []
    start, first = int(source.get("char_start", 0)), int(source.get("sentence_start", 0))
    whole = [(first, start, text)]
    if len(offsets) < 2:
        return whole
    pieces = [(first + i // 2, offsets[i], text[offsets[i] - start:offsets[i + 1] - start])
              for i in range(0, len(offsets) - 1, 2)]
    return [p for p in pieces if p[2].strip()] or whole


def trim(question: str, source: Mapping[str, Any], max_words: int = PASSAGE_WORDS) -> Trimmed:
    """The chunk's sentences that share most words with the question, in document order, within
    ``max_words`` (the first sentence is cut when it alone is longer)."""
    sentences = _sentences(source)
    wanted = content_words(question)
    order = sorted(range(len(sentences)), key=lambda i: (-len(wanted & content_words(sentences[i][2])), i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        words = len(sentences[i][2].split())
        if used + words > max_words and chosen:
            continue
        chosen.add(i)
        used += words
    kept = sorted(chosen)
    number, offset, _ = sentences[kept[0]]
    return Trimmed(untrusted(" ".join(" ".join(sentences[i][2].split()) for i in kept), max_words), number, offset)


def pack(question: str, chunks: Sequence[ChunkHit], *, budget_tokens: int,
         preferred_roles: Sequence[str] = (), per_judgment: int = 2, max_passages: int = 8,
         passage_words: int = PASSAGE_WORDS) -> tuple[ContextPassage, ...]:
    """Numbered passages for the prompt, within ``budget_tokens`` (estimated at :data:`TOKENS_PER_WORD`)."""
    candidates: list[ChunkHit] = []
    per: dict[str, int] = {}
    for chunk in chunks:
        judgment = chunk.judgment_id
        if per.get(judgment, 0) < per_judgment:
            per[judgment] = per.get(judgment, 0) + 1
            candidates.append(chunk)
        if len(candidates) >= max_passages * 2:
            break
    preferred = set(preferred_roles)
    # Preferred roles first within the budget; the retrieval order decides among equals.
    ranked = sorted(range(len(candidates)), key=lambda i: (candidates[i].source.get("role") not in preferred, i))
    budget_words = int(budget_tokens / TOKENS_PER_WORD)
    chosen: list[tuple[int, Trimmed]] = []
    for i in ranked:
        trimmed = trim(question, candidates[i].source, passage_words)
        words = len(trimmed.text.split()) + 12  # the label, role and title
        if words > budget_words or not trimmed.text:
            continue
        budget_words -= words
        chosen.append((i, trimmed))
        if len(chosen) >= max_passages:
            break
    chosen.sort()  # back to retrieval order, so [1] is the best passage
    passages = []
    for number, (i, trimmed) in enumerate(chosen, 1):
        chunk_id, score, source = candidates[i].chunk_id, candidates[i].score, candidates[i].source
        passages.append(ContextPassage(number, chunk_id, source["judgment_id"], source.get("title"),
                                       source.get("role", "none"), trimmed.text, trimmed.sentence_start,
                                       int(source.get("sentence_end", 0)), trimmed.char_start,
                                       int(source.get("char_end", 0)), float(score)))
    return tuple(passages)


def prompt_context(passages: Sequence[ContextPassage]) -> str:
    return "\n\n".join(p.prompt_block() for p in passages)
