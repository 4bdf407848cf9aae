"""Candidates and features per (query, judgment), in as few requests as possible.

A query's candidates are the union of several sources, deduplicated to judgments: BM25 with the reduced query
over whole judgment texts (two reductions), each citation context's terms, the judgments citing the query's
provisions, and the chunk hybrid roll-up when the caller has it. A typed query also takes candidates from the
judgments' titles and their own reporter citations (a query naming ``AIR 1962 SC 605`` finds the judgment
reported there).

Every candidate then gets every feature from one ``_msearch``: the requests each declared feature group needs
(:data:`search.ranking.groups.DECLARED`; every body restricted to the candidates, so scores are exact, not top-k)
and one shared request for the stored metadata the groups read; each group then reads its columns from its own
answers, and the rest is arithmetic in numpy. The feature vector is the groups' features in declaration order
(:data:`FEATURES`); what each group measures is said in :mod:`search.ranking.groups`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from search.graph.citation_graph import CitationGraph, load_graph
from search.query.party_names import name_query
from search.query.rejection import EngineError
from search.query.understand import QueryKind
from search.ranking.group import Answers, Candidates, FeatureGroup, FeatureSettings, Inputs, hits, role_groups
from search.ranking.groups import DECLARED, FEATURE_GROUPS, FEATURES, GROUPS
from search.ranking.known import cited_as
from search.ranking.query import QueryProfile
from search.ranking.tuned import TunedQuery
from search.retrieval import bodies

__all__ = ["FEATURES", "FEATURE_GROUPS", "GROUPS", "Candidates", "FeatureMatrix", "FeatureSettings", "Features",
           "RankingError", "role_groups"]

Body = dict[str, Any]


@dataclass(frozen=True)
class FeatureMatrix:
    """One row per candidate, one column per name in :data:`FEATURES`; ``meta`` keeps what explanations need."""

    ids: tuple[str, ...]
    values: np.ndarray
    meta: Mapping[str, Mapping[str, Any]]
    extra: tuple[Mapping[str, Any], ...] = ()  # the answers to the caller's own requests sent along (``also``)

    def column(self, name: str) -> np.ndarray:
        return self.values[:, FEATURES.index(name)]


def _metadata(response: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per candidate: its numeric values, and for each list field the query's values it shares (only those:
    what the legal features and the explanations compare)."""
    meta = {}
    for hit in response["hits"]["hits"]:
        fields = hit.get("fields") or {}
        row: dict[str, Any] = {name: values[0] for name, values in fields.items() if name != "judgment_id" and values}
        for name in hit.get("matched_queries") or ():
            field_name, _, value = name.partition(":")
            row.setdefault(field_name, []).append(value)
        meta[fields["judgment_id"][0]] = row
    return meta


def _metadata_body(inputs: Inputs) -> Body:
    """The one request for what the groups read from the candidates' stored metadata (their doc values and the
    query's values each shares, :meth:`~search.ranking.group.FeatureGroup.metadata`), in declaration order."""
    values: dict[str, None] = {}
    shared: dict[str, Sequence[str]] = {}
    fields: dict[str, str] = {}
    for group in DECLARED:
        asked = group.metadata(inputs)
        values.update(dict.fromkeys(asked.values))
        shared.update(asked.shared)
        fields.update(asked.fields)
    return bodies.metadata_body(inputs.ids, tuple(values), shared, fields=fields)


def _msearch(client: OpenSearch, requests: Sequence[tuple[str, Body]]) -> list[dict[str, Any]]:
    """The requests' answers in one round trip (the client's transport asks again when an item failed only
    because a node left mid-request: :class:`backends.opensearch.client.NodeLossTransport`)."""
    if not requests:
        return []
    lines: list[Body] = []
    for index, body in requests:
        lines += [{"index": index}, body]
    responses = client.msearch(body=lines)["responses"]
    for (index, _), response in zip(requests, responses, strict=True):
        if "error" in response:
            raise RankingError(f"a ranking request on {index} failed: {_cause(response['error'])}", response)
    return responses


def _innermost(error: Mapping[str, Any]) -> Mapping[str, Any]:
    for failure in error.get("failed_shards") or ():
        reason = failure.get("reason")
        if isinstance(reason, dict):
            return _innermost(reason)
    if isinstance(error.get("caused_by"), dict):
        return _innermost(error["caused_by"])
    return error


def _cause(error: Any) -> str:
    """The innermost reason OpenSearch gives (``all shards failed`` says nothing by itself)."""
    if not isinstance(error, dict):
        return str(error)
    inner = _innermost(error)
    return f"{inner.get('type')}: {inner.get('reason')}"


class RankingError(EngineError):
    """A ranking request failed on the cluster; the message carries OpenSearch's innermost reason, ``info`` the
    cluster's whole answer for that request."""


class Features:
    """Candidate generation and feature extraction over one corpus (its ``judgments`` and ``chunks`` aliases)."""

    def __init__(self, client: OpenSearch, aliases: Mapping[str, str], settings: FeatureSettings | None = None,
                 graph: CitationGraph | Callable[[], CitationGraph] | None = None):
        self.client = client
        self.aliases = aliases
        self.settings = settings or FeatureSettings()
        self.groups = role_groups()
        self._graph = graph if isinstance(graph, CitationGraph) else None
        self._source = graph if callable(graph) else None

    @property
    def graph(self) -> CitationGraph:
        """The corpus's citation graph, resolved exactly, as the shipped model was trained
        (:func:`search.graph.citation_graph.build_graph`). From the caller's source (the searcher's
        :class:`~search.graph.cache.GraphCache`, which the pages share) it is asked for on every use, so a ranker
        sees the graph the cache rebuilt after the corpus changed; without one it is read once (one scroll) and kept."""
        if self._source is not None:
            return self._source()
        if self._graph is None:
            self._graph = load_graph(self.client, self.aliases["judgments"], by_parties=False)
        return self._graph

    # ------------------------------------------------------------------ candidates
    def candidates(self, profile: QueryProfile, *, filters: Sequence[Body] = (),
                   exclude: Sequence[str] = ()) -> Candidates:
        """The union of the sources for ``profile``; ``exclude`` drops judgments (the query's own, when it is in
        the corpus)."""
        s, judgments = self.settings, self.aliases["judgments"]
        understood = profile.understanding
        looked_up = understood is not None and understood.kind in (QueryKind.NAME, QueryKind.CITATION)
        depth = s.name_depth if looked_up else s.depth
        requests = [(judgments, bodies.terms_body(profile.reduced(s.long_terms, "kl"), depth, filters=filters)),
                    (judgments, bodies.terms_body(profile.reduced(s.short_terms, "idf"), depth, weighted=False,
                                                  filters=filters))]
        if profile.provisions:
            short = profile.reduced(s.short_terms, "idf")
            requests.append((judgments, bodies.provisions_body(profile.provisions, short, depth // 4, filters)))
        first_known = len(requests)
        if profile.typed:  # a typed query may name a judgment: by its title, or by a citation it carries
            requests.append((judgments, bodies.title_body(_title_text(profile), s.title_depth, filters)))
            if profile.cited:
                requests.append((judgments, bodies.own_citations_body(profile.cited, s.citation_depth, filters)))
        first_context = len(requests)
        requests += [(judgments, bodies.terms_body(terms, s.context_depth, filters=filters))
                     for terms in profile.context_terms]
        responses = _msearch(self.client, requests)
        long, short = hits(responses[0]), hits(responses[1])
        contexts = tuple(hits(r) for r in responses[first_context:])
        # a citation typed alone may name a judgment that does not carry it: ask the judgments citing it by name
        named = cited_as(self.client, judgments, profile.cited, filters) \
            if profile.typed and profile.understanding and profile.understanding.kind is QueryKind.CITATION else {}
        ordered = [*named]
        ordered += [doc for r in responses[first_known:first_context] for doc in hits(r)]  # named ones first
        ordered += [*long, *short]
        for r in responses[2:first_known]:
            ordered += list(hits(r))
        # contexts: each context's top 10 first, so a precedent named by one context alone is kept
        ordered += [doc for found in contexts for doc in list(found)[:10]]
        ordered += [doc for found in contexts for doc in found]
        dropped = set(exclude)
        ids = tuple(d for d in dict.fromkeys(ordered) if d not in dropped)[: s.max_candidates]
        return Candidates(ids, long, contexts, short, named)

    # ------------------------------------------------------------------ features
    def features(self, profile: QueryProfile, candidates: Candidates, *, vector: Sequence[float] | None = None,
                 filters: Sequence[Body] = (), exclude: Sequence[str] = (),
                 also: Callable[[Sequence[str]], Sequence[tuple[str, Body]]] | None = None,
                 tuned: TunedQuery | None = None, groups: Sequence[FeatureGroup] | None = None,
                 known: FeatureMatrix | None = None) -> FeatureMatrix:
        """The feature matrix of ``candidates`` for ``profile`` (semantic features are missing without ``vector``).
        ``exclude`` names the query's own judgment when it is in the corpus: its citations are left out of the
        graph features, or a judgment would count as "cited" because the query itself cites it. ``also`` gives
        requests of the caller's about the candidates (``(index, body)``: what each matched, the exact counts)
        that ride in the same round trip; their answers are the matrix's ``extra``. ``tuned`` is the query under the
        tuned facts encoder (the ``tuned`` group's features are missing without it). ``filters`` are not needed:
        every candidate already satisfies them, and each feature body is restricted to the candidates.

        ``groups`` are the groups computed (every declared one when None; the others' columns missing, NaN);
        ``known`` holds the columns and metadata read before for these same candidates (the first stage's,
        :class:`search.ranking.rank.Ranker`), kept for the groups not computed here: the metadata is asked again
        only when none is known."""
        ids = candidates.ids
        if not ids:
            return FeatureMatrix((), np.zeros((0, len(FEATURES)), dtype=np.float32), {})
        groups = DECLARED if groups is None else groups
        inputs = Inputs(profile, candidates, vector, self.settings, self.aliases, self.groups, lambda: self.graph,
                        frozenset(exclude), tuned)
        asked = [group.requests(inputs) for group in groups]
        requests = [request for own in asked for request in own]
        if known is None:
            requests.append((self.aliases["judgments"], _metadata_body(inputs)))
        riders = list(also(ids)) if also else []
        answers = _msearch(self.client, [*requests, *riders])
        meta = _metadata(answers[len(requests) - 1]) if known is None else known.meta
        columns: dict[str, np.ndarray] = {} if known is None else {
            name: known.values[:, i].astype(np.float64) for i, name in enumerate(FEATURES)}
        at = 0
        for group, own in zip(groups, asked, strict=True):
            read = group.read(inputs, Answers(answers[at:at + len(own)], meta, columns))
            at += len(own)
            if set(read) != set(group.features):
                raise RuntimeError(f"feature group {group.name!r} read {sorted(read)}, "
                                   f"not its declared {list(group.features)}")
            columns.update(read)
        values = np.column_stack([columns.get(name, np.full(len(ids), np.nan)) for name in FEATURES]).astype(
            np.float32)
        extra = tuple(answers[len(requests):]) if known is None or riders else known.extra
        return FeatureMatrix(ids, values, meta, extra)

    def subset(self, matrix: FeatureMatrix, rows: Sequence[int]) -> FeatureMatrix:
        """The rows ``rows`` of ``matrix`` (and their candidates' metadata), in that order."""
        ids = tuple(matrix.ids[i] for i in rows)
        return FeatureMatrix(ids, matrix.values[list(rows)], {d: matrix.meta[d] for d in ids if d in matrix.meta},
                             matrix.extra)


def _title_text(profile: QueryProfile) -> str:
    """What the title source searches for: the typed text with the name words it stands for (``U.P.`` also as
    ``uttar pradesh``, ``Mohd.`` as ``mohammad``), so either spelling in a title matches."""
    understood = profile.understanding
    sides = understood.parties if understood and understood.parties else (profile.text,)
    return " ".join([profile.text, *(word for side in sides for word in sorted(name_query(side).words))])
