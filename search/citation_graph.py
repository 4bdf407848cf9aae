"""The corpus's citation graph: which judgments of the corpus each judgment cites, resolved once.

A judgment's ``cited_judgments`` are normalised strings (``(1995) 6 SCC 315``, ``Kesavananda Bharati v. State
of Kerala``). A string names a corpus judgment when exactly one judgment carries it as its own reporter
citation (``citations``), or, for a case name, when exactly one judgment's title reads as that case name;
anything ambiguous stays unresolved rather than linked to a guess. :func:`build_graph` is a pure function of
the corpus's metadata, so "cites" and "cited by" come from the same resolution and always agree;
:func:`load_graph` reads the metadata with one scroll.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from opensearchpy import OpenSearch, helpers

from legal.citations import canonical_case_name

__all__ = ["CitationGraph", "GraphEntry", "build_graph", "load_graph"]


@dataclass(frozen=True)
class GraphEntry:
    """What resolution needs of one judgment."""

    judgment_id: str
    title: str | None = None
    citations: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()


@dataclass(frozen=True)
class CitationGraph:
    """Resolved edges both ways, and each resolved string's target (for linking a citation in the text)."""

    cites: Mapping[str, tuple[str, ...]]
    cited_by: Mapping[str, tuple[str, ...]]
    targets: Mapping[str, str] = field(default_factory=dict)

    def cited_by_count(self, judgment_id: str) -> int:
        return len(self.cited_by.get(judgment_id, ()))


def build_graph(entries: Iterable[GraphEntry]) -> CitationGraph:
    """Resolve every entry's cited strings against every entry's own citations and case name."""
    entries = list(entries)
    names: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        for citation in entry.citations:
            names[citation].add(entry.judgment_id)
        name = canonical_case_name(entry.title)
        if name:
            names[name].add(entry.judgment_id)
    targets = {key: next(iter(ids)) for key, ids in names.items() if len(ids) == 1}
    cites: dict[str, tuple[str, ...]] = {}
    cited_by: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        found = tuple(dict.fromkeys(t for c in entry.cited if (t := targets.get(c)) and t != entry.judgment_id))
        if found:
            cites[entry.judgment_id] = found
            for target in found:
                cited_by[target].append(entry.judgment_id)
    return CitationGraph(cites, {k: tuple(v) for k, v in cited_by.items()}, targets)


def load_graph(client: OpenSearch, judgments: str) -> CitationGraph:
    """The graph of the corpus behind the ``judgments`` alias (one scroll over its metadata)."""
    hits = helpers.scan(client, index=judgments, query={"query": {"match_all": {}}}, size=1000,
                        _source_includes=["judgment_id", "title", "citations", "cited_judgments"])
    return build_graph(GraphEntry(h["_id"], h["_source"].get("title"), tuple(h["_source"].get("citations") or ()),
                                  tuple(h["_source"].get("cited_judgments") or ())) for h in hits)
