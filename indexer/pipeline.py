"""From a loaded judgment to everything the indices store: sentences, roles, chunks, summary, vectors.

One encoder pass per judgment: the sentence vectors the role labeller needs are reused for the chunk
vectors (the normalised mean of a chunk's sentence vectors) and the judgment vector (the normalised mean
of its chunk vectors). A 15-sentence chunk is longer than the 256 word pieces MiniLM reads, so embedding
the chunk text itself would both cost a second pass and silently truncate it.

Each judgment has a time budget (``judgment_seconds``, :mod:`indexer.budget`), checked after every step: a
judgment over it raises :class:`~indexer.budget.OverBudget` naming the step. The check cannot interrupt a step
(Python cannot stop a running regex), which is why every step is linear in the text; the budget catches what
is slow anyway. :class:`~indexer.writer.IndexWriter` then processes the batch judgment by judgment, so that
judgment fails alone, with its reason, and the others are written.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from backends.llm import LLM
from indexer.budget import DEFAULT_JUDGMENT_SECONDS, JudgmentBudget
from indexer.chunker import chunk as make_chunks
from indexer.document import Chunk, Judgment, Summary
from indexer.refine import refine_summary
from indexer.roles.labeller import RoleLabeller
from indexer.summary import summarise
from legal.sentences import Sentence, split

PIPELINE_VERSION = "1"


@dataclass(frozen=True)
class ChunkOptions:
    """How sentences are grouped into chunks (see :func:`indexer.chunker.chunk`)."""

    window: int = 15
    overlap: int = 3
    min_sentences: int = 2
    min_chars: int = 200


@dataclass
class StageTimes:
    """Seconds spent per stage, summed over a run."""

    parse: float = 0.0
    embed: float = 0.0
    roles: float = 0.0
    chunk: float = 0.0
    bulk: float = 0.0

    def add(self, other: StageTimes) -> None:
        for name in ("parse", "embed", "roles", "chunk", "bulk"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, float]:
        return {name: round(getattr(self, name), 2) for name in ("parse", "embed", "roles", "chunk", "bulk")}


@dataclass(frozen=True)
class ProcessedJudgment:
    """A judgment with every derived part, ready to become OpenSearch documents."""

    judgment: Judgment
    sentences: tuple[Sentence, ...]
    roles: tuple[str, ...]
    chunks: tuple[Chunk, ...]
    chunk_vectors: np.ndarray
    vector: np.ndarray | None
    summary: Summary
    content_hash: str
    times: StageTimes = field(default_factory=StageTimes)


def content_hash(judgment: Judgment, fingerprint: str) -> str:
    """Identifies the judgment's text and metadata under one pipeline configuration.

    ``fingerprint`` names the models and options; changing either re-processes the judgment.
    """
    digest = hashlib.sha256()
    for part in (PIPELINE_VERSION, fingerprint, judgment.text, judgment.title or "", judgment.court or "",
                 str(judgment.decision_date or ""), "|".join(judgment.judges)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


def _unit_mean(vectors: np.ndarray) -> np.ndarray:
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)


class Pipeline:
    """Turns judgments into :class:`ProcessedJudgment` objects with a given labeller and chunking."""

    def __init__(self, labeller: RoleLabeller, options: ChunkOptions | None = None, llm: LLM | None = None,
                 judgment_seconds: float | None = DEFAULT_JUDGMENT_SECONDS) -> None:
        if judgment_seconds is not None and judgment_seconds <= 0:
            raise ValueError(f"the time per judgment must be positive ({judgment_seconds} s)")
        self.labeller = labeller
        self.options = options or ChunkOptions()
        self.llm = llm  # refines the summary's facts and legal issues (indexer.refine); None keeps them extractive
        self.judgment_seconds = judgment_seconds

    @property
    def fingerprint(self) -> str:
        artifact = self.labeller.artifact
        head = hashlib.sha256(repr((artifact.labels, artifact.head, sorted(artifact.training.items()))).encode())
        o = self.options
        base = f"{artifact.encoder_id}|{head.hexdigest()[:16]}|{o.window}/{o.overlap}/{o.min_sentences}/{o.min_chars}"
        return f"{base}|refine:{self.llm.name}" if self.llm is not None else base

    def hash_of(self, judgment: Judgment) -> str:
        return content_hash(judgment, self.fingerprint)

    def process(self, judgment: Judgment) -> ProcessedJudgment:
        """Process one judgment (see :meth:`process_many`)."""
        return self.process_many([judgment])[0]

    def process_many(self, judgments: Sequence[Judgment]) -> list[ProcessedJudgment]:
        """Process several judgments together: their sentences are embedded in one encoder call (batched
        and length-sorted across judgments) and the role head runs over padded batches of judgments. Each
        judgment's result is what processing it alone gives. Stage times of the shared steps are shared
        out by sentence count, and count against each judgment's time budget in that share (raises
        :class:`~indexer.budget.OverBudget` for the first judgment over it)."""
        parse = []
        sentence_lists = []
        for judgment in judgments:
            started = time.perf_counter()
            sentence_lists.append(tuple(split(judgment.text)))
            parse.append(time.perf_counter() - started)
            JudgmentBudget(self.judgment_seconds, started).check("sentence splitting")
        texts = [[s.text for s in sentences] for sentences in sentence_lists]
        total = max(sum(len(t) for t in texts), 1)

        started = time.perf_counter()
        vectors = self.labeller.embed_many(texts)
        embed = time.perf_counter() - started

        started = time.perf_counter()
        probabilities = self.labeller.probabilities_many(vectors, texts)
        roles_time = time.perf_counter() - started

        out = []
        for judgment, sentences, judgment_texts, judgment_vectors, judgment_probabilities, parse_time in zip(
                judgments, sentence_lists, texts, vectors, probabilities, parse, strict=True):
            share = len(judgment_texts) / total
            times = StageTimes(parse=parse_time, embed=embed * share, roles=roles_time * share)
            budget = JudgmentBudget(self.judgment_seconds, spent_elsewhere=parse_time + times.embed)
            budget.check("embedding")
            budget.spent_elsewhere += times.roles
            budget.check("role labelling")
            roles = tuple(self.labeller.labels[int(i)] for i in judgment_probabilities.argmax(axis=1))
            started = time.perf_counter()
            o = self.options
            chunks = tuple(make_chunks(judgment.judgment_id, judgment.text, sentences, roles, window=o.window,
                                       overlap=o.overlap, min_sentences=o.min_sentences, min_chars=o.min_chars))
            budget.check("chunking")
            summary = summarise(judgment, sentences, roles)
            budget.check("summary")
            if self.llm is not None:
                summary = refine_summary(self.llm, judgment, summary)
                budget.check("summary refinement")
            if chunks:
                chunk_vectors = np.stack([_unit_mean(judgment_vectors[c.sentence_start:c.sentence_end])
                                          for c in chunks])
                judgment_vector: np.ndarray | None = _unit_mean(chunk_vectors)
            else:
                chunk_vectors, judgment_vector = np.zeros((0, 0), dtype=np.float32), None
            times.chunk = time.perf_counter() - started
            out.append(ProcessedJudgment(judgment, sentences, roles, chunks, chunk_vectors, judgment_vector,
                                         summary, self.hash_of(judgment), times))
        return out


def role_counts(roles: Sequence[str]) -> dict[str, int]:
    """How many sentences carry each role (stored on the judgment for facets and display)."""
    return dict(Counter(roles))
