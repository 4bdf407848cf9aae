"""Rank a queries file with the code of any checkout and write the rankings as JSON (qid -> judgment ids).

How the "before" rows of docs/evaluation.md were made: the same queries through an older commit's own default
search, scored by today's ``ratio eval run ... --run before=FILE``::

    git worktree add ../ratio-before f3bb793
    PYTHONPATH=../ratio-before python scripts/rankings.py lab/evaluate/typed/aila-2019/queries.jsonl \\
        --split reported --prefix ratio --out before.json

It uses only what every version of the evaluation runner has (``Runner.rank(config, text)``, ``read_queries``,
``split_queries``), so the code under test is the checkout's, not this one's. Queries are any file
``read_queries`` reads (a typed benchmark's JSON lines with their ``split``; AILA's ``Query_doc.txt``; IRLeD's
folder); ``--benchmark NAME --split PART`` picks a benchmark's split from its split file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from backends.opensearch import ConnectionSettings, connect
from lab.evaluate import read_queries
from lab.evaluate.splits import split_queries
from lab.evaluate.systems import Runner
from ratio.encoders import search_encoders
from search.execute import Searcher


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("queries", type=Path, help="a queries file or folder")
    parser.add_argument("--split", help="only the queries of this split (a typed benchmark's, or --benchmark's)")
    parser.add_argument("--benchmark", help="the benchmark whose split file names the queries (aila-precedents, irled)")
    parser.add_argument("--config", default="default", help="the configuration to rank with (default: default)")
    parser.add_argument("--prefix", default="ratio", help="index prefix")
    parser.add_argument("--url", default="http://127.0.0.1:9200")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    client = connect(ConnectionSettings(args.url))
    aliases = {kind: f"{args.prefix}-{kind}" for kind in ("judgments", "chunks", "provisions")}
    encoder, _ = search_encoders(client, aliases, None)
    runner = Runner(Searcher(client, aliases, encoder))
    if args.benchmark:
        chosen = split_queries(args.benchmark, args.split) if args.split else None
        rows = [{"qid": q.qid, "text": q.text} for q in read_queries(args.queries)
                if chosen is None or q.qid in chosen]
    else:
        rows = [json.loads(line) for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [row for row in rows if args.split is None or row.get("split") == args.split]
    rankings = {row["qid"]: runner.rank(args.config, row["text"]) for row in rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rankings) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(rankings)} queries")


if __name__ == "__main__":
    main()
