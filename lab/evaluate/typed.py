"""The typed-query benchmark: what lawyers type into the search box, drawn from a corpus with a fixed seed.

Five kinds (:mod:`lab.training.typed` says how each is drawn and what is relevant to it): a judgment's full
title, its short ``A v B`` form, its first party alone, a provision as typed, and a few of a judgment's topic words
(where the corpus's judgments carry their own reporter citations, one of them too). :func:`build` draws them
from the corpus behind an index prefix and :func:`write` keeps them as a folder under version control:

* ``queries.jsonl``: one query per line: ``qid``, ``kind``, ``text``, ``split`` (``tuning`` or ``reported``),
  ``source`` (the judgment or provision it was drawn from) and ``exclude`` (judgments left out of every ranking
  before scoring: a topic query's own judgment, which it was made from);
* ``qrels.txt``: TREC qrels of the relevant judgments.

Within each kind the queries at odd positions are the tuning half, those at even positions the reported half:
choices are made on the first, figures reported once on the second. Known-item kinds are scored by success@1,
success@10 and MRR@10 (:data:`KNOWN_ITEM_MEASURES`), the others by MAP, P@10, nDCG@10, MRR and R@100.

The benchmark's judgments and provisions are never a source of training queries (:func:`held_keys`), in either
half, so the tuning half stays a fair place to choose on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from opensearchpy import OpenSearch

from lab.evaluate.data import EvalDataError, Qrels, qid_sort_key
from lab.training.typed import KINDS, KNOWN_ITEM_KINDS, TypedQuery, read_records, typed_queries
from search.graph.citation_graph import load_graph

__all__ = ["BENCHMARK_COUNTS", "KNOWN_ITEM_MEASURES", "TOPICAL_MEASURES", "TYPED_BENCHMARKS", "TypedBenchmark",
           "build", "held_keys", "load", "packaged", "write"]

BENCHMARK_COUNTS = {"title": 200, "short": 200, "party": 200, "citation": 200, "provision": 100, "topic": 100}
KNOWN_ITEM_MEASURES = ("Success@1", "Success@10", "RR@10")
TOPICAL_MEASURES = ("MAP", "P@10", "nDCG@10", "MRR", "R@100")
# the precedent benchmark whose corpus a packaged typed benchmark was drawn from -> its folder in this package
TYPED_BENCHMARKS = {"aila-precedents": "aila-2019"}
SEED = 13


@dataclass(frozen=True)
class TypedBenchmark:
    """The queries of a typed benchmark, with their split."""

    queries: tuple[TypedQuery, ...]
    splits: dict[str, str]  # qid -> "tuning" | "reported"

    def part(self, split: str | None = None, kind: str | None = None) -> list[TypedQuery]:
        """The queries of one split and kind (None: all)."""
        return [q for q in self.queries if (split is None or self.splits[q.qid] == split)
                and (kind is None or q.kind == kind)]

    @property
    def qrels(self) -> Qrels:
        return {q.qid: dict.fromkeys(sorted(q.relevant), 1) for q in self.queries}

    @property
    def kinds(self) -> list[str]:
        present = {q.kind for q in self.queries}
        return [k for k in KINDS if k in present]


def measures(kind: str) -> tuple[str, ...]:
    """The measures a kind is scored by."""
    return KNOWN_ITEM_MEASURES if kind in KNOWN_ITEM_KINDS else TOPICAL_MEASURES


def build(client: OpenSearch, judgments: str, counts: dict[str, int] | None = None, seed: int = SEED) -> TypedBenchmark:
    """Draw the benchmark from the corpus behind the ``judgments`` alias (its metadata and citation graph, resolved
    as the learned ranker resolves it); the same corpus and seed give the same benchmark."""
    graph = load_graph(client, judgments, by_parties=False)
    queries = typed_queries(read_records(client, judgments), graph.cites, counts=counts or BENCHMARK_COUNTS,
                            seed=seed)
    return TypedBenchmark(tuple(queries), {q.qid: _split(q.qid) for q in queries})


def _split(qid: str) -> str:
    number = int(qid.rsplit("-", 1)[1])
    return "tuning" if number % 2 else "reported"


def write(benchmark: TypedBenchmark, folder: Path) -> None:
    """``queries.jsonl`` and ``qrels.txt`` in ``folder`` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"qid": q.qid, "kind": q.kind, "text": q.text, "split": benchmark.splits[q.qid],
                         "source": q.source, "exclude": list(q.exclude)}, ensure_ascii=False)
             for q in benchmark.queries]
    (folder / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    qrels = [f"{q.qid} 0 {doc} 1" for q in benchmark.queries for doc in sorted(q.relevant, key=qid_sort_key)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")


def load(folder: Path) -> TypedBenchmark:
    """A benchmark written by :func:`write`; errors name the file and line."""
    queries_file, qrels_file = folder / "queries.jsonl", folder / "qrels.txt"
    relevant: dict[str, set[str]] = {}
    try:
        for number, line in enumerate(qrels_file.read_text(encoding="utf-8").splitlines(), start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise EvalDataError(qrels_file, "expected 'qid 0 docid rel'", number)
            if int(parts[3]) > 0:
                relevant.setdefault(parts[0], set()).add(parts[2])
        queries, splits = [], {}
        for number, line in enumerate(queries_file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                query = TypedQuery(row["qid"], row["kind"], row["text"], frozenset(relevant.get(row["qid"], ())),
                                   row["source"], tuple(row.get("exclude") or ()))
                splits[query.qid] = row["split"]
            except (ValueError, KeyError, TypeError) as exc:
                raise EvalDataError(queries_file, f"not a typed query ({exc})", number) from None
            queries.append(query)
    except OSError as exc:
        raise EvalDataError(folder, f"cannot be read ({exc.strerror or exc})") from None
    return TypedBenchmark(tuple(queries), splits)


def packaged(benchmark: str) -> Path | None:
    """The packaged typed benchmark drawn from ``benchmark``'s corpus (``aila-precedents``), or None."""
    name = TYPED_BENCHMARKS.get(benchmark)
    return Path(str(resources.files(__name__.rsplit(".", 1)[0]).joinpath("typed", name))) if name else None


def held_keys(benchmarks: Iterable[TypedBenchmark]) -> frozenset[str]:
    """What training must never draw from: every benchmark query's source judgment or provision
    (``provision:<canonical>``) and its relevant judgments, in both halves."""
    keys: set[str] = set()
    for benchmark in benchmarks:
        for q in benchmark.queries:
            keys.add(f"provision:{q.source}" if q.kind == "provision" else q.source)
            if q.kind != "provision":
                keys.update(q.relevant)
    return frozenset(keys)


def drop_excluded(ranking: Sequence[str], query: TypedQuery) -> list[str]:
    """``ranking`` without the judgments ``query`` leaves out of scoring."""
    excluded = set(query.exclude)
    return [doc for doc in ranking if doc not in excluded]
