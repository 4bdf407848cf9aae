"""The provisions a query names: ``section 304B IPC``, ``304B IPC``, ``s.304-B``, ``Article 21``, ``438 CrPC``.

A lawyer who types a provision wants that provision, not the sections whose words or meaning come closest to the
words ``section`` and ``IPC``. So every list of provisions for a query
(:func:`search.provisions.retrieve.find_provisions`:
the search page's box, ``GET /api/v1/provisions``, ``ratio provisions`` and the evaluation's provision systems)
puts the provisions the query names first, found by their keyword fields, and then the rest as ranked before.

What a query names is what the search box reads (:func:`search.query.understand.understand`, with the citation rules
of :mod:`legal.citations`): for a typed query (not a pasted text), each canonical citation it holds (``IPC s.
304B``); for a query that is a provision and nothing else, also each section it names without an Act (``s.304-B``:
section ``304B`` of whichever Act). A provision matches a citation when its ``citation`` is that citation, its
section without the cited sub-section (``IPC s. 304B(1)`` finds ``IPC s. 304B``), or a sub-section of it (``IPC s.
304B`` finds a provision stored as ``IPC s. 304B(1)``); it matches a bare section when its ``section`` is that
section. Provisions whose ``citation`` and ``section`` are empty (the AILA statutes until they are mapped) are never
named: they keep their place in the ranked list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from legal.citations import parse_provision
from search.query.understand import QueryKind, understand

__all__ = ["MAX_NAMED", "Named", "NamedProvisions", "find_named", "named_first", "named_order", "named_provisions",
           "named_provisions_body"]

MAX_NAMED = 50  # provisions fetched for what a query names (a bare section may be in several Acts)


@dataclass(frozen=True)
class NamedProvisions:
    """Canonical citations (``IPC s. 304B(1)``) and bare sections (``304B``) a query names, in the order typed."""

    citations: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.citations or self.sections)

    @property
    def keys(self) -> tuple[str, ...]:
        """The ``citation`` values that name a provision exactly, in the order typed: each citation, then its
        section without the sub-section (``IPC s. 304B(1)``, ``IPC s. 304B``)."""
        keys: list[str] = []
        for citation in self.citations:
            keys.append(citation)
            parsed = parse_provision(citation)
            if parsed is not None and parsed.base:
                keys.append(parsed.citation(parsed.base))
        return tuple(dict.fromkeys(keys))


def named_provisions(text: str) -> NamedProvisions:
    """What ``text`` names, as the search box reads it (nothing for a pasted text)."""
    understood = understand(text)
    if understood.plain:
        return NamedProvisions()
    sections = understood.sections if understood.kind is QueryKind.PROVISION else ()
    return NamedProvisions(understood.provisions, sections)


def named_provisions_body(named: NamedProvisions, source: Sequence[str], size: int = MAX_NAMED) -> dict[str, Any]:
    """The provisions ``named`` names (by ``citation``, a sub-section of one, or ``section``), as a filter: the
    order is :func:`named_order`'s, not a score. ``source``: the fields to return."""
    should: list[dict[str, Any]] = []
    if named.keys:
        should.append({"terms": {"citation": list(named.keys)}})
        should += [{"prefix": {"citation": f"{key}("}} for key in named.keys]
    if named.sections:
        should.append({"terms": {"section": list(named.sections)}})
    query: dict[str, Any] = {"bool": {"filter": [{"bool": {"should": should, "minimum_should_match": 1}}]}} \
        if should else {"match_none": {}}
    return {"size": size, "_source": list(source), "query": query,
            "sort": [{"provision_id": {"order": "asc"}}]}


def named_order(named: NamedProvisions, sources: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ids of ``sources`` (provision id -> stored fields, a :func:`named_provisions_body` answer) in the order
    the query names them: an exact citation first, then the cited section without its sub-section, then a
    sub-section of a cited section, then a bare section; within each, by the order typed, then by id."""
    keys, sections = named.keys, named.sections

    def rank(doc: str) -> tuple[int, int, str]:
        citation = sources[doc].get("citation") or ""
        section = (sources[doc].get("section") or "").upper()
        if citation in keys:
            return (0, keys.index(citation), doc)
        for position, key in enumerate(keys):
            if citation.startswith(f"{key}("):
                return (1, position, doc)
        if section in sections:
            return (2, sections.index(section), doc)
        return (3, 0, doc)

    return sorted(sources, key=rank)


@dataclass(frozen=True)
class Named:
    """The provisions some query texts name: ``order`` (ids, in the order named), ``by`` (id -> the numbers of
    the texts naming it) and ``sources`` (id -> the stored fields asked for)."""

    order: tuple[str, ...] = ()
    by: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    sources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def find_named(client: OpenSearch, index: str, texts: Sequence[str], source: Sequence[str]) -> Named:
    """The provisions of ``index`` that ``texts`` name (:func:`named_provisions`): one request per text that
    names any, none for the others."""
    order: list[str] = []
    by: dict[str, list[int]] = {}
    sources: dict[str, Mapping[str, Any]] = {}
    for number, text in enumerate(texts):
        named = named_provisions(text)
        if not named:
            continue
        hits = client.search(index=index, body=named_provisions_body(named, source))["hits"]["hits"]
        found = {h["_id"]: h["_source"] for h in hits}
        sources.update(found)
        for doc in named_order(named, found):
            order.append(doc)
            by.setdefault(doc, []).append(number)
    return Named(tuple(dict.fromkeys(order)), {doc: tuple(numbers) for doc, numbers in by.items()}, sources)


def named_first(ranked: Sequence[tuple[str, float]], named: Named) -> list[tuple[str, float]]:
    """``ranked`` (id, score; best first) with the named provisions moved to the front, in the order named, each
    scored at least the best ranked score (1.0 when none is higher); the rest keep their order and scores."""
    if not named.order:
        return list(ranked)
    top = max([1.0, *(score for _, score in ranked)])
    return [(doc, top) for doc in named.order] + [(doc, score) for doc, score in ranked if doc not in named.by]
