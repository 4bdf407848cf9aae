"""Read what a lawyer types into a small syntax tree plus filters; nothing here talks to OpenSearch.

The parser is hand-written recursive descent rather than a grammar library: the grammar is tiny, and owning
it gives exact error positions, hard limits checked before any recursion, and legal tokens such as
``302(1)(b)`` kept whole, which generic grammars make awkward. No new dependency.

The language
------------
* ``murder dowry`` -- free text. Bare words are *soft*: a chunk needs at least one of them, and BM25 ranks
  chunks with more of them higher (the builder sends them as one ``match`` query). This is how typed words
  behave in a ranked search; write ``AND`` (or ``+word``) to require a word.
* ``"dying declaration"`` -- an exact phrase (no stemming, on ``text.exact``). A phrase is required: quoting
  is a deliberate constraint.
* ``a AND b`` -- both required. ``AND`` marks the items on both sides as required; other bare words stay soft.
* ``a OR b`` -- either. As in Westlaw and Lexis, ``OR`` binds tighter than ``AND`` and juxtaposition:
  ``murder OR homicide dowry`` means ``(murder OR homicide) dowry``.
* ``NOT a``, ``-a`` -- excluded. ``+a`` -- required. Operators are upper case only, so ``not guilty`` is text.
* ``( ... )`` -- grouping, at most :data:`MAX_DEPTH` deep. A parenthesis inside a word (``302(1)(b)``) is
  part of the word.
* Fielded filters, only at the top level of the query (not inside parentheses, OR or NOT):
  ``court:``, ``judge:``, ``year:2001..2010`` (also ``year:2001``, ``year:..2010``, ``year:2001..``,
  ``year:2001-2010``), ``from:``/``to:`` dates (``2001``, ``2001-06``, ``2001-06-30``, ``30-06-2001``),
  ``role:`` (canonical roles or coarse groups, comma-separated), ``cites:`` and ``statute:`` (normalised
  through :mod:`legal.citations`, so ``statute:"s. 302 IPC"`` is ``IPC s. 302``). Quote values with spaces.

Repeated filters: ``court:`` and ``role:`` values are alternatives (a chunk has one court and one role);
``judge:``, ``cites:`` and ``statute:`` values are all required (a bench has several judges, a judgment cites
many things); year and date ranges intersect.

There are no escapes: a backslash is an ordinary character, and words that hold no letter, digit or ``§``
(``*:*``, ``&&``) are dropped because the analyzer would turn them into nothing.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import date

from legal.citations import extract_citations
from legal.roles import load_role_set
from search.query.errors import (
    BadRangeError,
    BadValueError,
    EmptyQueryError,
    FilterPlacementError,
    QuerySyntaxError,
    QueryTooLongError,
    UnbalancedParenthesisError,
    UnbalancedQuoteError,
    UnknownFieldError,
)

__all__ = [
    "MAX_CHARS", "MAX_DEPTH", "MAX_TERMS", "AnyOf", "Clauses", "DateRange", "FilterSpan", "Filters", "Node",
    "ParsedQuery", "Phrase", "Term", "YearRange", "filter_spans", "leaves", "normalise_citation", "normalise_roles",
    "normalise_statute", "parse_date", "parse_query", "parse_year_range", "positive_text", "without_span",
]

MAX_CHARS = 10_000
MAX_TERMS = 1_000
MAX_DEPTH = 8
YEAR_MIN, YEAR_MAX = 1800, 2100

FIELDS = {"court": "court", "judge": "judge", "judges": "judge", "year": "year", "from": "from", "to": "to",
          "role": "role", "roles": "role", "cites": "cites", "cite": "cites", "statute": "statute",
          "provision": "statute"}
_KNOWN = "court:, judge:, year:, from:, to:, role:, cites:, statute:"


# ---------------------------------------------------------------- the tree

@dataclass(frozen=True)
class Term:
    """One typed word, soft unless an operator says otherwise."""

    text: str


@dataclass(frozen=True)
class Phrase:
    """A quoted phrase, matched exactly on the unstemmed ``.exact`` subfield."""

    text: str


@dataclass(frozen=True)
class AnyOf:
    """``a OR b OR ...``: at least one alternative must match."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Clauses:
    """A sequence of items: ``must`` all match, ``should`` rank (at least one if nothing is required),
    ``must_not`` exclude. Mirrors a Lucene boolean so the builder is a direct translation."""

    must: tuple[Node, ...] = ()
    should: tuple[Node, ...] = ()
    must_not: tuple[Node, ...] = ()


Node = Term | Phrase | AnyOf | Clauses


@dataclass(frozen=True)
class YearRange:
    """Inclusive years; None is open."""

    start: int | None = None
    end: int | None = None

    def intersect(self, other: YearRange | None) -> YearRange:
        """Both ranges at once; raises when they do not overlap (the user asked for nothing)."""
        if other is None:
            return self
        start = max((y for y in (self.start, other.start) if y is not None), default=None)
        end = min((y for y in (self.end, other.end) if y is not None), default=None)
        if start is not None and end is not None and start > end:
            raise BadRangeError(f"the year ranges {self} and {other} do not overlap: keep one of them")
        return YearRange(start, end)

    def __str__(self) -> str:
        return f"{self.start or ''}..{self.end or ''}"


@dataclass(frozen=True)
class DateRange:
    """Inclusive decision dates; None is open."""

    start: date | None = None
    end: date | None = None

    def intersect(self, other: DateRange | None) -> DateRange:
        """Both ranges at once; raises when they do not overlap."""
        if other is None:
            return self
        start = max((d for d in (self.start, other.start) if d is not None), default=None)
        end = min((d for d in (self.end, other.end) if d is not None), default=None)
        if start is not None and end is not None and start > end:
            raise BadRangeError(f"'from' {start.isoformat()} is after 'to' {end.isoformat()}: swap or widen them")
        return DateRange(start, end)


@dataclass(frozen=True)
class Filters:
    """Restrictions applied inside both the BM25 and the k-NN parts (roles are handled by the role mode)."""

    courts: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    years: YearRange | None = None
    dates: DateRange | None = None
    cites: tuple[str, ...] = ()
    statutes: tuple[str, ...] = ()

    def merged(self, other: Filters) -> Filters:
        """Filters from the query text and from explicit options together (lists join, ranges intersect)."""
        return Filters(
            courts=_unique(self.courts + other.courts),
            judges=_unique(self.judges + other.judges),
            years=self.years.intersect(other.years) if self.years else other.years,
            dates=self.dates.intersect(other.dates) if self.dates else other.dates,
            cites=_unique(self.cites + other.cites),
            statutes=_unique(self.statutes + other.statutes),
        )

    @property
    def empty(self) -> bool:
        """True when nothing is restricted."""
        return self == Filters()


@dataclass(frozen=True)
class ParsedQuery:
    """The query as typed, its text part as a tree (None for a filter-only query), filters and roles."""

    text: str
    query: Node | None
    filters: Filters = field(default_factory=Filters)
    roles: tuple[str, ...] = ()


def leaves(node: Node | None) -> list[Term | Phrase]:
    """Every word and phrase in the tree, in order, excluded ones included."""
    if node is None:
        return []
    if isinstance(node, (Term, Phrase)):
        return [node]
    if isinstance(node, AnyOf):
        return [leaf for item in node.items for leaf in leaves(item)]
    return [leaf for part in (node.must, node.should, node.must_not) for item in part for leaf in leaves(item)]


def positive_text(node: Node | None) -> str:
    """The words and phrases a result should be about, excluded ones left out: the text to embed for
    k-NN and to classify for intent."""
    if node is None:
        return ""
    if isinstance(node, (Term, Phrase)):
        return node.text
    items = node.items if isinstance(node, AnyOf) else node.must + node.should
    return " ".join(text for text in (positive_text(item) for item in items) if text)


# ---------------------------------------------------------------- values

def _unique(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _tidy(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


def parse_year_range(value: str, position: int | None = None) -> YearRange:
    """``2001``, ``2001..2010``, ``..2010``, ``2001..`` or ``2001-2010`` as an inclusive range."""
    text = value.strip()
    span = re.fullmatch(r"(\d{4})?\s*(?:\.\.|-)\s*(\d{4})?", text)
    if re.fullmatch(r"\d{4}", text):
        start = end = int(text)
    elif span and (span.group(1) or span.group(2)):
        start, end = (int(g) if g else None for g in span.groups())
    else:
        raise BadRangeError(f"cannot read year range {value!r}: write year:2001, year:2001..2010, "
                            "year:..2010 or year:2001..", position)
    for year in (start, end):
        if year is not None and not YEAR_MIN <= year <= YEAR_MAX:
            raise BadRangeError(f"year {year} is out of range: use a year from {YEAR_MIN} to {YEAR_MAX}", position)
    if start is not None and end is not None and start > end:
        raise BadRangeError(f"year range {value!r} runs backwards: write year:{end}..{start}", position)
    return YearRange(start, end)


def parse_date(value: str, end: bool = False, position: int | None = None) -> date:
    """A decision-date bound: ``2001``, ``2001-06``, ``2001-06-30`` or Indian day-first ``30-06-2001``
    (``/`` and ``.`` also). A partial date means its first day, or its last with ``end=True``."""
    text = value.strip()
    try:
        if m := re.fullmatch(r"(\d{4})", text):
            year = int(m.group(1))
            result = date(year, 12, 31) if end else date(year, 1, 1)
        elif m := re.fullmatch(r"(\d{4})-(\d{1,2})", text):
            year, month = int(m.group(1)), int(m.group(2))
            day = calendar.monthrange(year, month)[1] if end else 1
            result = date(year, month, day)
        elif m := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", text):
            result = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif m := re.fullmatch(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})", text):
            result = date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
        else:
            raise ValueError(text)
    except ValueError:  # calendar.IllegalMonthError is a ValueError too
        raise BadRangeError(f"cannot read date {value!r}: write 2001, 2001-06, 2001-06-30 or 30-06-2001",
                            position) from None
    if not YEAR_MIN <= result.year <= YEAR_MAX:
        raise BadRangeError(f"date {value!r} is out of range: use a year from {YEAR_MIN} to {YEAR_MAX}", position)
    return result


def normalise_roles(value: str, position: int | None = None) -> tuple[str, ...]:
    """Comma-separated canonical role names or coarse groups as canonical names. A name that is both a
    role and a group (``facts``, ``statute``) means the role; ``reasoning`` means ``ratio`` and ``analysis``."""
    role_set = load_role_set()
    names: list[str] = []
    for raw in value.split(","):
        name = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if not name:
            continue
        if name in role_set.names:
            names.append(name)
        elif name in role_set.coarse_groups:
            names += role_set.group(name)
        else:
            raise BadValueError(f"unknown role {raw.strip()!r}: use one of {', '.join(role_set.names)} "
                                f"or a group ({', '.join(role_set.coarse_groups)})", position)
    if not names:
        raise BadValueError("role: needs a value, e.g. role:ratio", position)
    return _unique(tuple(names))


def normalise_statute(value: str, position: int | None = None) -> tuple[str, ...]:
    """``s. 302 IPC``, ``section 302 of the Indian Penal Code``, ``IPC 302``, ``art. 21`` -> canonical
    provision strings as the indexer writes them (``IPC s. 302``, ``Constitution art. 21``); ``ss. 302 and
    34 IPC`` gives two. Raises rather than return a string no chunk could carry."""
    text = _tidy(value)
    attempts = [text, text[:1].upper() + text[1:], f"s. {text}"]
    canonical = re.fullmatch(r"(.+?)\s+(s|art)\.\s+(\S+)", text)
    if canonical:  # the stored form itself (``Constitution art. 21``), as facets and the explore page write it
        act, kind, number = canonical.groups()
        attempts.insert(0, f"{'Article' if kind == 'art' else 's.'} {number} of the {act}")
    swapped = re.fullmatch(r"([A-Za-z][\w. /]*?)\s+(\d{1,4}[A-Z]{0,2}(?:\(\w{1,5}\))*)", text)
    if swapped:
        attempts.append(f"s. {swapped.group(2)} {swapped.group(1)}")
    for attempt in attempts:
        found = [c.normalized for c in extract_citations(attempt, kinds={"provision"})]
        if found:
            return _unique(tuple(found))
    raise BadValueError(f"cannot read {value!r} as a provision: write it like statute:\"s. 302 IPC\" or "
                        "statute:\"Article 21\"", position)


def normalise_citation(value: str, position: int | None = None) -> str:
    """A reporter citation or ``A v. B`` case name in the canonical form the index stores."""
    found = extract_citations(_tidy(value), kinds={"judgment", "case_name"})
    if not found:
        raise BadValueError(f"cannot read {value!r} as a citation: write it like cites:\"(2017) 10 SCC 1\", "
                            "cites:\"AIR 1973 SC 1461\" or cites:\"Kesavananda Bharati v. State of Kerala\"", position)
    reporter = [c for c in found if c.kind == "judgment"]
    return (reporter or found)[0].normalized


# ---------------------------------------------------------------- tokens

@dataclass(frozen=True)
class _Token:
    kind: str  # WORD PHRASE FIELD LPAREN RPAREN AND OR NOT PLUS EOF
    text: str
    position: int
    name: str = ""  # FIELD only
    end: int = -1  # FIELD only: where the ``name:value`` ends in the text


def _clean(text: str) -> str:
    """Control and format characters become spaces, so they can neither hide tokens nor reach the server.
    Replacing one character by one keeps error positions true to what was typed."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)


def _word_end(text: str, i: int) -> int:
    """End of a word starting at ``i``: whitespace, a quote, or a ')' that closes a group rather than a
    parenthesis opened inside the word (``302(1)``)."""
    depth = 0
    while i < len(text) and not text[i].isspace() and text[i] != '"':
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return i


def _field_token(text: str, start: int, end: int, match: re.Match[str]) -> tuple[_Token, int]:
    """A ``name:value`` or ``name:"quoted value"`` token and where it ends."""
    name = match.group(1).lower()
    if name not in FIELDS:
        raise UnknownFieldError(f"unknown field '{match.group(1)}:'; Ratio filters on {_KNOWN}. "
                                "To search for these words, put them in quotes", start)
    value = text[start + match.end():end]
    if not value:  # name:"quoted value"
        close = text.find('"', end + 1)
        if close < 0:
            raise UnbalancedQuoteError(f"the value of {name}: opens a quote that never closes: add the closing \"",
                                       end)
        value, end = text[end + 1:close], close + 1
    return _Token("FIELD", _tidy(value), start, FIELDS[name], end), end


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n, terms = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "()":
            tokens.append(_Token("LPAREN" if ch == "(" else "RPAREN", ch, i))
            i += 1
        elif ch == '"':
            close = text.find('"', i + 1)
            if close < 0:
                raise UnbalancedQuoteError('this quote opens a phrase that never closes: add the closing "', i)
            tokens.append(_Token("PHRASE", _tidy(text[i + 1:close]), i))
            terms += 1
            i = close + 1
        elif ch in "-+" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] not in "-+)":
            tokens.append(_Token("NOT" if ch == "-" else "PLUS", ch, i))
            i += 1
        else:
            end = _word_end(text, i)
            word = text[i:end]
            field_match = re.match(r"([A-Za-z_]+):", word)
            has_value = field_match is not None and (len(word) > field_match.end() or text[end:end + 1] == '"')
            if field_match and has_value:
                token, end = _field_token(text, i, end, field_match)
                tokens.append(token)
            elif field_match and field_match.group(1).lower() in FIELDS and len(word) == field_match.end():
                name = field_match.group(1).lower()
                raise BadValueError(f"{word} needs a value right after the colon, e.g. {name}:\"...\"", i)
            elif word in ("AND", "OR", "NOT"):
                tokens.append(_Token(word, word, i))
            else:
                tokens.append(_Token("WORD", word, i))
                terms += 1
            i = end
        if terms > MAX_TERMS:
            raise QueryTooLongError(f"the query has more than {MAX_TERMS} words: shorten it", i)
    tokens.append(_Token("EOF", "", n))
    return tokens


# ---------------------------------------------------------------- parser

_SOFT, _MUST, _NOT = "should", "must", "must_not"
_Item = tuple[str, Node]  # (occur, node)
_STOPS = ("EOF", "RPAREN", "AND", "OR")


def _meaningful(text: str) -> bool:
    """Text the analyzer can turn into a token: it holds a letter, a digit or the section sign."""
    return any(ch.isalnum() or ch == "§" for ch in text)


class _Parser:
    """Recursive descent over the tokens; depth is checked before each descent."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0
        self.filters: list[tuple[str, str, int]] = []  # (field, value, position)

    @property
    def tok(self) -> _Token:
        return self.tokens[self.at]

    def advance(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def sequence(self, depth: int) -> Node | None:
        """Items up to ')' or the end; AND makes its neighbours required."""
        items: list[_Item] = []
        pending_and = False
        while self.tok.kind not in ("EOF", "RPAREN"):
            if self.tok.kind == "AND":
                token = self.advance()
                if not items or pending_and:
                    raise QuerySyntaxError("AND needs a word or phrase before it", token.position)
                if self.tok.kind in _STOPS:
                    raise QuerySyntaxError("AND needs a word or phrase after it", token.position)
                if items[-1][0] == _SOFT:
                    items[-1] = (_MUST, items[-1][1])
                pending_and = True
                continue
            if self.tok.kind == "OR":
                raise QuerySyntaxError("OR needs a word or phrase before it", self.tok.position)
            item = self.disjunction(depth)
            if item is None:
                continue
            if pending_and and item[0] == _SOFT:
                item = (_MUST, item[1])
            pending_and = False
            items.append(item)
        if not items:
            return None
        if len(items) == 1 and items[0][0] != _NOT:
            return items[0][1]
        must, should, must_not = (tuple(node for occur, node in items if occur == o) for o in (_MUST, _SOFT, _NOT))
        return Clauses(must, should, must_not)

    def disjunction(self, depth: int) -> _Item | None:
        """``a OR b OR c`` (binds tighter than AND)."""
        start = self.tok
        first = self.unary(depth, field_ok=True)
        if self.tok.kind != "OR":
            return first
        if start.kind == "FIELD":
            raise FilterPlacementError("a filter cannot be one side of OR: filters apply to the whole query; "
                                       "for several courts write court:A court:B", start.position)
        alternatives = [first]
        while self.tok.kind == "OR":
            token = self.advance()
            if self.tok.kind in _STOPS:
                raise QuerySyntaxError("OR needs a word or phrase after it", token.position)
            alternatives.append(self.unary(depth, field_ok=False))
        kept = [alt for alt in alternatives if alt is not None]
        if any(occur == _NOT for occur, _ in kept):
            raise QuerySyntaxError("NOT or '-' cannot be one side of OR: exclude outside it, as in (a OR b) -c",
                                   start.position)
        if not kept:
            return None
        nodes = tuple(node for _, node in kept)
        return (_SOFT, nodes[0] if len(nodes) == 1 else AnyOf(nodes))

    def unary(self, depth: int, field_ok: bool) -> _Item | None:
        """``NOT x``, ``-x``, ``+x`` or a primary."""
        token = self.tok
        if token.kind not in ("NOT", "PLUS"):
            return self.primary(depth, field_ok)
        self.advance()
        if self.tok.kind in (*_STOPS, "NOT", "PLUS"):
            what = "NOT" if token.text == "NOT" else repr(token.text)
            raise QuerySyntaxError(f"{what} needs a word, phrase or group right after it", token.position)
        if self.tok.kind == "FIELD":
            raise FilterPlacementError(f"filters cannot be negated or marked: remove the {token.text!r} "
                                       f"before {self.tok.name}:", token.position)
        inner = self.unary(depth, field_ok=False)
        if inner is None:
            return None
        return (_NOT if token.kind == "NOT" else _MUST, inner[1])

    def primary(self, depth: int, field_ok: bool) -> _Item | None:
        """A group, a phrase, a word or a filter (which is recorded and yields no node)."""
        token = self.advance()
        if token.kind == "LPAREN":
            if depth + 1 > MAX_DEPTH:
                raise QueryTooLongError(f"parentheses nest more than {MAX_DEPTH} deep: flatten the query",
                                        token.position)
            node = self.sequence(depth + 1)
            if self.tok.kind != "RPAREN":
                raise UnbalancedParenthesisError("this '(' is never closed: add a ')'", token.position)
            self.advance()
            if node is None:
                raise QuerySyntaxError("the parentheses hold nothing to search for: remove them or add words",
                                       token.position)
            return (_SOFT, node)
        if token.kind == "PHRASE":
            return (_MUST, Phrase(token.text)) if _meaningful(token.text) else None
        if token.kind == "WORD":
            return (_SOFT, Term(token.text)) if _meaningful(token.text) else None
        if token.kind == "FIELD":
            if not (field_ok and depth == 0):
                raise FilterPlacementError(f"the filter {token.name}: cannot sit inside parentheses or OR: "
                                           "filters apply to the whole query, so move it to the top level",
                                           token.position)
            if not token.text:
                raise BadValueError(f"{token.name}: needs a value, e.g. {token.name}:\"...\"", token.position)
            self.filters.append((token.name, token.text, token.position))
            return None
        # only ')' can reach here: every other kind is consumed above or by the callers
        raise UnbalancedParenthesisError("this ')' has no matching '(': remove it or add one", token.position)


def _filters(raw: list[tuple[str, str, int]]) -> tuple[Filters, tuple[str, ...]]:
    """Typed, normalised filters and roles from the recorded ``field:value`` pairs."""
    filters = Filters()
    roles: tuple[str, ...] = ()
    for name, value, position in raw:
        if name == "court":
            filters = replace(filters, courts=_unique((*filters.courts, value)))
        elif name == "judge":
            filters = replace(filters, judges=_unique((*filters.judges, value)))
        elif name == "year":
            filters = replace(filters, years=parse_year_range(value, position).intersect(filters.years))
        elif name in ("from", "to"):
            bound = parse_date(value, end=name == "to", position=position)
            span = DateRange(bound, None) if name == "from" else DateRange(None, bound)
            filters = replace(filters, dates=span.intersect(filters.dates))
        elif name == "role":
            roles = _unique(roles + normalise_roles(value, position))
        elif name == "cites":
            filters = replace(filters, cites=_unique((*filters.cites, normalise_citation(value, position))))
        else:  # statute
            filters = replace(filters, statutes=_unique(filters.statutes + normalise_statute(value, position)))
    return filters, roles


def parse_query(text: str) -> ParsedQuery:
    """Parse a typed query; raises a :class:`~search.query.errors.QueryError` subclass saying what to fix."""
    if len(text) > MAX_CHARS:
        raise QueryTooLongError(f"the query is {len(text)} characters long: shorten it to {MAX_CHARS}")
    cleaned = _clean(text)
    if not cleaned.strip():
        raise EmptyQueryError("the query is empty: type some words to search for")
    parser = _Parser(cleaned)
    node = parser.sequence(0)
    if parser.tok.kind == "RPAREN":
        raise UnbalancedParenthesisError("this ')' has no matching '(': remove it or add one", parser.tok.position)
    filters, roles = _filters(parser.filters)
    if node is None and filters.empty:
        hint = "roles only choose where to look" if roles else "type some words (letters or numbers)"
        raise EmptyQueryError(f"the query has nothing to search for: {hint}; add words or a filter")
    if node is not None and not positive_text(node) and filters.empty:
        raise EmptyQueryError("the query only excludes words: add a word or phrase to search for")
    return ParsedQuery(text, node, filters, roles)


@dataclass(frozen=True)
class FilterSpan:
    """A fielded filter as typed: its canonical field name (``court``, ``year``, ``from``, ...), its value, and
    where it stands in the text (``text[start:end]`` is ``name:value`` or ``name:"value"``), so a page can show
    it as a chip and remove exactly it."""

    name: str
    value: str
    start: int
    end: int


def filter_spans(text: str) -> list[FilterSpan]:
    """The fielded filters of ``text`` in order, as the tokenizer reads them (so ``court:`` inside a quoted
    phrase is not one). Raises a :class:`~search.query.errors.QueryError` where the tokenizer does; a filter misplaced
    inside parentheses is still listed (parsing, not tokenizing, refuses it)."""
    if len(text) > MAX_CHARS:
        raise QueryTooLongError(f"the query is {len(text)} characters long: shorten it to {MAX_CHARS}")
    return [FilterSpan(t.name, t.text, t.position, t.end) for t in _tokens(_clean(text)) if t.kind == "FIELD"]


def without_span(text: str, start: int, end: int) -> str:
    """``text`` less ``text[start:end]``, the words either side joined by one space."""
    return f"{text[:start].rstrip()} {text[end:].lstrip()}".strip()


_SYNTAX_CHARS = re.compile(r'["()]|(?<![\w.])[-+](?=\w)|\b(AND|OR|NOT)\b')
_FIELD_LIKE = re.compile(r"(?<=\w):")


def as_plain_text(text: str, max_words: int | None = None) -> str:
    """Neutralise query syntax so pasted prose (a fact pattern, a paragraph of a judgment) is searched as words.

    Quotes, parentheses, leading ``-``/``+``, upper-case operators and ``word:`` colons lose their meaning;
    the words stay. ``max_words`` keeps only the first words, for texts longer than the query limits.
    """
    # format characters (a zero-width space inside a word) split words in the parser: clean first, then count
    plain = _SYNTAX_CHARS.sub(lambda m: m.group(1).lower() if m.group(1) else " ", _clean(text))
    plain = _FIELD_LIKE.sub(" ", plain)
    words = plain.split()
    return " ".join(words[:max_words] if max_words else words)
