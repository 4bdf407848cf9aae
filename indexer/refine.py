"""LLM refinement of the extractive summary fields, checked against the judgment before it replaces them.

The extractive summary (:mod:`indexer.summary`) copies the judgment's own sentences: faithful, but long and
uneven. With an LLM configured, ``facts`` is rewritten into a few plain sentences and ``legal_issues`` into
"Whether ..." questions. A rewrite is kept only when it stays inside the judgment: every citation and
provision it names occurs in the judgment, and nearly all its content words do too (a model that adds a
fact adds words the judgment lacks). Otherwise the extractive field stays and the provenance says why, so a
reader can always tell a model's words from the court's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from backends.llm import LLM, LLMError, Prompt, borrowed_from_address, generate_json, screen, untrusted
from indexer.citations import citations_in
from indexer.document import Judgment, Summary
from legal.citations import extract_citations
from legal.sentences import split

MIN_SUPPORT = 0.85  # share of a rewrite's content words that must occur in the judgment
REFINE_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {"type": "string", "minLength": 20, "maxLength": 900},
        "legal_issues": {"type": "array", "maxItems": 4,
                         "items": {"type": "string", "minLength": 10, "maxLength": 400}},
    },
    "required": ["facts", "legal_issues"],
}
_WORD = re.compile(r"[a-z][a-z0-9]{3,}")
_FUNCTION = frozenset((
    "whether", "that", "this", "with", "from", "which", "were", "have", "been", "their", "there", "they", "after",
    "before", "under", "into", "upon", "against", "about", "also", "other", "such", "only", "when", "where",
    "while", "court", "case",
))


def _words(text: str) -> set[str]:
    return {w[:6] for w in _WORD.findall(text.lower()) if w not in _FUNCTION}


def unsupported(rewrite: str, judgment: Judgment) -> str | None:
    """Why ``rewrite`` is not supported by the judgment (None when it is): a citation or provision the
    judgment does not contain, too many content words it lacks, or an instruction planted in the judgment and
    passed on (it reads as one, or repeats words the judgment has only where it addresses an automated reader:
    see :mod:`backends.llm.guard`)."""
    known = set(judgment.cited_provisions) | {c.normalized for c in citations_in(judgment)}
    for citation in extract_citations(rewrite):
        if citation.kind in ("provision", "judgment") and citation.normalized not in known:
            return f"it cites {citation.text!r}, which the judgment does not"
    words = _words(rewrite)
    if not words:
        return "it is empty"
    missing = words - _words(judgment.text)
    if len(missing) / len(words) > 1 - MIN_SUPPORT:
        return (f"{len(missing)} of its {len(words)} content words are not in the judgment "
                f"(e.g. {', '.join(sorted(missing)[:3])})")
    if screen(rewrite).flagged:
        return "it reads as an instruction to a model"
    borrowed = borrowed_from_address(rewrite, judgment.text)
    if borrowed:
        return f"it repeats {borrowed!r} from a sentence addressed to an automated reader"
    return None


def _whole_sentences(text: str) -> str:
    """``text`` without a last sentence cut off by the length limit of the answer."""
    sentences = split(text)
    if len(sentences) > 1 and not sentences[-1].text.rstrip().endswith((".", "?", "!", '"', "”", ")")):
        return text[: sentences[-1].start].rstrip()
    return text


def refine_summary(llm: LLM, judgment: Judgment, summary: Summary) -> Summary:
    """``summary`` with ``facts`` and ``legal_issues`` rewritten by ``llm`` where the rewrite is supported
    by the judgment; the provenance of each field records the model, or why its rewrite was refused."""
    if not summary.facts and not summary.legal_issues:
        return summary
    messages = Prompt.load("indexer", "refine_summary").messages(
        title=untrusted(judgment.title or "", 40), facts=untrusted(summary.facts, 300),
        issues=untrusted("; ".join(summary.legal_issues), 150) or "none",
        reasoning=untrusted(summary.reasoning, 150))
    provenance = {field: dict(entry) for field, entry in summary.provenance.items()}
    try:
        answer = generate_json(llm, messages, REFINE_SCHEMA, max_tokens=500)
    except LLMError as exc:
        for field in ("facts", "legal_issues"):
            provenance.setdefault(field, {})["llm_refused"] = f"the model failed: {str(exc)[:160]}"
        return replace(summary, provenance=provenance)
    facts, issues = summary.facts, summary.legal_issues
    new_facts = _whole_sentences(" ".join(answer["facts"].split()))
    problem = unsupported(new_facts, judgment)
    if problem is None:
        facts = new_facts
        provenance["facts"] = {**provenance.get("facts", {}), "method": f"llm:{llm.name}", "from": "extractive"}
    else:
        provenance.setdefault("facts", {})["llm_refused"] = problem
    kept, refused = [], []
    for issue in (" ".join(i.split()) for i in answer["legal_issues"]):
        whole = issue.lower().startswith("whether")  # a fragment of a split question is not an issue
        (kept if whole and unsupported(issue, judgment) is None else refused).append(issue)
    if kept:
        issues = tuple(dict.fromkeys(kept))
        provenance["legal_issues"] = {**provenance.get("legal_issues", {}), "method": f"llm:{llm.name}",
                                      "from": "extractive", "refused": len(refused)}
    elif refused:
        provenance.setdefault("legal_issues", {})["llm_refused"] = f"all {len(refused)} rewrites unsupported"
    return replace(summary, facts=facts, legal_issues=issues, provenance=provenance)
