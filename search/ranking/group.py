"""What a feature group is: the shape every group of ranker features declares (:mod:`search.ranking.groups`).

A feature used to live in four places tied by position: the request part it needs, how its answer is read,
its column in the feature vector and the kind of evidence it explains. A :class:`FeatureGroup` holds all four for
a few related features, so the vector, the round trip and the explanations are all built from one declared list:

* :attr:`FeatureGroup.features`: its feature names, in column order (the vector is the groups' names in
  declaration order);
* :meth:`FeatureGroup.requests`: the ``(index, body)`` requests it needs answered, sent with every other group's
  in one ``_msearch`` (none for a group read from the query, the candidates or the citation graph);
  :meth:`FeatureGroup.metadata`: the doc values and named clauses it needs from the one shared metadata request;
* :meth:`FeatureGroup.read`: its columns, from the answers to its own requests (in the order it asked), the
  candidates' metadata and the columns of the groups declared before it;
* :attr:`FeatureGroup.explains`: for every feature, the :class:`EvidenceKind` it is evidence of, or None where the
  feature describes the query rather than the judgment and so says nothing about why a judgment ranks.

This module holds the shapes and the per-query inputs only; the groups themselves are declared in
:mod:`search.ranking.groups`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from legal.roles import load_role_set
from search.graph.citation_graph import CitationGraph
from search.ranking.query import QueryProfile
from search.ranking.tuned import TunedQuery

__all__ = ["Answers", "Body", "Candidates", "Clue", "EvidenceKind", "FeatureGroup", "FeatureSettings", "Inputs",
           "Metadata", "always", "hits", "norm", "present", "role_groups", "when"]

Body = dict[str, Any]
Request = tuple[str, Body]


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
    # two stages (search.ranking.rank), per query kind: the second stage's features for only the best N candidates.
    # Typed topic words and provisions (their sources keep the full depth): 50, chosen on the typed tuning half,
    # where 50, 100 and 200 all kept MAP within 0.0005; pasted texts lost 0.01 on AILA's tuning half at every N, so
    # they are read in one stage (docs/evaluation.md)
    rescore: tuple[tuple[str, int], ...] = (("topic", 50), ("provision", 50))

    def rescored(self, kind: str | None) -> int | None:
        """How many candidates of a query of ``kind`` get the second stage's features (None: every one)."""
        return dict(self.rescore).get(kind or "")


@dataclass(frozen=True)
class Candidates:
    """The union of the candidate sources: ids in first-seen order, and each source's scores."""

    ids: tuple[str, ...]
    long: Mapping[str, float]
    contexts: tuple[Mapping[str, float], ...] = ()
    short: Mapping[str, float] = field(default_factory=dict)  # the short reduction's scores (its top ``depth``)
    named: Mapping[str, str] = field(default_factory=dict)  # judgments a citation of the query names, by others' use


def role_groups() -> dict[str, tuple[str, ...]]:
    """Coarse role group -> canonical roles, from the role table (the header group ``other`` left out)."""
    role_set = load_role_set()
    return {group: role_set.group(group) for group in role_set.coarse_groups if group != "other"}


@dataclass(frozen=True)
class Inputs:
    """What every group reads from when it asks and reads its features for one query: the query's profile, its
    candidates, the query vector (None: no semantic features), the corpus's aliases, the role groups, the
    citation graph (read on first use) and the judgments whose citations do not count (the query's own)."""

    profile: QueryProfile
    candidates: Candidates
    vector: Sequence[float] | None
    settings: FeatureSettings
    aliases: Mapping[str, str]
    roles: Mapping[str, tuple[str, ...]]
    graph: Callable[[], CitationGraph]
    exclude: frozenset[str] = frozenset()
    tuned: TunedQuery | None = None  # the query under the tuned facts encoder (None: no tuned features)

    @property
    def ids(self) -> tuple[str, ...]:
        return self.candidates.ids

    @cached_property
    def long_terms(self) -> tuple[tuple[str, float], ...]:
        """The long reduction: the query's most distinctive terms by KL divergence (selected once per query: the
        lexical, roles and reduction groups all read it)."""
        return self.profile.reduced(self.settings.long_terms, "kl")

    @cached_property
    def short_terms(self) -> tuple[tuple[str, float], ...]:
        """The short reduction: the query's best terms by tf-idf."""
        return self.profile.reduced(self.settings.short_terms, "idf")

    def scores(self, found: Mapping[str, float]) -> np.ndarray:
        """Each candidate's score in ``found`` (0 where it is not), in candidate order."""
        return np.array([found.get(d, 0.0) for d in self.ids], dtype=np.float64)

    def missing(self) -> np.ndarray:
        """A column of missing values (NaN): the feature does not apply to this query."""
        return np.full(len(self.ids), np.nan)


@dataclass(frozen=True)
class Metadata:
    """What a group reads from the shared metadata request: doc values, and named clauses asking which of the
    query's own values each candidate shares (``shared``: a name -> the query's values; ``fields``: the field a
    name is asked on when it is not the name itself)."""

    values: tuple[str, ...] = ()
    shared: Mapping[str, Sequence[str]] = field(default_factory=dict)
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Answers:
    """What a group reads its columns from: the answers to its own requests (in the order it asked), the
    candidates' metadata (judgment id -> doc values and the shared values) and the columns read before it."""

    responses: Sequence[Mapping[str, Any]]
    meta: Mapping[str, Mapping[str, Any]]
    columns: Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Clue:
    """What an evidence kind phrases itself from, for one judgment: its feature values by name, the values of the
    features of this kind among them, its stored metadata and the query's profile."""

    features: Mapping[str, float]
    mine: tuple[float, ...]
    meta: Mapping[str, Any]
    profile: QueryProfile


@dataclass(frozen=True)
class EvidenceKind:
    """One kind of evidence in a lawyer's words: its name (features of one kind add up their contributions before
    the strongest kinds are phrased) and how a judgment's features say it (None: not for this judgment)."""

    name: str
    says: Callable[[Clue], str | None] = field(compare=False)


def always(name: str, phrase: str) -> EvidenceKind:
    """A kind phrased whenever it raised the score."""
    return EvidenceKind(name, lambda clue: phrase)


def present(name: str, phrase: str) -> EvidenceKind:
    """A kind phrased when one of its features is known and positive (a score of zero matched nothing)."""
    def says(clue: Clue) -> str | None:
        known = [v for v in clue.mine if not math.isnan(v)]
        return phrase if known and max(known) > 0 else None
    return EvidenceKind(name, says)


def when(name: str, phrase: str, feature: str, test: Callable[[float], bool]) -> EvidenceKind:
    """A kind phrased when ``feature`` is known (not missing) and passes ``test``."""
    def says(clue: Clue) -> str | None:
        value = clue.features.get(feature)
        return phrase if value is not None and not math.isnan(value) and test(value) else None
    return EvidenceKind(name, says)


class FeatureGroup(ABC):
    """A few related features, with the requests they need, how they are read and what they are evidence of
    (see the module's docstring). Subclasses set :attr:`name`, :attr:`features` and :attr:`explains`."""

    name: ClassVar[str]
    features: tuple[str, ...]
    explains: Mapping[str, EvidenceKind | None]
    # read only for the best candidates when the ranker scores in two stages (FeatureSettings.rescore): the groups
    # whose requests cost in proportion to the candidates' chunks or scan every candidate's text
    second_stage: ClassVar[bool] = False

    def requests(self, inputs: Inputs) -> list[Request]:
        """The requests this group needs answered (none unless it says so)."""
        return []

    def metadata(self, inputs: Inputs) -> Metadata:
        """What this group reads from the shared metadata request (nothing unless it says so)."""
        return Metadata()

    @abstractmethod
    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        """One column per feature of the group (a value per candidate, NaN where it is missing)."""


def hits(response: Mapping[str, Any]) -> dict[str, float]:
    """Judgment id -> score of the hits (judgments or chunks, read from the ``judgment_id`` doc value)."""
    out: dict[str, float] = {}
    for hit in response["hits"]["hits"]:
        out.setdefault(hit["fields"]["judgment_id"][0], float(hit["_score"] or 0.0))
    return out


def norm(values: np.ndarray) -> np.ndarray:
    """Scores divided by the best candidate's (a query-independent scale); zeros when none scored."""
    top = float(values.max()) if len(values) else 0.0
    return values / top if top > 0 else np.zeros_like(values)
