"""Role-aware chunking: cut a judgment's sentences into chunks that follow its rhetorical roles.

Why by role: a search filtered to the ratio, or a hit coloured by role, needs chunks that hold one role each;
fixed-size windows would mix the facts with the court's reasoning. The rule, in order:

1. **Runs.** Consecutive sentences with the same role form a run.
2. **Folding.** A run is a *micro-group* when it has fewer than ``min_sentences`` sentences or fewer than
   ``min_chars`` characters (the sum of its sentences' lengths): both minimums must be met to stand alone,
   because a one-line role switch ("Appeal dismissed.") is too small to embed or to show as a hit on its own.
   A micro-group folds into the group before it; one at the start of the judgment (with no group before it)
   folds into the next run, together with any other micro-groups before that run. A judgment made only of
   micro-groups gives one group. Folding is one pass in document order, so the result does not depend on
   which neighbour "fits better". ``min_sentences=1, min_chars=0`` turns folding off.
3. **Group role.** A group's role is the role with the most characters in it (ties go to the run the others
   were folded into). Every sentence's own role stays in :attr:`Chunk.sentence_roles`.
4. **Merging.** Two adjacent groups that end up with the same role are one group (folding a micro-group
   away can leave two runs of the same role side by side).
5. **Windows.** A group of more than ``window`` sentences is split into windows of ``window`` sentences
   that share ``overlap`` sentences with the window before (a stride of ``window - overlap``); the last
   window ends at the group's end and may be shorter. Windows never cross a group boundary.

Every sentence lies in at least one chunk; with ``overlap > 0`` a sentence inside a long group may lie in
two. Chunk ids are ``f"{judgment_id}:{ordinal}"``, stable as long as the sentences and roles are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from indexer.document import Chunk
from legal.roles import load_role_set
from legal.sentences import Sentence

__all__ = ["ChunkGroup", "chunk", "chunk_document", "content_hash", "group_sentences"]


@dataclass(frozen=True, slots=True)
class ChunkGroup:
    """A span of sentence positions ``[start, end)`` that shares one role before windowing.

    ``folded`` counts the micro-groups folded into it, so that a report can say how much folding happened.
    """

    start: int
    end: int
    role: str
    folded: int = 0


def content_hash(role: str, text: str) -> str:
    """sha256 of role and text (NUL-separated so ``("ab", "c")`` and ``("a", "bc")`` differ)."""
    return hashlib.sha256(f"{role}\0{text}".encode()).hexdigest()


def _validate(text: str, sentences: Sequence[Sentence], roles: Sequence[str], known_roles: Sequence[str]) -> None:
    if len(sentences) != len(roles):
        raise ValueError(f"got {len(sentences)} sentences but {len(roles)} roles; give one role per sentence")
    known = set(known_roles)
    unknown = sorted({role for role in roles if role not in known})
    if unknown:
        raise ValueError(f"unknown roles {unknown}; known roles: {', '.join(known_roles)}")
    previous_end = 0
    for position, sentence in enumerate(sentences):
        if sentence.index != sentences[0].index + position:
            raise ValueError(
                f"sentence indices must be consecutive: position {position} has index {sentence.index}, "
                f"expected {sentences[0].index + position}"
            )
        if sentence.start < previous_end or sentence.end < sentence.start or sentence.end > len(text):
            raise ValueError(
                f"sentence {sentence.index} spans [{sentence.start}, {sentence.end}), which is out of order, "
                f"overlaps the sentence before, or runs past the text ({len(text)} characters)"
            )
        if text[sentence.start : sentence.end] != sentence.text:
            raise ValueError(f"sentence {sentence.index} does not match the text at [{sentence.start}, {sentence.end})")
        previous_end = sentence.end


def _validate_sizes(window: int, overlap: int, min_sentences: int, min_chars: int) -> None:
    if window < 1:
        raise ValueError(f"window must be at least 1 sentence, got {window}")
    if overlap < 0:
        raise ValueError(f"overlap must not be negative, got {overlap}")
    if overlap >= window:
        raise ValueError(f"overlap ({overlap}) must be smaller than window ({window}), or windows would not advance")
    if min_sentences < 1:
        raise ValueError(f"min_sentences must be at least 1, got {min_sentences}")
    if min_chars < 0:
        raise ValueError(f"min_chars must not be negative, got {min_chars}")


def _majority_role(
    sentences: Sequence[Sentence], roles: Sequence[str], start: int, end: int, host_role: str, role_order: Sequence[str]
) -> str:
    chars: dict[str, int] = {}
    for position in range(start, end):
        chars[roles[position]] = chars.get(roles[position], 0) + len(sentences[position].text)
    # Most characters; then the host run's role; then the role table's order, so the choice is total.
    return max(chars, key=lambda role: (chars[role], role == host_role, -role_order.index(role)))


def group_sentences(
    sentences: Sequence[Sentence], roles: Sequence[str], *, min_sentences: int = 2, min_chars: int = 200
) -> list[ChunkGroup]:
    """Steps 1 to 4 of the module rule: role runs, micro-groups folded, same-role neighbours merged.

    Positions are indices into ``sentences`` (not :attr:`Sentence.index`). Arguments are not validated
    here; :func:`chunk` does that.
    """
    role_order = load_role_set().names
    runs: list[tuple[int, int]] = []
    for position in range(len(roles)):
        if runs and roles[runs[-1][0]] == roles[position]:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))

    def is_micro(start: int, end: int) -> bool:
        size = sum(len(sentences[p].text) for p in range(start, end))
        return end - start < min_sentences or size < min_chars

    # (start, end, host role, folded count); a leading micro-group waits in `pending` for the next run.
    groups: list[tuple[int, int, str, int]] = []
    pending: tuple[int, int] | None = None
    pending_count = 0
    for start, end in runs:
        if is_micro(start, end):
            if groups:
                g_start, _g_end, host, folded = groups[-1]
                groups[-1] = (g_start, end, host, folded + 1)
                continue
            pending = (pending[0] if pending else start, end)
            pending_count += 1
            continue
        if pending is not None:
            groups.append((pending[0], end, roles[start], pending_count))
            pending, pending_count = None, 0
        else:
            groups.append((start, end, roles[start], 0))
    if pending is not None:  # nothing but micro-groups: one group, led by its first run
        groups.append((pending[0], pending[1], roles[pending[0]], pending_count - 1))

    merged: list[ChunkGroup] = []
    for start, end, host, folded in groups:
        role = _majority_role(sentences, roles, start, end, host, role_order)
        if merged and merged[-1].role == role:
            last = merged[-1]
            merged[-1] = ChunkGroup(last.start, end, role, last.folded + folded)
        else:
            merged.append(ChunkGroup(start, end, role, folded))
    return merged


def _windows(start: int, end: int, window: int, overlap: int) -> list[tuple[int, int]]:
    if end - start <= window:
        return [(start, end)]
    spans = []
    step = window - overlap
    position = start
    while True:
        spans.append((position, min(position + window, end)))
        if position + window >= end:
            return spans
        position += step


def chunk(
    judgment_id: str,
    text: str,
    sentences: Sequence[Sentence],
    roles: Sequence[str],
    *,
    window: int = 15,
    overlap: int = 3,
    min_sentences: int = 2,
    min_chars: int = 200,
) -> list[Chunk]:
    """Cut a judgment into role-aware chunks, following the rule in the module docstring.

    ``sentences`` are the judgment's sentences in order (as :func:`legal.sentences.split` gives them) and
    ``roles`` their canonical role names, one per sentence. Raises ``ValueError`` for sizes that make no
    sense (``overlap >= window``), roles outside the canonical set, or sentences that do not match ``text``.
    """
    _validate_sizes(window, overlap, min_sentences, min_chars)
    role_set = load_role_set()
    _validate(text, sentences, roles, role_set.names)
    if not judgment_id:
        raise ValueError("judgment_id must not be empty: chunk ids are built from it")
    chunks: list[Chunk] = []
    for group in group_sentences(sentences, roles, min_sentences=min_sentences, min_chars=min_chars):
        for first, last in _windows(group.start, group.end, window, overlap):
            span = sentences[first:last]
            span_roles = tuple(roles[first:last])
            role = _majority_role(sentences, roles, first, last, group.role, role_set.names)
            char_start, char_end = span[0].start, span[-1].end
            body = text[char_start:char_end]
            ordinal = len(chunks)
            chunks.append(
                Chunk(
                    chunk_id=f"{judgment_id}:{ordinal}",
                    judgment_id=judgment_id,
                    role=role,
                    ordinal=ordinal,
                    sentence_start=span[0].index,
                    sentence_end=span[-1].index + 1,
                    char_start=char_start,
                    char_end=char_end,
                    sentence_offsets=tuple(offset for s in span for offset in (s.start, s.end)),
                    text=body,
                    sentence_roles=span_roles,
                    content_hash=content_hash(role, body),
                )
            )
    return chunks


def chunk_document(chunk: Chunk) -> dict[str, object]:
    """The chunk's own fields of the ``chunks`` index (``mappings/chunks.json``), ready for a bulk action.

    The judgment-level filter fields (court, date, judges, citations) and the vector are added by
    :func:`indexer.documents.chunk_documents`.
    """
    return {
        "chunk_id": chunk.chunk_id,
        "judgment_id": chunk.judgment_id,
        "role": chunk.role,
        "ordinal": chunk.ordinal,
        "sentence_start": chunk.sentence_start,
        "sentence_end": chunk.sentence_end,
        "char_start": chunk.char_start,
        "char_end": chunk.char_end,
        "sentence_offsets": list(chunk.sentence_offsets),
        "sentence_roles": list(chunk.sentence_roles),
        "content_hash": chunk.content_hash,
        "text": chunk.text,
    }
