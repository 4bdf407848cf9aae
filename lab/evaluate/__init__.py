"""Effectiveness evaluation: read benchmark queries and qrels, score runs with ir-measures, report.

``data`` reads queries (AILA, TSV, JSON lines, one file per query) and TREC qrels and picks the judged
queries; ``metrics`` scores a run and compares two configurations with paired tests; ``report`` writes the
Markdown, JSON and plot. Running the searches belongs to the caller. The ``eval`` extra (ir-measures,
scipy, matplotlib) is imported only when scoring, comparing or plotting, so reading data needs nothing.
"""

from lab.evaluate.data import EvalDataError, Qrels, Query, judged, qid_sort_key, read_qrels, read_queries
from lab.evaluate.metrics import (
    DEFAULT_MEASURES,
    MEASURES,
    Comparison,
    Evaluation,
    Run,
    compare,
    evaluate,
    ranked_run,
)
from lab.evaluate.report import ReportFiles, write_report

__all__ = [
    "DEFAULT_MEASURES",
    "MEASURES",
    "Comparison",
    "EvalDataError",
    "Evaluation",
    "Qrels",
    "Query",
    "ReportFiles",
    "Run",
    "compare",
    "evaluate",
    "judged",
    "qid_sort_key",
    "ranked_run",
    "read_qrels",
    "read_queries",
    "write_report",
]
