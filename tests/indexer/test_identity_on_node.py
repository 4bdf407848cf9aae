"""Identity on the real node (issue 16, rows 2 and 3): one bad id fails alone, a bulk request the cluster refuses
whole is split until the culprit is alone, and a judgment is replaced only by its own source file (or with
``replace``); the report's counts are what the index holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import load_encoder
from backends.opensearch import IndexLayout, create_indices
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexReport, IndexWriter

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"


def judgment_text(title: str, n: int) -> str:
    return (f"{title}\nSupreme Court of India\n\n{n} March 2001\n\nCriminal Appeal No. {n} of 2001\n\n"
            "The appellant was convicted under section 302 IPC by the trial court. The High Court confirmed the "
            f"conviction. The question in appeal {n} is whether the dying declaration can be relied upon. "
            "We have heard learned counsel for both sides. The appeal is dismissed.\n")


@pytest.fixture(scope="module")
def labeller(embedding_cache: Path) -> RoleLabeller:
    return RoleLabeller.load(load_encoder(), cache_dir=embedding_cache)


@pytest.fixture
def aliases(client: OpenSearch, layout: IndexLayout) -> dict[str, str]:
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    return layout.aliases()


def writer(client: OpenSearch, aliases: dict[str, str], labeller: RoleLabeller, **options) -> IndexWriter:
    return IndexWriter(client, aliases, Pipeline(labeller), batch_size=10, **options)


def run(w: IndexWriter, *paths: Path) -> IndexReport:
    return w.run(load([str(p) for p in paths]))


def stored_ids(client: OpenSearch, alias: str) -> set[str]:
    hits = client.search(index=alias, body={"size": 1000, "_source": False})["hits"]["hits"]
    return {hit["_id"] for hit in hits}


def test_a_600_byte_id_fails_alone_and_the_batch_is_written(client: OpenSearch, aliases: dict[str, str],
                                                              labeller: RoleLabeller, tmp_path: Path) -> None:
    records = [{"id": f"J{n}", "text": judgment_text(f"Party {n} v State", n)} for n in range(8)]
    records.insert(4, {"id": "x" * 600, "text": judgment_text("Long v State", 99)})
    (tmp_path / "batch.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    shutil.copy(SAMPLES / "C1.txt", tmp_path)  # a plain file in the same batch of ten

    report = run(writer(client, aliases, labeller), tmp_path)

    assert report.failed == [(f"{tmp_path / 'batch.jsonl'}#line 5",
                              report.failed[0][1])], report.failed
    assert "600 bytes" in report.failed[0][1] and "over the limit" in report.failed[0][1]
    assert report.judgments_indexed == 9 == client.count(index=aliases["judgments"])["count"]
    assert stored_ids(client, aliases["judgments"]) == {"C1", *(f"J{n}" for n in range(8))}


def test_a_bulk_request_refused_whole_is_split_to_its_culprit(client: OpenSearch, aliases: dict[str, str],
                                                              labeller: RoleLabeller) -> None:
    """Past the writer's own id check (a caller's raw actions): the cluster refuses the whole request with a
    400; the writer splits it until the bad action is alone, and the other actions are written."""
    w = writer(client, aliases, labeller)
    index = aliases["judgments"]
    actions = [{"_op_type": "index", "_index": index, "_id": f"ok{n}", "_source": {"judgment_id": f"ok{n}"}}
               for n in range(7)]
    actions.insert(3, {"_op_type": "index", "_index": index, "_id": "y" * 600, "_source": {"judgment_id": "y"}})
    results: list = []
    w._bulk(actions, results, IndexReport())
    outcome = {next(iter(item.values()))["_id"]: (ok, item) for ok, item in results}
    assert len(results) == 8 and set(outcome) == {"y" * 600, *(f"ok{n}" for n in range(7))}
    ok, item = outcome["y" * 600]
    assert not ok and item["index"]["status"] == 400 and "too long" in item["index"]["error"]
    assert all(outcome[f"ok{n}"][0] for n in range(7))
    client.indices.refresh(index=index)
    assert stored_ids(client, index) == {f"ok{n}" for n in range(7)}


def test_collisions_within_a_run_name_both_files(client: OpenSearch, aliases: dict[str, str],
                                                 labeller: RoleLabeller, tmp_path: Path) -> None:
    for folder, title in (("a", "Alpha v State"), ("b", "Beta v State")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "X1.txt").write_text(judgment_text(title, 1))
    (tmp_path / "判决一.txt").write_text(judgment_text("Gamma v State", 2))
    (tmp_path / "判决二.txt").write_text(judgment_text("Delta v State", 3))

    report = run(writer(client, aliases, labeller), tmp_path)

    assert [(Path(item).relative_to(tmp_path).as_posix(), reason) for item, reason in report.failed] == [
        ("b/X1.txt", f"id 'X1' is also the id of {tmp_path / 'a' / 'X1.txt'}, read earlier in this run: rename one, or "
                     "index them under different --id-prefix values")]
    assert stored_ids(client, aliases["judgments"]) == {"X1", "判决一", "判决二"}
    assert report.judgments_indexed == 3 == client.count(index=aliases["judgments"])["count"]
    x1 = client.get(index=aliases["judgments"], id="X1")["_source"]
    assert x1["title"] == "Alpha v State" and x1["source_path"] == str(tmp_path / "a" / "X1.txt")


def test_another_file_never_silently_replaces_a_stored_judgment(client: OpenSearch, aliases: dict[str, str],
                                                                labeller: RoleLabeller, tmp_path: Path) -> None:
    samples = tmp_path / "samples"
    samples.mkdir()
    shutil.copy(SAMPLES / "C1.txt", samples)
    first = run(writer(client, aliases, labeller), samples)
    assert first.judgments_indexed == 1
    before = client.get(index=aliases["judgments"], id="C1")["_source"]
    chunks = client.count(index=aliases["chunks"])["count"]

    coll = tmp_path / "coll"
    coll.mkdir()
    (coll / "C1.txt").write_text(judgment_text("Impostor v State", 7))
    refused = run(writer(client, aliases, labeller), coll)
    assert refused.judgments_indexed == 0
    assert refused.failed == [(str(coll / "C1.txt"), f"id 'C1' is already indexed from another file, "
                               f"{samples / 'C1.txt'}: rename one file, index this one under another --id-prefix, "
                               "or pass --replace to replace the stored judgment")]
    after = client.get(index=aliases["judgments"], id="C1")["_source"]
    assert after["content_hash"] == before["content_hash"] and after["title"] == before["title"]
    assert client.count(index=aliases["chunks"])["count"] == chunks, "no chunk of C1 was touched"

    # the same file, changed: an update replaces its own judgment (from another working directory too)
    (samples / "C1.txt").write_text((SAMPLES / "C1.txt").read_text() + "\nThe appeal is allowed.\n")
    updated = run(writer(client, aliases, labeller), Path("../" * 40 + str(samples).lstrip("/")))
    assert updated.failed == [] and updated.judgments_indexed == 1

    replaced = run(writer(client, aliases, labeller, replace=True), coll)
    assert replaced.failed == [] and replaced.judgments_indexed == 1
    assert replaced.warnings == [(str(coll / "C1.txt"), f"replaced 'C1', indexed from {samples / 'C1.txt'}")]
    now = client.get(index=aliases["judgments"], id="C1")["_source"]
    assert now["title"] == "Impostor v State" and now["source_path"] == str(coll / "C1.txt")
    client.indices.refresh(index=aliases["chunks"])
    assert client.count(index=aliases["chunks"])["count"] == now["n_chunks"], "the longer C1's chunks are gone"
    assert client.count(index=aliases["judgments"])["count"] == 1


def test_the_cli_exits_1_when_every_item_failed_and_refuses_nonsense_numbers(opensearch_settings,
                                                                             layout: IndexLayout,
                                                                             tmp_path: Path) -> None:
    from ratio.cli import cli

    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "binary.txt").write_bytes(bytes(range(256)))
    base = ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index"]
    result = CliRunner().invoke(cli, [*base, str(tmp_path), "--json"])
    assert result.exit_code == 1, result.output
    assert "empty.txt" in result.output and "binary" in result.output and "Traceback" not in result.output

    for option, value in (("--max-file-mb", "-1"), ("--max-file-mb", "0"), ("--batch-size", "0"),
                          ("--window", "0"), ("--overlap", "-1"), ("--block-size", "0")):
        refused = CliRunner().invoke(cli, [*base, str(tmp_path), option, value])
        assert refused.exit_code == 2 and f"Invalid value for '{option}'" in refused.output, (option, refused.output)
    refused = CliRunner().invoke(cli, [*base, str(tmp_path), "--window", "3", "--overlap", "3"])
    assert refused.exit_code == 2 and "smaller than the window" in refused.output
    refused = CliRunner().invoke(cli, [*base, str(tmp_path), "--id-prefix", "a/b"])
    assert refused.exit_code == 2 and "--id-prefix" in refused.output
