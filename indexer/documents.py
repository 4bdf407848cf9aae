"""Pure functions from processed judgments and provisions to OpenSearch documents.

Document ids are the judgment id, ``<judgment id>:<ordinal>`` for chunks and the provision id, so a
re-run overwrites rather than duplicates. The chunk documents copy the judgment's filter fields so a
court, date or judge filter can run inside the k-NN search of the chunks index. Judges are written in one form
(:func:`legal.judges.judge_names`: ``Hon'ble Dr. Justice Arijit Pasayat`` is stored ``Arijit Pasayat``).

:func:`source_json` writes a document as the bulk request's JSON line by orjson: the standard library took 0.18 ms
for one chunk document (its vector), on the writer's thread beside the indexer's own, and orjson 0.01.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import orjson
from opensearchpy import JSONSerializer

from indexer.chunker import chunk_document
from indexer.document import Judgment, Provision
from indexer.identity import source_key
from indexer.pipeline import ProcessedJudgment, role_counts
from indexer.summary import summary_document
from legal.judges import judge_names


def _vector(value: np.ndarray | None) -> list[float] | None:
    """The vector as stored, or None when there is none or it is all zeros: a chunk whose sentences hold no
    word the encoder knows (a 200k-character token cut into sentences) has no direction, and the cluster
    refuses a zero vector under cosine similarity. Such a chunk is stored without one and found by its words; so is
    one holding a NaN or an infinity (which the cluster refuses, and :func:`source_json` would write as null)."""
    if value is None or not np.any(value) or not np.all(np.isfinite(value)):  # NaN: no direction either
        return None
    return [round(float(x), 6) for x in value]


_FALLBACK = JSONSerializer()


def source_json(doc: dict[str, Any]) -> str:
    """``doc`` as one line of JSON, what opensearch-py's serializer would write (the node parses the same values).
    orjson refuses what it cannot write as the standard library does (an int beyond 64 bits, a lone surrogate, a
    numpy number): that document is written by opensearch-py's own serializer, as before."""
    try:
        return orjson.dumps(doc).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return _FALLBACK.dumps(doc)


def _filters(judgment: Judgment) -> dict[str, Any]:
    date = judgment.decision_date
    return {
        "court": judgment.court,
        "judges": list(dict.fromkeys(n for written in judgment.judges for n in judge_names(written))),
        "decision_date": date.isoformat() if date else None,
        "year": date.year if date else None,
        "cited_judgments": list(judgment.cited_judgments),
        "cited_provisions": list(judgment.cited_provisions),
        "language": judgment.language,
    }


def judgment_document(processed: ProcessedJudgment, now: dt.datetime | None = None) -> dict[str, Any]:
    """The ``judgments`` document of a processed judgment."""
    j = processed.judgment
    summary = summary_document(processed.summary)
    doc: dict[str, Any] = {
        "judgment_id": j.judgment_id,
        "source": j.source,
        "source_path": source_key(j.source_path),  # absolute: which file owns the id (indexer.identity)
        "content_hash": processed.content_hash,
        "title": j.title,
        "parties": list(j.parties),
        "case_number": j.case_number,
        "citations": list(j.citations),
        "status": j.status,
        "summary": summary,
        "role_counts": role_counts(processed.roles),
        "n_sentences": len(processed.sentences),
        "n_chunks": len(processed.chunks),
        "text": j.text,
        "indexed_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        **_filters(j),
    }
    vector = _vector(processed.vector)
    if vector is not None:
        doc["vector"] = vector
    return doc


def chunk_documents(processed: ProcessedJudgment) -> list[dict[str, Any]]:
    """The ``chunks`` documents of a processed judgment, in ordinal order."""
    j = processed.judgment
    shared = {"judgment_id": j.judgment_id, "title": j.title, **_filters(j)}
    docs = []
    for chunk, vector in zip(processed.chunks, processed.chunk_vectors, strict=True):
        stored = _vector(vector)
        docs.append({**shared, **chunk_document(chunk), **({"vector": stored} if stored is not None else {})})
    return docs


def provision_document(provision: Provision, vector: np.ndarray, content_hash: str,
                       now: dt.datetime | None = None) -> dict[str, Any]:
    """The ``provisions`` document of a statute provision."""
    return {
        "provision_id": provision.provision_id,
        "source": provision.source,
        "content_hash": content_hash,
        "act": provision.act,
        "section": provision.section,
        "citation": provision.citation,
        "chapter": provision.chapter,
        "title": provision.title,
        "text": provision.text,
        "language": "en",
        "indexed_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        "vector": _vector(vector),
    }
