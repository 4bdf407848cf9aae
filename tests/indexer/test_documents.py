"""The bulk request's document lines: written by orjson, read by the node as what opensearch-py's own serializer
wrote before (the same values, field for field), and refused where a value has no JSON of its own."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from opensearchpy import JSONSerializer

from backends.encoders import STATIC_ENCODER
from indexer.document import Judgment
from indexer.documents import _vector, chunk_documents, judgment_document, source_json
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"


def test_every_sample_document_reads_as_the_standard_serializer_wrote_it(static_encoder) -> None:
    pipeline = Pipeline(RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER))
    judgments = [item for item in load([str(SAMPLES)]) if isinstance(item, Judgment)]
    assert len(judgments) >= 5
    standard = JSONSerializer()
    seen = 0
    for processed in pipeline.process_many(judgments):
        for doc in [judgment_document(processed), *chunk_documents(processed)]:
            line = source_json(doc)
            assert "\n" not in line  # one line of the bulk body
            assert json.loads(line) == json.loads(standard.dumps(doc))
            assert len(json.loads(line)["vector"]) == 256
            seen += 1
    assert seen > 30


def test_what_orjson_refuses_is_written_as_before() -> None:
    standard = JSONSerializer()
    for doc in ({"n": 2**70}, {"n": np.int64(3), "f": [np.float32(0.5)]}):
        assert source_json(doc) == standard.dumps(doc)


def test_a_vector_without_a_direction_is_not_stored() -> None:
    assert _vector(np.zeros(4, dtype=np.float32)) is None
    assert _vector(np.array([0.5, np.nan, 0.1], dtype=np.float32)) is None  # orjson would write NaN as null
    assert _vector(np.array([0.5, np.inf], dtype=np.float32)) is None
    assert _vector(np.array([0.6, 0.8], dtype=np.float32)) == [0.6, 0.8]
