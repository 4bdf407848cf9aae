"""The model card (README.md) and ``training.json`` written next to a trained model.

A model trained on someone's own judgments is only trustworthy with its provenance attached: which data
(and how much of each source), which loss, how many steps, how long, and what it scored on held-out queries
before and after. The card is Markdown for people; ``training.json`` holds the same figures for machines.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from lab.training.pairs import PairSet
from lab.training.train import TrainResult

__all__ = ["write_card"]

_USE = {
    "reranker": "ratio search --reranker {path} ...   # or RATIO_RERANKER={path}, or Client(reranker='{path}')",
    "embedder": "ratio --prefix NEW indices create --encoder {path}   # then re-index: stored vectors must come "
                "from the same encoder\nratio search --encoder {path} ...   # or RATIO_ENCODER={path}",
}


def _metrics_table(result: TrainResult) -> list[str]:
    rows = [("before training", result.before), ("after training", result.after)]
    if result.baseline:
        rows.insert(0, (result.baseline_name, result.baseline))
    stages = {"before training": "before", "after training": "after", result.baseline_name: "baseline"}
    for name, stage in list(stages.items()):
        for kind, metrics in sorted(result.by_kind.get(stage, {}).items()):
            rows.append((f"{name}, {kind} queries only", metrics))
    lines = ["| model | MRR | nDCG@10 | P@1 | groups |", "|---|---:|---:|---:|---:|"]
    for name, metrics in rows:
        figures = " | ".join(f"{metrics.get(m, float('nan')):.4f}" for m in ("MRR", "nDCG@10", "P@1"))
        lines.append(f"| {name} | {figures} | {metrics.get('groups', 0)} |")
    return lines


def write_card(result: TrainResult, pairs: PairSet, sources: dict[str, str]) -> Path:
    """Write ``README.md`` and ``training.json`` into ``result.out``; returns the README's path.

    ``sources`` names the data each kind of group came from (for example the qrels file and the index alias).
    """
    options = result.options
    counts = pairs.counts()
    created = datetime.now(UTC).isoformat(timespec="seconds")
    lines = [
        f"# Ratio {result.kind}: {result.out.name}",
        "",
        f"Trained by `ratio train {result.kind}` on {created} ({platform.machine()}, CPU), "
        f"from the backbone `{result.backbone}`.",
        "",
        "## Data",
        "",
        *(f"- **{kind}**: {where}" for kind, where in sources.items()),
        f"- seed {pairs.seed}; validation holds out whole queries.",
        "",
        "| count | value |",
        "|---|---:|",
        *(f"| {name} | {value} |" for name, value in counts.items()),
        "",
        *(f"- {note}" for note in pairs.notes),
        "",
        "## Training",
        "",
        f"- loss: {result.loss}",
        f"- examples: {result.examples}; steps: {result.steps}; batch size: {options.batch_size}; "
        f"max length: {options.max_length} tokens",
        f"- learning rate {options.learning_rate}, linear warmup over {options.warmup_share:.0%} of the steps, "
        "AdamW, gradient norm clipped at 1",
        f"- time: {result.seconds:.1f} s of optimisation; last step's loss {result.final_loss:.4f}",
        "",
        "## Validation",
        "",
        "Each held-out query's positive passages ranked among its BM25 hard negatives:",
        "",
        *_metrics_table(result),
        "",
        "## Use",
        "",
        "```",
        _USE[result.kind].format(path=result.out),
        "```",
        "",
    ]
    readme = result.out / "README.md"
    readme.write_text("\n".join(lines))
    record = {"kind": result.kind, "created": created, "backbone": result.backbone, "loss": result.loss,
              "examples": result.examples, "steps": result.steps, "seconds": round(result.seconds, 1),
              "final_loss": result.final_loss, "options": asdict(options), "counts": counts, "sources": sources,
              "validation": {"before": result.before, "after": result.after, "baseline": result.baseline,
                             "baseline_name": result.baseline_name, "by_kind": result.by_kind}}
    (result.out / "training.json").write_text(json.dumps(record, indent=2) + "\n")
    return readme
