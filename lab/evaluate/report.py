"""Write an evaluation's results for people (Markdown and a plot) and for machines (JSON).

One call writes three files into a folder: ``report.md`` (what was run, one table row per configuration
with its mean measures, MAP marked ``†`` where the paired t-test puts it apart from the baseline at
p < 0.05, the configurations, the notes), ``report.json`` (the same plus per-query values and the paired
tests on every measure, keys sorted) and ``per_query_ap.png`` (each configuration's AP per query, queries
sorted by the baseline's AP, so one sees where a configuration gains and loses and not only the mean).

Everything but the date in the header is a function of the inputs, so two reports of the same runs differ
only there; pass ``generated`` to fix it. The plot is drawn on a bare Agg figure, without pyplot, so it
touches no global matplotlib state and needs no display.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lab.evaluate.data import qid_sort_key
from lab.evaluate.metrics import DEFAULT_RESAMPLES, DEFAULT_SEED, Comparison, Evaluation, compare

__all__ = ["ALPHA", "MARKER", "SIGNIFICANCE_MEASURE", "ReportFiles", "write_report"]

ALPHA = 0.05
MARKER = "†"
SIGNIFICANCE_MEASURE = "MAP"
PLOT_MEASURE = "MAP"  # per-query AP: MAP is its mean


@dataclass(frozen=True)
class ReportFiles:
    """The three files :func:`write_report` wrote."""

    markdown: Path
    json: Path
    plot: Path


def _line(value: object) -> str:
    """Text on one Markdown line."""
    return " ".join(str(value).split())


def _cell(value: object) -> str:
    """Text safe inside a Markdown table cell: one line, bars escaped."""
    return _line(value).replace("|", "\\|")


def _p(value: float) -> str:
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def _check(results: Sequence[tuple[str, Mapping[str, Any], Evaluation]], baseline_name: str,
           key: str = SIGNIFICANCE_MEASURE) -> Evaluation:
    if not results:
        raise ValueError("no results to report")
    names = [name for name, _, _ in results]
    if len(set(names)) != len(names):
        raise ValueError(f"configuration names repeat: {', '.join(names)}")
    if baseline_name not in names:
        raise ValueError(f"the baseline {baseline_name!r} is not among the configurations: {', '.join(names)}")
    measures = results[0][2].measures
    for name, _, evaluation in results:
        if evaluation.measures != measures:
            raise ValueError(f"configuration {name!r} was evaluated on {', '.join(evaluation.measures)}, "
                             f"the others on {', '.join(measures)}; evaluate all on the same measures")
    if key not in measures:
        raise ValueError(f"the report needs {key} among the measures")
    return next(evaluation for name, _, evaluation in results if name == baseline_name)


def _comparisons(baseline: Evaluation, results: Sequence[tuple[str, Mapping[str, Any], Evaluation]],
                 baseline_name: str) -> dict[str, dict[str, Comparison]]:
    return {name: {measure: compare(baseline, evaluation, measure) for measure in evaluation.measures}
            for name, _, evaluation in results if name != baseline_name}


def _markdown(title: str, generated: datetime, benchmark_info: Mapping[str, Any],
              results: Sequence[tuple[str, Mapping[str, Any], Evaluation]], baseline_name: str,
              comparisons: Mapping[str, Mapping[str, Comparison]], notes: Sequence[str], plot_name: str,
              key: str = SIGNIFICANCE_MEASURE) -> str:
    measures = results[0][2].measures
    baseline = next(evaluation for name, _, evaluation in results if name == baseline_name)
    lines = [f"# {title}", "", f"Generated {generated.strftime('%Y-%m-%d %H:%M %Z').strip()}.", ""]
    if benchmark_info:
        lines += ["| | |", "|---|---|"]
        lines += [f"| {_cell(key)} | {_cell(value)} |" for key, value in benchmark_info.items()]
        lines.append("")
    lines += ["## Results", "",
              f"Means over the {baseline.queries} judged queries of the baseline; a judged query a configuration "
              "returned nothing for counts as 0 on every measure.", ""]
    header = ["configuration", *measures, f"p {key} (t-test)", f"p {key} (perm.)", "no results"]
    lines += ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for name, _, evaluation in results:
        row = [_cell(f"{name} (baseline)" if name == baseline_name else name)]
        tests = comparisons.get(name, {}).get(key)
        for measure in measures:
            marked = tests is not None and measure == key and tests.t_test_p < ALPHA
            row.append(f"{evaluation.mean[measure]:.4f}{MARKER if marked else ''}")
        row += ["–", "–"] if tests is None else [_p(tests.t_test_p), _p(tests.permutation_p)]
        row.append(str(len(evaluation.missing)))
        lines.append("| " + " | ".join(row) + " |")
    lines += ["",
              f"{MARKER} {key} differs from the baseline `{_line(baseline_name)}` with p < {ALPHA} "
              "by the paired two-sided t-test over the queries both have. The randomisation (permutation) test "
              f"beside it swaps each query's pair of scores ({DEFAULT_RESAMPLES:,} resamples, seed {DEFAULT_SEED}; "
              "exact for up to 13 queries). *no results*: judged queries the configuration returned nothing for.",
              ""]
    lines += ["## Configurations", ""]
    for name, configuration, _ in results:
        text = json.dumps(configuration, sort_keys=True, ensure_ascii=False, default=str)
        lines.append(f"- **{_line(name)}**: `{text}`")
    lines.append("")
    if notes:
        lines += ["## Notes", ""]
        lines += [f"- {_line(note)}" for note in notes]
        lines.append("")
    lines += [f"## Per-query {_per_query(key)}", "",
              f"![{_per_query(key)} per query, sorted by the baseline's]({plot_name})", ""]
    return "\n".join(lines)


def _per_query(key: str) -> str:
    """What a query's value of ``key`` is called: AP for MAP (its mean), RR for MRR, else the measure itself."""
    return {"MAP": "AP", "MRR": "RR"}.get(key, key.removeprefix("M") if key.startswith("MRR") else key)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _json(title: str, generated: datetime, benchmark_info: Mapping[str, Any],
          results: Sequence[tuple[str, Mapping[str, Any], Evaluation]], baseline_name: str,
          comparisons: Mapping[str, Mapping[str, Comparison]], notes: Sequence[str],
          key: str = SIGNIFICANCE_MEASURE) -> str:
    configurations = []
    for name, configuration, evaluation in results:
        tests = comparisons.get(name)
        configurations.append({
            "name": name,
            "baseline": name == baseline_name,
            "configuration": dict(configuration),
            "queries": evaluation.queries,
            "mean": {measure: _finite(value) for measure, value in evaluation.mean.items()},
            "per_query": {qid: {measure: _finite(value) for measure, value in values.items()}
                          for qid, values in evaluation.per_query.items()},
            "missing": list(evaluation.missing),
            "comparison": None if tests is None else {
                measure: {"queries": c.queries, "baseline_mean": c.baseline_mean, "mean": c.other_mean,
                          "difference": c.difference, "t_test_p": c.t_test_p, "permutation_p": c.permutation_p,
                          "significant": c.significant(ALPHA)}
                for measure, c in tests.items()},
        })
    document = {
        "title": title,
        "generated": generated.isoformat(timespec="seconds"),
        "benchmark": dict(benchmark_info),
        "baseline": baseline_name,
        "measures": list(results[0][2].measures),
        "significance": {"alpha": ALPHA, "decided_by": "t_test_p", "measure": key, "resamples": DEFAULT_RESAMPLES,
                         "seed": DEFAULT_SEED},
        "configurations": configurations,
        "notes": list(notes),
    }
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n"


def _common_prefix(qids: Sequence[str]) -> str:
    """The qids' shared non-numeric prefix (``AILA_Q``, ``current_case_``), dropped from the tick labels."""
    if len(qids) < 2:
        return ""
    first, last = min(qids), max(qids)  # the prefix all share is the one the extremes share
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
                min(len(first), len(last)))
    prefix = first[:size].rstrip("0123456789")
    return prefix if len(prefix) >= 3 and all(len(qid) > len(prefix) for qid in qids) else ""


def _plot(path: Path, title: str, results: Sequence[tuple[str, Mapping[str, Any], Evaluation]],
          baseline_name: str, key: str = PLOT_MEASURE) -> None:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError("the report plot needs the 'eval' extra: pip install 'ratio[eval]'") from exc
    baseline = next(evaluation for name, _, evaluation in results if name == baseline_name)
    base_ap = baseline.values(key)
    qids = sorted(base_ap, key=lambda qid: (-base_ap[qid], qid_sort_key(qid)))
    ordered = sorted(results, key=lambda result: result[0] != baseline_name)  # baseline first, drawn under
    prefix = _common_prefix(qids)
    labels = [qid.removeprefix(prefix) for qid in qids]
    figure = Figure(figsize=(min(max(6.4, 0.15 * len(qids) + 2.0), 30.0), 5.0), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = list(range(len(qids)))
    for name, _, evaluation in ordered:
        values = evaluation.values(key)
        heights = [values.get(qid, math.nan) for qid in qids]
        is_base = name == baseline_name
        axes.plot(positions, heights, marker="o", markersize=4 if is_base else 3, linewidth=2.0 if is_base else 1.0,
                  color="black" if is_base else None, label=f"{name} (baseline)" if is_base else name)
    axes.set_xticks(positions, labels, rotation=90, fontsize=8 if len(qids) <= 60 else 7)
    axes.set_xlim(-0.5, max(len(qids) - 0.5, 0.5))
    axes.set_ylim(0.0, 1.02)
    named = f"query ({prefix}…)" if prefix else "query"
    axes.set_xlabel(f"{named}, sorted by the baseline's {_per_query(key)} ({baseline_name})")
    axes.set_ylabel("average precision (AP)" if key == "MAP" else _per_query(key))
    axes.set_title(title)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper right", fontsize=8)
    figure.savefig(path, format="png", dpi=100, metadata={"Software": None})


def write_report(out_dir: Path | str, title: str, benchmark_info: Mapping[str, Any],
                 results: Sequence[tuple[str, Mapping[str, Any], Evaluation]], baseline_name: str,
                 notes: Sequence[str] = (), *, generated: datetime | None = None,
                 key: str = SIGNIFICANCE_MEASURE) -> ReportFiles:
    """Write ``report.md``, ``report.json`` and ``per_query_ap.png`` into ``out_dir`` (created if needed).

    ``benchmark_info`` is shown in the header (the command, the queries and qrels files, ...); ``results``
    holds ``(name, configuration, evaluation)`` per configuration, all on the same measures (MAP among
    them), in the order the table should show them. ``generated`` defaults to now (UTC). ``key`` is the measure
    the table marks and the plot draws per query (MAP; a known-item benchmark's RR@10).
    Raises ``ValueError`` for repeated names, an unknown baseline or evaluations on different measures.
    """
    baseline = _check(results, baseline_name, key)
    comparisons = _comparisons(baseline, results, baseline_name)
    generated = generated or datetime.now(UTC)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out / "report.md", out / "report.json", out / "per_query_ap.png")
    _plot(files.plot, title, results, baseline_name, key)
    files.markdown.write_text(_markdown(title, generated, benchmark_info, results, baseline_name, comparisons,
                                        notes, files.plot.name, key), encoding="utf-8")
    files.json.write_text(_json(title, generated, benchmark_info, results, baseline_name, comparisons, notes, key),
                          encoding="utf-8")
    return files
