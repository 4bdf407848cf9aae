"""The learned ranker as one call: a query text in, judgments ranked by the model with their evidence out.

:class:`Ranker` profiles the query (:mod:`search.ranking.query`), gathers candidates and their features
(:mod:`search.ranking.features`) and scores them with the model (:mod:`search.ranking.model`). Each ranked
judgment keeps its feature row and the model's per-feature contributions, from which explanations name the
strongest evidence (:mod:`search.ranking.evidence`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from opensearchpy import OpenSearch

from search.graph.citation_graph import CitationGraph
from search.query.understand import Understanding
from search.ranking.features import FEATURES, Candidates, FeatureMatrix, Features, FeatureSettings
from search.ranking.groups import FIRST_STAGE, SECOND_STAGE
from search.ranking.model import TYPED_KINDS, RankerModel
from search.ranking.query import QueryProfile, profile
from search.ranking.tuned import TunedQuery

if TYPE_CHECKING:
    from search.retrieval.matching import Matching

__all__ = ["Also", "RankedJudgment", "Ranker", "Ranking"]

# requests of the caller's about the candidates (given their ids), sent in the features' round trip
Also = Callable[[Sequence[str]], Sequence[tuple[str, dict[str, Any]]]]


@dataclass(frozen=True)
class RankedJudgment:
    """A judgment as the ranker placed it: its score, its features and what each contributed."""

    judgment_id: str
    score: float
    features: Mapping[str, float]
    contributions: Mapping[str, float]
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ranking:
    """The ranked candidates (best first), the query's profile, and where the time went (ms)."""

    judgments: tuple[RankedJudgment, ...]
    profile: QueryProfile
    candidates: int
    model: str
    times: Mapping[str, float] = field(default_factory=dict)
    vector: tuple[float, ...] | None = None  # the query vector it was ranked with (the page's passages reuse it)
    matching: Matching | None = None  # what each judgment matched (search.retrieval.matching), set by the searcher
    sources: Candidates | None = None  # which candidate source found each judgment (a brief's matched contexts)
    extra: tuple[Mapping[str, Any], ...] = ()  # the answers to the caller's requests sent with the features


class Ranker:
    """Ranks judgments of one corpus with one model, or with two: ``typed`` ranks the queries whose kind is one of
    ``typed_kinds`` (typed names and topic words, as shipped), ``model`` every other."""

    def __init__(self, client: OpenSearch, aliases: Mapping[str, str], model: RankerModel | None,
                 settings: FeatureSettings | None = None,
                 graph: CitationGraph | Callable[[], CitationGraph] | None = None, *,
                 typed: RankerModel | None = None, typed_kinds: Collection[str] = TYPED_KINDS) -> None:
        self.model = model  # None: features only (training data)
        self.typed = typed
        self.typed_kinds = frozenset(typed_kinds)
        self.features = Features(client, aliases, settings, graph)

    def model_for(self, kind: str | None) -> RankerModel:
        """The model that ranks a query of ``kind`` (a :class:`~search.query.understand.QueryKind` value; None: not
        known): the typed one for a kind it takes, else the main one."""
        assert self.model is not None
        return self.typed if self.typed is not None and kind in self.typed_kinds else self.model

    def _profiled(self, text: str, understanding: Understanding | None, filters: Sequence[dict[str, Any]],
                  exclude: Sequence[str], times: dict[str, float]) -> tuple[QueryProfile, Candidates]:
        started = time.perf_counter()
        query = profile(self.features.client, self.features.aliases["judgments"], text, understanding=understanding)
        times["profile"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        candidates = self.features.candidates(query, filters=filters, exclude=exclude)
        times["candidates"] = (time.perf_counter() - started) * 1000
        return query, candidates

    def matrix(self, text: str, *, vector: Sequence[float] | None = None,
               filters: Sequence[dict[str, Any]] = (), exclude: Sequence[str] = (),
               understanding: Understanding | None = None, also: Also | None = None,
               tuned: TunedQuery | None = None,
               ) -> tuple[QueryProfile, Candidates, FeatureMatrix, dict[str, float]]:
        """The query's profile, candidates and their whole feature matrix (what training needs, and ranking in
        one stage); ``understanding`` is what the search box made of the typed text (read from ``text`` when not
        given); ``tuned`` is the query under the tuned facts encoder (:mod:`search.ranking.tuned`)."""
        times: dict[str, float] = {}
        query, candidates = self._profiled(text, understanding, filters, exclude, times)
        started = time.perf_counter()
        matrix = self.features.features(query, candidates, vector=vector, exclude=exclude, also=also, tuned=tuned)
        times["features"] = (time.perf_counter() - started) * 1000
        return query, candidates, matrix, times

    def rank(self, text: str, *, vector: Sequence[float] | None = None,
             filters: Sequence[dict[str, Any]] = (), exclude: Sequence[str] = (), explain: int = 10,
             understanding: Understanding | None = None, also: Also | None = None,
             tuned: TunedQuery | None = None) -> Ranking:
        """Candidates for ``text`` ranked by the model; the first ``explain`` carry their contributions. ``also``
        gives the caller's own requests about the candidates, sent with the features (their answers are the
        ranking's ``extra``: one round trip fewer).

        In two stages when the settings say so for the query's kind (``rescore``: N) and there are more candidates
        than N: the model scores every candidate on the first stage's features (the chunk-level and whole-text
        groups missing, :data:`~search.ranking.groups.SECOND_STAGE`), the best N get the rest of their features and
        are scored again, and the others follow them in the first stage's order (their second-stage features
        missing)."""
        if self.model is None:
            raise ValueError("this Ranker computes features only: it has no model to rank with")
        times: dict[str, float] = {}
        query, candidates = self._profiled(text, understanding, filters, exclude, times)
        kind = query.understanding.kind if query.understanding else None
        model, rescore = self.model_for(kind), self.features.settings.rescored(kind)
        started = time.perf_counter()
        asked = {"vector": vector, "exclude": exclude, "tuned": tuned}
        if rescore is None or len(candidates.ids) <= rescore:
            matrix = self.features.features(query, candidates, also=also, **asked)
            times["features"] = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            scores = model.score(matrix.values)
            order = np.argsort(-scores, kind="stable")
        else:
            matrix, scores, order = self._two_stages(model, query, candidates, rescore, also, asked, times)
            started = time.perf_counter()
        top = order[:explain]
        contributions = model.contributions(matrix.values[top]) if len(top) else np.zeros((0, 0))
        ranked = []
        for position, row in enumerate(order):
            doc = matrix.ids[row]
            contrib = dict(zip(model.features, map(float, contributions[position]), strict=True)) \
                if position < len(top) else {}
            ranked.append(RankedJudgment(doc, float(scores[row]),
                                         dict(zip(FEATURES, map(float, matrix.values[row]), strict=True)),
                                         contrib, matrix.meta.get(doc, {})))
        times["score"] = times.get("score", 0.0) + (time.perf_counter() - started) * 1000
        return Ranking(tuple(ranked), query, len(candidates.ids), model.name,
                       {k: round(v, 1) for k, v in times.items()}, tuple(vector) if vector is not None else None,
                       sources=candidates, extra=matrix.extra)

    def _two_stages(self, model: RankerModel, query: QueryProfile, candidates: Candidates, rescore: int,
                    also: Also | None, asked: Mapping[str, Any],
                    times: dict[str, float]) -> tuple[FeatureMatrix, np.ndarray, np.ndarray]:
        """Every candidate's row (the best ``rescore`` with all their features), its score by ``model`` and the order:
        the best by the second stage's scores, then the rest by the first's, scored below them."""
        started = time.perf_counter()
        first = self.features.features(query, candidates, also=also, groups=FIRST_STAGE, **asked)
        times["features"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        early = model.score(first.values)
        by_early = np.argsort(-early, kind="stable")
        best, rest = by_early[:rescore], by_early[rescore:]
        times["score"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        chosen = dataclasses.replace(candidates, ids=tuple(first.ids[i] for i in best))
        second = self.features.features(query, chosen, groups=SECOND_STAGE, known=self.features.subset(first, best),
                                        **asked)
        times["second_stage"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        values = first.values.copy()
        values[best] = second.values
        scores = early.astype(np.float64).copy()
        scores[best] = model.score(second.values)
        if len(rest):  # below the rescored, in the first stage's order
            scores[rest] = early[rest] - early[rest].max() + scores[best].min() - 1.0
        order = np.concatenate([best[np.argsort(-scores[best], kind="stable")], rest])
        times["score"] += (time.perf_counter() - started) * 1000
        return FeatureMatrix(first.ids, values, first.meta, first.extra), scores, order
