"""The corpus's citation graph: which judgments of the corpus each judgment cites, resolved once.

A judgment's ``cited_judgments`` are normalised strings (``(1995) 6 SCC 315``, ``Kesavananda Bharati v. State
of Kerala``). A string names a corpus judgment when exactly one judgment carries it as its own reporter
citation (``citations``), or, for a case name, when exactly one judgment's title names the same parties;
anything ambiguous stays unresolved rather than linked to a guess. Each of a judgment's own parallel
citations (``AIR 1973 SC 1461``, ``(1973) 4 SCC 225``) resolves to it, so one case is one node however it is
cited.

Case names are compared by their parties' words (:func:`search.query.party_names.party_tokens`: case, dots,
``and Others``, ``The`` and common abbreviations do not matter), the rule the citation check calls an exact
fit: ``State of U.P. v. Anil Singh`` in a citing judgment names the judgment titled ``State Of U.P. v Anil
Singh``. A name whose words are all generic (``Ram v. State``) names nothing.

:func:`build_graph` is a pure function of the corpus's metadata, so "cites" and "cited by" come from the same
resolution and always agree; :func:`load_graph` reads the metadata with one scroll. The graph is held as arrays
(:mod:`search.graph.arrays`); :class:`search.graph.cache.GraphCache` keeps one for the pages, saved to disk
(:mod:`search.graph.snapshot`) and rebuilt when the corpus changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from opensearchpy import OpenSearch, helpers

from legal.citations import canonical_case_name
from search.graph.arrays import Adjacency, NodeIds, Targets, csr, key_hashes
from search.query.party_names import load_party_rules, party_tokens, split_case_name

__all__ = ["EDGE_ARRAYS", "CitationGraph", "GraphEntry", "build_graph", "build_graphs", "citation_key", "load_entries",
           "load_graph"]


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


@dataclass(frozen=True, eq=False)
class CitationGraph:
    """Resolved edges both ways, and each resolved key's target (:func:`citation_key`; for linking a citation
    in the text, use :meth:`target`), held as arrays (:mod:`search.graph.arrays`): ``cites`` and ``cited_by``
    read like the dicts of tuples they once were, ``targets`` like a dict of keys, at a fraction of the memory,
    and a graph can be saved and mapped back (:mod:`search.graph.snapshot`)."""

    nodes: NodeIds
    cites_indptr: np.ndarray
    cites_indices: np.ndarray
    cited_by_indptr: np.ndarray
    cited_by_indices: np.ndarray
    key_hashes: np.ndarray  # sorted
    key_nodes: np.ndarray
    by_parties: bool = True  # how case names were resolved (see build_graph)

    @property
    def cites(self) -> Adjacency:
        return Adjacency(self.nodes, self.cites_indptr, self.cites_indices)

    @property
    def cited_by(self) -> Adjacency:
        return Adjacency(self.nodes, self.cited_by_indptr, self.cited_by_indices)

    @property
    def targets(self) -> Targets:
        return Targets(self.nodes, self.key_hashes, self.key_nodes)

    def cited_by_count(self, judgment_id: str) -> int:
        return self.cited_by.degree(judgment_id)

    def cited_by_counts(self) -> dict[str, int]:
        """How many corpus judgments cite each judgment cited at all (one pass over the in-degrees)."""
        counts = np.diff(self.cited_by_indptr)
        cited = np.flatnonzero(counts)
        return dict(zip(self.nodes.ids(cited), counts[cited].tolist(), strict=True))

    def target(self, citation: str) -> str | None:
        """The corpus judgment a canonical citation names, or None (unknown, ambiguous or too generic)."""
        key = citation_key(citation) if self.by_parties else exact_key(citation)
        return self.targets.get(key) if key else None

    def arrays(self) -> dict[str, np.ndarray]:
        """The edge and key arrays (the node ids are :attr:`nodes`' own), by the names a snapshot saves."""
        return {name: getattr(self, name) for name in EDGE_ARRAYS}

    @property
    def nbytes(self) -> int:
        return self.nodes.nbytes + sum(a.nbytes for a in self.arrays().values())


EDGE_ARRAYS = ("cites_indptr", "cites_indices", "cited_by_indptr", "cited_by_indices", "key_hashes", "key_nodes")


def exact_key(citation: str) -> str:
    """The resolution the shipped ranker was trained with: a string names a judgment only as written."""
    return citation


def build_graph(entries: Iterable[GraphEntry], *, by_parties: bool = True) -> CitationGraph:
    """Resolve every entry's cited strings against every entry's own citations and case name.

    ``by_parties=False`` keeps the exact-string resolution the learned ranker's graph features and mined
    training labels were built with (the model in ``search/ranking/model`` expects it; on AILA the party-word
    resolution finds 1,459 edges where the exact one finds 752, so switching means retraining)."""
    return build_graphs(entries, (by_parties,))[by_parties]


def build_graphs(entries: Iterable[GraphEntry],
                 resolutions: Iterable[bool] = (True, False)) -> dict[bool, CitationGraph]:
    """:func:`build_graph` for each resolution in ``resolutions`` (``by_parties``), sharing one :class:`NodeIds`.
    Judgment ids are unique (an index's ``_id``); a repeated id keeps its last entry."""
    entries = list({e.judgment_id: e for e in entries}.values())
    nodes = NodeIds.of([e.judgment_id for e in entries])
    return {by_parties: _resolve(entries, nodes, by_parties) for by_parties in dict.fromkeys(resolutions)}


def _resolve(entries: list[GraphEntry], nodes: NodeIds, by_parties: bool) -> CitationGraph:
    rule = citation_key if by_parties else exact_key
    memo: dict[str, str | None] = {}  # a cited string recurs across judgments: resolve each once

    def key_of(citation: str) -> str | None:
        if citation not in memo:
            memo[citation] = rule(citation)
        return memo[citation]

    named: dict[str, int] = {}  # key -> the one node it names, or AMBIGUOUS
    for node, entry in enumerate(entries):
        name = canonical_case_name(entry.title)
        for citation in (*entry.citations, *((name,) if name else ())):
            if key := key_of(citation):
                named[key] = node if named.get(key, node) == node else AMBIGUOUS
    targets = {key: node for key, node in named.items() if node != AMBIGUOUS}
    sources: list[int] = []
    found: list[int] = []
    for node, entry in enumerate(entries):
        cited = dict.fromkeys(t for c in entry.cited if (k := key_of(c)) and (t := targets.get(k, node)) != node)
        sources += [node] * len(cited)
        found += cited
    src, dst = np.array(sources, dtype=np.int64), np.array(found, dtype=np.int64)
    cites_indptr, cites_indices = csr(src, dst, len(nodes))
    cited_by_indptr, cited_by_indices = csr(dst, src, len(nodes))
    hashes = key_hashes(targets)
    values = np.fromiter(targets.values(), dtype=np.int32, count=len(targets))
    order = np.argsort(hashes, kind="stable")
    hashes, values = hashes[order], values[order]
    clash = np.zeros(len(hashes), dtype=bool)  # two keys with one hash: neither is trusted (never seen in practice)
    same = hashes[1:] == hashes[:-1]
    clash[1:] |= same
    clash[:-1] |= same
    return CitationGraph(nodes, cites_indptr, cites_indices, cited_by_indptr, cited_by_indices,
                         hashes[~clash], values[~clash], by_parties)


AMBIGUOUS = -1


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
