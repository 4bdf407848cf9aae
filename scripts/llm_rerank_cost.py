"""Tokens per query of the LLM rerank stage (search.llm.rerank), counted on the answers a measurement cached.

How the cost rows of docs/llm-rerank.md were counted: after ``ratio eval run ... --config default_llm_rerank``
filled the answer cache, the same queries are ranked again through the same stage with an LLM that counts tokens
and asks the cache (so nothing is generated here)::

    RATIO_CACHE=/tmp/d/cache python scripts/llm_rerank_cost.py aila-precedents --split tuning --top 5

Per query it prints the prompt tokens sent (every candidate's whole prompt), the prompt tokens llama.cpp
evaluates (the first prompt whole, then each one's part after the prefix it shares with the one before: the
system part and the query under one nonce), and the tokens generated. Prompts are counted in Qwen's chat
format with the model's own tokenizer.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from typing import Any

from backends.llm import SMALL_LLM, CachedLLM, LlamaCppLLM, Message, resolve_gguf
from backends.opensearch import ConnectionSettings, IndexLayout, connect
from lab.evaluate import judged, read_qrels, read_queries
from lab.evaluate.splits import split_queries
from lab.evaluate.systems import Runner
from ratio import settings
from ratio.cli.common import BENCHMARKS, DEFAULT_DATA
from ratio.encoders import search_encoders
from search.execute import Searcher


class CountingLLM:
    """An LLM that counts the tokens of what it is asked and answers, passing each call to ``inner``."""

    def __init__(self, inner: Any, tokenizer: Any) -> None:
        self.inner, self.name, self.tokenizer = inner, inner.name, tokenizer
        self.calls: list[tuple[list[int], int]] = []  # (prompt tokens, generated token count)

    def chat(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             schema: dict[str, Any] | None = None) -> str:
        answer = self.inner.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        text = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages) + "<|im_start|>assistant\n"
        prompt = self.tokenizer.tokenize(text.encode(), add_bos=False, special=True)
        self.calls.append((prompt, len(self.tokenizer.tokenize(answer.encode(), add_bos=False))))
        return answer


def evaluated(prompts: list[list[int]]) -> int:
    """Prompt tokens llama.cpp evaluates for consecutive prompts: each after the prefix shared with the one before."""
    total, before = 0, []
    for tokens in prompts:
        shared = next((i for i, (a, b) in enumerate(zip(tokens, before, strict=False)) if a != b),
                      min(len(tokens), len(before)))
        total += len(tokens) - shared
        before = tokens
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", choices=sorted(BENCHMARKS))
    parser.add_argument("--split", choices=["tuning", "reported"], required=True)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--model", default=SMALL_LLM)
    parser.add_argument("--prefix", default="ratio")
    parser.add_argument("--url", default="http://127.0.0.1:9200")
    args = parser.parse_args()
    queries_file, qrels_file, _ = BENCHMARKS[args.benchmark]
    chosen = split_queries(args.benchmark, args.split)
    qrels = read_qrels(DEFAULT_DATA / qrels_file)
    queries, _ = judged(read_queries(DEFAULT_DATA / queries_file), qrels)
    queries = [q for q in queries if chosen is None or q.qid in chosen]
    client = connect(ConnectionSettings(args.url))
    aliases = IndexLayout(args.prefix).aliases()
    encoder, _ = search_encoders(client, aliases, None)
    local = LlamaCppLLM(resolve_gguf(args.model, settings.home_dir() / "models"), name=args.model)
    counting = CountingLLM(CachedLLM(local, settings.cache_dir() / "llm-answers.sqlite"), local._llama)
    runner = Runner(Searcher(client, aliases, encoder, llm=counting), llm_rerank_top=args.top)
    rows = []
    grades: Counter[tuple[bool, int | None]] = Counter()  # (relevant, grade) over the graded judgments
    for query in queries:
        counting.calls.clear()
        runner.rank("default_llm_rerank", query.text, query.qid)
        prompts = [p for p, _ in counting.calls]
        relevant = {doc for doc, rel in qrels.get(query.qid, {}).items() if rel > 0}
        stage = runner.llm_reranks[-1]
        grades.update((g.judgment_id in relevant, g.grade) for g in stage.grades)
        rows.append((query.qid, sum(map(len, prompts)), evaluated(prompts), sum(n for _, n in counting.calls)))
        print(f"{query.qid}\tsent {rows[-1][1]}\tevaluated {rows[-1][2]}\tgenerated {rows[-1][3]}", flush=True)
    for i, name in ((1, "sent"), (2, "evaluated"), (3, "generated")):
        mean = statistics.mean(row[i] for row in rows)
        print(f"{name}: mean {mean:.0f} a query, {mean / args.top:.0f} a judgment")
    for relevant in (True, False):
        counts = {grade: n for (rel, grade), n in sorted(grades.items(), key=str) if rel is relevant}
        print(f"grades of {'relevant' if relevant else 'other'} judgments: {counts}")
    print(f"misses (generated here, should be 0): {counting.inner.misses}")


if __name__ == "__main__":
    main()
