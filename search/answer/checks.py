"""The checks an answer must pass before anyone reads it (the evaluator of the check-and-refine loop).

Three scores, each in 0..1, as in LQ-RAG:

- **context relevance**: the share of the packed passages the LLM judges relevant to the question;
- **groundedness**: the share of the answer's claims that are supported by the passages they cite. This
  one is computed, not asked for: a claim must cite at least one passage that exists, most of its content
  words must occur in the passages it cites, any quotation must occur there verbatim, and any provision or
  judgment it names must be named there, and it must neither read as an instruction to a model nor repeat
  words that the passages have only in a sentence addressed to an automated reader (a planted instruction
  repeated from a passage is "supported" by it). A model cannot talk its way past it;
- **answer relevance**: the LLM's 1-5 rating of how directly the answer answers the question, scaled;
  but first a computed floor: the passages the answer cites must contain at least half of the question's
  content words (:func:`coverage`). An answer about cryptocurrency that cites no passage mentioning it
  scores 0 without asking, however fluent it is (a small judge rates fluent copying highly).

A score the model failed to give is ``None``, and ``None`` never passes a threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backends.llm import LLM, LLMError, Prompt, borrowed_from_address, generate_json, screen, untrusted
from legal.citations import extract_citations
from search.answer.context import ContextPassage, prompt_context
from search.explain.extractive import QUOTED, content_words, folded

SUPPORT = 0.6  # share of a claim's content words that its cited passages must contain
# Words any answer uses about any passage; they neither support nor undermine a claim.
_GENERIC = content_words("the court held holds judgment case passage passages according stated states says "
                         "said also therefore thus question answer law legal section act")

COVERAGE = 0.5  # share of the question's content words the cited passages must contain
# Words that make a sentence a question, not what it asks about.
_QUESTION = content_words("what when where which who whom whose why how does did do can could may might must "
                          "should would is are was were there any under give explain tell mean means meaning")

CONTEXT_SCHEMA = {
    "type": "object",
    "properties": {"relevant": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 99},
                                "maxItems": 12}},
    "required": ["relevant"],
}
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["score"],
}


@dataclass(frozen=True)
class Claim:
    """One sentence of the answer and the passages (numbers from 1) it cites."""

    text: str
    cites: tuple[int, ...]


@dataclass(frozen=True)
class ClaimCheck:
    """Whether a claim is supported, how much of it the cited passages contain, and why not."""

    claim: Claim
    support: float
    problem: str | None

    @property
    def grounded(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class Scores:
    """The evaluator's scores (None: the model gave none) and the per-claim checks."""

    context_relevance: float | None
    groundedness: float | None
    answer_relevance: float | None
    claims: tuple[ClaimCheck, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Thresholds:
    """The least each score must reach; a missing score never passes."""

    context_relevance: float = 0.25
    groundedness: float = 1.0
    answer_relevance: float = 0.5

    def failures(self, scores: Scores) -> tuple[str, ...]:
        """The names of the scores that are missing or below their threshold."""
        failed = []
        for name in ("context_relevance", "groundedness", "answer_relevance"):
            value = getattr(scores, name)
            if value is None or value < getattr(self, name):
                failed.append(name)
        return tuple(failed)



def check_claim(claim: Claim, passages: Sequence[ContextPassage], support: float = SUPPORT) -> ClaimCheck:
    """Is ``claim`` supported by the passages it cites? (See the module docstring for the rules.)"""
    by_number = {p.number: p for p in passages}
    unknown = [n for n in claim.cites if n not in by_number]
    if not claim.cites:
        return ClaimCheck(claim, 0.0, "it cites no passage")
    if unknown:
        return ClaimCheck(claim, 0.0, f"it cites [{unknown[0]}], which is not one of the passages")
    source = " ".join(by_number[n].text for n in claim.cites)
    words = content_words(claim.text) - _GENERIC
    share = len(words & content_words(source)) / len(words) if words else 0.0
    if not words:
        return ClaimCheck(claim, 0.0, "it says nothing checkable")
    if share < support:
        missing = sorted(words - content_words(source))[:3]
        return ClaimCheck(claim, share, f"only {share:.0%} of its words are in the passages it cites "
                                        f"(not: {', '.join(missing)})")
    for quoted in QUOTED.findall(claim.text):
        if folded(quoted).strip() and folded(quoted) not in folded(source):
            return ClaimCheck(claim, share, f"the quotation \u201c{quoted[:60]}\u201d is not in the passages it cites")
    named = {c.normalized for c in extract_citations(source)}
    for citation in extract_citations(claim.text):
        if citation.kind in ("provision", "judgment") and citation.normalized not in named:
            return ClaimCheck(claim, share, f"it names {citation.text!r}, which the passages it cites do not")
    # An instruction planted in a passage and repeated is "supported" by it, but it is not the law.
    if screen(claim.text).flagged:
        return ClaimCheck(claim, share, "it reads as an instruction to a model, not as what the passages hold")
    borrowed = borrowed_from_address(claim.text, source)
    if borrowed:
        return ClaimCheck(claim, share, f"it repeats {borrowed!r} from a sentence addressed to an automated reader")
    return ClaimCheck(claim, share, None)


def groundedness(claims: Sequence[Claim], passages: Sequence[ContextPassage]) -> tuple[float | None, tuple]:
    """The share of grounded claims (None for an answer without claims) and each claim's check."""
    checks = tuple(check_claim(c, passages) for c in claims)
    if not checks:
        return None, checks
    return sum(c.grounded for c in checks) / len(checks), checks


def coverage(question: str, claims: Sequence[Claim], passages: Sequence[ContextPassage]) -> tuple[float, list[str]]:
    """The share of the question's content words that the passages cited by ``claims`` contain, and the
    words they lack (all words count as present for a question with no content word)."""
    wanted = content_words(question) - _QUESTION - _GENERIC
    cited = {n for claim in claims for n in claim.cites}
    present = content_words(" ".join(p.text for p in passages if p.number in cited))
    if not wanted:
        return 1.0, []
    return len(wanted & present) / len(wanted), sorted(wanted - present)


def context_relevance(llm: LLM, question: str, passages: Sequence[ContextPassage], secret: str | None = None
                      ) -> float | None:
    """The share of passages the LLM names as relevant (None when it fails or there are none). ``secret``: the
    draft's nonce (see :func:`search.answer.loop.draft`)."""
    if not passages:
        return 0.0
    messages = Prompt.load("search", "judge_context").messages(
        secret, question=untrusted(question, 120), passages=prompt_context(passages))
    try:
        relevant = set(generate_json(llm, messages, CONTEXT_SCHEMA, max_tokens=60)["relevant"])
    except LLMError:
        return None
    return len(relevant & {p.number for p in passages}) / len(passages)


def answer_relevance(llm: LLM, question: str, answer: str) -> float | None:
    """The LLM's 1-5 rating of how directly ``answer`` answers ``question``, scaled to 0..1."""
    if not answer.strip():
        return 0.0
    messages = Prompt.load("search", "judge_answer").messages(question=untrusted(question, 120),
                                                              answer=untrusted(answer, 300))
    try:
        score = int(generate_json(llm, messages, ANSWER_SCHEMA, max_tokens=16)["score"])
    except (LLMError, ValueError, TypeError):
        return None
    return (score - 1) / 4
