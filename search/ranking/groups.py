"""The learned ranker's feature groups, declared once: the feature vector, its requests and its explanations follow.

Each group (:class:`search.ranking.group.FeatureGroup`) names its features, the requests they need, how their
answers are read and what kind of evidence each feature is. :data:`DECLARED` lists the groups; the feature
vector is their features in declaration order (:data:`FEATURES`), the ranking round trip sends their requests in
that order with one shared metadata request, and the explanations (:mod:`search.ranking.evidence`) phrase the
kinds they declare. Adding a feature is one edit here (and retraining: a model reads the features its card names,
by name, so older models keep loading).

The groups, which the ablations remove one at a time (``ratio train ranker --drop-group``):

* ``query``: the query's length, how many contexts and provisions it has, whether it is typed as a case name (so
  one model serves a typed name, a phrase and a pasted judgment);
* ``names``: for a typed query (not a pasted text or a document), how well the judgment's title answers the
  query as a case name or party (:func:`search.query.party_names.name_fit`), and how many of the query's words the
  judgment holds: what makes ``Sewa Singh v State of Punjab`` find that judgment first;
* ``lexical``: BM25 of the reduced query over the whole text, the title and the summary fields;
* ``context``: how the judgment ranks for the query's citation contexts (document queries);
* ``roles``: the best chunk's BM25 within each coarse role group (facts, arguments, statute, precedent,
  reasoning, rulings): does the judgment match where it matters;
* ``semantic``: vector similarity of the query to the judgment and to its best chunk (overall, facts, reasoning);
* ``legal``: provisions and citations shared with the query, the judgment's age against the query's;
* ``graph``: how often the corpus cites the judgment, and how it is tied by citations to the other strong
  candidates (cited together with them; citing the same judgments);
* ``reduction``: BM25 of the whole query (every term, as often as it is said), of a sharp 30-term reduction, and
  of the long reduction over the facts summary: for pasted fact patterns;
* ``tuned``: facts against facts under the encoder tuned on the corpus's citation pairs (the candidate's facts
  text, best facts chunk and mean facts chunk; :mod:`search.ranking.tuned`).

Score features come raw and divided by the best candidate's score (a query-independent scale).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from legal.roles import load_role_set
from search.query.party_names import name_fit, name_query
from search.query.understand import QueryKind
from search.ranking.group import (
    Answers,
    Clue,
    EvidenceKind,
    FeatureGroup,
    Inputs,
    Metadata,
    always,
    hits,
    norm,
    present,
    when,
)
from search.ranking.query import QueryProfile
from search.ranking.tuned import best_chunks, tuned_bodies
from search.retrieval import bodies

__all__ = ["DECLARED", "EXPLAINS", "FEATURES", "FEATURE_GROUPS", "GROUPS", "TITLE_FIELD", "WORD_FIELD",
           "query_words"]

TITLE_FIELD = "title.raw"  # the title's doc value: read for every candidate, no stored text
WORD_FIELD = "word"  # the named clause of a query word a candidate holds (``word:<term>``)
Request = tuple[str, dict[str, Any]]

# kinds of evidence more than one group gives (their contributions add up before phrasing)
FACTS = present("facts", "facts similar")
REASONING = present("reasoning", "reasoning matches")
TERMS = always("terms", "shares the query's distinctive terms")


def query_words(profile: QueryProfile) -> tuple[str, ...]:
    """The analysed words of a typed query (the index's own tokens, stopwords gone), whose presence in each
    candidate is asked by name; none for a pasted text or a document."""
    return tuple(t.term for t in profile.terms) if profile.typed else ()


class QueryGroup(FeatureGroup):
    """What the query is: the same for every candidate, so it says nothing about why one judgment ranks."""

    name = "query"
    features = ("q_terms", "q_contexts", "q_provisions", "q_name")
    explains: Mapping[str, EvidenceKind | None] = dict.fromkeys(features)

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        profile, n = inputs.profile, len(inputs.ids)
        understood = profile.understanding
        return {"q_terms": np.full(n, math.log1p(profile.length)),
                "q_contexts": np.full(n, float(len(profile.contexts))),
                "q_provisions": np.full(n, float(len(profile.provisions))),
                "q_name": np.full(n, float(understood is not None and understood.kind is QueryKind.NAME))}


class NamesGroup(FeatureGroup):
    """How each candidate's title answers the query as a name, and how many of the query's words it holds.
    Missing (NaN) for a pasted text or a document, which are not looked up by name. A title that matches is
    phrased by the lexical group's title score, so these say nothing of their own."""

    name = "names"
    features = ("name_fit", "name_query_cover", "name_title_cover", "name_rare_cover", "words_all", "words_share")
    explains: Mapping[str, EvidenceKind | None] = dict.fromkeys(features)

    def metadata(self, inputs: Inputs) -> Metadata:
        if not inputs.profile.typed:
            return Metadata()
        words = query_words(inputs.profile)
        return Metadata((TITLE_FIELD,), {WORD_FIELD: words} if words else {}, {WORD_FIELD: "text"})

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        profile, ids = inputs.profile, inputs.ids
        if not profile.typed:
            return {name: inputs.missing() for name in self.features}
        n_words = len(query_words(profile))
        understood = profile.understanding
        query = name_query(profile.text, understood.parties if understood else ())
        rows = {name: np.zeros(len(ids)) for name in self.features}
        for i, doc in enumerate(ids):
            source = answers.meta.get(doc, {})
            fit = name_fit(query, source.get(TITLE_FIELD))
            rows["name_fit"][i], rows["name_query_cover"][i] = fit.fit, fit.query_cover
            rows["name_title_cover"][i], rows["name_rare_cover"][i] = fit.title_cover, fit.rare_cover
            held = len(set(source.get(WORD_FIELD) or ()))
            rows["words_all"][i] = float(n_words > 0 and held == n_words)
            rows["words_share"][i] = held / n_words if n_words else np.nan
        return rows


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    return {doc: rank for rank, doc in enumerate(sorted(scores, key=lambda d: -scores[d]), start=1)}


class LexicalGroup(FeatureGroup):
    """BM25 of the two reductions over the whole text (the candidate sources' exact scores, asked only for the
    candidates a source did not return), of the short one over the title and the summary fields, and the rank
    in the long reduction's source."""

    name = "lexical"
    features = ("bm25_long", "bm25_long_norm", "bm25_short", "bm25_short_norm", "bm25_title_norm",
                "bm25_summary_norm", "rank_long")
    _terms = TERMS
    explains: Mapping[str, EvidenceKind | None] = {
        "bm25_long": _terms, "bm25_long_norm": _terms, "bm25_short": _terms, "bm25_short_norm": _terms,
        "rank_long": _terms, "bm25_title_norm": present("title", "title matches"),
        "bm25_summary_norm": present("summary", "summary matches")}

    def requests(self, inputs: Inputs) -> list[Request]:
        judgments, ids, candidates = inputs.aliases["judgments"], inputs.ids, inputs.candidates
        long, short = inputs.long_terms, inputs.short_terms
        unscored_long = [d for d in ids if d not in candidates.long]
        unscored_short = [d for d in ids if d not in candidates.short]
        return [(judgments, bodies.terms_body(long, len(unscored_long), ids=unscored_long)),
                (judgments, bodies.terms_body(short, len(unscored_short), weighted=False, ids=unscored_short)),
                (judgments, bodies.terms_body(short, len(ids), fields=("title",), weighted=False, ids=ids)),
                (judgments, bodies.terms_body(short, len(ids), fields=bodies.SUMMARY_FIELDS, weighted=False,
                                              ids=ids))]

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        candidates = inputs.candidates
        rest_long, rest_short, title, summary = answers.responses
        long = inputs.scores({**candidates.long, **hits(rest_long)})
        short = inputs.scores({**candidates.short, **hits(rest_short)})
        long_ranks = _ranks(candidates.long)
        return {"bm25_long": long, "bm25_long_norm": norm(long), "bm25_short": short, "bm25_short_norm": norm(short),
                "bm25_title_norm": norm(inputs.scores(hits(title))),
                "bm25_summary_norm": norm(inputs.scores(hits(summary))),
                "rank_long": np.array([math.log(long_ranks[d]) if d in long_ranks else np.nan for d in inputs.ids])}


class ContextGroup(FeatureGroup):
    """How the judgment ranks for the query's citation contexts (their candidate sources' scores): best, mean and
    top-ten share of its score over the best's, and its best rank. Missing when the query cites nothing."""

    name = "context"
    features = ("ctx_max", "ctx_mean", "ctx_top10", "ctx_best_rank")
    # a typed query cites nothing: the context features are missing, not evidence
    _context = when("context", "matches what the query cites a judgment for", "ctx_max", lambda v: v > 0)
    explains: Mapping[str, EvidenceKind | None] = dict.fromkeys(features, _context)

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        contexts = [c for c in inputs.candidates.contexts if c]
        ids, n = inputs.ids, len(inputs.ids)
        if not contexts:
            return {name: inputs.missing() for name in self.features}
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


def _best(inputs: Inputs, table: tuple[np.ndarray, Sequence[str]], group: str | None = None) -> np.ndarray:
    """Each candidate's best chunk score among the roles of ``group`` (every role when None); 0 without one.
    ``table`` is :func:`_role_table`'s (the scores are never negative, so an absent role's 0 never wins)."""
    scores, roles = table
    if group is None:
        chosen = list(range(len(roles)))
    else:
        wanted = set(inputs.roles.get(group, (group,)))
        chosen = [i for i, role in enumerate(roles) if role in wanted]
    return scores[:, chosen].max(axis=1) if chosen else np.zeros(len(scores))


# the coarse role groups of the role table (legal/roles.json), the header group "other" left out: one feature each
ROLE_GROUPS = tuple(g for g in load_role_set().coarse_groups if g != "other")
_ROLE_KINDS = {"facts": FACTS, "arguments": present("arguments", "similar arguments"),
               "statute": present("statute", "same statutory text discussed"),
               "precedent": present("precedent", "relies on similar precedents"), "reasoning": REASONING,
               "rulings": present("rulings", "similar ruling")}


class RolesGroup(FeatureGroup):
    """The best chunk's BM25 (short reduction) in any role and within each coarse role group, over the best
    candidate's: one aggregation over the candidates' chunks."""

    name = "roles"
    second_stage = True
    features = ("role_any_norm", *(f"role_{group}_norm" for group in ROLE_GROUPS))
    explains: Mapping[str, EvidenceKind | None] = {
        "role_any_norm": present("passage", "a passage matches closely"),
        **{f"role_{group}_norm": _ROLE_KINDS.get(group) for group in ROLE_GROUPS}}

    def requests(self, inputs: Inputs) -> list[Request]:
        return [(inputs.aliases["chunks"], bodies.chunk_roles_body(inputs.short_terms, inputs.ids))]

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        table = _role_table(bodies.best_per_role(answers.responses[0]), inputs.ids)
        return {"role_any_norm": norm(_best(inputs, table)),
                **{f"role_{group}_norm": norm(_best(inputs, table, group)) for group in ROLE_GROUPS}}


SIM_GROUPS = ("facts", "reasoning")


class SemanticGroup(FeatureGroup):
    """Exact cosine of the query vector with each candidate judgment's vector and with its best chunk, overall and
    within the facts and reasoning groups. Missing without a query vector, and a role group's where the judgment
    has no chunk of it."""

    name = "semantic"
    second_stage = True
    features = ("sim_judgment", "sim_chunk", *(f"sim_{g}" for g in SIM_GROUPS))
    _meaning = present("meaning", "similar in meaning")
    explains: Mapping[str, EvidenceKind | None] = {"sim_judgment": _meaning, "sim_chunk": _meaning,
                                                    "sim_facts": FACTS, "sim_reasoning": REASONING}

    def requests(self, inputs: Inputs) -> list[Request]:
        if inputs.vector is None:
            return []
        return [(inputs.aliases["judgments"], bodies.judgment_similarity_body(inputs.vector, inputs.ids)),
                (inputs.aliases["chunks"], bodies.chunk_similarity_roles_body(inputs.vector, inputs.ids))]

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        if inputs.vector is None:
            return {name: inputs.missing() for name in self.features}
        judgment, chunks = answers.responses
        similar = _role_table(bodies.best_per_role(chunks), inputs.ids)
        columns = {"sim_judgment": inputs.scores(hits(judgment)), "sim_chunk": _best(inputs, similar)}
        for group in SIM_GROUPS:
            sim = _best(inputs, similar, group)
            columns[f"sim_{group}"] = np.where(sim > 0, sim, np.nan)
        return columns


def _shared_provisions(clue: Clue) -> str | None:
    shared = [p for p in clue.profile.provisions if p in set(clue.meta.get("cited_provisions") or ())]
    return f"same provisions: {', '.join(shared[:4])}" if shared else None


def _shared_citations(clue: Clue) -> str | None:
    shared = [c for c in clue.profile.cited if c in set(clue.meta.get("cited_judgments") or ())]
    return f"cites the same judgments: {', '.join(shared[:3])}" if shared else None


class LegalGroup(FeatureGroup):
    """Provisions and judgments the candidate cites in common with the query (IDF-weighted by the corpus's
    provision counts), whether the query cites it, its age against the query's latest year, and its length."""

    name = "legal"
    features = ("prov_shared", "prov_shared_idf", "cites_shared", "cited_by_query", "year_gap", "after_query",
                "log_sentences")
    _provisions = EvidenceKind("provisions", _shared_provisions)
    explains: Mapping[str, EvidenceKind | None] = {
        "prov_shared": _provisions, "prov_shared_idf": _provisions,
        "cites_shared": EvidenceKind("cites", _shared_citations),
        "cited_by_query": always("cited_by_query", "the query cites it"),
        "year_gap": when("age", "decided before the query", "year_gap", lambda v: v >= 0),
        "after_query": None, "log_sentences": None}

    def requests(self, inputs: Inputs) -> list[Request]:
        provisions = inputs.profile.provisions
        return [(inputs.aliases["judgments"], bodies.provision_df_body(provisions))] if provisions else []

    def metadata(self, inputs: Inputs) -> Metadata:
        profile = inputs.profile
        return Metadata(("year", "n_sentences"), {"cited_provisions": profile.provisions,
                                                  "cited_judgments": profile.cited, "citations": profile.cited})

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        profile, ids = inputs.profile, inputs.ids
        df: dict[str, int] = {}
        if answers.responses:
            df = {b["key"]: int(b["doc_count"]) for b in answers.responses[0]["aggregations"]["df"]["buckets"]}
        n_docs = max(profile.corpus.doc_count, 1)
        provisions, cited = set(profile.provisions), set(profile.cited)
        rows: dict[str, list[float]] = {name: [] for name in self.features}
        for doc in ids:
            source = answers.meta.get(doc, {})
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
        columns = {k: np.array(v, dtype=np.float64) for k, v in rows.items()}
        named = inputs.candidates.named
        if named:  # named by the query's citation through the judgments citing it: as if it carried it
            by_name = np.array([float(d in named) for d in ids])
            columns["cited_by_query"] = np.maximum(columns["cited_by_query"], by_name)
        return columns


def _often_cited(clue: Clue) -> str | None:
    count = round(math.expm1(clue.features.get("cited_by", 0.0)))
    return f"often cited ({count} judgments of the corpus)" if count >= 2 else None


class GraphGroup(FeatureGroup):
    """Citation evidence: the judgment's in-corpus citation count, and its ties to the ten candidates strongest by
    ``bm25_long`` (read by the lexical group, declared before): how many of them some corpus judgment cites
    together with it, and how many judgments it cites in common with them. Citations by the query's own judgment
    do not count."""

    name = "graph"
    features = ("cited_by", "cocited_top", "coupled_top")
    explains: Mapping[str, EvidenceKind | None] = {
        "cited_by": EvidenceKind("cited_by", _often_cited),
        "cocited_top": always("cocited", "cited together with other top results"),
        "coupled_top": always("coupled", "cites the same authorities as other top results")}
    top = 10

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        graph, ids, ignore = inputs.graph(), inputs.ids, inputs.exclude
        strength = answers.columns["bm25_long"]
        leaders = [ids[i] for i in np.argsort(-strength, kind="stable")[:self.top]]
        leader_citers = [set(graph.cited_by.get(d, ())) - ignore for d in leaders]
        leader_cites = [set(graph.cites.get(d, ())) for d in leaders]
        cited_by, cocited, coupled = [], [], []
        for doc in ids:
            citers, cites = set(graph.cited_by.get(doc, ())) - ignore, set(graph.cites.get(doc, ()))
            cited_by.append(math.log1p(len(citers)))
            others = [(c, o) for leader, c, o in zip(leaders, leader_citers, leader_cites, strict=True)
                      if leader != doc]
            cocited.append(sum(1 for c, _ in others if citers & c) / self.top)
            coupled.append(math.log1p(sum(len(cites & o) for _, o in others)))
        return {"cited_by": np.array(cited_by), "cocited_top": np.array(cocited), "coupled_top": np.array(coupled)}


class ReductionGroup(FeatureGroup):
    """The pasted text read whole and read sharply, for fact patterns (issue 27): BM25 of every query term weighted
    by how often the query says it (what whole-text BM25 ranks by: on AILA's reported fact patterns it beat the
    reductions), of a sharp KL reduction (the 30 most distinctive terms: the AILA 2019 winners reduced queries this
    way), and of the long reduction over the judgment's facts summary (facts against facts: a precedent is cited
    for facts like the query's). Computed for every query; a typed query's terms are few, so it costs little."""

    name = "reduction"
    second_stage = True
    features = ("bm25_full", "bm25_full_norm", "bm25_kl30_norm", "bm25_facts_summary_norm")
    full_terms = 500  # under the bool query's clause limit (1,024); a 1,000-word fact pattern has fewer
    sharp_terms = 30
    explains: Mapping[str, EvidenceKind | None] = {
        "bm25_full": TERMS, "bm25_full_norm": TERMS, "bm25_kl30_norm": TERMS, "bm25_facts_summary_norm": FACTS}

    @classmethod
    def full(cls, profile: QueryProfile) -> tuple[tuple[str, float], ...]:
        """Every query term the corpus holds (the ``full_terms`` best by tf-idf past that), weighted by its count in
        the query: a term said five times counts five times, as a ``match`` query over the text counts it."""
        counts = {t.term: t.tf for t in profile.terms}
        return tuple((term, float(counts[term])) for term, _ in profile.reduced(cls.full_terms, "idf"))

    def requests(self, inputs: Inputs) -> list[Request]:
        judgments, ids = inputs.aliases["judgments"], inputs.ids
        sharp = inputs.profile.reduced(self.sharp_terms, "kl")
        return [(judgments, bodies.terms_body(self.full(inputs.profile), len(ids), ids=ids)),
                (judgments, bodies.terms_body(sharp, len(ids), ids=ids)),
                (judgments, bodies.terms_body(inputs.long_terms, len(ids), fields=("summary.facts",), ids=ids))]

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        full, sharp, facts = (inputs.scores(hits(r)) for r in answers.responses)
        return {"bm25_full": full, "bm25_full_norm": norm(full), "bm25_kl30_norm": norm(sharp),
                "bm25_facts_summary_norm": norm(facts)}


class TunedGroup(FeatureGroup):
    """Facts against facts, read by the facts encoder tuned on the corpus's citation pairs
    (:mod:`search.ranking.tuned`): the query's cosine with the candidate's facts text, with its best facts chunk and
    with the mean of its facts chunks. Missing without the encoder's query vector, and for a judgment without facts
    (or whose index the encoder never filled)."""

    name = "tuned"
    second_stage = True
    features = ("tuned_facts_text", "tuned_facts_best", "tuned_facts_mean")
    explains: Mapping[str, EvidenceKind | None] = dict.fromkeys(features, FACTS)

    def requests(self, inputs: Inputs) -> list[Request]:
        if inputs.tuned is None:
            return []
        text, mean, chunks = tuned_bodies(inputs.tuned, inputs.ids)
        judgments = inputs.aliases["judgments"]
        return [(judgments, text), (judgments, mean), (inputs.aliases["chunks"], chunks)]

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        if inputs.tuned is None:
            return {name: inputs.missing() for name in self.features}
        text, mean, chunks = answers.responses
        scores = [hits(text), best_chunks(chunks), hits(mean)]  # k-NN scores, (1 + cos) / 2: as cosines
        return {name: np.array([2.0 * found[d] - 1.0 if d in found else np.nan for d in inputs.ids])
                for name, found in zip(self.features, scores, strict=True)}


# The groups, in column order: the feature vector is their features in this order.
DECLARED: tuple[FeatureGroup, ...] = (QueryGroup(), NamesGroup(), LexicalGroup(), ContextGroup(), RolesGroup(),
                                      SemanticGroup(), LegalGroup(), GraphGroup(), ReductionGroup(), TunedGroup())
FEATURE_GROUPS: dict[str, str] = {name: group.name for group in DECLARED for name in group.features}
FEATURES: tuple[str, ...] = tuple(FEATURE_GROUPS)
GROUPS: tuple[str, ...] = tuple(group.name for group in DECLARED)
FIRST_STAGE: tuple[FeatureGroup, ...] = tuple(group for group in DECLARED if not group.second_stage)
SECOND_STAGE: tuple[FeatureGroup, ...] = tuple(group for group in DECLARED if group.second_stage)
EXPLAINS: dict[str, EvidenceKind | None] = {name: group.explains[name] for group in DECLARED for name in group.features}
