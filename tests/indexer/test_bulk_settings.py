"""The indexer puts back what it switched for speed (``refresh_interval: -1``) on the real node: after a run, after a
run that raises midway (an error of its input, Ctrl-C from its progress hook), and at the start of the next run
when a killed run left it switched (its note on the index says the value to put back); a run in progress is left
alone. Issue 29, item 4: a reset ``refresh_interval`` was left at -1 by every ``ratio index FILE``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices
from indexer import bulk_settings
from indexer.document import Judgment, LoadError, Provision
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter, written_indices
from ratio.cli import cli

ROOT = Path(__file__).resolve().parents[2]
FILES = [str(ROOT / "samples" / "aila-2019" / "judgments" / name) for name in ("C1.txt", "C3.txt", "C5.txt")]
REFRESH = "index.refresh_interval"


@pytest.fixture(scope="module")
def pipeline(static_encoder) -> Pipeline:
    return Pipeline(RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER))


@pytest.fixture
def aliases(client: OpenSearch, layout: IndexLayout) -> dict[str, str]:
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    return layout.aliases()


def state(client: OpenSearch, aliases: dict[str, str]) -> dict[str, tuple[str | None, dict | None]]:
    """Each written index's explicit refresh interval (None: the index default) and its bulk-load note."""
    indices = written_indices(aliases)
    settings = client.indices.get_settings(index=indices, params={"flat_settings": "true"})
    metas = client.indices.get_mapping(index=indices)
    return {index: (body["settings"].get(REFRESH), metas[index]["mappings"]["_meta"].get(bulk_settings.NOTE))
            for index, body in settings.items()}


def set_interval(client: OpenSearch, aliases: dict[str, str], value: str | None) -> None:
    client.indices.put_settings(index=written_indices(aliases), body={REFRESH: value})


@pytest.mark.parametrize("before", ["7s", None], ids=["custom", "reset"])
def test_a_run_puts_back_what_it_found(client: OpenSearch, aliases, pipeline, before) -> None:
    set_interval(client, aliases, before)
    during: list[dict] = []
    writer = IndexWriter(client, aliases, pipeline, batch_size=1,
                         progress=lambda what, count: during.append(state(client, aliases)))
    report = writer.run(load(FILES))
    assert report.failed == [] and report.judgments_indexed == 3 and report.leftovers == []
    # switched while it ran, each index noting the value to put back ...
    assert during and all(value == "-1" and note["settings"] == {REFRESH: before}
                          for value, note in during[0].values())
    # ... and put back after: the reset interval (the probe of issue 29) stays the index default, not -1
    assert set(state(client, aliases).values()) == {(before, None)}
    meta = client.indices.get_mapping(index=aliases["chunks"])
    assert next(iter(meta.values()))["mappings"]["_meta"]["encoder"] == STATIC_ENCODER  # the rest of _meta kept


def _failing_input() -> Iterator[Judgment | Provision | LoadError]:
    items = load(FILES)
    yield next(items)
    raise RuntimeError("the loader broke")


def _interrupt(what: str, count: int) -> None:
    raise KeyboardInterrupt  # Ctrl-C while the first batch is committed


@pytest.mark.parametrize("how", ["loader error", "ctrl-c"])
def test_a_run_that_raises_puts_back_what_it_found(client: OpenSearch, aliases, pipeline, how) -> None:
    set_interval(client, aliases, "7s")
    if how == "loader error":
        writer, items, expected = IndexWriter(client, aliases, pipeline, batch_size=1), _failing_input(), RuntimeError
    else:
        writer, items, expected = (IndexWriter(client, aliases, pipeline, batch_size=1, progress=_interrupt),
                                   load(FILES), KeyboardInterrupt)
    with pytest.raises(expected):
        writer.run(items)
    assert set(state(client, aliases).values()) == {("7s", None)}


def test_a_leftover_is_put_back_and_reported(client: OpenSearch, opensearch_settings, aliases) -> None:
    set_interval(client, aliases, "7s")
    # a run that switched the settings and died before putting them back: a real process, gone when this goes on
    killed = subprocess.run(
        [sys.executable, "-c", "import sys; from opensearchpy import OpenSearch; from indexer import bulk_settings; "
                               "bulk_settings.pause(OpenSearch(sys.argv[1]), sys.argv[2])",
         opensearch_settings.url, written_indices(aliases)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert killed.returncode == 0, killed.stderr
    left = state(client, aliases)
    assert {(value, note["settings"][REFRESH]) for value, note in left.values()} == {("-1", "7s")}
    (pid,) = {note["pid"] for _, note in left.values()}

    prefix = aliases["chunks"].removesuffix("-chunks")
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "index", FILES[0]],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    found = [line for line in result.stderr.splitlines() if line.startswith("bulk settings: ")]
    assert len(found) == 3 and all(f"refresh_interval 7s put back, left switched by an interrupted run (process {pid} "
                                   "on " in line for line in found), found
    assert set(state(client, aliases).values()) == {("7s", None)}


@pytest.mark.parametrize("holder", ["this host", "another host"])
def test_a_run_in_progress_is_left_alone(client: OpenSearch, aliases, pipeline, holder) -> None:
    set_interval(client, aliases, "7s")
    other = bulk_settings.Holder.this_process()
    if holder == "another host":
        other = bulk_settings.Holder("elsewhere.example", 1, other.started, "elsewhere-1")
    running = bulk_settings.pause(client, written_indices(aliases), other)
    try:
        report = IndexWriter(client, aliases, pipeline).run(load(FILES[:1]))
        assert report.judgments_indexed == 1 and len(report.leftovers) == 3
        assert all("switched by a run in progress" in line and str(other) in line for line in report.leftovers)
        assert ("on another host" in report.leftovers[0]) is (holder == "another host")
        assert {value for value, _ in state(client, aliases).values()} == {"-1"}  # still that run's
        if holder == "another host":  # gone, its pause ended by hand: the note left behind is stale
            set_interval(client, aliases, None)
            again = IndexWriter(client, aliases, pipeline).run(load(FILES[:1]))
            assert again.leftovers == [] and set(state(client, aliases).values()) == {(None, None)}
    finally:
        bulk_settings.restore(client, running)
    assert set(state(client, aliases).values()) == {("7s", None)}


def test_a_switched_index_with_no_note_goes_back_to_the_default(client: OpenSearch, aliases, pipeline) -> None:
    set_interval(client, aliases, "-1")  # as a run of a Ratio before the note left it, or a hand
    report = IndexWriter(client, aliases, pipeline).run(load(FILES[:1]))
    assert len(report.leftovers) == 3 and all("no run recorded: back to the index default" in line
                                              for line in report.leftovers)
    assert report.as_dict()["leftovers"] == report.leftovers
    assert set(state(client, aliases).values()) == {(None, None)}
