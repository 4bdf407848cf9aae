"""One-line explanations written by an LLM (AQgR style), checked against the hit before they are shown.

The model sees the query and the judgment's record: title, summary fields (facts, legal issues, reasoning),
cited provisions and the best passage. The record passes :func:`backends.llm.untrusted` (cleaned, sentences
addressed to a model left out, cut to a few hundred words) and sits between ``<judgment-NONCE>`` tags that it
cannot close (:class:`backends.llm.Prompt`); the system prompt says it is data in whatever language: a
judgment that contains "ignore previous instructions" is quoted, not obeyed.

Every answer is checked before use (:func:`grounding_problem`): each quotation must occur in the record,
each citation or provision it names must be one the judgment cites or contains, and no word of the query
may be put in the judgment's mouth unless the record has it. An answer that fails
the check, or a model that fails, gives way to the extractive explanation, with a note saying why. The
answers are cached by the LLM wrapper (:class:`backends.llm.CachedLLM`), so a hit is explained once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backends.llm import LLM, LLMError, Prompt, borrowed_from_address, generate_json, screen, untrusted
from legal.citations import extract_citations
from legal.roles import role_label
from legal.sentences import split
from search.explain.extractive import QUOTED, Explanation, content_words, explain, explain_filters, folded
from search.query.request import SearchRequest
from search.retrieval.records import StoredJudgment

FIELD_WORDS = 120
EXPLAIN_SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string", "minLength": 10, "maxLength": 400}},
    "required": ["reason"],
}
MAX_WORDS = 50
# Words an explanation uses about any judgment ("this case is relevant to the query on ..."): never "borrowed".
_GENERIC = content_words("case cases judgment judgments query queries relevant relevance issue issues law legal "
                         "matter decision decided held holds discusses discussed principle principles including "
                         "includes regarding related relating concerning involving whether also about")


@dataclass(frozen=True)
class HitRecord:
    """What the LLM may use to explain a hit, and all that its answer may quote or cite."""

    title: str
    facts: str
    legal_issues: tuple[str, ...]
    reasoning: str
    cited_provisions: tuple[str, ...]
    cited_judgments: tuple[str, ...]
    role: str
    passage: str

    @property
    def text(self) -> str:
        return "\n".join([self.title, self.facts, *self.legal_issues, self.reasoning, self.passage])


def _data(text: str, words: int = FIELD_WORDS) -> str:
    """Record text as the prompt carries it (:func:`backends.llm.untrusted`)."""
    return untrusted(text, words)


def one_line(reason: str, max_words: int = MAX_WORDS) -> str:
    """The model's answer as one line: its first sentence by the legal splitter (which knows "P.W. 8",
    "Dr." and "s. 304B"), at most ``max_words`` words (a grammar-bounded answer can stop mid-sentence; a
    longer one is cut at a word with an ellipsis)."""
    folded = " ".join(reason.split())
    sentences = split(folded)
    first = sentences[0].text if sentences else folded
    words = first.split()
    return first if len(words) <= max_words else " ".join(words[:max_words]) + "…"



def grounding_problem(reason: str, record: HitRecord, query: str = "") -> str | None:
    """Why ``reason`` is not grounded in ``record`` (None when it is): a quotation not found in the record
    (compared without case, punctuation or spacing), a citation the judgment neither cites nor contains,
    a word of the query that the record does not contain (a small model likes to say "the judgment
    discusses <the query>": that attributes the query to the judgment, whatever it says), or text that reads
    as an instruction to a model or repeats words the record has only in a sentence addressed to an automated
    reader (an instruction planted in the record and repeated is in the record, but it is not why the
    judgment is relevant)."""
    if screen(reason).flagged:
        return "it reads as an instruction to a model, not as a reason"
    borrowed = borrowed_from_address(reason, record.text)
    if borrowed:
        return f"it repeats {borrowed!r} from a sentence addressed to an automated reader"
    source = folded(record.text)
    borrowed = sorted(w for w in (content_words(reason) & content_words(query)) - content_words(record.text) - _GENERIC
                      if len(w) >= 4)
    if borrowed:
        return f"it attributes {', '.join(map(repr, borrowed[:3]))} from the query to a judgment that lacks it"
    for quoted in QUOTED.findall(reason):
        if folded(quoted).strip() and folded(quoted) not in source:
            return f"the quotation \u201c{quoted[:80]}\u201d is not in the judgment"
    known = set(record.cited_provisions) | set(record.cited_judgments)
    known |= {c.normalized for c in extract_citations(record.text)}
    for citation in extract_citations(reason):
        if citation.kind in ("provision", "judgment") and citation.normalized not in known:
            return f"it cites {citation.text!r}, which the judgment does not"
    return None


def llm_explain(llm: LLM, query: str, record: HitRecord, fallback: Explanation) -> Explanation:
    """An LLM explanation of ``record`` for ``query`` when it passes the grounding check, else ``fallback``
    (the extractive one) with a note saying what went wrong."""
    messages = Prompt.load("search", "explain_hit").messages(
        query=_data(query, 200), title=_data(record.title, 40), facts=_data(record.facts),
        issues=_data("; ".join(record.legal_issues)), reasoning=_data(record.reasoning),
        provisions=_data(", ".join(record.cited_provisions), 60) or "none",
        role=role_label(record.role), passage=_data(record.passage))
    try:
        reason = one_line(generate_json(llm, messages, EXPLAIN_SCHEMA, max_tokens=120)["reason"])
    except LLMError as exc:
        return replace(fallback, note=f"LLM explanation failed: {exc}")
    problem = grounding_problem(reason, record, query)
    if problem is not None:
        return replace(fallback, note=f"LLM explanation rejected: {problem}")
    return replace(fallback, text=reason, method=f"llm:{llm.name}")


def hit_record(judgment: StoredJudgment, role: str, passage: str) -> HitRecord:
    """A :class:`HitRecord` from a stored judgment (read with at least :data:`search.retrieval.records.HIT_FIELDS`) and
    the hit's best passage."""
    return HitRecord(judgment.title or "", judgment.facts, judgment.legal_issues, judgment.reasoning,
                     judgment.cited_provisions, judgment.cited_judgments, role, passage)


def explain_hit(llm: LLM | None, request: SearchRequest, rank: int, judgment: StoredJudgment, role: str,
                passage: str) -> Explanation:
    """Why a search hit (``rank`` from 0, shown with its best ``passage`` of ``role``) matches ``request``: the
    extractive explanation, rewritten by ``llm`` for the first ``request.explain_top`` hits; a search of filters
    alone, having no words to quote, by what the judgment has that the filters ask for. Every final stage of
    :class:`search.execute.Searcher` explains its hits here."""
    if request.query is None:
        return explain_filters(request.filters, court=judgment.court, decision_date=judgment.decision_date,
                               judges=judgment.judges, cited_provisions=judgment.cited_provisions,
                               cited_judgments=judgment.cited_judgments)
    query = request.semantic_text or request.text
    fallback = explain(query, role, passage, statutes=request.filters.statutes, cites=request.filters.cites,
                       cited_provisions=judgment.cited_provisions, cited_judgments=judgment.cited_judgments,
                       legal_issues=judgment.legal_issues)
    if llm is None or rank >= request.explain_top:
        return fallback
    return llm_explain(llm, query, hit_record(judgment, role, passage), fallback)
