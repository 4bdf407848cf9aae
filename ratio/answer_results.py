"""The answer's shape (``AnswerOut``, what ``POST /api/v1/ask``, ``ratio.Client.ask`` and ``ratio ask --json``
give) and :func:`answer_out`, which makes it from the engine's :class:`~search.answer.Answer`.

Beside the clients rather than in the web package, so that :class:`ratio.Client`, :class:`ratio.RemoteClient` and
the CLI build and read an answer without importing the web (which imports this module for its routes and page).

Citation links follow the shared passage contract, ``/judgments/{id}?hl=<words>#s{number}``
(:func:`ratio.results.passage_link`): the passage's first sentence, with the passage's words that the question
asks about (compared as :func:`search.explain.extractive.content_words` folds them) for the judgment page to mark; a
provision links to its page.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote

from pydantic import BaseModel, Field

from legal.roles import role_label
from ratio.results import passage_link
from search.answer import Answer, ContextPassage
from search.explain.extractive import content_words

__all__ = ["AnswerOut", "CitationOut", "ClaimOut", "RoundOut", "answer_out", "highlight_words", "passage_address"]

HIGHLIGHT_WORDS = 8
_WORD = re.compile(r"\w[\w'-]*\w|\w")


class CitationOut(BaseModel):
    """A numbered passage of the answer's context; ``[number]`` in the text cites it, ``link`` opens it."""

    number: int
    label: str
    kind: Literal["judgment", "provision"]
    judgment_id: str | None = Field(description="The judgment (null for a provision).")
    provision_id: str | None = Field(None, description="The provision (provision mode).")
    title: str | None
    role: str
    role_label: str
    sentence: int | None = Field(description="The passage's first sentence (the judgment page's #s anchor).")
    text: str
    link: str = Field(description="/judgments/{id}?hl=<words>#s{sentence}, or /provisions/{id}.")
    cited: bool = Field(description="Whether the answer's text cites this passage.")


class ClaimOut(BaseModel):
    """One sentence of the answer, the passages it cites, and its check."""

    text: str
    cites: list[int]
    grounded: bool
    support: float
    problem: str | None = None


class RoundOut(BaseModel):
    """One search-draft-check round: the query searched and the scores (null: the model gave none)."""

    round: int
    query: str
    passages: int
    context_relevance: float | None
    groundedness: float | None
    answer_relevance: float | None
    failures: list[str]


class AnswerOut(BaseModel):
    """The outcome of a question: ``answered``, ``unchecked`` (shown although it failed its checks, because
    the request allowed it) or ``withheld`` (``reason`` says why; ``citations`` are the passages found)."""

    question: str
    status: Literal["answered", "unchecked", "withheld"]
    text: str = Field(description="The answer, each sentence followed by the [n] of the passages it rests on "
                                  "(empty when withheld).")
    reason: str | None = Field(description="Why the answer was withheld, or why it is unchecked.")
    notice: str = Field(description="Not legal advice, and how the answer was made.")
    mode: Literal["judgments", "provisions"]
    model: str
    took_ms: float
    failures: list[str] = Field(description="The checks the kept attempt failed.")
    claims: list[ClaimOut] = Field(description="The answer's sentences and their checks (empty when withheld).")
    citations: list[CitationOut]
    rounds: list[RoundOut]


def highlight_words(question: str, passage: str, limit: int = HIGHLIGHT_WORDS) -> list[str]:
    """The passage's words, as it writes them, whose folded form (:func:`content_words`) the question has:
    what the judgment page should mark (it marks whole words, so "possession" must be sent, not "possess")."""
    wanted = content_words(question)
    words: dict[str, None] = {}
    for word in _WORD.findall(passage):
        stems = content_words(word)
        if stems and stems <= wanted:
            words.setdefault(word.lower(), None)
    return list(words)[:limit]


def passage_address(passage: ContextPassage, question: str) -> str:
    """The passage's address: its judgment's first sentence with the words to mark, or the provision's page."""
    if passage.kind == "provision":
        return f"/provisions/{quote(passage.chunk_id, safe='')}"
    return passage_link(passage.judgment_id, passage.sentence_start, highlight_words(question, passage.text))


def answer_out(answer: Answer) -> AnswerOut:
    """The API's shape of an :class:`~search.answer.Answer`. A withheld answer's sentences are left out: they
    failed their checks, and the reason names the first that failed."""
    withheld = answer.status == "withheld"
    cited = {n for check in answer.claims for n in check.claim.cites} if not withheld else set()
    citations = [CitationOut(
        number=p.number, label=p.label, kind="provision" if p.kind == "provision" else "judgment",
        judgment_id=None if p.kind == "provision" else p.judgment_id,
        provision_id=p.chunk_id if p.kind == "provision" else None, title=p.title, role=p.role,
        role_label=role_label(p.role), sentence=None if p.kind == "provision" else p.sentence_start, text=p.text,
        link=passage_address(p, answer.question), cited=p.number in cited) for p in answer.passages]
    claims = [] if withheld else [ClaimOut(text=c.claim.text, cites=list(c.claim.cites), grounded=c.grounded,
                                           support=round(c.support, 3), problem=c.problem) for c in answer.claims]
    rounds = [RoundOut(round=a.round, query=a.query, passages=len(a.passages),
                       context_relevance=a.scores.context_relevance, groundedness=a.scores.groundedness,
                       answer_relevance=a.scores.answer_relevance, failures=list(a.failures))
              for a in answer.attempts]
    return AnswerOut(question=answer.question, status=answer.status, text=answer.text, reason=answer.reason,  # type: ignore[arg-type]
                     notice=answer.notice, mode=answer.mode, model=answer.model, took_ms=answer.took_ms,  # type: ignore[arg-type]
                     failures=list(answer.failures), claims=claims, citations=citations, rounds=rounds)
