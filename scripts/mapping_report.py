"""Report the corpus mapping of a provisions index: counts, agreement with published headings, a seeded sample.

    python scripts/mapping_report.py --prefix ratio --seed 26 --sample 30 --out docs/eval/provision-mapping.md

reads what ``ratio index`` wrote on the provisions (``mapping``: :mod:`indexer.provision_map`) and writes a
Markdown report: how many provisions are given, mapped, ambiguous and unmapped; for the mapped ones whose Act
has a published table of section headings (:mod:`legal.headings`), how many titles agree with the heading of
the section they were mapped to; and a seeded random sample of mapped provisions with their evidence (the
judgments and sentences that voted), for checking by hand. It changes nothing on the cluster.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from opensearchpy import OpenSearch, helpers

from legal.headings import heading_agreement


def _cell(text: str, limit: int = 220) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:9200")
    parser.add_argument("--prefix", default="ratio")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    client = OpenSearch(args.url, timeout=120)
    fields = ["provision_id", "title", "act", "section", "citation", "mapping"]
    rows = sorted((h["_source"] for h in helpers.scan(client, index=f"{args.prefix}-provisions",
                                                       query={"_source": fields})),
                  key=lambda p: (len(p["provision_id"]), p["provision_id"]))
    statuses = Counter((p.get("mapping") or {}).get("status", "not mapped yet") for p in rows)
    mapped = [p for p in rows if (p.get("mapping") or {}).get("status") in ("mapped", "given")]
    agreement = Counter(heading_agreement(p.get("title") or "", p["act"], p["section"]) for p in mapped)
    sample = random.Random(args.seed).sample(mapped, min(args.sample, len(mapped)))
    sample.sort(key=lambda p: (len(p["provision_id"]), p["provision_id"]))
    lines = [f"# Provision mapping of `{args.prefix}-provisions`", "",
             f"Command: `python scripts/mapping_report.py --prefix {args.prefix} --seed {args.seed} "
             f"--sample {args.sample} --out {args.out}`", "",
             "| status | provisions |", "|---|---|"]
    lines += [f"| {status} | {n} |" for status, n in sorted(statuses.items())] + [f"| all | {len(rows)} |", ""]
    lines += ["Agreement of mapped titles with the published heading of the section they were mapped to "
              "(legal/section_headings; None: no table for that Act or section):", "",
              "| agrees | provisions |", "|---|---|"]
    lines += [f"| {key} | {n} |" for key, n in sorted(agreement.items(), key=lambda kv: str(kv[0]))] + [""]
    lines += [f"Seeded sample (seed {args.seed}) of {len(sample)} mapped provisions, with the first evidence "
              "sentence; the last column is the check by hand (filled in after reading).", "",
              "| id | title | mapped to | conf. | judgments | heading agrees | evidence (judgment: sentence) "
              "| by hand |",
              "|---|---|---|---|---|---|---|---|"]
    for p in sample:
        mapping = p["mapping"]
        first = (mapping.get("evidence") or [{}])[0]
        lines.append(f"| {p['provision_id']} | {_cell(p.get('title') or '', 60)} | {p['citation']} | "
                     f"{mapping.get('confidence', 0):.2f} | {mapping.get('judgments', 0)} | "
                     f"{heading_agreement(p.get('title') or '', p['act'], p['section'])} | "
                     f"{first.get('judgment_id', '')}: {_cell(first.get('sentence', ''))} |  |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{dict(statuses)}; heading agreement {dict(agreement)}; report {args.out}")


if __name__ == "__main__":
    main()
