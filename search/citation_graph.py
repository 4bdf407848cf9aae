"""The corpus's citation graph: which judgments of the corpus each judgment cites, resolved once.

A judgment's ``cited_judgments`` are normalised strings (``(1995) 6 SCC 315``, ``Kesavananda Bharati v. State
of Kerala``). A string names a corpus judgment when exactly one judgment carries it as its own reporter
citation (``citations``), or, for a case name, when exactly one judgment's title names the same parties;
anything ambiguous stays unresolved rather than linked to a guess. Each of a judgment's own parallel
citations (``AIR 1973 SC 1461``, ``(1973) 4 SCC 225``) resolves to it, so one case is one node however it is
cited.

Case names are compared by their parties' words (:func:`search.party_names.party_tokens`: case, dots,
``and Others``, ``The`` and common abbreviations do not matter), the rule the citation check calls an exact
fit: ``State of U.P. v. Anil Singh`` in a citing judgment names the judgment titled ``State Of U.P. v Anil
Singh``. A name whose words are all generic (``Ram v. State``) names nothing.

:func:`build_graph` is a pure function of the corpus's metadata, so "cites" and "cited by" come from the same
resolution and always agree; :func:`load_graph` reads the metadata with one scroll, and :class:`GraphCache`
keeps a graph for the pages, read again when the corpus changes.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from opensearchpy import OpenSearch, helpers

from legal.citations import canonical_case_name
from search.party_names import load_party_rules, party_tokens, split_case_name

__all__ = ["CitationGraph", "GraphCache", "GraphEntry", "build_graph", "citation_key", "load_entries", "load_graph"]


def citation_key(citation: str) -> str | None:
    """What resolution compares: a reporter citation as it is; a case name as its parties' words, in order
    (``case:anil singh v pradesh state uttar``); None for a case name with no word that is not generic."""
    sides = split_case_name(citation)
    if sides is None:
        return citation
    rules = load_party_rules()
    left, right = (party_tokens(side, rules) for side in sides)
    if not left or not right or not (left | right) - rules.generic:
        return None
    return f"case:{' '.join(sorted(left))} v {' '.join(sorted(right))}"


@dataclass(frozen=True)
class GraphEntry:
    """What resolution needs of one judgment."""

    judgment_id: str
    title: str | None = None
    citations: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()


@dataclass(frozen=True)
class CitationGraph:
    """Resolved edges both ways, and each resolved key's target (:func:`citation_key`; for linking a citation
    in the text, use :meth:`target`)."""

    cites: Mapping[str, tuple[str, ...]]
    cited_by: Mapping[str, tuple[str, ...]]
    targets: Mapping[str, str] = field(default_factory=dict)
    by_parties: bool = True  # how case names were resolved (see build_graph)

    def cited_by_count(self, judgment_id: str) -> int:
        return len(self.cited_by.get(judgment_id, ()))

    def target(self, citation: str) -> str | None:
        """The corpus judgment a canonical citation names, or None (unknown, ambiguous or too generic)."""
        key = citation_key(citation) if self.by_parties else exact_key(citation)
        return self.targets.get(key) if key else None


def exact_key(citation: str) -> str:
    """The resolution the shipped ranker was trained with: a string names a judgment only as written."""
    return citation


def build_graph(entries: Iterable[GraphEntry], *, by_parties: bool = True) -> CitationGraph:
    """Resolve every entry's cited strings against every entry's own citations and case name.

    ``by_parties=False`` keeps the exact-string resolution the learned ranker's graph features and mined
    training labels were built with (the model in ``search/ranking/model`` expects it; on AILA the party-word
    resolution finds 1,459 edges where the exact one finds 752, so switching means retraining)."""
    citation_key_of = citation_key if by_parties else exact_key
    entries = list(entries)
    names: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        name = canonical_case_name(entry.title)
        for citation in (*entry.citations, *((name,) if name else ())):
            if key := citation_key_of(citation):
                names[key].add(entry.judgment_id)
    targets = {key: next(iter(ids)) for key, ids in names.items() if len(ids) == 1}
    cites: dict[str, tuple[str, ...]] = {}
    cited_by: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        keys = (citation_key_of(c) for c in entry.cited)
        found = tuple(dict.fromkeys(t for k in keys if k and (t := targets.get(k)) and t != entry.judgment_id))
        if found:
            cites[entry.judgment_id] = found
            for target in found:
                cited_by[target].append(entry.judgment_id)
    return CitationGraph(cites, {k: tuple(v) for k, v in cited_by.items()}, targets, by_parties)


def load_entries(client: OpenSearch, judgments: str) -> list[GraphEntry]:
    """What resolution needs of every judgment behind the ``judgments`` alias (one scroll over its metadata)."""
    hits = helpers.scan(client, index=judgments, query={"query": {"match_all": {}}}, size=1000,
                        _source_includes=["judgment_id", "title", "citations", "cited_judgments"])
    return [GraphEntry(h["_id"], h["_source"].get("title"), tuple(h["_source"].get("citations") or ()),
                       tuple(h["_source"].get("cited_judgments") or ())) for h in hits]


def load_graph(client: OpenSearch, judgments: str, *, by_parties: bool = True) -> CitationGraph:
    """The graph of the corpus behind the ``judgments`` alias (one scroll over its metadata); ``by_parties`` as
    in :func:`build_graph`."""
    return build_graph(load_entries(client, judgments), by_parties=by_parties)


class GraphCache:
    """The graph of one ``judgments`` alias, kept between page views and read again when the alias's
    document count changes or the graph is older than ``max_age`` seconds (a re-indexed judgment keeps the
    count). Both resolutions (:func:`build_graph`: by parties for the pages and sorts, exact for the learned
    ranker) come from one scroll. Thread-safe: pages are served from a thread pool."""

    def __init__(self, client: OpenSearch, judgments: str, max_age: float = 300.0) -> None:
        self.client, self.judgments, self.max_age = client, judgments, max_age
        self._lock = threading.Lock()
        self._entries: list[GraphEntry] | None = None
        self._graphs: dict[bool, CitationGraph] = {}
        self._count = -1
        self._loaded = 0.0

    def graph(self, by_parties: bool = True) -> CitationGraph:
        count = int(self.client.count(index=self.judgments)["count"])
        with self._lock:
            fresh = time.monotonic() - self._loaded < self.max_age
            if self._entries is None or count != self._count or not fresh:
                self._entries, self._graphs = load_entries(self.client, self.judgments), {}
                self._count, self._loaded = count, time.monotonic()
            if by_parties not in self._graphs:
                self._graphs[by_parties] = build_graph(self._entries, by_parties=by_parties)
            return self._graphs[by_parties]
