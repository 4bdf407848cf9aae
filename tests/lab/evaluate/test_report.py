"""The report's three files: the Markdown table and marker, the JSON document and the plot."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lab.evaluate import DEFAULT_MEASURES, Evaluation, ReportFiles, write_report

GENERATED = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QIDS = [f"Q{i}" for i in range(1, 7)]


def scores(maps: list[float], missing: tuple[str, ...] = ()) -> Evaluation:
    """Every measure equal to the query's MAP, halved for P@10, so the columns can be told apart."""
    per_query = {qid: {m: value / 2 if m == "P@10" else value for m in DEFAULT_MEASURES}
                 for qid, value in zip(QIDS, maps, strict=True)}
    mean = {m: math.fsum(per_query[qid][m] for qid in QIDS) / len(QIDS) for m in DEFAULT_MEASURES}
    return Evaluation(DEFAULT_MEASURES, per_query, mean, missing)


BASE = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]  # mean 0.35
BETTER = [b + d for b, d in zip(BASE, [0.10, 0.12, 0.11, 0.13, 0.10, 0.12], strict=True)]  # mean 0.35 + 0.68/6
NOISY = [b + d for b, d in zip(BASE, [0.1, -0.1, 0.05, -0.05, 0.0, 0.0], strict=True)]  # mean 0.35
SHIFTED = [b + 0.05 for b in BASE]  # +0.05 everywhere: t-test undefined (p 1), permutation p 2/64; not marked
RESULTS = [
    ("bm25", {"mode": "bm25", "size": 100}, scores(BASE)),
    ("hybrid", {"mode": "hybrid", "weights": [0.7, 0.3]}, scores(BETTER)),
    ("noisy|run", {"mode": "knn"}, scores(NOISY, missing=("Q6",))),
    ("shifted", {}, scores(SHIFTED)),
]
INFO = {"command": "ratio eval aila --size 100", "queries": "Query_doc.txt (50, 30 judged)"}
NOTES = ["20 queries have no judgments and were skipped."]


def report(out: Path, results: list = RESULTS) -> ReportFiles:
    return write_report(out, "AILA 2019 precedents", INFO, results, "bm25", NOTES, generated=GENERATED)


def test_the_three_files_are_written(tmp_path: Path) -> None:
    files = report(tmp_path / "out")
    assert (files.markdown.name, files.json.name, files.plot.name) == ("report.md", "report.json", "per_query_ap.png")
    assert all(path.parent == tmp_path / "out" and path.stat().st_size > 0 for path in files.__dict__.values())
    assert files.plot.read_bytes().startswith(PNG_MAGIC)


def test_markdown_table_rows_marker_and_header(tmp_path: Path) -> None:
    text = report(tmp_path).markdown.read_text(encoding="utf-8")
    assert text.startswith("# AILA 2019 precedents\n\nGenerated 2025-03-01 09:30 UTC.\n")
    assert "| command | ratio eval aila --size 100 |" in text
    assert ("| configuration | MAP | P@10 | Bpref | MRR | nDCG@10 | R@100 | R@1000 | p MAP (t-test) | p MAP (perm.) "
            "| no results |") in text
    assert "| bm25 (baseline) | 0.3500 | 0.1750 | 0.3500 | 0.3500 | 0.3500 | 0.3500 | 0.3500 | – | – | 0 |" in text
    # hybrid: +0.10..0.13 on every query, t-test p far below 0.05 -> marked; 6 queries: exact permutation p = 2/64
    hybrid = next(line for line in text.splitlines() if line.startswith("| hybrid |"))
    assert hybrid.startswith("| hybrid | 0.4633† | 0.2317 | 0.4633 |")
    assert hybrid.endswith("| <0.0001 | 0.0312 | 0 |")
    # the noisy run: mean difference 0, not marked; its name's bar is escaped so the table keeps its columns
    noisy = next(line for line in text.splitlines() if line.startswith("| noisy"))
    assert noisy.startswith("| noisy\\|run | 0.3500 | 0.1750 |")
    assert noisy.endswith("| 1 |") and "†" not in noisy
    assert "| shifted | 0.4000 | 0.2000 | 0.4000 | 0.4000 | 0.4000 | 0.4000 | 0.4000 | 1.0000 | 0.0312 | 0 |" in text
    assert "† MAP differs from the baseline `bm25` with p < 0.05" in text
    assert '- **hybrid**: `{"mode": "hybrid", "weights": [0.7, 0.3]}`' in text
    assert "- 20 queries have no judgments and were skipped." in text
    assert "](per_query_ap.png)" in text


def test_json_is_machine_readable_with_sorted_keys(tmp_path: Path) -> None:
    text = report(tmp_path).json.read_text(encoding="utf-8")
    document = json.loads(text)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert document["baseline"] == "bm25"
    assert document["generated"] == "2025-03-01T09:30:00+00:00"
    assert document["benchmark"] == INFO
    assert document["notes"] == NOTES
    assert document["measures"] == list(DEFAULT_MEASURES)
    base, hybrid, noisy, _ = document["configurations"]
    assert [c["name"] for c in document["configurations"]] == ["bm25", "hybrid", "noisy|run", "shifted"]
    assert base["baseline"] and base["comparison"] is None
    assert hybrid["configuration"] == {"mode": "hybrid", "weights": [0.7, 0.3]}
    assert hybrid["per_query"]["Q1"]["MAP"] == pytest.approx(0.2)
    assert hybrid["mean"]["MAP"] == pytest.approx(0.35 + 0.68 / 6)
    assert hybrid["comparison"]["MAP"]["difference"] == pytest.approx(0.68 / 6)
    assert hybrid["comparison"]["MAP"]["significant"] is True
    assert hybrid["comparison"]["P@10"]["permutation_p"] == pytest.approx(2 / 64)
    assert noisy["missing"] == ["Q6"]
    assert noisy["comparison"]["MAP"]["significant"] is False


def test_reports_differ_only_in_the_date(tmp_path: Path) -> None:
    first, second = report(tmp_path / "a"), report(tmp_path / "b")
    for a, b in ((first.markdown, second.markdown), (first.json, second.json), (first.plot, second.plot)):
        assert a.read_bytes() == b.read_bytes()
    later = write_report(tmp_path / "c", "AILA 2019 precedents", INFO, RESULTS, "bm25", NOTES,
                         generated=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    changed = [line for line in later.markdown.read_text().splitlines()
               if line not in first.markdown.read_text().splitlines()]
    assert changed == ["Generated 2026-01-02 03:04 UTC."]


def test_the_date_defaults_to_now(tmp_path: Path) -> None:
    files = write_report(tmp_path, "t", {}, RESULTS[:1], "bm25")
    generated = datetime.fromisoformat(json.loads(files.json.read_text())["generated"])
    assert abs((datetime.now(UTC) - generated).total_seconds()) < 60


def test_report_input_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="baseline 'bm42' is not among"):
        write_report(tmp_path, "t", {}, RESULTS, "bm42")
    with pytest.raises(ValueError, match="names repeat"):
        write_report(tmp_path, "t", {}, [RESULTS[0], RESULTS[0]], "bm25")
    only_ndcg = Evaluation(("nDCG@10",), {"Q1": {"nDCG@10": 0.5}}, {"nDCG@10": 0.5})
    with pytest.raises(ValueError, match="evaluate all on the same measures"):
        write_report(tmp_path, "t", {}, [RESULTS[0], ("x", {}, only_ndcg)], "bm25")
    with pytest.raises(ValueError, match="needs MAP"):
        write_report(tmp_path, "t", {}, [("x", {}, only_ndcg)], "x")
    with pytest.raises(ValueError, match="no results"):
        write_report(tmp_path, "t", {}, [], "bm25")
    assert not (tmp_path / "report.md").exists()


def test_plot_labels_drop_the_shared_qid_prefix() -> None:
    from lab.evaluate.report import _common_prefix

    assert _common_prefix(["AILA_Q1", "AILA_Q10", "AILA_Q13"]) == "AILA_Q"  # not AILA_Q1: numbers stay whole
    assert _common_prefix(["current_case_0051", "current_case_0120"]) == "current_case_"
    assert _common_prefix(["q1", "q2"]) == ""  # too short to be worth dropping
    assert _common_prefix(["case_1", "case_"]) == ""  # a label would be empty
    assert _common_prefix(["AILA_Q1"]) == ""
