"""``ratio bench scale`` on the sample corpus as its source: a row per step, the scale indices dropped at the end
(or kept with --keep), and nothing under another prefix touched, not even one that starts with the same letters."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner

from ratio.cli import cli


@pytest.fixture
def scale_prefix(client):
    """A throwaway scale prefix, and a neighbour index whose name starts with it (``PREFIX`` + ``x``): a drop by a
    loose pattern would take the neighbour too. Both are deleted afterwards, whatever the test left."""
    prefix = f"scale-cli-{uuid.uuid4().hex[:8]}"  # a scale corpus's prefix starts with scale
    neighbour = f"{prefix}x-judgments-v1"
    client.indices.create(index=neighbour, body={"settings": {"number_of_replicas": 0}})
    client.index(index=neighbour, id="keep-me", body={"judgment_id": "keep-me"}, refresh=True)
    yield prefix
    client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)
    client.indices.delete(index=neighbour, ignore_unavailable=True)


def _run(opensearch_settings, aliases, shared_data, prefix: str, steps: str, *extra: str):
    source = aliases["judgments"].removesuffix("-judgments")
    return CliRunner().invoke(cli, ["--url", opensearch_settings.url, "bench", "scale", "--source", source,
                                    "--prefix", prefix, "--steps", steps, "--no-server", "--data", str(shared_data),
                                    "--json", *extra], catch_exceptions=False)


def _indices(client, prefix: str) -> list[str]:
    return sorted(client.indices.get(index=f"{prefix}-*", ignore_unavailable=True, allow_no_indices=True))


def test_a_row_per_step_and_the_scale_indices_dropped(client, opensearch_settings, aliases, shared_data,
                                                     scale_prefix) -> None:
    before = client.count(index=aliases["judgments"])["count"]
    result = _run(opensearch_settings, aliases, shared_data, scale_prefix, "20,30", "--queries", "2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["judgments"] for row in data["steps"]] == [20, 30] and data["kept"] is False
    for row in data["steps"]:
        assert row["chunks"] > row["judgments"] and row["bytes_per_judgment"] > 0 and row["build_s"] >= 0
        assert set(row["latency"]) == {"typed", "pasted", "document"}
        assert 0 < row["latency"]["typed"]["ranker"]["p50_ms"] <= row["latency"]["typed"]["ranker"]["p95_ms"]
        assert row["ranker_per_bm25_page"]["typed"] > 0 and row["stages_ms"]["features"] > 0
        assert row["snapshot_s"] > 0  # the graph's snapshot, written as ratio index writes it
    assert _indices(client, scale_prefix) == []  # dropped
    assert client.count(index=aliases["judgments"])["count"] == before  # the source untouched
    assert client.get(index=f"{scale_prefix}x-judgments-v1", id="keep-me")["found"]  # the neighbour too


def test_keep_keeps_the_scale_indices(client, opensearch_settings, aliases, shared_data, scale_prefix) -> None:
    result = _run(opensearch_settings, aliases, shared_data, scale_prefix, "30", "--queries", "1", "--keep",
                  "--shards", "2")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kept"] is True and json.loads(result.stdout)["shards"] == 2
    kept = _indices(client, scale_prefix)
    assert any("judgments" in name for name in kept) and any("chunks" in name for name in kept)
    assert client.count(index=f"{scale_prefix}-judgments")["count"] == 30
    settings = client.indices.get_settings(index=f"{scale_prefix}-chunks")
    assert {int(v["settings"]["index"]["number_of_shards"]) for v in settings.values()} == {2}  # --shards


def test_a_step_too_big_for_the_disk_is_refused_before_anything_is_written(
        client, opensearch_settings, aliases, shared_data, scale_prefix) -> None:
    source = aliases["judgments"].removesuffix("-judgments")
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "bench", "scale", "--source", source,
                                      "--prefix", scale_prefix, "--steps", "20,1000000000000", "--no-server",
                                      "--data", str(shared_data)])
    assert result.exit_code == 1 and "not run, nothing written" in result.output, result.output
    assert _indices(client, scale_prefix) == []
