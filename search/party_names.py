"""Comparing the parties of a cited case name (``A v. B``) with the parties of a judgment in the corpus.

A case name in a brief is rarely spelled as the corpus spells it: ``State of U.P. v. Anil Singh`` is
``State Of U.P v Anil Singh`` in the index, ``Mohd.`` is ``Mohammad``, ``& Ors.`` comes and goes, and a
citation may drop the second party's qualifiers (``Govt. of NCT of Delhi v. Sunil``). So each side is
reduced to a set of words (lower-cased, ASCII-folded, initials joined, filler dropped, abbreviations
expanded from ``party_names.json``) and two sides relate when the sets are equal (``exact``) or one holds
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

__all__ = ["Fit", "PartyRules", "case_fit", "party_tokens", "search_words", "split_case_name"]

RULES_PATH = Path(__file__).with_name("party_names.json")
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
def load_party_rules(path: Path = RULES_PATH) -> PartyRules:
    """The packaged word lists, read once on first use (not at import)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return PartyRules(frozenset(data["filler"]), {k: tuple(v.split()) for k, v in data["aliases"].items()},
                      frozenset(data["generic"]))


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
