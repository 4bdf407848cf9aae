"""Provision-guided answers (after ParSeR): the model names the law it remembers, the index supplies the real text.

For a statute question the LLM first writes the provisions it believes apply, in statutory language
(:func:`search.llm.expand.parametric_provisions`). Each one is a query against the ``provisions`` index: BM25
top 100, rescored by the reranker to a top 10, from which the LLM picks the one real provision that matches
(or none). The answer is then drafted from the picked provisions only and goes through the same checks as
any answer, so a remembered provision that the statute book does not hold never reaches the user.
A multi-hop question (an offence and its punishment, a right and its exception) gets several provisions.

Without an LLM-written provision (``parametric=False``, or the model fails) the question itself is the one
query, which is the comparison the evaluation reports.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from backends.llm import LLM, LLMError, Prompt, generate_json, untrusted
from backends.llm.guard import nonce
from search.answer.context import ContextPassage
from search.answer.loop import Answer, Attempt, Event, draft
from search.llm.expand import ParametricProvision, parametric_provisions
from search.provisions.retrieve import provision_bm25_body
from search.query.intent import classify_intent
from search.retrieval.rerank import Reranker

PROVISION_WORDS = 220
PICK_WORDS = 70


@dataclass(frozen=True)
class SelectedProvision:
    """A real provision the LLM picked for one query (its remembered provision, or the question)."""

    provision_id: str
    title: str | None
    text: str
    query: str
    believed: ParametricProvision | None
    candidates: tuple[str, ...]


def _pick_schema(count: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"pick": {"type": "integer", "minimum": 0, "maximum": count}},
            "required": ["pick"]}


def candidates(client: OpenSearch, index: str, reranker: Reranker | None, query: str, *, bm25_top: int = 100,
               rerank_top: int = 10) -> list[dict[str, Any]]:
    """BM25 top ``bm25_top`` provisions for ``query``, rescored by ``reranker`` to the best ``rerank_top``."""
    hits = client.search(index=index, body=provision_bm25_body(query, bm25_top))["hits"]["hits"]
    sources = [{"_id": h["_id"], **h["_source"]} for h in hits]
    if reranker is not None and sources:
        scores = reranker.score(query, [f"{s.get('title') or ''} {s.get('text') or ''}" for s in sources])
        order = sorted(range(len(sources)), key=lambda i: -scores[i])
        sources = [sources[i] for i in order]
    return sources[:rerank_top]


def pick(llm: LLM, question: str, believed: str, options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate the LLM picks as the real provision behind ``believed`` (None: none applies or it
    failed)."""
    if not options:
        return None
    listing = "\n".join(f"[{n}] {untrusted(s.get('title') or s['_id'], 20)}: "
                        f"{untrusted(s.get('text') or '', PICK_WORDS)}" for n, s in enumerate(options, 1))
    messages = Prompt.load("search", "pick_provision").messages(
        provisions=listing, question=untrusted(question, 120), believed=untrusted(believed, 80))
    try:
        number = int(generate_json(llm, messages, _pick_schema(len(options)), max_tokens=16)["pick"])
    except (LLMError, ValueError, TypeError):
        return None
    return options[number - 1] if 1 <= number <= len(options) else None


def select_provisions(llm: LLM, client: OpenSearch, index: str, reranker: Reranker | None, question: str, *,
                      parametric: bool = True, count: int = 3) -> tuple[tuple[SelectedProvision, ...], str | None]:
    """The real provisions for ``question`` and a note when the parametric step fell back to the question."""
    believed: tuple[ParametricProvision, ...] = ()
    note = None
    if parametric:
        try:
            believed = parametric_provisions(llm, question, count)
        except LLMError as exc:
            note = f"no remembered provisions ({exc}); searched with the question"
    queries: list[tuple[str, ParametricProvision | None]] = [(p.query, p) for p in believed] or [(question, None)]
    selected: dict[str, SelectedProvision] = {}
    for query, remembered in queries:
        found = candidates(client, index, reranker, query)
        chosen = pick(llm, question, query, found)
        if chosen is not None and chosen["_id"] not in selected:
            selected[chosen["_id"]] = SelectedProvision(chosen["_id"], chosen.get("title"), chosen.get("text") or "",
                                                        query, remembered, tuple(s["_id"] for s in found))
    return tuple(selected.values()), note


def provision_passages(selected: tuple[SelectedProvision, ...]) -> tuple[ContextPassage, ...]:
    """The picked provisions as numbered passages (role ``statute``; the link opens the provision)."""
    return tuple(ContextPassage(n, p.provision_id, p.provision_id, p.title, "statute",
                                untrusted(p.text, PROVISION_WORDS), 0, 0, 0, 0, 1.0, kind="provision")
                 for n, p in enumerate(selected, 1))


def ask_provisions(answerer: Any, question: str, *, parametric: bool = True, on_event: Event | None = None
                   ) -> Answer:
    """A provision-guided answer with the :class:`~search.answer.loop.Answerer`'s LLM, reranker and checks
    (one round: the provisions are chosen by the LLM already, so a rewritten query has nothing to add)."""
    started = time.perf_counter()
    emit = on_event or (lambda kind, data: None)
    searcher, llm, options = answerer.searcher, answerer.llm, answerer.options
    selected, note = select_provisions(llm, searcher.client, searcher.aliases["provisions"], searcher.reranker,
                                       question, parametric=parametric)
    passages = provision_passages(selected)
    emit("retrieved", {"round": 1, "query": question, "passages": len(passages),
                       "provisions": [p.provision_id for p in selected]})
    secret = nonce()  # the draft and its context check share their prompt's prefix (see draft)
    answerable, claims, draft_note = draft(llm, question, passages, options, secret) if passages else (False, (), None)
    scores = answerer.evaluate(question, passages, answerable, claims, draft_note or note, secret)
    failures = options.thresholds.failures(scores)
    attempt = Attempt(1, question, passages, answerable, claims, scores, failures)
    emit("checked", {"round": 1, "context_relevance": scores.context_relevance, "groundedness": scores.groundedness,
                     "answer_relevance": scores.answer_relevance, "failures": failures})
    result = answerer.verdict(question, attempt, [attempt], None, started)
    emit("done", {"status": result.status, "rounds": 1})
    return Answer(**{**result.__dict__, "mode": "provisions", "provisions": selected})



MODES = ("auto", "judgments", "provisions")


def ask(answerer: Any, question: str, *, mode: str = "auto", parametric: bool = True,
        on_event: Event | None = None) -> Answer:
    """Answer in ``mode``: ``judgments`` (the check-and-refine loop over chunks), ``provisions`` (provision-guided)
    or ``auto`` (provisions when the question's intent is a statute, else judgments)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "auto":
        mode = "provisions" if classify_intent(question).name == "statute" else "judgments"
    if mode == "provisions":
        return ask_provisions(answerer, question, parametric=parametric, on_event=on_event)
    return answerer.ask(question, on_event=on_event)
