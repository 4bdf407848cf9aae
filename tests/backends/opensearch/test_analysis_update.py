"""``ratio indices analysis``: the current analysis settings put on existing indices in place (issue 29).

Indices keep the analysis they were created with; the linear char filters reach an index made before them by
closing it, updating ``index.analysis`` and opening it again. The tokens are the same, so what was indexed before
still matches, and a run of combining marks stops costing the node seconds.
"""

from __future__ import annotations

import time

from click.testing import CliRunner
from opensearchpy import OpenSearch

import analyzers
import mappings
from backends.opensearch import IndexLayout, create_indices
from backends.opensearch.indices import current_index, update_analysis
from ratio.cli import cli

OLD_SECTION = r"(?i)(?:\bsections?|\bsecs?\.?|\bss?\.|\bu/s\.?|§§?)\s*(\d{1,4}[A-Za-z]{0,3})\b"  # before issue 29
MARKS = "a" + "\u0301" * 12_000


def _analyze_seconds(client: OpenSearch, index: str) -> float:
    started = time.perf_counter()
    client.indices.analyze(index=index, body={"analyzer": "ratio_text", "text": MARKS}, params={"request_timeout": 120})
    return time.perf_counter() - started


def test_an_index_made_with_the_old_char_filters_gets_the_linear_ones_in_place(client: OpenSearch,
                                                                             layout: IndexLayout,
                                                                             opensearch_settings) -> None:
    create_indices(client, layout, mappings.IndexOptions(dimension=384), kinds=("judgments",))
    index = current_index(client, layout, "judgments")
    client.indices.close(index=index)
    client.indices.put_settings(index=index, body={"index": {"analysis": {"char_filter": {"ratio_section": {
        "type": "pattern_replace", "pattern": OLD_SECTION, "replacement": " section_$1 "}}}}})
    client.indices.open(index=index)
    client.cluster.health(index=index, wait_for_status="yellow")
    client.index(index=index, id="j1", body={"judgment_id": "j1", "text": "convicted under s. 302 IPC"}, refresh=True)
    before = _analyze_seconds(client, index)

    assert update_analysis(client, layout, kinds=("judgments", "chunks")) == {"judgments": index, "chunks": None}
    stored = client.indices.get_settings(index=index)[index]["settings"]["index"]["analysis"]["char_filter"]
    current = analyzers.analysis_settings()["char_filter"]
    assert stored["ratio_section"]["pattern"] == current["ratio_section"]["pattern"]
    after = _analyze_seconds(client, index)
    assert after < 1.0 and after < before / 5, (before, after)
    found = client.search(index=layout.alias("judgments"), body={"query": {"match": {"text": "Section 302"}}})
    assert [hit["_id"] for hit in found["hits"]["hits"]] == ["j1"]  # indexed before, matched after

    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "indices",
                                      "analysis", "judgments"], catch_exceptions=False)
    assert result.exit_code == 0 and f"judgments: {index} updated" in result.output, result.output
