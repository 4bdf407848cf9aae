"""What was typed into the search box: a case name, a citation, a provision, a few words, or a pasted text.

One search box takes everything a lawyer types, so the first step of the default search is to say what the text
is, with the legal layer's own parsers (:mod:`legal.citations` for citations and provisions,
:mod:`search.query.party_names` for case names), and nothing that talks to OpenSearch:

* ``name``: a case name (``Sewa Singh v State of Punjab``, ``vs``/``versus`` alike) or a party alone
  (``Virsa Singh``: one to six capitalised words, no legal vocabulary, no digits; the word lists and limits
  are data, in ``understand.json``);
* ``citation``: a reporter citation and little else (``AIR 1962 SC 605``, ``(1984) 4 SCC 116``);
* ``provision``: a statutory provision and little else (``s. 304B IPC``, ``304B IPC``, ``section 438 crpc``,
  ``Article 21``), or a section named without its Act (``s.304-B``: :attr:`Understanding.sections` holds ``304B``,
  the section of whichever Act has one);
* ``topic``: anything else that is typed (``dowry death cruelty by husband``, ``"dying declaration" AND murder``);
* ``pasted``: a long text (more than ``pasted_words`` words, 30) that uses no query operator: a fact pattern, a
  paragraph of a judgment, a whole judgment or brief. It is read as plain words
  (:func:`search.query.syntax.as_plain_text`,
  what ``/brief`` and the API's ``plain=true`` do), so a stray quote, a colon after a word or a ``-`` before one is
  text, not syntax. The learned ranker reads a pasted text **whole**, as ``/brief`` reads a brief
  (:attr:`Understanding.whole`): its profile, citation contexts and provisions come from every word, not from the
  first thousand that one engine query holds. A long text that does use operators (an upper-case
  ``AND``/``OR``/``NOT`` or a known ``field:`` filter) and parses is a long Boolean query, searched as written.

A name is text, not syntax: a case name, a citation or a provision with an unbalanced quote or bracket
(``Mohd. Imran Khan v State (Govt. of``, copied short) is searched as its words, with a note saying so
(:func:`read_query`); a query that uses operators still gets the parser's error, which says what to fix.

The kind decides how the search is answered, inside the one default search (no mode a user chooses): the learned
ranker takes every kind, with candidates from the title and the judgment's own citations for short queries
(:mod:`search.ranking.features`) and features that say how well a judgment's title fits a name; a pasted text
counts the judgments that share any of its words, a typed query those with every word
(:mod:`search.retrieval.matching`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from legal.citations import extract_citations, extract_sections
from search.query.errors import QueryError, QueryTooLongError, UnbalancedParenthesisError, UnbalancedQuoteError
from search.query.party_names import load_party_rules, party_tokens, split_case_name
from search.query.syntax import FIELDS, MAX_TERMS, ParsedQuery, as_plain_text, parse_query

__all__ = ["MAX_PASTE_CHARS", "BoxReading", "KindRules", "QueryKind", "Understanding", "kind_rules", "pasted",
           "read_query", "understand"]

RULES_PATH = Path(__file__).with_name("understand.json")
# What the box takes: a pasted text up to a long judgment (a brief's limit on /brief too); a typed query stops at the
# parser's 10,000 characters (search.query.syntax.MAX_CHARS)
MAX_PASTE_CHARS = 1_000_000
_OPERATOR = re.compile(r"(?<!\S)(?:AND|OR|NOT)(?!\S)")
_FIELD = re.compile(r"(?<![^\s(])([A-Za-z_]+):(?=\S)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class KindRules:
    """The word lists and limits of ``understand.json`` (see its ``about``)."""

    pasted_words: int
    whole_words: int
    max_name_words: int
    max_side_words: int
    connectors: frozenset[str]
    ignored_words: frozenset[str]
    topic_words: frozenset[str]


@cache
def kind_rules() -> KindRules:
    """The packaged rules, read once on first use (not at import)."""
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    return KindRules(int(data["pasted_words"]), int(data["whole_words"]), int(data["max_name_words"]),
                     int(data["max_side_words"]),
                     *(frozenset(data[k]) for k in ("connectors", "ignored_words", "topic_words")))


class QueryKind(StrEnum):
    """What a query is, as far as its form tells."""

    NAME = "name"
    CITATION = "citation"
    PROVISION = "provision"
    TOPIC = "topic"
    PASTED = "pasted"


@dataclass(frozen=True)
class Understanding:
    """The kind of a query and the legal entities it names.

    ``parties`` is ``(A, B)`` for a case name, ``(A,)`` for a party alone; ``citations`` and ``provisions`` are
    canonical strings (:mod:`legal.citations`); ``sections`` are canonical section numbers named without an Act
    (``304B`` for ``s.304-B``), read only when the query is a provision; ``plain`` says the text was read as plain
    words."""

    kind: QueryKind
    words: int
    plain: bool = False
    parties: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()
    provisions: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()

    @property
    def every_word(self) -> bool:
        """Whether counts and sorts require every typed word (a typed query) or any (a pasted text)."""
        return self.kind is not QueryKind.PASTED

    @property
    def whole(self) -> bool:
        """Whether the learned ranker reads the text whole, as ``/brief`` reads a brief (a pasted text of at least
        ``whole_words`` words; the length was chosen on tuning queries: docs/evaluation.md), rather than the part
        of it that one engine query holds."""
        return self.kind is QueryKind.PASTED and self.words >= kind_rules().whole_words

    @property
    def label(self) -> str:
        """How the page names the kind ("read as a case name")."""
        read = "read whole, as a brief is" if self.whole else "read as plain words"
        return {QueryKind.NAME: "a case name" if len(self.parties) == 2 else "a party name",
                QueryKind.CITATION: "a citation", QueryKind.PROVISION: "a provision", QueryKind.TOPIC: "words",
                QueryKind.PASTED: f"pasted text ({self.words:,} words, {read})"}[self.kind]


def _uses_operators(text: str) -> bool:
    """An upper-case operator standing alone, or a ``field:value`` filter Ratio knows."""
    return bool(_OPERATOR.search(text)) or any(m.group(1).lower() in FIELDS for m in _FIELD.finditer(text))


def _rest(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The words of ``text`` outside ``spans``, small connecting words (``of``, ``the``, ``under``) left out."""
    kept = list(text)
    for start, end in spans:
        kept[start:end] = " " * (end - start)
    return [w for w in _WORD.findall("".join(kept)) if w.lower() not in kind_rules().ignored_words]


def _party_alone(text: str) -> bool:
    """One to six capitalised words (connectors such as ``of`` aside) with no digit and no legal vocabulary,
    not all of them generic (``State of Punjab`` names hundreds of judgments, not a party a lawyer looks for)."""
    rules, words = kind_rules(), text.split()
    if not 1 <= len(words) <= rules.max_name_words or any(ch.isdigit() for ch in text):
        return False
    named = [w for w in words if w.lower() not in rules.connectors]
    if not named or not all(w[:1].isupper() for w in named):
        return False
    if any(w.lower().strip(".,") in rules.topic_words for w in named):
        return False
    tokens = party_tokens(text)
    return bool(tokens - load_party_rules().generic)


def understand(text: str) -> Understanding:
    """The kind of ``text`` as typed (before parsing), and the citations, provisions and parties it names."""
    words = len(text.split())
    if words > kind_rules().pasted_words and not _uses_operators(text):
        return pasted(text)
    found = [*extract_citations(text), *extract_sections(text)]
    provisions = tuple(dict.fromkeys(c.normalized for c in found if c.kind == "provision"))
    sections = tuple(dict.fromkeys(c.normalized for c in found if c.kind == "section"))
    reporters = tuple(dict.fromkeys(c.normalized for c in found if c.kind == "judgment"))
    names = [c for c in found if c.kind == "case_name"]
    rest = _rest(text, [(c.start, c.end) for c in found])
    if found and len(rest) <= 1:
        if names and not reporters and not provisions and not sections:
            sides = split_case_name(names[0].text)
            return Understanding(QueryKind.NAME, words, parties=sides or (), citations=reporters)
        if reporters:
            return Understanding(QueryKind.CITATION, words, citations=reporters, provisions=provisions)
        return Understanding(QueryKind.PROVISION, words, provisions=provisions, sections=sections)
    sides = split_case_name(text) if not _uses_operators(text) else None
    if sides and all(len(side.split()) <= kind_rules().max_side_words for side in sides):
        return Understanding(QueryKind.NAME, words, parties=sides, citations=reporters, provisions=provisions)
    if _party_alone(text.strip()):
        return Understanding(QueryKind.NAME, words, parties=(text.strip(),))
    return Understanding(QueryKind.TOPIC, words, citations=reporters, provisions=provisions)


@dataclass(frozen=True)
class BoxReading:
    """What the search box made of a text: the parsed query, what the text is, and a note when the box read it
    otherwise than as typed (a name's stray bracket searched as a word)."""

    parsed: ParsedQuery
    understanding: Understanding
    note: str | None = None


def pasted(text: str) -> Understanding:
    """The understanding of a long text read as plain words (a fact pattern, a judgment, a brief): one home for
    the search box, ``/brief`` and the ranker's profile, so the three read the same text alike."""
    return Understanding(QueryKind.PASTED, len(text.split()), plain=True)


def _as_words(text: str, error: QueryError) -> BoxReading | None:
    """``text`` searched as its words, when it failed to parse only for an unbalanced quote or bracket, uses no
    operator, and reads as a case name, a party, a citation or a provision once they are words; None otherwise
    (topic words with a stray quote keep the parser's error, which says what to fix)."""
    if not isinstance(error, (UnbalancedQuoteError, UnbalancedParenthesisError)) or _uses_operators(text):
        return None
    plain = as_plain_text(text)
    understood = understand(plain)
    if understood.kind not in (QueryKind.NAME, QueryKind.CITATION, QueryKind.PROVISION) or not plain:
        return None
    mark = "quote" if isinstance(error, UnbalancedQuoteError) else "bracket"
    where = f" at character {error.position + 1}" if error.position is not None else ""
    note = f"read as {understood.label}: the unbalanced {mark}{where} is text here, not query syntax"
    return BoxReading(parse_query(plain), understood, note)


def read_query(text: str, *, plain: bool = False) -> BoxReading:
    """``text`` as the search box reads it, for every caller (the CLI, both clients, the API, the pages and
    ``ratio eval run``'s ``default``): a pasted text as plain words (its parsed query cut to the parser's word
    limit; the ranker reads the text itself whole), anything else with the query syntax (``plain``: without
    it, operators and filters read as words). A name with an unbalanced quote or bracket is searched as words,
    with a note. A long text with operators that does not parse is read as plain words too (a pasted text that
    happens to hold an ``OR``); a typed query that does not parse raises the parser's
    :class:`~search.query.errors.QueryError`, which says what to fix."""
    if len(text) > MAX_PASTE_CHARS:
        raise QueryTooLongError(f"the text is {len(text):,} characters long and the search box takes "
                                f"{MAX_PASTE_CHARS:,}: search the first part, or upload it as a brief")
    understood = understand(as_plain_text(text) if plain else text)
    if understood.plain:
        return BoxReading(parse_query(as_plain_text(text, MAX_TERMS)), understood)
    if plain:
        return BoxReading(parse_query(as_plain_text(text)), understood)
    try:
        return BoxReading(parse_query(text), understood)
    except QueryError as exc:
        if understood.words <= kind_rules().pasted_words:
            repaired = _as_words(text, exc)
            if repaired is None:
                raise
            return repaired
    return BoxReading(parse_query(as_plain_text(text, MAX_TERMS)), pasted(text))
