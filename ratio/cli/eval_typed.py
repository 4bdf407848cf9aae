"""``ratio eval run typed`` and ``ratio eval build-typed``: the typed-query benchmark (lab/evaluate/typed.py).

A typed benchmark is a folder (``queries.jsonl``, ``qrels.txt``) drawn from one corpus; the packaged one was drawn
from the AILA 2019 corpus (``ratio eval build-typed --out lab/evaluate/typed/aila-2019`` on an index of it) and
is what ``ratio eval run typed`` scores by default. Each kind of query is scored with its own measures and gets
its own report (``OUT/KIND/report.md``), with a summary table of every kind in ``OUT/report.md``.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import click

from lab.evaluate import Evaluation, evaluate, ranked_run, write_report
from lab.evaluate.systems import Runner
from lab.evaluate.typed import TypedBenchmark, drop_excluded, load, measures, packaged
from lab.training.typed import KNOWN_ITEM_KINDS

__all__ = ["run_typed"]


def typed_folder(folder: Path | None) -> Path:
    """The benchmark folder asked for, else the packaged one (drawn from the AILA 2019 corpus)."""
    found = folder or packaged("aila-precedents")
    assert found is not None
    if not (found / "queries.jsonl").is_file():
        raise click.ClickException(f"{found} holds no typed benchmark (queries.jsonl and qrels.txt): build one with "
                                   "'ratio eval build-typed --out DIR'")
    return found


def check_corpus(runner: Runner, benchmark: TypedBenchmark) -> None:
    """Refuse a benchmark drawn from another corpus: its source judgments must be in the index searched."""
    searcher = runner.searcher
    sources = sorted({q.source for q in benchmark.queries if q.kind != "provision"})[:200]
    if not sources:
        return
    docs = searcher.client.mget(index=searcher.aliases["judgments"], body={"ids": sources},
                                params={"_source": "false"})["docs"]
    missing = [d["_id"] for d in docs if not d.get("found")]
    if len(missing) > len(sources) // 10:
        raise click.ClickException(f"{len(missing)} of {len(sources)} judgments this typed benchmark was drawn from "
                                   f"are not in the index (e.g. {', '.join(missing[:3])}): it was drawn from "
                                   "another corpus; pass --prefix of that corpus or --queries of a benchmark built "
                                   "from this one")


def run_typed(runner: Runner, folder: Path | None, names: list[str], baseline: str | None, split: str | None,
              limit: int | None, out: Path, info: dict[str, Any]) -> None:
    """Run configurations ``names`` over the typed benchmark's queries (of ``split``; the first ``limit`` per
    kind) and write one report per kind plus the summary."""
    folder = typed_folder(folder)
    benchmark = load(folder)
    check_corpus(runner, benchmark)
    baseline = baseline or names[0]
    if baseline not in names:
        names = [baseline, *names]
    summary: list[dict[str, Any]] = []
    for kind in benchmark.kinds:
        queries = benchmark.part(split, kind)[:limit]
        if not queries:
            continue
        qrels = {q.qid: dict.fromkeys(q.relevant, 1) for q in queries}
        results: list[tuple[str, dict, Evaluation]] = []
        for name in names:
            started = time.perf_counter()
            rankings = {q.qid: drop_excluded(runner.rank(name, q.text, q.qid), q) for q in queries}
            seconds = time.perf_counter() - started
            evaluation = evaluate(ranked_run(rankings), qrels, measures(kind))
            results.append((name, {"seconds": round(seconds, 1), "description": runner.check(name).description},
                            evaluation))
            shown = "  ".join(f"{m} {evaluation.mean[m]:.4f}" for m in evaluation.measures)
            click.echo(f"{kind:10} {name:20} {shown}  ({seconds:.0f} s)", err=True)
        key = "RR@10" if kind in KNOWN_ITEM_KINDS else "MAP"
        notes = [f"{len(queries)} {kind} queries of the {split or 'whole'} benchmark ({folder.name})."]
        if kind == "topic":
            notes.append("The judgment each topic query was drawn from is left out of every ranking before scoring.")
        files = write_report(out / kind, f"typed queries, {kind}: {len(queries)} queries", {**info, "kind": kind},
                             results, baseline, notes, key=key)
        report = json.loads(files.json.read_text(encoding="utf-8"))
        summary.append({"kind": kind, "queries": len(queries), "key": key, "report": f"{kind}/report.md",
                        "measures": report["measures"],
                        "configurations": [{"name": c["name"], "mean": c["mean"],
                                            "p": (c["comparison"] or {}).get(key, {}).get("t_test_p")}
                                           for c in report["configurations"]]})
    (out / "report.md").write_text(summary_markdown(summary, baseline, info), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps({"info": info, "baseline": baseline, "kinds": summary},
                                                 indent=1, sort_keys=True) + "\n", encoding="utf-8")
    click.echo(f"report: {out / 'report.md'}")


def summary_markdown(summary: list[dict[str, Any]], baseline: str, info: dict[str, Any]) -> str:
    """The summary table of every kind (``OUT/report.md``), from the per-kind reports' figures."""
    lines = ["# Typed queries", "", "| | |", "|---|---|"]
    lines += [f"| {key} | {str(value).replace('|', '/')} |" for key, value in info.items()]
    lines += ["", f"Paired two-sided t-test against `{baseline}` on each kind's key measure (p).", ""]
    for row in summary:
        measures_ = row.get("measures") or list(row["configurations"][0]["mean"])
        lines += [f"## {row['kind']} ({row['queries']} queries; [report]({row['report']}))", "",
                  "| configuration | " + " | ".join(measures_) + f" | p {row['key']} |",
                  "|---" + "|---:" * (len(measures_) + 1) + "|"]
        for config in row["configurations"]:
            p = config["p"]
            lines.append(f"| {config['name']} | " + " | ".join(f"{config['mean'][m]:.4f}" for m in measures_)
                         + f" | {'–' if p is None else ('<0.0001' if p < 0.0001 else f'{p:.4f}')} |")
        lines.append("")
    return "\n".join(lines)


def command_line() -> str:
    return "ratio " + " ".join(shlex.quote(a) for a in sys.argv[1:])
