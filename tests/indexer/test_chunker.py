"""Role-aware chunking on real judgments: Law-AI gold roles and AILA texts split by the sentence splitter."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import pytest

from indexer.chunker import chunk, chunk_document, content_hash, group_sentences
from indexer.document import Chunk
from legal.roles import load_role_set
from legal.sentences import Sentence, split

REPO = Path(__file__).resolve().parents[2]
SAMPLE = ("1953_L_1", "1963_S_59", "1987_M_123", "2000_V_80")
AILA = ("C1", "C10", "C100", "C1086")


def law_ai(path: Path) -> tuple[str, list[Sentence], list[str]]:
    """A Law-AI file as a judgment text (sentences joined by newlines), its sentences and canonical roles."""
    role_set = load_role_set()
    parts: list[str] = []
    sentences: list[Sentence] = []
    roles: list[str] = []
    position = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        body, _, label = line.rpartition("\t")
        body = body.strip()
        if not body:
            continue
        sentences.append(Sentence(len(sentences), position, position + len(body), body))
        roles.append(role_set.to_canonical("law-ai", label.strip()))
        parts.append(body)
        position += len(body) + 1
    return "\n".join(parts), sentences, roles


def aila(path: Path) -> tuple[str, list[Sentence], list[str]]:
    """An AILA judgment split by the splitter, with a simple positional role assignment.

    The header lines are preamble, the first quarter facts, then analysis, and the last two sentences the
    present court's ruling; sentences that cite a judgment ("held that") are precedent.
    """
    text = path.read_text(encoding="utf-8")
    sentences = split(text)
    n = len(sentences)
    roles = []
    for i, sentence in enumerate(sentences):
        if i < 4:
            roles.append("preamble")
        elif i >= n - 2:
            roles.append("ruling_present_court")
        elif "held that" in sentence.text:
            roles.append("precedent_relied")
        elif i < n // 4:
            roles.append("facts")
        else:
            roles.append("analysis")
    return text, sentences, roles


def law_ai_files(data_dir: Path) -> list[Path]:
    files = sorted((data_dir / "law-ai-rhetorical-roles" / "text").glob("*.txt"))
    assert len(files) == 50
    return files


def check_invariants(text: str, sentences: Sequence[Sentence], roles: Sequence[str], chunks: list[Chunk]) -> None:
    """What every chunking must satisfy, whatever the judgment."""
    covered = set()
    for ordinal, c in enumerate(chunks):
        assert c.ordinal == ordinal
        assert c.chunk_id == f"{c.judgment_id}:{ordinal}"
        assert text[c.char_start : c.char_end] == c.text
        span = sentences[c.sentence_start : c.sentence_end]
        assert c.char_start == span[0].start and c.char_end == span[-1].end
        assert c.sentence_offsets == tuple(x for s in span for x in (s.start, s.end))
        assert c.sentence_roles == tuple(roles[c.sentence_start : c.sentence_end])
        assert c.role in c.sentence_roles
        assert c.content_hash == content_hash(c.role, c.text)
        covered.update(range(c.sentence_start, c.sentence_end))
    assert covered == set(range(len(sentences)))
    for before, after in pairwise(chunks):
        assert before.sentence_start < after.sentence_start
        assert after.sentence_start <= before.sentence_end  # no gap between chunks


@pytest.mark.parametrize("name", SAMPLE)
def test_law_ai_chunks_keep_offsets_coverage_and_order(data_dir: Path, name: str) -> None:
    text, sentences, roles = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / f"{name}.txt")
    chunks = chunk(name, text, sentences, roles)
    assert chunks
    check_invariants(text, sentences, roles, chunks)


def test_all_law_ai_judgments_chunk_within_the_window(data_dir: Path) -> None:
    folded = 0
    for path in law_ai_files(data_dir):
        text, sentences, roles = law_ai(path)
        chunks = chunk(path.stem, text, sentences, roles, window=15, overlap=3)
        check_invariants(text, sentences, roles, chunks)
        for before, after in pairwise(chunks):
            shared = before.sentence_end - after.sentence_start
            assert shared in (0, 3), f"{path.stem}: chunks {before.ordinal} and {after.ordinal} share {shared}"
        assert all(c.sentence_end - c.sentence_start <= 15 for c in chunks)
        # Micro-groups are folded: no chunk is a lone sentence, and no role is lost on the way.
        assert all(c.sentence_end - c.sentence_start >= 2 for c in chunks)
        folded += sum(g.folded for g in group_sentences(sentences, roles))
    assert folded > 0


@pytest.mark.parametrize("name", AILA)
def test_aila_judgments_split_by_the_splitter(data_dir: Path, name: str) -> None:
    text, sentences, roles = aila(data_dir / "aila-2019" / "Object_casedocs" / f"{name}.txt")
    chunks = chunk(f"aila:{name}", text, sentences, roles, window=8, overlap=2)
    check_invariants(text, sentences, roles, chunks)
    assert all(c.sentence_end - c.sentence_start <= 8 for c in chunks)
    assert chunks[0].judgment_id == f"aila:{name}"


def test_one_long_group_is_windowed_with_the_given_overlap(data_dir: Path) -> None:
    text, sentences, _ = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / "1953_L_1.txt")
    roles = ["analysis"] * len(sentences)
    n = len(sentences)
    for window, overlap in [(15, 3), (10, 0), (7, 6), (1, 0)]:
        chunks = chunk("j", text, sentences, roles, window=window, overlap=overlap)
        check_invariants(text, sentences, roles, chunks)
        assert all(c.sentence_end - c.sentence_start == window for c in chunks[:-1])
        assert all(a.sentence_end - b.sentence_start == overlap for a, b in pairwise(chunks))
        assert chunks[-1].sentence_end == n
        assert len(chunks) == max(1, -(-(n - overlap) // (window - overlap)))


def test_micro_groups_fold_into_the_previous_group_else_the_next(data_dir: Path) -> None:
    text, sentences, _ = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / "1953_L_1.txt")
    sentences = sentences[:11]
    roles = ["facts"] * 5 + ["statute"] + ["facts"] * 5
    chunks = chunk("j", text, sentences, roles)
    assert len(chunks) == 1  # folded into the facts before, then merged with the facts after
    assert chunks[0].role == "facts" and chunks[0].sentence_roles[5] == "statute"
    leading = ["statute"] + ["analysis"] * 10
    chunks = chunk("j", text, sentences, leading)
    assert [c.role for c in chunks] == ["analysis"] and chunks[0].sentence_roles[0] == "statute"
    unfolded = chunk("j", text, sentences, roles, min_sentences=1, min_chars=0)
    assert [c.role for c in unfolded] == ["facts", "statute", "facts"]
    only_micro = chunk("j", text, sentences[:3], ["facts", "statute", "ratio"], min_sentences=2, min_chars=0)
    assert len(only_micro) == 1 and only_micro[0].sentence_roles == ("facts", "statute", "ratio")


def test_majority_role_is_by_characters(data_dir: Path) -> None:
    text, sentences, _ = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / "1953_L_1.txt")
    sentences = sentences[:4]
    roles = ["facts", "facts", "analysis", "analysis"]
    chars = {r: sum(len(s.text) for s, x in zip(sentences, roles, strict=True) if x == r) for r in set(roles)}
    [only] = chunk("j", text, sentences, roles, min_sentences=3)
    assert only.role == max(chars, key=chars.__getitem__)


def test_chunk_ids_and_hashes_are_stable_and_change_only_with_text_or_role(data_dir: Path) -> None:
    text, sentences, roles = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / "1987_M_123.txt")
    first = chunk("J", text, sentences, roles)
    assert first == chunk("J", text, sentences, roles)
    # Change one word in the last sentence: only the chunks holding it get a new hash.
    last = sentences[-1]
    new_body = last.text.replace(last.text[:1], "X", 1) if last.text[:1] != "X" else "Y" + last.text[1:]
    new_text = text[: last.start] + new_body + text[last.end :]
    edited = [*sentences[:-1], Sentence(last.index, last.start, last.end, new_body)]
    second = chunk("J", new_text, edited, roles)
    assert [c.chunk_id for c in second] == [c.chunk_id for c in first]
    for a, b in zip(first, second, strict=True):
        holds_last = a.sentence_end == len(sentences)
        assert (a.content_hash != b.content_hash) == holds_last
    # Same text under another role: another hash.
    relabelled = chunk("J", text, sentences, ["analysis"] * len(sentences))
    assert content_hash("facts", "x") != content_hash("analysis", "x")
    assert relabelled[0].content_hash == content_hash("analysis", relabelled[0].text)


def test_empty_input_gives_no_chunks() -> None:
    assert chunk("j", "", [], []) == []
    assert group_sentences([], []) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"window": 3, "overlap": 3}, "overlap"),
        ({"window": 0, "overlap": 0}, "window"),
        ({"overlap": -1}, "overlap"),
        ({"min_sentences": 0}, "min_sentences"),
        ({"min_chars": -5}, "min_chars"),
    ],
)
def test_bad_sizes_raise_clear_errors(kwargs: dict[str, int], message: str) -> None:
    text = "One sentence here. Another one."
    sentences = split(text)
    with pytest.raises(ValueError, match=message):
        chunk("j", text, sentences, ["facts"] * len(sentences), **kwargs)


def test_bad_inputs_raise_clear_errors() -> None:
    text = "One sentence here. Another one."
    sentences = split(text)
    with pytest.raises(ValueError, match="one role per sentence"):
        chunk("j", text, sentences, ["facts"])
    with pytest.raises(ValueError, match="unknown roles"):
        chunk("j", text, sentences, ["facts", "Facts"])
    with pytest.raises(ValueError, match="does not match"):
        chunk("j", text.upper(), sentences, ["facts", "facts"])
    with pytest.raises(ValueError, match="consecutive"):
        chunk(
            "j",
            text,
            [sentences[0], Sentence(5, sentences[1].start, sentences[1].end, sentences[1].text)],
            ["facts"] * 2,
        )
    with pytest.raises(ValueError, match="judgment_id"):
        chunk("", text, sentences, ["facts", "facts"])


def test_chunk_documents_fit_the_chunks_mapping(data_dir: Path) -> None:
    mapping = json.loads((REPO / "mappings" / "chunks.json").read_text(encoding="utf-8"))
    properties = mapping["mappings"]["properties"]
    text, sentences, roles = law_ai(data_dir / "law-ai-rhetorical-roles" / "text" / "1953_L_1.txt")
    for c in chunk("J", text, sentences, roles):
        document = chunk_document(c)
        assert set(document) <= set(properties)
        assert all(isinstance(x, int) for x in document["sentence_offsets"])
        json.dumps(document)
