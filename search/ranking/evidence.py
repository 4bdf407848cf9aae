"""What made the ranker place a judgment where it did, in a lawyer's words, taken from its features.

The model's per-feature contributions (:meth:`search.ranking.model.RankerModel.contributions`) say which
evidence pushed a judgment up. The strongest positive pieces become short phrases ("same provisions: IPC
s. 304B, s. 498A; facts similar; often cited (12 judgments)"), each backed by the feature's own value (the shared
provisions are named from the judgment's stored citations, not guessed). Features of one kind of evidence add
up first, so "facts" counts once however many facts features there are. Each feature's kind, and how the kind is
phrased, is declared with its group (:data:`search.ranking.groups.DECLARED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from search.ranking.group import Clue, EvidenceKind
from search.ranking.groups import EXPLAINS
from search.ranking.query import QueryProfile

__all__ = ["Evidence", "evidence"]


@dataclass(frozen=True)
class Evidence:
    """The phrases, strongest first, and the evidence kinds they came from."""

    phrases: tuple[str, ...]
    kinds: tuple[str, ...]

    @property
    def text(self) -> str:
        return "; ".join(self.phrases)


def evidence(contributions: Mapping[str, float], features: Mapping[str, float], meta: Mapping[str, object],
             profile: QueryProfile, most: int = 3) -> Evidence:
    """Up to ``most`` phrases for the evidence kinds that raised the judgment's score the most."""
    totals: dict[str, float] = {}
    declared: dict[str, EvidenceKind] = {}
    for name, value in contributions.items():
        kind = EXPLAINS.get(name)
        if kind:
            totals[kind.name] = totals.get(kind.name, 0.0) + value
            declared[kind.name] = kind
    phrases: list[str] = []
    kinds: list[str] = []
    for name, value in sorted(totals.items(), key=lambda item: -item[1]):
        if value <= 0 or len(phrases) >= most:
            break
        mine = tuple(v for feature, v in features.items() if (k := EXPLAINS.get(feature)) and k.name == name)
        phrase = declared[name].says(Clue(features, mine, meta, profile))
        if phrase:
            phrases.append(phrase)
            kinds.append(name)
    return Evidence(tuple(phrases), tuple(kinds))


def strongest(rows: Sequence[tuple[str, float]], most: int = 3) -> list[str]:
    """Feature names with the largest positive contributions (for reports and debugging)."""
    return [name for name, value in sorted(rows, key=lambda item: -item[1])[:most] if value > 0]
