"""``ratio bench workers``, ``ratio bench embed`` and ``ratio bench cues`` on the sample judgments: real
processes, the real static encoder and role head, the packaged MiniLM; what they print is checked against what was
processed, and a folder with nothing to process is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lab.bench.embed import sentences_of
from ratio.cli import cli

JUDGMENTS = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"


def test_bench_workers_prints_one_line_per_worker_count(static_encoder) -> None:
    result = CliRunner().invoke(cli, ["bench", "workers", str(JUDGMENTS), "--workers", "1,2", "--limit", "2"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [line["workers"] for line in lines] == [1, 2]
    for line in lines:
        assert line["judgments_per_s_total"] > 0 and line["cpu_ms_per_judgment"] > 0
        assert abs(line["judgments_per_s_total"] - line["judgments_per_s_per_worker"] * line["workers"]) < 0.05
        assert line["sentences_per_judgment"] > 10  # the sample judgments run to hundreds of sentences
    bad = CliRunner().invoke(cli, ["bench", "workers", str(JUDGMENTS), "--workers", "0"])
    assert bad.exit_code != 0 and "positive integers" in bad.output


def test_bench_embed_counts_the_sentences_it_embedded(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench", "embed", str(JUDGMENTS), "--sentences", "120", "--cpu-sentences",
                                      "40"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{"):])
    judgments, texts = sentences_of(JUDGMENTS, 120)
    assert (out["judgments"], out["sentences"]) == (judgments, len(texts))
    assert len(texts) == 120 and judgments >= 1
    assert out["runs"]["cpu_threads1"] > 0
    empty = CliRunner().invoke(cli, ["bench", "embed", str(tmp_path)])
    assert empty.exit_code != 0 and "no sentences" in empty.output


def test_bench_cues_compares_every_sample_judgment_and_finds_no_difference(tmp_path: Path) -> None:
    files = sorted(JUDGMENTS.iterdir())
    result = CliRunner().invoke(cli, ["bench", "cues", str(JUDGMENTS)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{"):])
    assert report["judgments"] + report["load_errors"] == len(files) and report["judgments"] >= 10
    assert report["differing"] == [] and report["ascii"] == report["judgments"]
    assert report["re_ms"] > 0 and report["re2_ms"] > 0
    limited = json.loads(CliRunner().invoke(cli, ["bench", "cues", str(JUDGMENTS), "--limit", "2"]).output)
    assert limited["judgments"] == 2
    empty = CliRunner().invoke(cli, ["bench", "cues", str(tmp_path)])
    assert empty.exit_code != 0 and "no judgment could be read" in empty.output
