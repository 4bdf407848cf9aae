"""Readers for the two labelled corpora: OpenNyAI (LegalEval 2023 task A) and Law-AI (JURIX 2019).

Both are turned into the same shape, a ``LabelledJudgment`` holding sentences and their source labels,
so training and evaluation do not care where a judgment came from.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LabelledJudgment:
    """One judgment as a sequence of sentences, each with its label in the source dataset's label set."""

    doc_id: str
    sentences: tuple[str, ...]
    labels: tuple[str, ...]
    source: str  # "opennyai" or "law-ai"
    group: str = ""  # OpenNyAI: Tax/Criminal; Law-AI: the law area from categories.txt


def _open_json(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def load_opennyai(path: Path) -> list[LabelledJudgment]:
    """Read an OpenNyAI Label Studio export (``train.json.gz`` or ``dev.json``).

    Sentences are taken from each result's ``text`` (not re-sliced from the full text) and ordered by their
    start offset. A document id that appears twice with identical content (train has one) is kept once,
    because a duplicate would only weight that judgment double. A record without labelled sentences is
    skipped: it carries no signal.
    """
    judgments: list[LabelledJudgment] = []
    seen: set[str] = set()
    for record in _open_json(Path(path)):
        doc_id = str(record["id"])
        if doc_id in seen:
            continue
        seen.add(doc_id)
        results = [item["value"] for item in record["annotations"][0]["result"]]
        if not results:
            continue
        results.sort(key=lambda value: value["start"])
        sentences = tuple(" ".join(value["text"].split()) for value in results)
        labels = tuple(value["labels"][0] for value in results)
        group = str(record.get("meta", {}).get("group", ""))
        judgments.append(LabelledJudgment(doc_id, sentences, labels, "opennyai", group))
    return judgments


def load_law_ai_categories(path: Path) -> dict[str, str]:
    """Map Law-AI document name (file stem) to its law area from ``categories.txt``."""
    areas: dict[str, str] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        area, _, docs = line.partition("\t")
        for doc in docs.split():
            areas[doc.strip()] = area.strip()
    return areas


def load_law_ai(directory: Path) -> list[LabelledJudgment]:
    """Read the Law-AI corpus directory (``text/*.txt`` plus ``categories.txt``), sorted by file name."""
    directory = Path(directory)
    categories_path = directory / "categories.txt"
    areas = load_law_ai_categories(categories_path) if categories_path.exists() else {}
    judgments: list[LabelledJudgment] = []
    for file in sorted((directory / "text").glob("*.txt")):
        judgments.append(read_law_ai_file(file, areas.get(file.stem, "")))
    return judgments


def read_law_ai_file(file: Path, group: str = "") -> LabelledJudgment:
    """Read one Law-AI file: one ``sentence<TAB>label`` per line."""
    sentences: list[str] = []
    labels: list[str] = []
    for line in Path(file).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        sentence, _, label = line.rpartition("\t")
        sentences.append(" ".join(sentence.split()))
        labels.append(label.strip())
    return LabelledJudgment(Path(file).stem, tuple(sentences), tuple(labels), "law-ai", group)
