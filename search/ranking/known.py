"""The judgment a reporter citation names, where the judgment does not carry that citation itself.

A judgment's own citations are known when its header lists them (FIRE IRLeD's do); a corpus whose headers do not
(AILA's) still knows them from the judgments that cite it by name: ``Virsa Singh v. State of Punjab (AIR 1958 SC
465)`` in a later judgment says that ``AIR 1958 SC 465`` is Virsa Singh's case. :func:`cited_as` reads that: the
corpus judgments citing the query's citation (a few, their text), the case each writes it in
(:func:`legal.cited_cases.cited_cases`: a name with its parallel citations), and the corpus judgment whose title
names the same parties (:func:`search.query.party_names.name_fit`, the same parties in either order). A name that fits
no judgment, or several, resolves to nothing rather than to a guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from opensearchpy import OpenSearch

from legal.citations import extract_citations
from legal.cited_cases import cited_cases
from search.query.party_names import name_fit, name_query, split_case_name
from search.retrieval.bodies import TIE_BREAK, title_body

__all__ = ["CITING", "cited_as"]

CITING = 3  # citing judgments read per citation: the name agrees across them, one that names it is enough
_TITLES = 10


def _names(text: str, citation: str) -> list[str]:
    """The case names ``text`` writes ``citation`` with (the name opening the same cited case)."""
    found = extract_citations(text, kinds={"judgment", "case_name"})
    return [c.normalized for case in cited_cases(text, found) if citation in case.names
            for c in case.citations if c.kind == "case_name"]


def _msearch(client: OpenSearch, index: str, bodies: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for body in bodies:
        lines += [{"index": index}, body]
    return [r for r in client.msearch(body=lines)["responses"] if "error" not in r] if bodies else []


def cited_as(client: OpenSearch, judgments: str, citations: Sequence[str],
             filters: Sequence[Mapping[str, Any]] = ()) -> dict[str, str]:
    """Corpus judgments that ``citations`` (canonical reporter citations) name by way of the judgments citing
    them, each with the citation: judgment id -> citation. Two requests per call at most."""
    bodies = [{"size": CITING, "_source": ["text"], "query": {"term": {"cited_judgments": c}}, "sort": list(TIE_BREAK)}
              for c in citations]
    named: dict[str, Counter[str]] = {}
    for citation, response in zip(citations, _msearch(client, judgments, bodies), strict=False):
        for hit in response["hits"]["hits"]:
            for name in _names(str(hit["_source"].get("text") or ""), citation):
                named.setdefault(citation, Counter())[name] += 1
    chosen = {citation: names.most_common(1)[0][0] for citation, names in named.items()}
    if not chosen:
        return {}
    lookups = [{"size": _TITLES, "_source": ["title"], "query": title_body(name, _TITLES, list(filters))["query"]}
               for name in chosen.values()]
    found: dict[str, str] = {}
    for (citation, name), response in zip(chosen.items(), _msearch(client, judgments, lookups), strict=False):
        query = name_query(name, split_case_name(name) or ())
        fits = [hit["_id"] for hit in response["hits"]["hits"]
                if name_fit(query, (hit.get("_source") or {}).get("title")).fit >= 0.9]
        if len(fits) == 1:
            found.setdefault(fits[0], citation)
    return found
