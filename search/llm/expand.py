"""Query expansion by an LLM: legal issues and "parametric" provisions generated from a fact pattern.

Two expansions from the AILA line of work. *Issues*: the model names up to three short legal issues the
facts raise (the offence or claim, the defence or right, the question of evidence or procedure); each
becomes an extra query with the same filters, and the result lists are fused by RRF, so a long fact pattern
is also searched by the points of law it raises. *Parametric provisions*: the model writes, in statutory
language, the provisions it believes apply; each is used as a separate query for provision retrieval,
which matches statute text far better than a story does.

An expansion never breaks a search: with no LLM, or when the model fails or answers off-schema after its
repair round, the search runs unexpanded and the :class:`Expansion` says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backends.llm import LLM, LLMError, Prompt, generate_json, untrusted

_EMPTY = re.compile(r"^\W*(none|nil|n/?a|not applicable|unknown|no\b.*)\W*$", re.I)
_MARKER = re.compile(r"^\(?[a-z0-9]{1,4}[).]$", re.I)
MAX_FACT_WORDS = 350  # a 1.5B model on 2 cores reads ~70 tokens/s: keep the prompt to a few seconds
PROVISION_COUNT = 3
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

# Three aspects rather than "three issues": small models asked for a list of issues retell the facts, and
# copy any worked example; asked for these named aspects they answer in legal terms.
ISSUE_ASPECTS = ("offence_or_claim", "defence_or_right", "evidence_or_procedure")
ISSUES_SCHEMA = {
    "type": "object",
    "properties": {aspect: {"type": "string", "maxLength": 160} for aspect in ISSUE_ASPECTS},
    "required": list(ISSUE_ASPECTS),
}
PROVISIONS_SCHEMA = {
    "type": "object",
    "properties": {"provisions": {
        "type": "array", "minItems": 1, "maxItems": PROVISION_COUNT,
        "items": {"type": "object",
                  "properties": {"act": {"type": "string", "minLength": 2, "maxLength": 120},
                                 "section": {"type": "string", "minLength": 1, "maxLength": 40},
                                 "text": {"type": "string", "minLength": 10, "maxLength": 320}},
                  "required": ["act", "section", "text"]}}},
    "required": ["provisions"],
}


@dataclass(frozen=True)
class ParametricProvision:
    """A provision as the LLM believes it reads; a query, never shown as the law."""

    act: str
    section: str
    text: str

    @property
    def query(self) -> str:
        return f"{self.act} section {self.section}: {self.text}"


@dataclass(frozen=True)
class Expansion:
    """What the LLM added to a search, and why nothing was added when it was asked for but failed."""

    issues: tuple[str, ...] = ()
    provisions: tuple[ParametricProvision, ...] = ()
    model: str | None = None
    note: str | None = None


def fact_pattern(text: str, max_words: int = MAX_FACT_WORDS) -> str:
    """The facts as the prompt gets them (:func:`backends.llm.untrusted`): no tags that could close the
    ``<facts>`` block, no sentences addressed to the model, cut to ``max_words`` words."""
    return untrusted(text, max_words)


def _clean(value: str) -> str:
    return " ".join(_CONTROL.sub(" ", value).split())


def legal_issues(llm: LLM, facts: str) -> tuple[str, ...]:
    """Up to three short legal-issue phrases for ``facts`` (the offence or claim, the defence or right, the
    question of evidence or procedure), distinct and non-empty. Raises LLMError."""
    messages = Prompt.load("search", "legal_issues").messages(facts=fact_pattern(facts))
    answer = generate_json(llm, messages, ISSUES_SCHEMA, max_tokens=160)
    issues = [_clean(answer[aspect]) for aspect in ISSUE_ASPECTS]
    return tuple(dict.fromkeys(i for i in issues if len(i) >= 3 and not _EMPTY.match(i)))


def parametric_provisions(llm: LLM, facts: str, count: int = PROVISION_COUNT) -> tuple[ParametricProvision, ...]:
    """Up to ``count`` statute-like provisions the LLM believes apply to ``facts``. Raises LLMError."""
    messages = Prompt.load("search", "parametric_provisions").messages(facts=fact_pattern(facts),
                                                                       count=str(count))
    answer = generate_json(llm, messages, PROVISIONS_SCHEMA, max_tokens=700)  # 3 x 320 characters, and JSON
    provisions = [ParametricProvision(_clean(p["act"]), _clean(p["section"]), _unloop(_clean(p["text"])))
                  for p in answer["provisions"]]
    unique = {p.text.lower(): p for p in provisions if p.act and p.text}  # the same text twice: one query
    return tuple(unique.values())[:count]


def _unloop(text: str) -> str:
    """Cut a text where a small model starts repeating itself (a phrase of 3 words seen before; list
    markers such as "(b)" do not count as words)."""
    words = text.split()
    kept = [i for i, w in enumerate(words) if not _MARKER.match(w)]
    seen: set[tuple[str, ...]] = set()
    for n in range(len(kept) - 2):
        gram = tuple(words[i].lower().strip(";,.()") for i in kept[n:n + 3])
        if gram in seen:
            return " ".join(words[:kept[n]]).rstrip(";,( ")
        seen.add(gram)
    return text


def expand(llm: LLM | None, facts: str, *, issues: bool, provisions: bool) -> Expansion:
    """The expansions asked for; falls back to none (with a note) when there is no LLM or it fails."""
    if not (issues or provisions):
        return Expansion()
    if llm is None:
        return Expansion(note="no LLM configured: searched without expansion")
    found_issues: tuple[str, ...] = ()
    found_provisions: tuple[ParametricProvision, ...] = ()
    notes = []
    if issues:
        try:
            found_issues = legal_issues(llm, facts)
        except LLMError as exc:
            notes.append(f"issue expansion failed: {exc}")
    if provisions:
        try:
            found_provisions = parametric_provisions(llm, facts)
        except LLMError as exc:
            notes.append(f"provision expansion failed: {exc}")
    return Expansion(found_issues, found_provisions, llm.name, "; ".join(notes) or None)
