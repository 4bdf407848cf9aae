"""What made the ranker place a judgment where it did, in a lawyer's words, taken from its features.

The model's per-feature contributions (:meth:`search.ranking.model.RankerModel.contributions`) say which
evidence pushed a judgment up. The strongest positive pieces become short phrases ("same provisions: IPC
s. 304B, s. 498A; facts similar; often cited (12 judgments)"), each backed by the feature's own value (the shared
provisions are named from the judgment's stored citations, not guessed). Features of one kind of evidence add
up first, so "facts" counts once however many facts features there are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from search.ranking.query import QueryProfile

__all__ = ["Evidence", "evidence"]

# feature -> the kind of evidence it is
_KINDS = {
    "bm25_long": "terms", "bm25_long_norm": "terms", "bm25_short": "terms", "bm25_short_norm": "terms",
    "rank_long": "terms", "bm25_title_norm": "title", "bm25_summary_norm": "summary",
    "ctx_max": "context", "ctx_mean": "context", "ctx_top10": "context", "ctx_best_rank": "context",
    "role_any_norm": "passage", "role_facts_norm": "facts", "role_arguments_norm": "arguments",
    "role_statute_norm": "statute", "role_precedent_norm": "precedent", "role_reasoning_norm": "reasoning",
    "role_rulings_norm": "rulings", "sim_judgment": "meaning", "sim_chunk": "meaning", "sim_facts": "facts",
    "sim_reasoning": "reasoning", "prov_shared": "provisions", "prov_shared_idf": "provisions",
    "cites_shared": "cites", "cited_by_query": "cited_by_query", "year_gap": "age", "cited_by": "cited_by",
    "cocited_top": "cocited", "coupled_top": "coupled",
}
_PHRASES = {
    "terms": "shares the query's distinctive terms", "title": "title matches", "summary": "summary matches",
    "context": "matches what the query cites a judgment for", "passage": "a passage matches closely",
    "facts": "facts similar", "arguments": "similar arguments", "statute": "same statutory text discussed",
    "precedent": "relies on similar precedents", "reasoning": "reasoning matches", "rulings": "similar ruling",
    "meaning": "similar in meaning", "cited_by_query": "the query cites it", "age": "decided before the query",
    "cocited": "cited together with other top results", "coupled": "cites the same authorities as other top results",
}


@dataclass(frozen=True)
class Evidence:
    """The phrases, strongest first, and the evidence kinds they came from."""

    phrases: tuple[str, ...]
    kinds: tuple[str, ...]

    @property
    def text(self) -> str:
        return "; ".join(self.phrases)


def _phrase(kind: str, features: Mapping[str, float], meta: Mapping[str, object], profile: QueryProfile) -> str | None:
    if kind == "provisions":
        shared = [p for p in profile.provisions if p in set(meta.get("cited_provisions") or ())]  # type: ignore[arg-type]
        return f"same provisions: {', '.join(shared[:4])}" if shared else None
    if kind == "cites":
        shared = [c for c in profile.cited if c in set(meta.get("cited_judgments") or ())]  # type: ignore[arg-type]
        return f"cites the same judgments: {', '.join(shared[:3])}" if shared else None
    if kind == "cited_by":
        count = round(math.expm1(features.get("cited_by", 0.0)))
        return f"often cited ({count} judgments of the corpus)" if count >= 2 else None
    if kind == "context":  # a typed query cites nothing: the context features are missing, not evidence
        value = features.get("ctx_max")
        return _PHRASES[kind] if value is not None and not math.isnan(value) and value > 0 else None
    if kind in ("summary", "title", "passage", "facts", "arguments", "statute", "precedent", "reasoning",
                "rulings", "meaning"):
        present = [v for name, v in features.items() if _KINDS.get(name) == kind and not math.isnan(v)]
        return _PHRASES[kind] if present and max(present) > 0 else None
    if kind == "age":
        gap = features.get("year_gap")
        return _PHRASES[kind] if gap is not None and not math.isnan(gap) and gap >= 0 else None
    return _PHRASES.get(kind)


def evidence(contributions: Mapping[str, float], features: Mapping[str, float], meta: Mapping[str, object],
             profile: QueryProfile, most: int = 3) -> Evidence:
    """Up to ``most`` phrases for the evidence kinds that raised the judgment's score the most."""
    totals: dict[str, float] = {}
    for name, value in contributions.items():
        kind = _KINDS.get(name)
        if kind:
            totals[kind] = totals.get(kind, 0.0) + value
    phrases: list[str] = []
    kinds: list[str] = []
    for kind, value in sorted(totals.items(), key=lambda item: -item[1]):
        if value <= 0 or len(phrases) >= most:
            break
        phrase = _phrase(kind, features, meta, profile)
        if phrase:
            phrases.append(phrase)
            kinds.append(kind)
    return Evidence(tuple(phrases), tuple(kinds))


def strongest(rows: Sequence[tuple[str, float]], most: int = 3) -> list[str]:
    """Feature names with the largest positive contributions (for reports and debugging)."""
    return [name for name, value in sorted(rows, key=lambda item: -item[1])[:most] if value > 0]
