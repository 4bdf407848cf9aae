"""The answer API's question (``AskBody``, with the API's own limits) and the page's view of an answer's text.

The outcome's shape (``AnswerOut``) and its conversion live beside the clients, in :mod:`ratio.answer_results`,
so :class:`ratio.RemoteClient` and the CLI read an answer without the web package. Kept apart from
:mod:`ratio.web.answers` (which runs answers and needs the web stack).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ratio.answer_results import AnswerOut, CitationOut
from search.answer import AskOptions, Thresholds
from search.query.errors import QueryError
from search.query.request import SearchRequest

MAX_QUESTION = 1_000
MAX_ROUNDS = 5  # the engine allows 10; one anonymous request should not hold the LLM for that long
MAX_CONTEXT_TOKENS = 4_000
MAX_COURTS = 20
_MARK = re.compile(r"\[(\d+)\]")


class AskBody(BaseModel):
    """A question and the options of ``ratio ask``."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION, description="A legal question in plain words.")
    mode: Literal["auto", "judgments", "provisions"] = Field(
        "auto", description="Answer from judgment passages, or from the statute provisions the LLM names and the "
                            "index holds (auto: provisions when the question is about a statute).")
    parametric: bool = Field(True, description="Provision mode: let the LLM name the provisions it remembers "
                                               "(false: search with the question itself).")
    court: list[str] = Field(default_factory=list, max_length=MAX_COURTS, description="Only these courts.")
    date_from: str | None = Field(None, max_length=20, description="Decided on or after (YYYY, YYYY-MM-DD).")
    date_to: str | None = Field(None, max_length=20, description="Decided on or before.")
    rounds: int = Field(3, ge=1, le=MAX_ROUNDS, description="Most search-draft-check rounds.")
    context_tokens: int = Field(1200, ge=200, le=MAX_CONTEXT_TOKENS, description="Token budget of the passages "
                                                                                  "read.")
    min_context: float = Field(0.25, ge=0, le=1, description="Least context relevance.")
    min_grounded: float = Field(1.0, ge=0, le=1, description="Least share of supported sentences.")
    min_relevance: float = Field(0.5, ge=0, le=1, description="Least answer relevance.")
    allow_ungrounded: bool = Field(False, description="Show an answer that failed its checks, marked unchecked, "
                                                      "instead of withholding it.")

    def options(self) -> AskOptions:
        """The engine's options (ValueError for a combination it refuses)."""
        return AskOptions(Thresholds(self.min_context, self.min_grounded, self.min_relevance), self.rounds,
                          context_tokens=self.context_tokens, allow_ungrounded=self.allow_ungrounded,
                          search={"courts": tuple(self.court), "date_from": self.date_from,
                                  "date_to": self.date_to})

    def check(self) -> str:
        """The question, whitespace-normalised, once the filters are known to be valid (QueryError if not)."""
        question = " ".join(self.question.split())
        if not question:
            raise QueryError("the question is empty: type a legal question")
        try:
            self.options()
        except ValueError as exc:
            raise QueryError(str(exc)) from None
        SearchRequest.from_query(question[:200], courts=self.court, date_from=self.date_from,
                                 date_to=self.date_to, classify=False)
        return question


def text_segments(answer: AnswerOut) -> list[tuple[str, CitationOut | None]]:
    """The answer's text cut at its ``[n]`` marks: (text, None) and (``[n]``, the citation it names), so a
    page can link each mark to its passage."""
    by_number = {c.number: c for c in answer.citations}
    segments: list[tuple[str, CitationOut | None]] = []
    position = 0
    for match in _MARK.finditer(answer.text):
        if match.start() > position:
            segments.append((answer.text[position:match.start()], None))
        segments.append((match.group(0), by_number.get(int(match.group(1)))))
        position = match.end()
    if position < len(answer.text):
        segments.append((answer.text[position:], None))
    return segments
