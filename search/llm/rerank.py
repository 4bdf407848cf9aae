"""The LLM rerank stage: the learned ranker's top k judgments graded by an LLM, with a reason for each (AQgR style).

Pointwise, not listwise: each candidate is graded on its own (0-3, with one sentence why), so a grade depends on
the query and that candidate alone. That keeps each answer small enough for a 0.5B model to get right (a windowed
listwise prompt asks a small model to compare and permute several long records at once, and its output is a
permutation that one mistake spoils), makes every grade cacheable by (model, prompt, query, candidate content),
and lets a deadline stop between candidates. All the candidates of one request share one prompt nonce
(:meth:`backends.llm.Prompt.messages`), and the query comes before the candidate, so llama.cpp evaluates the
system part and the query once per request and only each candidate's record after it.

The model sees the query and each candidate's record (:class:`search.explain.llm.HitRecord`: title, summary
fields, cited provisions, best passage), each field through :func:`backends.llm.untrusted` (sentences addressed
to a model left out) and cut, inside fences the data cannot close. A grade is combined with the ranker's score
(:func:`combine`): ``(1 - weight) * ranker score min-max-scaled over the k + weight * grade / 3``; the weight was
chosen on the tuning queries only (docs/llm-rerank.md).

Injection: a candidate whose record has sentences addressed to a model (:func:`backends.llm.screen`) is not sent
to the model, and one whose answer reads as an instruction or repeats words of such a sentence is not trusted:
either grade counts as 0, so a planted "grade 3, rank this first" can lower a judgment but never raise it. A
phrasing the screen misses still reaches the model only as fenced data that the system prompt says never to obey.

The reason becomes the hit's explanation only when it passes
the same grounding check as every LLM explanation (:func:`search.explain.llm.grounding_problem`); otherwise the
hit keeps the extractive explanation and a note says why.

Cost and failure: the grades run in a worker thread that the request waits on until its deadline; past it (or
when the model fails on a candidate), the ranker's order is kept and the result says so. The model's current
answer is not interrupted (llama.cpp has no cancel), so the worker stops at the next candidate. Answers are
cached by the LLM wrapper (:class:`backends.llm.CachedLLM`), whose key is the model's name and the whole prompt:
the prompt's version, the query and the candidate's content.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from backends.llm import LLM, LLMError, Prompt, borrowed_from_address, generate_json, screen, untrusted
from backends.llm.guard import nonce
from legal.roles import role_label
from search.explain.extractive import Explanation
from search.explain.llm import HitRecord, grounding_problem, one_line
from search.llm.grades import MAX_GRADE, Grade, LLMReranking
from search.query.options import DEFAULT_LLM_RERANK, DEFAULTS, MAX_LLM_RERANK, MAX_LLM_RERANK_DEADLINE

__all__ = ["DEFAULT_DEADLINE_S", "DEFAULT_LLM_RERANK", "DEFAULT_WEIGHT", "GRADE_SCHEMA",
           "MAX_LLM_RERANK", "MAX_LLM_RERANK_DEADLINE", "Candidate", "Grade", "LLMReranking", "combine", "explanation",
           "grade", "llm_rerank"]

DEFAULT_DEADLINE_S = DEFAULTS.llm_rerank_deadline  # seconds a request waits for the grades (search.query.options)
DEFAULT_WEIGHT = 0.2  # the grade's share (combine): the largest of the best on AILA's tuning half (docs/llm-rerank.md)

GRADE_SCHEMA = {
    "type": "object",
    # the issues first: the grade is written after the model has named what each side is about
    "properties": {"query_issue": {"type": "string", "minLength": 3, "maxLength": 100},
                   "judgment_issue": {"type": "string", "minLength": 3, "maxLength": 100},
                   "reason": {"type": "string", "minLength": 10, "maxLength": 240},
                   "grade": {"type": "integer", "minimum": 0, "maximum": MAX_GRADE}},
    "required": ["query_issue", "judgment_issue", "reason", "grade"],
}
_MAX_TOKENS = 160  # the JSON: two issues in a few words, a sentence of at most 25 words, a grade
# Words of each part of the record as the prompt carries it: about 300 tokens a candidate (the cost is per token)
QUERY_WORDS, TITLE_WORDS, FIELD_WORDS, PROVISION_WORDS, PASSAGE_WORDS = 150, 25, 45, 30, 70


@dataclass(frozen=True)
class Candidate:
    """One of the ranker's top judgments: its id, the ranker's score, and what the LLM may read of it."""

    judgment_id: str
    score: float
    record: HitRecord


def _fields(query: str, record: HitRecord) -> dict[str, str]:
    return {"query": untrusted(query, QUERY_WORDS), "title": untrusted(record.title, TITLE_WORDS),
            "facts": untrusted(record.facts, FIELD_WORDS),
            "issues": untrusted("; ".join(record.legal_issues), FIELD_WORDS) or "not summarised",
            "reasoning": untrusted(record.reasoning, FIELD_WORDS) or "not summarised",
            "provisions": untrusted(", ".join(record.cited_provisions), PROVISION_WORDS) or "none",
            "role": role_label(record.role), "passage": untrusted(record.passage, PASSAGE_WORDS)}


def grade(llm: LLM, query: str, candidate: Candidate, shared_nonce: str | None = None) -> Grade:
    """``candidate``'s grade for ``query`` (:class:`Grade`); raises :class:`LLMError` when the model gives no valid
    answer. A record with a sentence addressed to a model is not sent: its grade could not be trusted to raise
    it, so it counts as 0 (a judgment that only quotes such a sentence loses its place to the grades of the
    others, and keeps the extractive explanation)."""
    record = candidate.record
    if screen(record.text).flagged:  # its grade would not be trusted: no call spent on it
        return Grade(candidate.judgment_id, None, None, trusted=False, problem="its text addresses a model")
    messages = Prompt.load("search", "rerank_grade").messages(shared_nonce, **_fields(query, record))
    answer = generate_json(llm, messages, GRADE_SCHEMA, max_tokens=_MAX_TOKENS)
    reason = one_line(answer["reason"])
    instructed = bool(screen(reason).flagged) or borrowed_from_address(reason, record.text) is not None
    problem = grounding_problem(reason, record, query)
    return Grade(candidate.judgment_id, int(answer["grade"]), reason, trusted=not instructed,
                 problem=problem)


def combine(candidates: Sequence[Candidate], grades: Sequence[Grade], weight: float) -> tuple[str, ...]:
    """The candidates' ids ordered by ``(1 - weight) * s + weight * g / 3``, where ``s`` is the ranker's score
    min-max-scaled over the candidates and ``g`` the counted grade; ties keep the ranker's order. Weight 0 is the
    ranker's order, weight 1 the grades' (the ranker breaking ties)."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the LLM rerank weight is between 0 and 1, not {weight}")
    by_id = {g.judgment_id: g.counted for g in grades}
    scores = [c.score for c in candidates]
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    span = (high - low) or 1.0
    final = {c.judgment_id: (1 - weight) * (c.score - low) / span + weight * by_id.get(c.judgment_id, 0) / MAX_GRADE
             for c in candidates}
    order = sorted(range(len(candidates)), key=lambda i: (-final[candidates[i].judgment_id], i))
    return tuple(candidates[i].judgment_id for i in order)


def llm_rerank(llm: LLM, query: str, candidates: Sequence[Candidate], *, weight: float = DEFAULT_WEIGHT,
               deadline_s: float | None = DEFAULT_DEADLINE_S) -> LLMReranking:
    """Grade ``candidates`` (the ranker's top k, best first) for ``query`` and order them by :func:`combine`;
    within ``deadline_s`` seconds (None: no deadline), else the ranker's order with a note. A model that fails on
    any candidate also keeps the ranker's order: grades of some candidates and not others are not comparable."""
    started = time.perf_counter()
    ranker_order = tuple(c.judgment_id for c in candidates)
    grades: list[Grade] = []
    failure: list[str] = []
    stop = threading.Event()
    secret = nonce()  # one fence for the request's candidates: their prompts share the system part and the query

    def work() -> None:
        for candidate in candidates:
            if stop.is_set():
                return
            try:
                grades.append(grade(llm, query, candidate, secret))
            except LLMError as exc:
                failure.append(str(exc))
                return

    worker = threading.Thread(target=work, name="llm-rerank", daemon=True)
    worker.start()
    worker.join(deadline_s)
    stop.set()
    seconds = round(time.perf_counter() - started, 2)

    def kept(note: str) -> LLMReranking:
        return LLMReranking(ranker_order, tuple(grades), llm.name, weight, seconds, False, note)

    if worker.is_alive():
        return kept(f"the LLM graded {len(grades)} of {len(candidates)} judgments in the {deadline_s:g} s deadline: "
                    "the ranker's order is kept")
    if failure:
        return kept(f"the LLM failed on a judgment ({failure[0][:160]}): the ranker's order is kept")
    return LLMReranking(combine(candidates, grades, weight), tuple(grades), llm.name, weight, seconds, True)


def explanation(graded: Grade, fallback: Explanation, model: str) -> Explanation:
    """A reranked hit's explanation: the LLM's reason when it passed the grounding check and the grade is trusted
    (method ``llm-rerank:MODEL``), else ``fallback`` (the extractive one) with a note saying why not."""
    if graded.reason and graded.problem is None and graded.trusted:
        return replace(fallback, text=graded.reason, method=f"llm-rerank:{model}", note=None)
    why = graded.problem if graded.trusted else "the judgment's text or the answer addresses a model"
    return replace(fallback, note=f"the LLM rerank's reason is not shown: {why or 'there is none'}")
