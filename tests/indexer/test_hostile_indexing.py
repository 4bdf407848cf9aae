"""The hostile corpus through ``ratio index`` on the real node: every file ends indexed or refused with its
reason, the rest of the batch is written, and a judgment over its time budget fails alone."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices
from indexer.budget import OverBudget
from indexer.document import Judgment
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from lab.hostile import hostile_inputs, write_inputs
from ratio.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"


def test_hostile_corpus_is_indexed_or_refused_with_reasons(opensearch_settings, client: OpenSearch,
                                                           static_encoder, tmp_path: Path) -> None:
    inputs = hostile_inputs(size=20_000, body_size=100_000)
    folder = tmp_path / "hostile"
    write_inputs(folder, inputs)
    for name in ("C1.txt", "C3.txt"):
        shutil.copy(SAMPLES / name, folder / name)
    # 20 sentences of one 2,000-character token: chunks with no word the encoder knows, so a zero vector
    (folder / "no-words.txt").write_text("A" * 40_000 + "\n\nThe appeal is dismissed.\n", encoding="utf-8")
    prefix = f"ratio-test-hostile-{uuid.uuid4().hex[:8]}"
    try:
        result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "index", str(folder),
                                          "--encoder", STATIC_ENCODER, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        refused = {Path(f["item"].split("#")[0]).name: f["reason"] for f in report["failed"]}
        assert set(refused) == {i.filename for i in inputs if i.expect == "error"}, report["failed"]
        assert refused["nul-after-8k.txt"] == "binary file (a NUL byte at byte 9200), not text"
        assert "nested too deeply" in refused["deep.json"] and "nested too deeply" in refused["deep.jsonl"]
        expected = [i for i in inputs if i.expect == "judgment"]
        assert report["judgments_indexed"] == len(expected) + 3
        warned = {Path(w["item"]).name: w["warning"] for w in report["warnings"]}
        assert warned["ansi-after-8k.txt"] == "removed 3 control characters or terminal escape sequences"
        client.indices.refresh(index=f"{prefix}-*")
        stored = client.get(index=f"{prefix}-judgments", id="capital-run")["_source"]
        assert "Kesavananda Bharati v. State of Kerala" in stored["cited_judgments"]
        assert "IPC s. 302" in stored["cited_provisions"]
        assert stored["n_sentences"] >= 20_000 // 2_000
        chunks = client.search(index=f"{prefix}-chunks", body={"query": {"term": {"judgment_id": "no-words"}},
                                                             "_source": ["vector"], "size": 10})["hits"]["hits"]
        assert chunks and any("vector" not in hit["_source"] for hit in chunks)
    finally:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)


def test_judgment_over_its_time_budget_fails_alone(client: OpenSearch, static_encoder) -> None:
    labeller = RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)
    judgments = [j for j in load([SAMPLES / "C1.txt", SAMPLES / "C3.txt"]) if isinstance(j, Judgment)]
    with pytest.raises(OverBudget, match=r"^took more than 1e-09 s in sentence splitting$"):
        Pipeline(labeller, judgment_seconds=1e-9).process(judgments[0])
    assert Pipeline(labeller).process(judgments[0]).chunks  # the default budget (30 s) is far from C1's time
    layout = IndexLayout(f"ratio-test-budget-{uuid.uuid4().hex[:8]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    try:
        aliases = layout.aliases()
        report = IndexWriter(client, aliases, Pipeline(labeller, judgment_seconds=1e-9)).run(iter(judgments))
        assert report.judgments_indexed == 0
        assert report.failed == [(j.source_path, "processing failed: OverBudget: took more than 1e-09 s in sentence "
                                                 "splitting") for j in judgments]
        with pytest.raises(ValueError, match="positive"):
            Pipeline(labeller, judgment_seconds=0)
    finally:
        client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


def test_judgment_seconds_must_be_positive(opensearch_settings) -> None:
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", "ratio-test-unused", "index",
                                      str(SAMPLES / "C1.txt"), "--judgment-seconds", "0"])
    assert result.exit_code == 2 and "--judgment-seconds" in result.output
