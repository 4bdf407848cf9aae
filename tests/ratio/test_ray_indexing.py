"""``ratio index --ray``: the samples indexed as a Ray Data job on a small local Ray instance give the very
documents the single-machine path gives (same ids, chunks, roles, vectors), and a re-run changes nothing.

Ray comes with the ``ray`` extra, which ``make test`` installs (scripts/setup.sh); the test fails without it.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import ConnectionSettings, IndexLayout, create_indices
from indexer.loaders import load
from indexer.writer import IndexWriter
from ratio.ingest import PipelineRecipe

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"
KINDS = ("judgments", "chunks", "provisions")


def _aliases(client: OpenSearch, prefix: str) -> dict[str, str]:
    layout = IndexLayout(prefix)
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    return layout.aliases()


def _documents(client: OpenSearch, alias: str) -> dict[str, dict[str, Any]]:
    """Every document of ``alias`` by id, without ``indexed_at`` (the time of writing, which differs)."""
    hits = client.search(index=alias, body={"size": 1000, "query": {"match_all": {}}})["hits"]["hits"]
    assert len(hits) < 1000
    return {hit["_id"]: {k: v for k, v in hit["_source"].items() if k != "indexed_at"} for hit in hits}


@pytest.fixture(scope="module")
def both(client: OpenSearch, opensearch_settings: ConnectionSettings, static_encoder):
    import ray

    from indexer.ray_ingest import RaySettings, local_ray, run_on_ray

    base = f"ratio-test-ray-{uuid.uuid4().hex[:8]}"
    single, distributed = _aliases(client, f"{base}-one"), _aliases(client, f"{base}-ray")
    recipe = PipelineRecipe(STATIC_ENCODER)
    try:
        one = IndexWriter(client, single, recipe(), batch_size=5).run(load([str(SAMPLES)]))
        local_ray(num_cpus=2)
        try:
            # small blocks and batches, so that blocks and batches split the corpus differently from above
            ray_settings = RaySettings(workers=1, block_size=7, batch_size=3)
            first = run_on_ray([str(SAMPLES)], make_pipeline=recipe, connection=opensearch_settings,
                               aliases=distributed, settings=ray_settings)
            again = run_on_ray([str(SAMPLES)], make_pipeline=recipe, connection=opensearch_settings,
                               aliases=distributed, settings=ray_settings)
        finally:
            ray.shutdown()
        yield single, distributed, one, first, again
    finally:
        client.indices.delete(index=f"{base}-*")


def test_ray_job_writes_the_same_documents(client: OpenSearch, both) -> None:
    single, distributed, one, first, _ = both
    assert one.failed == [] and first.report.failed == [] and first.report.stopped is None
    assert first.report.judgments_indexed == one.judgments_indexed == 18
    assert first.report.provisions_indexed == one.provisions_indexed == 18
    assert first.report.chunks_indexed == one.chunks_indexed and first.report.sentences == one.sentences
    for kind in KINDS:
        expected, got = _documents(client, single[kind]), _documents(client, distributed[kind])
        assert sorted(got) == sorted(expected), kind
        different = [doc_id for doc_id in expected if got[doc_id] != expected[doc_id]]
        assert different == [], f"{kind}: {different[:5]}"
    chunks = _documents(client, distributed["chunks"])
    assert len({doc["role"] for doc in chunks.values()}) > 3  # real labels, not one default
    # refresh was paused by the driver and is back on afterwards
    settings = client.indices.get_settings(index=distributed["chunks"], params={"flat_settings": "true"})
    assert all(body["settings"].get("index.refresh_interval") != "-1" for body in settings.values())


def test_ray_report_gives_throughput_per_worker(both) -> None:
    _, _, _, first, _ = both
    workers = first.workers
    assert len(workers) == 1 and workers[0].judgments == 18 and workers[0].blocks >= 3
    assert workers[0].sentences == first.report.sentences and workers[0].judgments_per_s > 0
    data = first.as_dict()
    assert data["ray"]["workers"][0]["judgments"] == 18 and data["judgments_indexed"] == 18


def test_ray_rerun_changes_nothing(both) -> None:
    *_, again = both
    assert again.report.judgments_indexed == 0 and again.report.judgments_unchanged == 18
    assert again.report.provisions_unchanged == 18 and again.report.failed == []


def test_default_path_does_not_import_ray() -> None:
    code = ("import sys; from click.testing import CliRunner; from ratio.cli import cli; "
            "r = CliRunner().invoke(cli, ['index', '--help']); assert r.exit_code == 0, r.output; "
            "assert '--ray' in r.output; assert 'ray' not in sys.modules, 'ray imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr


def test_a_pool_must_leave_room_for_the_reads() -> None:
    from indexer.ray_ingest import RaySettings, _check_room

    _check_room(RaySettings(workers=1), 2.0)
    _check_room(RaySettings(workers=2, cpus_per_worker=0.75), 2.0)
    with pytest.raises(ValueError, match="--ray-workers"):  # two whole-CPU actors would starve the read tasks
        _check_room(RaySettings(workers=2), 2.0)
