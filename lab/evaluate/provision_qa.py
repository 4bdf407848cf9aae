"""How well the provision-guided answer mode picks the provisions that apply (AILA 2019 Task 2 qrels).

Three ways to choose the provisions for a fact description, each scored as a set (set precision, recall
and F1 by ir-measures' ``SetP``/``SetR``/``SetF``, per query and macro-averaged; a query that selected
nothing scores 0):

- ``parametric``: the LLM writes the provisions it remembers; each is a query (BM25 top 100, reranked to
  10) from which the LLM picks the real one (:func:`search.answer.select_provisions`);
- ``question``: the same, with the question itself as the one query (no remembered provisions);
- ``retrieval_top3``: no LLM at all, the three best provisions for the question after reranking, the
  floor the LLM steps must beat.

Seconds per question are measured for each, on whatever machine runs it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from backends.llm import LLM
from lab.evaluate.data import Query
from lab.evaluate.metrics import Evaluation, evaluate, ranked_run
from search.answer.statutes import candidates, select_provisions
from search.retrieval.rerank import Reranker

SET_MEASURES = ("SetP", "SetR", "SetF")
METHODS = ("parametric", "question", "retrieval_top3")


@dataclass(frozen=True)
class MethodResult:
    """One method's selections, scores and latency."""

    method: str
    selected: dict[str, list[str]]
    evaluation: Evaluation
    seconds: list[float]
    notes: list[str]

    @property
    def latency(self) -> dict[str, float]:
        s = sorted(self.seconds)
        return {"mean": round(statistics.fmean(s), 2), "p50": round(statistics.median(s), 2),
                "p95": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2)}

    def summary(self) -> dict[str, Any]:
        return {"method": self.method, **{m: round(self.evaluation.mean[m], 4) for m in SET_MEASURES},
                "mean_selected": round(statistics.fmean(len(v) for v in self.selected.values()), 2),
                "seconds_per_question": self.latency}


def _select(method: str, query: Query, llm: LLM | None, client: OpenSearch, index: str,
            reranker: Reranker | None) -> tuple[list[str], str | None]:
    if method == "retrieval_top3":
        return [s["_id"] for s in candidates(client, index, reranker, query.text)[:3]], None
    assert llm is not None
    chosen, note = select_provisions(llm, client, index, reranker, query.text, parametric=method == "parametric")
    return [p.provision_id for p in chosen], note


def run_method(method: str, queries: Sequence[Query], qrels: dict[str, dict[str, int]], *, llm: LLM | None,
               client: OpenSearch, index: str, reranker: Reranker | None) -> MethodResult:
    """Select provisions for every query with ``method`` and score the sets against ``qrels``."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}")
    if method != "retrieval_top3" and llm is None:
        raise ValueError(f"{method} needs an LLM")
    selected: dict[str, list[str]] = {}
    seconds, notes = [], []
    for query in queries:
        started = time.perf_counter()
        selected[query.qid], note = _select(method, query, llm, client, index, reranker)
        seconds.append(time.perf_counter() - started)
        if note:
            notes.append(f"{query.qid}: {note}")
    evaluation = evaluate(ranked_run(selected), qrels, SET_MEASURES)
    return MethodResult(method, selected, evaluation, seconds, notes)


def markdown(results: Sequence[MethodResult], info: dict[str, Any]) -> str:
    """The report: the command and data, then one row per method."""
    lines = ["# Provision selection for answers (AILA 2019 statutes)", ""]
    lines += [f"- **{k}**: `{v}`" if k == "command" else f"- **{k}**: {v}" for k, v in info.items()]
    lines += ["", "| method | set precision | set recall | set F1 | provisions chosen | s/question mean | p50 | p95 |",
              "|---|---|---|---|---|---|---|---|"]
    for result in results:
        s = result.summary()
        lat = s["seconds_per_question"]
        lines.append(f"| {result.method} | {s['SetP']:.4f} | {s['SetR']:.4f} | {s['SetF']:.4f} | "
                     f"{s['mean_selected']} | {lat['mean']} | {lat['p50']} | {lat['p95']} |")
    for result in results:
        if result.notes:
            lines += ["", f"{result.method}: {len(result.notes)} notes; first: {result.notes[0][:300]}"]
    return "\n".join(lines) + "\n"
