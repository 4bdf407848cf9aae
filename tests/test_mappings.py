"""The index definitions and pipelines are data: they load, fill and validate without a cluster."""

from __future__ import annotations

import json

import pytest

import analyzers
import mappings

VECTOR_KINDS = ("judgments", "chunks", "provisions")


def test_every_index_body_is_complete_and_strict() -> None:
    for kind in mappings.INDEX_KINDS:
        body = mappings.index_body(kind, mappings.IndexOptions(dimension=768, engine="faiss"))
        assert "${" not in json.dumps(body), f"a placeholder was left unfilled in {kind}"
        assert "_document_fields" not in body, "the inheritance rule is resolved, not sent to OpenSearch"
        assert body["mappings"]["dynamic"] == "strict"


@pytest.mark.parametrize("kind", VECTOR_KINDS)
def test_every_vector_index_body_is_complete(kind: str) -> None:
    body = mappings.index_body(kind, mappings.IndexOptions(dimension=768, engine="faiss"))
    vector = body["mappings"]["properties"]["vector"]
    assert vector["dimension"] == 768
    assert vector["method"] == {"name": "hnsw", "space_type": "cosinesimil", "engine": "faiss",
                                "parameters": {"m": 16, "ef_construction": 100}}
    assert body["settings"]["index"]["knn"] is True
    assert body["mappings"]["dynamic"] == "strict"


def test_chunks_carry_role_ordinal_offsets_and_judgment_filters() -> None:
    props = mappings.index_body("chunks")["mappings"]["properties"]
    for field in ("judgment_id", "role", "ordinal", "sentence_start", "sentence_end", "char_start", "char_end",
                  "court", "decision_date", "judges", "cited_provisions"):
        assert field in props, field
    assert props["role"]["type"] == "keyword"
    assert props["text"]["fields"]["exact"]["analyzer"] == "ratio_exact"
    assert props["text"]["search_analyzer"] == "ratio_text_search"


def test_saved_searches_map_the_chunk_fields_they_percolate_and_no_vector() -> None:
    chunks = mappings.index_body("chunks")["mappings"]["properties"]
    body = mappings.index_body("saved_searches")
    props = body["mappings"]["properties"]
    assert props["query"] == {"type": "percolator"}
    for field in ("name", "query_text", "options", "webhook", "created_at"):
        assert field in props, field
    assert "vector" not in props and "knn" not in body["settings"]["index"]
    assert {name: spec for name, spec in props.items() if name in chunks} == {
        name: spec for name, spec in chunks.items() if name != "vector"}, "chunk fields are copied unchanged"
    assert set(mappings.document_fields("saved_searches")) == set(chunks) - {"vector"}
    assert mappings.document_fields("chunks") == ()


def test_analyzers_referenced_by_mappings_exist_in_every_language() -> None:
    used = set()
    for kind in mappings.INDEX_KINDS:
        text = json.dumps(mappings.index_body(kind))
        used |= {name for name in ("ratio_text", "ratio_text_search", "ratio_exact", "ratio_keyword") if name in text}
    for language in analyzers.LANGUAGES:
        settings = analyzers.analysis_settings(language)
        defined = set(settings["analyzer"]) | set(settings["normalizer"])
        assert used <= defined, (language, used - defined)


def test_synonyms_are_search_time_only() -> None:
    settings = analyzers.analysis_settings("en")
    assert "ratio_legal_synonyms" in settings["analyzer"]["ratio_text_search"]["filter"]
    assert "ratio_legal_synonyms" not in settings["analyzer"]["ratio_text"]["filter"]
    assert "ipc, indian penal code" in settings["filter"]["ratio_legal_synonyms"]["synonyms"]
    assert "no" not in settings["filter"]["ratio_english_stop"]["stopwords"]


def test_pipelines_fill_weights_in_sub_query_order() -> None:
    body = mappings.pipeline_body("ratio-hybrid-minmax", mappings.PipelineOptions(0.6, 0.4))
    processor = body["phase_results_processors"][0]["normalization-processor"]
    assert processor["normalization"]["technique"] == "min_max"
    assert processor["combination"] == {"technique": "arithmetic_mean", "parameters": {"weights": [0.6, 0.4]}}
    rrf = mappings.pipeline_body("ratio-hybrid-rrf")["phase_results_processors"][0]["score-ranker-processor"]
    assert rrf["combination"] == {"technique": "rrf", "rank_constant": 60}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mappings.IndexOptions(dimension=0), "dimension"),
        (lambda: mappings.IndexOptions(engine="nmslib2"), "engine"),
        (lambda: mappings.PipelineOptions(0.7, 0.7), "sum to 1"),
        (lambda: mappings.index_body("cases"), "unknown index kind"),
        (lambda: mappings.fill({"a": "${nope}"}, {}), "nope"),
        (lambda: analyzers.analysis_settings("xx"), "unknown analysis language"),
    ],
)
def test_bad_options_say_what_is_wrong(call, message: str) -> None:
    with pytest.raises((ValueError, KeyError), match=message):
        call()
