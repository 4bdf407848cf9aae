"""Person names in a mined facts query replaced the way AILA 2019 writes its fact patterns (``P1``, ``P2``, ...).

AILA's queries are fact descriptions with every person's name taken out: "the complainant P1 (PW-5) along with his
two sons namely P2 and P3", "the deceased P1 was daughter of PW1"; institutions and places named by the law stay
("the State", "the High Court"). A ``facts`` query mined from a corpus judgment (:mod:`lab.training.ranker_data`)
still carries the real names, so a ranker trained on it learns from words no AILA query has. The anonymised twin
(``facts-anon``) is the same text with each distinct person numbered in order of first appearance. AILA numbers
persons ``P``; ``A1`` is its mark for an Act ("Section S of Act A1") and many judgments already call accused
``A1``, so the prefix is ``P``.

The names come from the judgment itself, by rules a reader can check (no NER model is installed, and one we could
not verify would be worse than a heuristic we can): the person-like parties of its title (not ``State of Punjab``,
``Union of India``, a bank or an institute), names after an honorific (``Shri``, ``Smt.``) or a role word
(``one``, ``namely``, ``the deceased``, ``his son``), names marked as witnesses or accused (``Jagu Dada (PW6)``),
and runs of two or three capitalised words that repeat in the judgment and never occur in lower case there. A
word a court writes in capitals (``Court``, ``Sessions``, ``Punjab``, months) is never part of a name. Everything
is a pure function of the text and the parties: the same judgment gives the same query every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from search.query.party_names import load_party_rules, split_case_name

__all__ = ["ANON_SOURCE", "anonymise", "person_names"]

ANON_SOURCE = "mined-facts-anon"  # the training source of the anonymised facts queries (see ranker_data)
WORDS = Path(__file__).with_name("person_words.json")  # the word lists: data, read on first use

_WORD = r"(?:[A-Z][a-z]+|[A-Z]\.)"  # a name word: a capitalised word or an initial
_RUN = rf"{_WORD}(?:\s+{_WORD}){{0,3}}"
_HONORIFIC = re.compile(rf"\b(?:Shri|Sri|Smt|Mr|Mrs|Ms|Miss|Kumari|Km|Dr)\.?\s+({_RUN})")
_ROLE = re.compile(rf"\b(?:one|namely|deceased|accused|appellant|complainant|informant|victim|son|daughter|wife|"
                   rf"husband|brother|sister|father|mother|nephew|niece|uncle|aunt)(?:\s+of)?,?\s+({_RUN})")
_MARKED = re.compile(rf"({_WORD}(?:\s+{_WORD}){{0,2}})\s*\((?i:P\.?\s?W|D\.?\s?W|A-?\s?\d|deceased|informant|"
                     rf"complainant|accused)")
_REPEATED = re.compile(r"(?<=[a-z,;:] )([A-Z][a-z]+(?: [A-Z][a-z]+){1,2})\b")
_OTHER_NAME = re.compile(r"\s+(?:@|alias|urf)\s+", re.IGNORECASE)
_PARTY_FILLER = re.compile(r"(?:,?\s+(?:and|&)\s+(?:ors|others|anr|another)\.?|,?\s+etc\.?|\([^)]*\))\s*$",
                           re.IGNORECASE)


@lru_cache(maxsize=1)
def _lists() -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """The words that are never a name, the name parts many people share (``Singh``, ``Devi``: the party rules'
    generic words plus ``person_words.json``'s) and the English endings no name word has, read on first use, not at
    import."""
    data = json.loads(WORDS.read_text(encoding="utf-8"))
    return (frozenset(data["not_names"]), load_party_rules().generic | frozenset(data["shared_parts"]),
            tuple(data["suffixes"]))


def _trim(run: str, lower: frozenset[str]) -> str:
    """``run`` cut at its first word that is not a name (a court's word, an English ending, or a word the judgment
    writes in lower case)."""
    words: list[str] = []
    for word in run.split():
        bare = word.rstrip(".").lower()
        if bare in _lists()[0] or (len(bare) > 1 and (bare in lower or bare.endswith(_lists()[2]))):
            break
        words.append(word)
    while words and words[-1].endswith(".") and len(words[-1]) == 2:  # a name does not end on an initial
        words.pop()
    return " ".join(words)


def _party_names(parties: Sequence[str]) -> list[str]:
    """The person-like parties (each name of ``X @ Y`` alone); a side with ``of``, a digit or an institution's
    word (``State``, ``Bank``, ``Institute``) is not a person."""
    out: list[str] = []
    for side in parties:
        side = _PARTY_FILLER.sub("", side.strip()).strip(" ,.")
        for name in _OTHER_NAME.split(side):
            words = [w.title() if w.isupper() and len(w.rstrip(".")) > 1 else w for w in name.split()]
            bare = [w.rstrip(".,").lower() for w in words]
            if not words or len(words) > 5 or any(b in _lists()[0] or not b.isalpha() for b in bare):
                continue
            out.append(" ".join(words).strip(" ,"))
    return out


def person_names(text: str, parties: Sequence[str] = (), title: str = "") -> list[str]:
    """The person names of a judgment: its person-like parties (from ``parties``, else ``title``'s two sides),
    then the names its ``text`` (the whole judgment: more evidence than the facts alone) marks as persons: after an
    honorific, after a role word, marked as a witness or accused, or a run of capitalised words said twice. The
    order does not matter to :func:`anonymise`, which numbers by appearance."""
    lower = frozenset(re.findall(r"(?<![A-Za-z])[a-z]+", text))
    sides = list(parties) or list(split_case_name(title) or ())
    found: list[str] = _party_names(sides)
    marked = [m.group(1) for pattern in (_HONORIFIC, _ROLE, _MARKED) for m in pattern.finditer(text)]
    runs: dict[str, int] = {}
    for match in _REPEATED.finditer(text):
        runs[match.group(1)] = runs.get(match.group(1), 0) + 1
    marked += [run for run, n in runs.items() if n >= 2]
    for run in marked:
        name = _trim(run, lower)
        if name and name not in found and (" " in name or len(name) >= 3):
            found.append(name)
    return found


def _pattern(name: str) -> str:
    return r"(?<![\w.])" + r"\s+".join(re.escape(w) for w in name.split()) + r"(?![\w])"


def anonymise(text: str, names: Iterable[str], prefix: str = "P") -> str:
    """``text`` with every occurrence of each name in ``names`` replaced by ``P1``, ``P2``, ... (one number per
    person, numbered in order of first appearance in ``text``). A word of a longer name that is not shared by many
    people (``Manoj`` of ``Manoj Kumar``, not ``Ram`` of ``Ram Kumar``) stands for that person alone too, so a second
    mention by first name gets the same number; a surname alone does not (a family shares it: ``Kaushalya Dwivedi``
    and ``Sidheswar Dwivedi`` are two persons). Longest names match first; whole names ignore case, single words
    do not."""
    names = list(dict.fromkeys(" ".join(n.split()) for n in names if n.strip()))
    whole = [n for n in names if " " in n]
    owner: dict[str, str] = {n: n for n in whole}  # a name or a single word -> the whole name of its person
    for name in whole:
        first = name.split()[0]
        if len(first) >= 3 and first.isalpha() and first.lower() not in _lists()[1]:
            owner.setdefault(first, name)
    for name in names:  # a one-word name that is another's first name is that person
        owner.setdefault(name, name)
    if not owner:
        return text
    keys = sorted(owner, key=lambda k: (-len(k), k))
    single = [k for k in keys if " " not in k]
    alternatives = [f"(?i:{_pattern(k)})" for k in keys if " " in k] + [_pattern(k) for k in single] + \
        [_pattern(k.upper()) for k in single]
    lookup = {k.lower(): v for k, v in owner.items()}
    numbers: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        person = lookup[" ".join(match.group(0).split()).lower()]
        numbers.setdefault(person, len(numbers) + 1)
        return f"{prefix}{numbers[person]}"

    return re.sub("|".join(alternatives), number, text)
