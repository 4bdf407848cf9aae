"""Which corpus provision a cited provision is: one ``terms`` query on the provisions' ``citation`` for a whole page.

Judgments store the canonical citations they make (``IPC s. 304B(1)``, ``Constitution art. 21``); provisions carry
their canonical ``citation`` once the Act and section are known (given by the source or mapped from the corpus).
A citation links to the provision that carries it, else (a sub-section cited) to the provision of its section:
``IPC s. 304B(1)`` to ``IPC s. 304B``. A citation that two provisions carry is left unlinked rather than guessed,
as :mod:`search.graph.citecheck_lookup` does. The judgment page, the facets and Explore ask once for all their
citations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from opensearchpy import NotFoundError, OpenSearch

from legal.citations import parse_provision

__all__ = ["ProvisionRef", "corpus_refs", "label_buckets", "provision_refs"]

MAX_CITATIONS = 1_000  # citations asked about in one request (a judgment cites far fewer; a facet lists 15)
_SOURCE = ["provision_id", "citation", "title", "act", "section"]


@dataclass(frozen=True)
class ProvisionRef:
    """The corpus provision a citation names: its id, its own canonical citation (the section's, when a
    sub-section was cited) and its title."""

    provision_id: str
    citation: str
    title: str | None = None

    @property
    def link(self) -> str:
        return f"/provisions/{quote(self.provision_id, safe='')}"


def _candidates(citation: str) -> list[str]:
    """The citations that may name ``citation``'s provision, best first: itself, then its section."""
    parsed = parse_provision(citation)
    return [citation] + ([parsed.citation(parsed.base)] if parsed is not None and parsed.base else [])


def provision_refs(client: OpenSearch, index: str, citations: Iterable[str]) -> dict[str, ProvisionRef]:
    """The provision each of ``citations`` names (those the corpus holds exactly one provision for), in one
    request."""
    wanted = list(dict.fromkeys(c for c in citations if c))[:MAX_CITATIONS]
    terms = sorted({candidate for c in wanted for candidate in _candidates(c)})
    if not terms:
        return {}
    body = {"size": min(10_000, 2 * len(terms)), "_source": _SOURCE, "sort": [{"provision_id": "asc"}],
            "query": {"terms": {"citation": terms}}}
    holders: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for hit in client.search(index=index, body=body)["hits"]["hits"]:
        holders[hit["_source"].get("citation")].append({**hit["_source"], "_id": hit["_id"]})
    refs = {}
    for citation in wanted:
        for candidate in _candidates(citation):
            if holders.get(candidate):
                if len(holders[candidate]) == 1:
                    found = holders[candidate][0]
                    refs[citation] = ProvisionRef(str(found.get("provision_id") or found["_id"]), candidate,
                                                  found.get("title"))
                break  # several provisions carry it: ambiguous, left unlinked
    return refs


def corpus_refs(client: OpenSearch, aliases: Mapping[str, str], citations: Iterable[str]) -> dict[str, ProvisionRef]:
    """:func:`provision_refs` over the corpus's provisions index; none when the corpus has no such index (a
    judgment or a facet then shows the citation alone)."""
    index = aliases.get("provisions")
    if not index:
        return {}
    try:
        return provision_refs(client, index, citations)
    except NotFoundError:
        return {}


def label_buckets(buckets: list[dict[str, Any]], refs: Mapping[str, ProvisionRef]) -> list[dict[str, Any]]:
    """Cited-provision facet buckets with, where the corpus holds the provision, its ``title``, its
    ``provision_id`` and its page (``link``)."""
    out = []
    for bucket in buckets:
        ref = refs.get(str(bucket["key"]))
        out.append({**bucket, **({"title": ref.title, "provision_id": ref.provision_id, "link": ref.link}
                                 if ref is not None else {})})
    return out
