"""What the LLM rerank stage (:mod:`search.llm.rerank`) says about a search: each candidate's grade and reason, the
new order or why the ranker's was kept. Result shapes, importing nothing of the stages, so :mod:`search.hits` can
carry them and the API can publish them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_GRADE", "Grade", "LLMReranking"]

MAX_GRADE = 3


@dataclass(frozen=True)
class Grade:
    """The LLM's judgment of one candidate. ``grade`` None: not graded (the deadline passed or the model failed);
    ``trusted`` False: the record or the answer addresses a model, so the grade counts as 0. ``reason`` is shown
    only when ``problem`` is None (it passed the grounding check)."""

    judgment_id: str
    grade: int | None
    reason: str | None = None
    trusted: bool = True
    problem: str | None = None  # why the reason is not shown as the explanation

    @property
    def counted(self) -> int:
        """The grade as :func:`combine` counts it (an untrusted or missing one as 0)."""
        return self.grade if self.trusted and self.grade is not None else 0


@dataclass(frozen=True)
class LLMReranking:
    """What the stage did: the top k's ids in their new order (the ranker's when ``applied`` is False), each
    candidate's grade, the model, the weight, the seconds spent and a note when the ranker's order was kept."""

    order: tuple[str, ...]
    grades: tuple[Grade, ...]
    model: str
    weight: float
    seconds: float
    applied: bool
    note: str | None = None

    def grade_of(self, judgment_id: str) -> Grade | None:
        return next((g for g in self.grades if g.judgment_id == judgment_id), None)
