"""Score a sentence splitter against gold sentence spans (OpenNyAI Label-Studio documents).

A boundary is the end offset of a sentence after trailing whitespace is stripped; the end of the document
is not counted, since every splitter gets it right. Precision, recall and F1 are micro-averaged over all
boundaries of all documents, so long judgments weigh more, as they do in an index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from legal.sentences import Sentence, split

__all__ = ["SplitterScore", "evaluate_splitter", "gold_spans_from_labelstudio"]


@dataclass(frozen=True, slots=True)
class SplitterScore:
    """Boundary precision/recall/F1 and throughput of one evaluation run."""

    documents: int
    gold_sentences: int
    predicted_sentences: int
    precision: float
    recall: float
    f1: float
    seconds: float

    @property
    def sentences_per_second(self) -> float:
        return self.predicted_sentences / self.seconds if self.seconds else float("inf")


def gold_spans_from_labelstudio(document: dict[str, object]) -> tuple[str, list[tuple[int, int]]]:
    """The text and the gold (start, end) spans of one OpenNyAI Label-Studio document."""
    text = str(document["data"]["text"])  # type: ignore[index]
    spans = []
    for annotation in document.get("annotations", []):  # type: ignore[union-attr]
        for result in annotation.get("result", []):
            value = result["value"]
            spans.append((int(value["start"]), int(value["end"])))
    return text, sorted(spans)


def _boundaries(text: str, spans: Iterable[tuple[int, int]]) -> set[int]:
    ends = set()
    for start, end in spans:
        stripped_end = start + len(text[start:end].rstrip())
        if text[start:end].strip():
            ends.add(stripped_end)
    ends.discard(len(text.rstrip()))
    return ends


def evaluate_splitter(
    documents: Sequence[tuple[str, list[tuple[int, int]]]],
    splitter: Callable[[str], list[Sentence]] = split,
) -> SplitterScore:
    """Run ``splitter`` on each (text, gold spans) pair and score its boundaries."""
    true_positive = predicted_total = gold_total = 0
    predicted_sentences = gold_sentences = 0
    elapsed = 0.0
    for text, gold_spans in documents:
        began = time.perf_counter()
        sentences = splitter(text)
        elapsed += time.perf_counter() - began
        predicted = _boundaries(text, ((s.start, s.end) for s in sentences))
        gold = _boundaries(text, gold_spans)
        true_positive += len(predicted & gold)
        predicted_total += len(predicted)
        gold_total += len(gold)
        predicted_sentences += len(sentences)
        gold_sentences += len(gold_spans)
    precision = true_positive / predicted_total if predicted_total else 0.0
    recall = true_positive / gold_total if gold_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return SplitterScore(len(documents), gold_sentences, predicted_sentences, precision, recall, f1, elapsed)
