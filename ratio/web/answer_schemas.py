"""The answer API's shapes: the question (``AskBody``) and the outcome (``AnswerOut``), with citation links.

Kept apart from :mod:`ratio.web.answers` (which runs answers and needs the web stack) so that
:class:`ratio.RemoteClient` can rebuild an answer from JSON with pydantic alone.

Citation links follow the shared passage contract, ``/judgments/{id}?hl=<words>#s{number}``
(:func:`ratio.web.passages.passage_link`): the passage's first sentence, with the passage's words that the
question asks about (compared as :func:`search.explain.content_words` folds them) for the judgment page to
mark; a provision links to its page.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from legal.roles import role_label
from search.answer import Answer, AskOptions, ContextPassage, Thresholds
from search.errors import QueryError
from search.explain import content_words
from search.request import SearchRequest

MAX_QUESTION = 1_000
MAX_ROUNDS = 5  # the engine allows 10; one anonymous request should not hold the LLM for that long
MAX_CONTEXT_TOKENS = 4_000
MAX_COURTS = 20
HIGHLIGHT_WORDS = 8
_MARK = re.compile(r"\[(\d+)\]")
_WORD = re.compile(r"\w[\w'-]*\w|\w")


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
    from ratio.web.passages import passage_link  # the web stack's (markupsafe); RemoteClient never gets here

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
