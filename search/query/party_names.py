"""Comparing the parties of a cited case name (``A v. B``) with the parties of a judgment in the corpus.

A case name in a brief is rarely spelled as the corpus spells it: ``State of U.P. v. Anil Singh`` is
``State Of U.P v Anil Singh`` in the index, ``Mohd.`` is ``Mohammad``, ``& Ors.`` comes and goes, and a
citation may drop the second party's qualifiers (``Govt. of NCT of Delhi v. Sunil``). So each side is
reduced to a set of words (lower-cased, ASCII-folded, initials joined, filler dropped, abbreviations
expanded from ``analyzers/party_names.json``, the lists the ``ratio_name`` analyzer indexes titles with) and two
sides relate when the sets are equal (``exact``) or one holds
the other (``partial``). A whole case fits a judgment when both sides relate, in order or the other way
round, and the shared words are not all generic (``State``, ``Union``, ``Singh``): ``Ram v. State`` fits
nothing, because it fits half the corpus.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import analyzers

__all__ = ["Fit", "NameFit", "NameQuery", "PartyRules", "case_fit", "name_fit", "name_query", "party_tokens",
           "search_words", "split_case_name", "title_sides"]

_SPLIT = re.compile(r"\s+(?:v|vs|versus)\.?\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_ASIDE = re.compile(r"\([^)]*\)")


class Fit(StrEnum):
    """How well a cited case name fits a judgment's parties, best first."""

    EXACT = "exact"  # the same parties, in the same order
    SWAPPED = "swapped"  # the same parties, named the other way round (an appeal reverses them)
    PARTIAL = "partial"  # each side names part of a side of the judgment (or the judgment part of it)


@dataclass(frozen=True, slots=True)
class PartyRules:
    """The word lists of ``party_names.json``: filler dropped, aliases rewritten, generic words discounted."""

    filler: frozenset[str]
    aliases: dict[str, tuple[str, ...]]
    generic: frozenset[str]


@lru_cache(maxsize=1)
def load_party_rules(path: Path | None = None) -> PartyRules:
    """The packaged word lists (:func:`analyzers.party_name_rules`, or the file at ``path``), read once on first
    use (not at import). The words before a party's other name (``alias``) are dropped as filler is."""
    data = json.loads(path.read_text(encoding="utf-8")) if path else analyzers.party_name_rules()
    return PartyRules(frozenset({*data["filler"], *data.get("other_names", ())}),
                      {k: tuple(v.split()) for k, v in data["aliases"].items()}, frozenset(data["generic"]))


def _words(name: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    return _WORD.findall(_ASIDE.sub(" ", folded.replace("&", " and ")))


def _join_initials(words: Sequence[str]) -> list[str]:
    """``u p`` → ``up``, ``s v madan`` → ``sv madan``: initials are written with and without dots and spaces."""
    out: list[str] = []
    run = ""
    for word in words:
        if len(word) == 1 and word.isalpha():
            run += word
            continue
        if run:
            out.append(run)
            run = ""
        out.append(word)
    if run:
        out.append(run)
    return out


def party_tokens(name: str, rules: PartyRules | None = None) -> frozenset[str]:
    """The comparable words of one party name (``State Of U.P.`` → ``{state, uttar, pradesh}``)."""
    rules = rules or load_party_rules()
    words = [w for w in _words(name) if w not in rules.filler]
    tokens: list[str] = []
    for word in _join_initials(words):
        tokens.extend(rules.aliases.get(word, (word,)))
    return frozenset(t for t in tokens if t not in rules.filler)


def split_case_name(name: str) -> tuple[str, str] | None:
    """``A v. B`` (or ``vs.``, ``versus``) as its two sides, or None when the name has no ``v.``."""
    parts = _SPLIT.split(name.strip(), maxsplit=1)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        return None
    return parts[0].strip(), parts[1].strip()


def _side(cited: frozenset[str], party: frozenset[str]) -> str | None:
    if not cited or not party:
        return None
    if cited == party:
        return "exact"
    if cited <= party or party <= cited:
        return "partial"
    return None


def case_fit(cited: tuple[str, str], parties: tuple[str, str], rules: PartyRules | None = None) -> Fit | None:
    """How the cited case ``cited`` (two sides) fits a judgment with ``parties`` (two sides), or None."""
    rules = rules or load_party_rules()
    left, right = (party_tokens(side, rules) for side in cited)
    first, second = (party_tokens(side, rules) for side in parties)
    best: Fit | None = None
    for swapped, (a, b) in enumerate(((first, second), (second, first))):
        sides = (_side(left, a), _side(right, b))
        if None in sides:
            continue
        shared = (left & a) | (right & b)
        if not shared - rules.generic:
            continue
        fit = Fit.PARTIAL if "partial" in sides else (Fit.SWAPPED if swapped else Fit.EXACT)
        if best is None or list(Fit).index(fit) < list(Fit).index(best):
            best = fit
    return best


def search_words(side: str, rules: PartyRules | None = None) -> str:
    """The side as written plus its expanded words, for a full-text query that must find either spelling."""
    expanded = " ".join(sorted(party_tokens(side, rules)))
    return f"{side} {expanded}".strip()


# ---------------------------------------------------------------- a typed name against a judgment's title

@dataclass(frozen=True, slots=True)
class NameQuery:
    """The name words of a typed query: per side for ``A v B`` (one side for a party alone or other words), and
    all of them together."""

    sides: tuple[frozenset[str], ...]
    words: frozenset[str]


@dataclass(frozen=True, slots=True)
class NameFit:
    """How a judgment's title answers a typed name, as numbers a ranker can weigh.

    ``fit`` is 1 when the title names the same parties (0.9 in the other order; a party alone equal to one side of
    it, or the query's words equal to the whole title: 1), 0.6 when each side names part of a side, 0 otherwise;
    ``query_cover`` is the share of the query's name words in the title, ``title_cover`` the share of the title's
    words in the query, ``rare_cover`` the share of the query's non-generic words (not ``State``, ``Singh``) in it."""

    fit: float
    query_cover: float
    title_cover: float
    rare_cover: float


def name_query(text: str, parties: Sequence[str] = (), rules: PartyRules | None = None) -> NameQuery:
    """The name words of ``text``; ``parties`` are the sides the search box read (:mod:`search.query.understand`),
    else the whole text is one side."""
    rules = rules or load_party_rules()
    sides = tuple(party_tokens(side, rules) for side in (parties or (text,)))
    return NameQuery(sides, frozenset().union(*sides) if sides else frozenset())


_OTHER_NAME = re.compile(r"\s+(?:@|alias|urf)\s+", re.IGNORECASE)


@lru_cache(maxsize=65536)
def title_sides(title: str) -> tuple[frozenset[str], ...]:
    """The name words of each side of a title (one side when it has no ``v``), cached: the same titles come back
    for query after query."""
    split = split_case_name(title)
    return tuple(party_tokens(side) for side in (split or (title,)))


@lru_cache(maxsize=65536)
def _other_names(title: str) -> tuple[tuple[frozenset[str], ...], ...]:
    """Per side, the names a party also goes by (``Dharminder Singh @ Vijay Singh``: each name alone)."""
    split = split_case_name(title)
    return tuple(tuple(party_tokens(name) for name in _OTHER_NAME.split(side)) if _OTHER_NAME.search(side) else ()
                 for side in (split or (title,)))


def _relates(query: frozenset[str], side: frozenset[str], generic: frozenset[str],
             others: tuple[frozenset[str], ...] = ()) -> float:
    if not query or not side:
        return 0.0
    if query == side or query in others:
        return 1.0
    if (query <= side or side <= query) and (query & side) - generic:
        return 0.6
    return 0.0


def name_fit(query: NameQuery, title: str | None, rules: PartyRules | None = None) -> NameFit:
    """How ``title`` answers ``query`` (all zeros for a missing title or a query without name words)."""
    rules = rules or load_party_rules()
    if not title or not query.words:
        return NameFit(0.0, 0.0, 0.0, 0.0)
    sides, others = title_sides(title), _other_names(title)
    words = frozenset().union(*sides)
    if len(query.sides) == 2 and len(sides) == 2:
        pairs = ((1.0, (0, 1)), (0.9, (1, 0)))  # the same order, or the other (an appeal names them reversed)
        fit = max(order * min(_relates(query.sides[0], sides[a], rules.generic, others[a]),
                              _relates(query.sides[1], sides[b], rules.generic, others[b]))
                  for order, (a, b) in pairs)
    else:
        fit = max((_relates(query.words, side, rules.generic, other) for side, other in zip(sides, others,
                                                                                            strict=True)),
                  default=0.0)
    if len(query.sides) == 1 and query.words == words:  # the whole title typed without its ``v``
        fit = 1.0
    shared = query.words & words
    rare = query.words - rules.generic
    return NameFit(fit, len(shared) / len(query.words), len(shared) / len(words) if words else 0.0,
                   len(rare & words) / len(rare) if rare else 0.0)
