"""Published section headings of a few Indian Acts, for checking (never producing) the provision mapping.

The tables in ``section_headings/<act>.tsv`` are facts copied from public tables (the sources are named in
each file's ``#`` lines and in ``section_headings/README.md``): for each Act, section (or article) number ->
its marginal heading. The file name is the Act's canonical name from ``citation_rules.json`` (``IPC``,
``CrPC``, ``Evidence Act``, ``Constitution``).

They exist to *check* a mapping found from the corpus: given a provision's own title and the act/section the
corpus evidence assigned it, :func:`heading_agreement` says whether the published heading of that section
agrees with the title. Nothing here may be used to find an act/section for a title.

Agreement rule (documented here and in the README): both strings are normalised by :func:`normalise_heading`
(Unicode NFKC, lower case, a footnote number glued to the end of the last word dropped, every run of
characters other than letters and digits turned into one space, so case, punctuation, whitespace and
trailing dots/dashes do not count). They agree when the normalised forms are equal, or when the shorter one
is a contiguous run of the longer one's words, has at least :data:`MIN_CONTAINED_WORDS` words and at least
:data:`MIN_CONTAINED_SHARE` of the longer one's words. The share keeps "Punishment for murder" (IPC 302) from
agreeing with "Punishment for murder by life-convict" (IPC 303).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib import resources

__all__ = ["MIN_CONTAINED_SHARE", "MIN_CONTAINED_WORDS", "heading_agreement", "load_headings",
           "normalise_heading", "normalise_section"]

MIN_CONTAINED_WORDS = 4
MIN_CONTAINED_SHARE = 0.75

_FOOTNOTE = re.compile(r"(?<=[^\W\d_])\d+\W*$")  # "evidence1" -> "evidence": a footnote mark, not a number
_NON_WORD = re.compile(r"[\W_]+")


def normalise_heading(text: str) -> str:
    """Lower-case words of ``text`` separated by single spaces, without punctuation or a trailing footnote mark."""
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = _FOOTNOTE.sub("", text)
    return _NON_WORD.sub(" ", text).strip()


def normalise_section(section: str) -> str:
    """``"304 b"`` -> ``"304B"``: the table's key form (no whitespace, upper case)."""
    return re.sub(r"\s+", "", section).upper()


@cache
def _tables() -> dict[str, dict[str, str]]:
    folder = resources.files(__package__).joinpath("section_headings")
    tables: dict[str, dict[str, str]] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".tsv"):
            continue
        act = entry.name.removesuffix(".tsv")
        rows: dict[str, str] = {}
        lines = [line for line in entry.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
        for line in lines[1:]:  # lines[0] is the column header
            section, heading = line.split("\t")
            key = normalise_section(section)
            if key in rows:
                raise ValueError(f"{entry.name}: section {section} listed twice")
            rows[key] = heading
        tables[act] = rows
    return tables


def load_headings() -> dict[str, dict[str, str]]:
    """Act -> section -> published heading, for every table; read on first use (a fresh copy each call)."""
    return {act: dict(rows) for act, rows in _tables().items()}


def _contains(longer: list[str], shorter: list[str]) -> bool:
    n = len(shorter)
    return any(longer[i:i + n] == shorter for i in range(len(longer) - n + 1))


def heading_agreement(title: str, act: str, section: str) -> bool | None:
    """Whether ``title`` agrees with the published heading of ``act`` ``section``; None when no table has it.

    ``act`` is a canonical act name (``"IPC"``); see the module docstring for the rule.
    """
    heading = _tables().get(act, {}).get(normalise_section(section))
    if heading is None:
        return None
    a, b = normalise_heading(title), normalise_heading(heading)
    if not a or not b:
        return False
    if a == b:
        return True
    shorter, longer = sorted((a.split(), b.split()), key=len)
    return (len(shorter) >= MIN_CONTAINED_WORDS and len(shorter) >= MIN_CONTAINED_SHARE * len(longer)
            and _contains(longer, shorter))
