"""The corpus mapping of a provisions index as a report a person checks: ``ratio eval mapping-report``.

Reads what ``ratio index`` wrote on the provisions (``mapping``: :mod:`indexer.provision_map`) and writes Markdown:
how many provisions are given, mapped, ambiguous and unmapped; for the mapped ones whose Act has a published table
of section headings (:mod:`legal.headings`), how many titles agree with the heading of the section they were mapped
to; and a seeded sample of mapped provisions with their evidence (the judgments and sentences that voted), for
checking by hand. It changes nothing on the cluster. docs/eval/provision-mapping.md is one.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from opensearchpy import OpenSearch, helpers

from legal.headings import heading_agreement

__all__ = ["MappingReport", "mapping_report"]

_FIELDS = ["provision_id", "title", "act", "section", "citation", "mapping"]


@dataclass(frozen=True)
class MappingReport:
    """The report's Markdown and its counts (status -> provisions; heading agreement -> mapped provisions)."""

    markdown: str
    statuses: dict[str, int]
    agreement: dict[str, int]
    sample: tuple[str, ...]  # the sampled provision ids, in the report's order


def _cell(text: str, limit: int = 220) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit] + "…"


def _order(provision: dict) -> tuple[int, str]:
    return len(provision["provision_id"]), provision["provision_id"]


def mapping_report(client: OpenSearch, index: str, *, seed: int = 26, sample: int = 30,
                   command: str = "") -> MappingReport:
    """The report on the provisions of ``index`` (an alias or index name); the sample is ``sample`` mapped
    provisions drawn with ``seed`` (the same index and seed give the same report)."""
    rows = sorted((h["_source"] for h in helpers.scan(client, index=index, query={"_source": _FIELDS})), key=_order)
    statuses = Counter((p.get("mapping") or {}).get("status", "not mapped yet") for p in rows)
    mapped = [p for p in rows if (p.get("mapping") or {}).get("status") in ("mapped", "given")]
    agreement = Counter(str(heading_agreement(p.get("title") or "", p["act"], p["section"])) for p in mapped)
    drawn = sorted(random.Random(seed).sample(mapped, min(sample, len(mapped))), key=_order)
    lines = [f"# Provision mapping of `{index}`", ""]
    lines += [f"Command: `{command}`", ""] if command else []
    lines += ["| status | provisions |", "|---|---|"]
    lines += [f"| {status} | {n} |" for status, n in sorted(statuses.items())] + [f"| all | {len(rows)} |", ""]
    lines += ["Agreement of mapped titles with the published heading of the section they were mapped to "
              "(legal/section_headings; None: no table for that Act or section):", "",
              "| agrees | provisions |", "|---|---|"]
    lines += [f"| {key} | {n} |" for key, n in sorted(agreement.items())] + [""]
    lines += [f"Seeded sample (seed {seed}) of {len(drawn)} mapped provisions, with the first evidence "
              "sentence; the last column is the check by hand (filled in after reading).", "",
              "| id | title | mapped to | conf. | judgments | heading agrees | evidence (judgment: sentence) "
              "| by hand |",
              "|---|---|---|---|---|---|---|---|"]
    for p in drawn:
        mapping = p["mapping"]
        first = (mapping.get("evidence") or [{}])[0]
        lines.append(f"| {p['provision_id']} | {_cell(p.get('title') or '', 60)} | {p['citation']} | "
                     f"{mapping.get('confidence', 0):.2f} | {mapping.get('judgments', 0)} | "
                     f"{heading_agreement(p.get('title') or '', p['act'], p['section'])} | "
                     f"{first.get('judgment_id', '')}: {_cell(first.get('sentence', ''))} |  |")
    return MappingReport("\n".join(lines) + "\n", dict(statuses), dict(agreement),
                         tuple(p["provision_id"] for p in drawn))
