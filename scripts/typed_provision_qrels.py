"""Copy the packaged typed benchmark with its provision queries' relevance read again from an index.

    python scripts/typed_provision_qrels.py --prefix ratio26 --out typed-reread

A provision query's relevant judgments are the judgments citing it (``cited_provisions`` holding the query's
canonical citation). The packaged benchmark (lab/evaluate/typed/aila-2019) recorded them with the parser of its
day; a parser that reads more forms (``304-B``, ``302/34 IPC``, ``34 IPC``) finds more judgments citing the same
provision, and the packaged relevance counts those as not relevant. This writes ``queries.jsonl`` unchanged and
``qrels.txt`` with every provision query's relevance taken from ``--prefix``'s judgments (the other kinds as
packaged), for ``ratio --prefix P eval run typed --queries OUT ...``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from opensearchpy import OpenSearch, helpers

from lab.evaluate.typed import packaged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:9200")
    parser.add_argument("--prefix", default="ratio")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    source = packaged("aila-precedents")
    assert source is not None
    client = OpenSearch(args.url, timeout=120)
    queries = [json.loads(line) for line in (source / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    provisions = {q["qid"]: q["source"] for q in queries if q["kind"] == "provision"}
    lines = [line for line in (source / "qrels.txt").read_text(encoding="utf-8").splitlines()
             if line.split()[0] not in provisions]
    for qid, citation in provisions.items():
        citing = sorted(hit["_id"] for hit in helpers.scan(
            client, index=f"{args.prefix}-judgments", _source=False,
            query={"query": {"term": {"cited_provisions": citation}}}))
        lines += [f"{qid} 0 {judgment} 1" for judgment in citing]
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "queries.jsonl", args.out / "queries.jsonl")
    (args.out / "qrels.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(provisions)} provision queries re-read from {args.prefix}-judgments; {args.out}")


if __name__ == "__main__":
    main()
