"""Candidates and features per (query, judgment), in as few requests as possible.

A query's candidates are the union of several sources, deduplicated to judgments: BM25 with the reduced query
over whole judgment texts (two reductions), each citation context's terms, the judgments citing the query's
provisions, and the chunk hybrid roll-up when the caller has it. Every candidate then gets every feature from
one ``_msearch`` (every body restricted to the candidates, so scores are exact, not top-k) plus one ``_mget`` of
stored metadata; the rest is arithmetic in numpy.

Feature groups (:data:`GROUPS`), which the ablations remove one at a time:

* ``lexical``: BM25 of the reduced query over the whole text, the title and the summary fields;
* ``context``: how the judgment ranks for the query's citation contexts (document queries);
* ``roles``: the best chunk's BM25 within each coarse role group (facts, arguments, statute, precedent,
  reasoning, rulings): does the judgment match where it matters;
* ``semantic``: vector similarity of the query to the judgment and to its best chunk (overall, facts, reasoning);
* ``legal``: provisions and citations shared with the query, the judgment's age against the query's;
* ``graph``: how often the corpus cites the judgment, and how it is tied by citations to the other strong
  candidates (cited together with them; citing the same judgments);
* ``names``: for a typed query (not a pasted text or a document), how well the judgment's title answers the
  query as a case name or party (:func:`search.party_names.name_fit`: same parties, part of them, the share of
  the query's words and of the rare ones in the title), and how many of the query's words the judgment holds
  (every word, or what share): what makes ``Sewa Singh v State of Punjab`` find that judgment first;
* ``query``: the query's length and how many contexts and provisions it has, and whether it is typed as a case
  name (so one model serves a typed name, a phrase and a pasted judgment).

A typed query also takes candidates from the judgments' titles and their own reporter citations (a query naming
``AIR 1962 SC 605`` finds the judgment reported there).

Score features come raw and divided by the best candidate's score (a query-independent scale).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from legal.roles import load_role_set
from search.citation_graph import CitationGraph, load_graph
from search.party_names import name_fit, name_query
from search.ranking import bodies
from search.ranking.known import cited_as
from search.ranking.query import QueryProfile
from search.understand import QueryKind

__all__ = ["FEATURES", "GROUPS", "Candidates", "FeatureMatrix", "FeatureSettings", "Features", "RankingError",
           "role_groups"]

Body = dict[str, Any]
_META_VALUES = ("year", "n_sentences")
TITLE_FIELD = "title.raw"  # the title's doc value: read for every candidate, no stored text
WORD_FIELD = "word"  # the named clause of a query word a candidate holds (``word:<term>``)


@dataclass(frozen=True)
class FeatureSettings:
    """Depths and term counts (chosen on tuning queries; see docs/evaluation.md)."""

    depth: int = 500  # judgments per candidate source
    context_depth: int = 50  # judgments per citation context
    long_terms: int = 200  # KL-selected terms of the long reduction
    short_terms: int = 50  # tf-idf-selected terms of the short reduction
    max_candidates: int = 1000
    name_depth: int = 100  # judgments per BM25 source for a typed name or citation (chosen on the typed tuning
    # half: 100, 200 and 500 gave the same success@1 and MRR@10 there; topic words lost 0.05 MAP at 100, so keep depth)
    title_depth: int = 50  # judgments whose titles match a typed query best
    citation_depth: int = 20  # judgments carrying a reporter citation the query names as their own


def role_groups() -> dict[str, tuple[str, ...]]:
    """Coarse role group -> canonical roles, from the role table (the header group ``other`` left out)."""
    role_set = load_role_set()
    return {group: role_set.group(group) for group in role_set.coarse_groups if group != "other"}


# the coarse role groups of the role table (legal/roles.json), the header group "other" left out: one feature each
_ROLE_GROUPS = tuple(g for g in load_role_set().coarse_groups if g != "other")
_SIM_GROUPS = ("facts", "reasoning")


def _names() -> dict[str, str]:
    names: dict[str, str] = {}
    for name in ("q_terms", "q_contexts", "q_provisions", "q_name"):
        names[name] = "query"
    for name in ("name_fit", "name_query_cover", "name_title_cover", "name_rare_cover", "words_all", "words_share"):
        names[name] = "names"
    for name in ("bm25_long", "bm25_long_norm", "bm25_short", "bm25_short_norm", "bm25_title_norm",
                 "bm25_summary_norm", "rank_long"):
        names[name] = "lexical"
    for name in ("ctx_max", "ctx_mean", "ctx_top10", "ctx_best_rank"):
        names[name] = "context"
    names["role_any_norm"] = "roles"
    for group in _ROLE_GROUPS:
        names[f"role_{group}_norm"] = "roles"
    for name in ("sim_judgment", "sim_chunk", *(f"sim_{g}" for g in _SIM_GROUPS)):
        names[name] = "semantic"
    for name in ("prov_shared", "prov_shared_idf", "cites_shared", "cited_by_query", "year_gap", "after_query",
                 "log_sentences"):
        names[name] = "legal"
    for name in ("cited_by", "cocited_top", "coupled_top"):
        names[name] = "graph"
    return names


FEATURE_GROUPS: dict[str, str] = _names()
FEATURES: tuple[str, ...] = tuple(FEATURE_GROUPS)
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(FEATURE_GROUPS.values()))


@dataclass(frozen=True)
class Candidates:
    """The union of the candidate sources: ids in first-seen order, and each source's scores."""

    ids: tuple[str, ...]
    long: Mapping[str, float]
    contexts: tuple[Mapping[str, float], ...] = ()
    short: Mapping[str, float] = field(default_factory=dict)  # the short reduction's scores (its top ``depth``)
    named: Mapping[str, str] = field(default_factory=dict)  # judgments a citation of the query names, by others' use


@dataclass(frozen=True)
class FeatureMatrix:
    """One row per candidate, one column per name in :data:`FEATURES`; ``meta`` keeps what explanations need."""

    ids: tuple[str, ...]
    values: np.ndarray
    meta: Mapping[str, Mapping[str, Any]]
    extra: tuple[Mapping[str, Any], ...] = ()  # the answers to the caller's own requests sent along (``also``)

    def column(self, name: str) -> np.ndarray:
        return self.values[:, FEATURES.index(name)]


def _hits(response: Mapping[str, Any]) -> dict[str, float]:
    """Judgment id -> score of the hits (judgments or chunks, read from the ``judgment_id`` doc value)."""
    out: dict[str, float] = {}
    for hit in response["hits"]["hits"]:
        out.setdefault(hit["fields"]["judgment_id"][0], float(hit["_score"] or 0.0))
    return out


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


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    return {doc: rank for rank, doc in enumerate(sorted(scores, key=lambda d: -scores[d]), start=1)}


class RankingError(RuntimeError):
    """A ranking request failed on the cluster; the message carries OpenSearch's innermost reason, ``info`` the
    cluster's whole answer for that request."""

    def __init__(self, message: str, info: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.info = info


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
        """The corpus's citation graph, read on first use (one scroll, or from the caller's source: the searcher's
        :class:`~search.citation_graph.GraphCache`, which the pages share) and kept; resolved exactly, as the
        shipped model was trained (:func:`search.citation_graph.build_graph`)."""
        if self._graph is None:
            self._graph = self._source() if self._source else \
                load_graph(self.client, self.aliases["judgments"], by_parties=False)
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
        long, short = _hits(responses[0]), _hits(responses[1])
        contexts = tuple(_hits(r) for r in responses[first_context:])
        # a citation typed alone may name a judgment that does not carry it: ask the judgments citing it by name
        named = cited_as(self.client, judgments, profile.cited, filters) \
            if profile.typed and profile.understanding and profile.understanding.kind is QueryKind.CITATION else {}
        ordered = [*named]
        ordered += [doc for r in responses[first_known:first_context] for doc in _hits(r)]  # named ones first
        ordered += [*long, *short]
        for r in responses[2:first_known]:
            ordered += list(_hits(r))
        # contexts: each context's top 10 first, so a precedent named by one context alone is kept
        ordered += [doc for found in contexts for doc in list(found)[:10]]
        ordered += [doc for found in contexts for doc in found]
        dropped = set(exclude)
        ids = tuple(d for d in dict.fromkeys(ordered) if d not in dropped)[: s.max_candidates]
        return Candidates(ids, long, contexts, short, named)

    # ------------------------------------------------------------------ features
    def _requests(self, profile: QueryProfile, candidates: Candidates, vector: Sequence[float] | None,
                  filters: Sequence[Body]) -> list[tuple[str, Body]]:
        s, judgments, chunks = self.settings, self.aliases["judgments"], self.aliases["chunks"]
        long, short = profile.reduced(s.long_terms, "kl"), profile.reduced(s.short_terms, "idf")
        ids = candidates.ids
        n = len(ids)
        # the two reductions' scores of the candidates their own source did not return (the same queries: the
        # scores a candidate source returned are exact already)
        unscored_long = [d for d in ids if d not in candidates.long]
        unscored_short = [d for d in ids if d not in candidates.short]
        requests = [
            (judgments, bodies.terms_body(long, len(unscored_long), ids=unscored_long)),
            (judgments, bodies.terms_body(short, len(unscored_short), weighted=False, ids=unscored_short)),
            (judgments, bodies.terms_body(short, n, fields=("title",), weighted=False, ids=ids)),
            (judgments, bodies.terms_body(short, n, fields=bodies.SUMMARY_FIELDS, weighted=False, ids=ids)),
            (chunks, bodies.chunk_roles_body(short, ids)),
        ]
        if vector is not None:
            requests += [(judgments, bodies.judgment_similarity_body(vector, ids)),
                         (chunks, bodies.chunk_similarity_roles_body(vector, ids))]
        if profile.provisions:
            requests.append((judgments, bodies.provision_df_body(profile.provisions)))
        return requests

    def _best(self, table: tuple[np.ndarray, Sequence[str]], group: str | None = None) -> np.ndarray:
        """Each candidate's best chunk score among the roles of ``group`` (every role when None); 0 without one.
        ``table`` is :func:`_role_table`'s (the scores are never negative, so an absent role's 0 never wins)."""
        scores, roles = table
        if group is None:
            chosen = list(range(len(roles)))
        else:
            wanted = set(self.groups.get(group, (group,)))
            chosen = [i for i, role in enumerate(roles) if role in wanted]
        return scores[:, chosen].max(axis=1) if chosen else np.zeros(len(scores))

    def features(self, profile: QueryProfile, candidates: Candidates, *, vector: Sequence[float] | None = None,
                 filters: Sequence[Body] = (), exclude: Sequence[str] = (),
                 also: Callable[[Sequence[str]], Sequence[tuple[str, Body]]] | None = None) -> FeatureMatrix:
        """The feature matrix of ``candidates`` for ``profile`` (semantic features are missing without ``vector``).
        ``exclude`` names the query's own judgment when it is in the corpus: its citations are left out of the
        graph features, or a judgment would count as "cited" because the query itself cites it. ``also`` gives
        requests of the caller's about the candidates (``(index, body)``: what each matched, the exact counts)
        that ride in the same round trip; their answers are the matrix's ``extra``."""
        ids = candidates.ids
        if not ids:
            return FeatureMatrix((), np.zeros((0, len(FEATURES)), dtype=np.float32), {})
        requests = self._requests(profile, candidates, vector, filters)
        riders = list(also(ids)) if also else []
        shared = {"cited_provisions": profile.provisions, "cited_judgments": profile.cited, "citations": profile.cited}
        words = _query_words(profile)
        if words:
            shared[WORD_FIELD] = words
        values = (*_META_VALUES, TITLE_FIELD) if profile.typed else _META_VALUES
        requests.append((self.aliases["judgments"], bodies.metadata_body(ids, values, shared,
                                                                         fields={WORD_FIELD: "text"})))
        answers = _msearch(self.client, [*requests, *riders])
        *responses, metadata = answers[:len(requests)]
        extra = tuple(answers[len(requests):])
        meta = _metadata(metadata)
        columns: dict[str, np.ndarray] = {}
        n = len(ids)

        def scores(response: Mapping[str, Any]) -> np.ndarray:
            found = _hits(response)
            return np.array([found.get(d, 0.0) for d in ids], dtype=np.float64)

        def norm(values: np.ndarray) -> np.ndarray:
            top = float(values.max()) if len(values) else 0.0
            return values / top if top > 0 else np.zeros_like(values)

        columns["q_terms"] = np.full(n, math.log1p(profile.length))
        columns["q_contexts"] = np.full(n, float(len(profile.contexts)))
        columns["q_provisions"] = np.full(n, float(len(profile.provisions)))
        understood = profile.understanding
        columns["q_name"] = np.full(n, float(understood is not None and understood.kind is QueryKind.NAME))
        columns.update(_name_columns(profile, ids, meta, len(words)))
        it = iter(responses)
        long, short = ({**known, **_hits(next(it))} for known in (candidates.long, candidates.short))
        long, short = (np.array([found.get(d, 0.0) for d in ids], dtype=np.float64) for found in (long, short))
        title, summary = (scores(next(it)) for _ in range(2))
        columns.update(bm25_long=long, bm25_long_norm=norm(long), bm25_short=short, bm25_short_norm=norm(short),
                       bm25_title_norm=norm(title), bm25_summary_norm=norm(summary))
        long_ranks = _ranks(candidates.long)
        columns["rank_long"] = np.array([math.log(long_ranks[d]) if d in long_ranks else np.nan for d in ids])
        columns.update(_context_columns(candidates, ids))
        lexical = _role_table(bodies.best_per_role(next(it)), ids)
        columns["role_any_norm"] = norm(self._best(lexical))
        for group in _ROLE_GROUPS:
            columns[f"role_{group}_norm"] = norm(self._best(lexical, group))
        if vector is not None:
            columns["sim_judgment"] = scores(next(it))
            similar = _role_table(bodies.best_per_role(next(it)), ids)
            columns["sim_chunk"] = self._best(similar)
            for group in _SIM_GROUPS:
                sim = self._best(similar, group)
                columns[f"sim_{group}"] = np.where(sim > 0, sim, np.nan)
        else:
            for name in ("sim_judgment", "sim_chunk", *(f"sim_{g}" for g in _SIM_GROUPS)):
                columns[name] = np.full(n, np.nan)
        df = {}
        if profile.provisions:
            buckets = next(it)["aggregations"]["df"]["buckets"]
            df = {b["key"]: int(b["doc_count"]) for b in buckets}
        columns.update(_legal_columns(profile, ids, meta, df))
        if candidates.named:  # named by the query's citation through the judgments citing it: as if it carried it
            columns["cited_by_query"] = np.maximum(columns["cited_by_query"],
                                                   np.array([float(d in candidates.named) for d in ids]))
        columns.update(_graph_columns(self.graph, ids, long, ignore=frozenset(exclude)))
        values = np.column_stack([columns[name] for name in FEATURES]).astype(np.float32)
        return FeatureMatrix(ids, values, meta, extra)


def _role_table(per_role: Mapping[str, Mapping[str, float]], ids: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Judgment -> role -> best score as a matrix (a row per candidate in ``ids``, a column per role found; 0 where
    a candidate has no chunk of that role), so the role groups' maxima are column maxima."""
    roles = sorted({role for scores in per_role.values() for role in scores})
    column = {role: i for i, role in enumerate(roles)}
    row = {doc: i for i, doc in enumerate(ids)}
    table = np.zeros((len(ids), len(roles)), dtype=np.float64)
    for doc, scores in per_role.items():
        i = row.get(doc)
        if i is not None:
            for role, score in scores.items():
                table[i, column[role]] = score
    return table, roles


def _context_columns(candidates: Candidates, ids: Sequence[str]) -> dict[str, np.ndarray]:
    contexts = [c for c in candidates.contexts if c]
    n = len(ids)
    if not contexts:
        return {name: np.full(n, np.nan) for name in ("ctx_max", "ctx_mean", "ctx_top10", "ctx_best_rank")}
    best, total, top10, best_rank = (np.zeros(n) for _ in range(4))
    best_rank[:] = np.nan
    position = {d: i for i, d in enumerate(ids)}
    for found in contexts:
        top = max(found.values()) or 1.0
        for rank, (doc, score) in enumerate(sorted(found.items(), key=lambda item: -item[1]), start=1):
            i = position.get(doc)
            if i is None:
                continue
            best[i] = max(best[i], score / top)
            total[i] += score / top
            top10[i] += rank <= 10
            best_rank[i] = min(best_rank[i], math.log(rank)) if not np.isnan(best_rank[i]) else math.log(rank)
    return {"ctx_max": best, "ctx_mean": total / len(contexts), "ctx_top10": top10 / len(contexts),
            "ctx_best_rank": best_rank}


def _legal_columns(profile: QueryProfile, ids: Sequence[str], meta: Mapping[str, Mapping[str, Any]],
                   df: Mapping[str, int]) -> dict[str, np.ndarray]:
    n_docs = max(profile.corpus.doc_count, 1)
    provisions, cited = set(profile.provisions), set(profile.cited)
    rows: dict[str, list[float]] = {k: [] for k in ("prov_shared", "prov_shared_idf", "cites_shared",
                                                    "cited_by_query", "year_gap", "after_query", "log_sentences")}
    for doc in ids:
        source = meta.get(doc, {})
        shared = provisions & set(source.get("cited_provisions") or ())
        rows["prov_shared"].append(float(len(shared)))
        rows["prov_shared_idf"].append(sum(math.log(1 + n_docs / (1 + df.get(p, 0))) for p in shared))
        rows["cites_shared"].append(float(len(cited & set(source.get("cited_judgments") or ()))))
        rows["cited_by_query"].append(float(bool(cited & set(source.get("citations") or ()))))
        year = source.get("year")
        known = year is not None and profile.year is not None
        rows["year_gap"].append(float(profile.year - year) if known else np.nan)
        rows["after_query"].append(float(year > profile.year) if known else np.nan)
        sentences = source.get("n_sentences")
        rows["log_sentences"].append(math.log1p(sentences) if sentences is not None else np.nan)
    return {k: np.array(v, dtype=np.float64) for k, v in rows.items()}


def _graph_columns(graph: CitationGraph, ids: Sequence[str], strength: np.ndarray, top: int = 10,
                   ignore: frozenset[str] = frozenset()) -> dict[str, np.ndarray]:
    """Citation evidence: the judgment's in-corpus citation count, and its ties to the ``top`` candidates by
    ``strength``: how many of them some corpus judgment cites together with it, and how many judgments it cites
    in common with them. Citations by the judgments in ``ignore`` (the query's own) do not count."""
    leaders = [ids[i] for i in np.argsort(-strength, kind="stable")[:top]]
    leader_citers = [set(graph.cited_by.get(d, ())) - ignore for d in leaders]
    leader_cites = [set(graph.cites.get(d, ())) for d in leaders]
    cited_by, cocited, coupled = [], [], []
    for doc in ids:
        citers, cites = set(graph.cited_by.get(doc, ())) - ignore, set(graph.cites.get(doc, ()))
        cited_by.append(math.log1p(len(citers)))
        others = [(c, o) for leader, c, o in zip(leaders, leader_citers, leader_cites, strict=True) if leader != doc]
        cocited.append(sum(1 for c, _ in others if citers & c) / top)
        coupled.append(math.log1p(sum(len(cites & o) for _, o in others)))
    return {"cited_by": np.array(cited_by), "cocited_top": np.array(cocited), "coupled_top": np.array(coupled)}


def _query_words(profile: QueryProfile) -> tuple[str, ...]:
    """The analysed words of a typed query (the index's own tokens, stopwords gone), whose presence in each
    candidate is asked by name; none for a pasted text or a document."""
    return tuple(t.term for t in profile.terms) if profile.typed else ()


def _title_text(profile: QueryProfile) -> str:
    """What the title source searches for: the typed text with the name words it stands for (``U.P.`` also as
    ``uttar pradesh``, ``Mohd.`` as ``mohammad``), so either spelling in a title matches."""
    understood = profile.understanding
    sides = understood.parties if understood and understood.parties else (profile.text,)
    return " ".join([profile.text, *(word for side in sides for word in sorted(name_query(side).words))])


def _name_columns(profile: QueryProfile, ids: Sequence[str], meta: Mapping[str, Mapping[str, Any]],
                  n_words: int) -> dict[str, np.ndarray]:
    """The ``names`` group: how each candidate's title answers the query as a name, and how many of the query's
    words it holds. Missing (NaN) for a pasted text or a document, which are not looked up by name."""
    names = ("name_fit", "name_query_cover", "name_title_cover", "name_rare_cover", "words_all", "words_share")
    n = len(ids)
    if not profile.typed:
        return {name: np.full(n, np.nan) for name in names}
    understood = profile.understanding
    query = name_query(profile.text, understood.parties if understood else ())
    rows = {name: np.zeros(n) for name in names}
    for i, doc in enumerate(ids):
        source = meta.get(doc, {})
        fit = name_fit(query, source.get(TITLE_FIELD))
        rows["name_fit"][i], rows["name_query_cover"][i] = fit.fit, fit.query_cover
        rows["name_title_cover"][i], rows["name_rare_cover"][i] = fit.title_cover, fit.rare_cover
        held = len(set(source.get(WORD_FIELD) or ()))
        rows["words_all"][i] = float(n_words > 0 and held == n_words)
        rows["words_share"][i] = held / n_words if n_words else np.nan
    return rows
