"""The hostile corpus (tests/fixtures/hostile, issue 16 item 7) indexed on the real node: every bad item fails
alone with a reason that names it, every good item is indexed, and the report's counts are what the index
holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import load_encoder
from backends.opensearch import IndexLayout, create_indices
from indexer.loaders import LoadOptions, load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"

# file (relative to the corpus folder, with "#line N" for a record) -> words its failure reason must hold
BAD = {
    "collisions/b/X1.txt": ["'X1'", "collisions/a/X1.txt"],
    "collisions/space_name.txt": ["'space_name'", "collisions/space name.txt"],
    "empty.txt": ["empty"],
    "whitespace.txt": ["whitespace"],
    "binary.txt": ["binary"],
    "utf16-nobom.txt": ["binary", "NUL"],
    "bomb.txt.gz": ["unpacks to over the limit"],
    "broken.txt.gz": ["gzip"],
    "deep.json": ["nested too deeply"],
    "huge-line.txt": ["over the limit"],
    "records.jsonl#line 2": ["invalid JSON"],
    "records.jsonl#line 3": ["600 bytes", "over the limit"],
    "records.jsonl#line 5": ["text"],
    "records.jsonl#line 6": ["'R1'", "records.jsonl#line 1"],
    "records.jsonl#line 7": ["date"],
}
GOOD = {"X1", "space_name", "判决一", "判决二", "latin1", "R1", "R4", "R8"}


@pytest.fixture(scope="module")
def labeller(embedding_cache: Path) -> RoleLabeller:
    return RoleLabeller.load(load_encoder(), cache_dir=embedding_cache)


def test_hostile_corpus_fails_item_by_item(client: OpenSearch, layout: IndexLayout, labeller: RoleLabeller,
                                           tmp_path: Path) -> None:
    corpus = tmp_path / "hostile"
    shutil.copytree(HOSTILE, corpus)
    (corpus / "huge-line.txt").write_text("word " * 300_000)  # one 1.5 MB line, made here rather than committed
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    aliases = layout.aliases()
    writer = IndexWriter(client, aliases, Pipeline(labeller), batch_size=3)

    report = writer.run(load([str(corpus)], LoadOptions(max_bytes=1_000_000)))

    failed = {str(Path(item).relative_to(corpus)) if "#" not in item
              else f"{Path(item.split('#')[0]).relative_to(corpus)}#{item.split('#')[1]}": reason
              for item, reason in report.failed}
    assert set(failed) == set(BAD), failed
    for item, words in BAD.items():
        for word in words:
            assert word in failed[item], (item, failed[item])
    assert any(item.endswith("latin1.txt") and "cp1252" in warning for item, warning in report.warnings)

    stored = client.search(index=aliases["judgments"], body={"size": 100, "_source": ["source_path", "title"]})
    ids = {hit["_id"]: hit["_source"] for hit in stored["hits"]["hits"]}
    assert set(ids) == GOOD
    assert report.judgments_indexed == len(GOOD) == client.count(index=aliases["judgments"])["count"]
    assert ids["X1"]["source_path"] == str(corpus / "collisions" / "a" / "X1.txt")  # absolute: tmp_path is
    assert ids["R1"]["title"] == "Kappa v State", "the first record of an id is the one indexed"
    chunk_owners = client.search(index=aliases["chunks"], body={
        "size": 0, "aggs": {"ids": {"terms": {"field": "judgment_id", "size": 100}}}})["aggregations"]["ids"]["buckets"]
    assert {b["key"] for b in chunk_owners} == GOOD
    assert sum(b["doc_count"] for b in chunk_owners) == report.chunks_indexed

    again = writer.run(load([str(corpus)], LoadOptions(max_bytes=1_000_000)))
    assert again.judgments_unchanged == len(GOOD) and again.judgments_indexed == 0, "a re-run changes nothing"
    assert {item for item, _ in again.failed} == {item for item, _ in report.failed}
