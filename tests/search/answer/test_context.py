"""The packer's passages on a real sample judgment, chunked as the indexer stores it: a passage trimmed to the
sentence the question is about links to that sentence, not to the head of its chunk."""

from __future__ import annotations

from pathlib import Path

from indexer.chunker import chunk, chunk_document
from legal.sentences import split
from search.answer.context import pack, trim
from search.retrieval.records import ChunkHit

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments" / "C1.txt"


def _chunk_sources() -> list[dict]:
    text = SAMPLE.read_text("utf-8")
    sentences = split(text)
    return [chunk_document(c) for c in chunk("C1", text, sentences, ["facts"] * len(sentences))]


def test_a_trimmed_passage_links_to_its_first_kept_sentence() -> None:
    source = next(s for s in _chunk_sources() if s["sentence_end"] - s["sentence_start"] >= 6)
    offsets, start = source["sentence_offsets"], source["char_start"]
    fifth = source["text"][offsets[8] - start:offsets[9] - start]
    question = " ".join(fifth.split()[:40])
    words = len(" ".join(fifth.split()).split())

    trimmed = trim(question, source, max_words=words)
    assert trimmed.text == " ".join(fifth.split())
    assert (trimmed.sentence_start, trimmed.char_start) == (source["sentence_start"] + 4, offsets[8])

    (passage,) = pack(question, [ChunkHit(source["chunk_id"], 1.0, source)], budget_tokens=2000,
                      passage_words=words)
    assert passage.link == f"/judgments/C1#s{source['sentence_start'] + 4}"
    assert passage.sentence_end == source["sentence_end"] and passage.char_start == offsets[8]


def test_a_passage_that_keeps_its_chunk_whole_links_to_the_chunk() -> None:
    source = _chunk_sources()[0]
    trimmed = trim("anything at all", source, max_words=10_000)
    assert (trimmed.sentence_start, trimmed.char_start) == (source["sentence_start"], source["char_start"])
    assert trim("x", {"text": "One sentence only."}).sentence_start == 0, "a chunk without offsets is one sentence"
