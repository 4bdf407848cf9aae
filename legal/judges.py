"""Judges' names in one form: ``Dr. Arijit Pasayat``, ``HON'BLE JUSTICE ARIJIT PASAYAT`` and ``arijit pasayat`` are
one judge, ``Arijit Pasayat``.

Headers write a bench many ways (the AILA corpus alone has ``dr. arijit pasayat``, ``dr.arijit pasayat``,
``hon'ble justice dr. arijit pasayat``; ``d.k.jain`` and ``d. k. jain``; ``sikri s. m.``; ``dharmadhikari, j. :``;
IRLeD benches write ``shah, j.c.``). :func:`judge_names` reads one written value into the judges it names, each in
one form: titles and honorifics dropped (Hon'ble, Mr., Mrs., Ms., Smt., Shri, Dr., Justice, Chief Justice), the
``J.``/``JJ.``/``CJ`` that ends a name dropped, initials written ``D. K.`` (a dot and a space each), surname-first
forms (``sikri s. m.``, ``shah, j.c.``) turned round, several judges in one value (``g. n. ray, j. and g.t.
nanavati``) split, and every word in title case. :func:`judge_key` is the form two names are compared by (lower
case, accents folded), which is also how the ``judges`` keyword field stores them (its ``ratio_keyword``
normalizer).

What it does not do: spelling variants stay apart (``arijit pasatat``, ``s. b. majumdar``), and a surname alone
(``ray``) is not guessed into a full name. The indexer writes names in this form; the read path folds the
variants an older index still holds (:mod:`search.pages.judge_facet`).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_CHARS", "judge_key", "judge_names", "judge_pattern"]

MAX_CHARS = 300  # a longer value is no bench line: kept as written (and the patterns below stay cheap)
_TITLE = re.compile(
    r"^(?:(?:hon'?ble|honourable|the|mr|mrs|ms|smt|shri|sri|dr|chief\s+justice|justice|cji|cj)(?:\.\s*|\s+))+",
    re.IGNORECASE)
# a designation closing a name: ", J.", " J", ", JJ.", ", C.J.", ", CJI", and a colon after it
# (after a comma, or after a whole word: ``k. j.`` ends with an initial, not a designation)
_SUFFIX = re.compile(r"(?:,\s*|(?<=[^\W\d_]{2})\s+)(?:jj?|c\.?\s*j\.?\s*i?)\.?\s*:?\s*$|,\s*c\.?\s*:?\s*$"
                     r"|\s*[:,;]\s*$", re.IGNORECASE)
_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
_DOTS = re.compile(r"\s*\.\s*")
_LETTERS = re.compile(r"[^\W\d_]")
# letters, and the signs a written bench uses between them (linear: the two classes are disjoint)
_NAME_LIKE = re.compile(r"[\s.,'’&:;-]*(?:[^\W\d_]+[\s.,'’&:;-]+)*[^\W\d_]*")


def _initial(token: str) -> bool:
    """``d.``, ``d``, ``ar.``: a token that abbreviates a name."""
    return len(token.rstrip(".")) == 1 or (token.endswith(".") and len(token) <= 3)


def _tokens(name: str) -> list[str]:
    """Words of one name, initials with their dot (``d.k.jain`` → ``d. k. jain``), other words without one."""
    spaced = _DOTS.sub(". ", name).replace(",", " ")
    out = []
    for token in spaced.split():
        core = token.rstrip(".")
        if not _LETTERS.search(core):
            continue
        out.append(core + "." if len(core) == 1 or (token.endswith(".") and len(core) <= 2) else core)
    return out


def _strip(name: str) -> str:
    previous = None
    while previous != name:
        previous = name
        name = _SUFFIX.sub("", _TITLE.sub("", name.strip())).strip()
    return name


def _one(name: str) -> str | None:
    """One judge's name in the module's form, or None when it holds no name."""
    name = _strip(name)
    surname, comma, given = name.partition(",")
    if comma and given.strip() and "," not in given and not any(_initial(t) for t in _tokens(surname)):
        name = f"{given} {surname}"  # ``shah, j.c.``, ``verma, jagdish saran``
    tokens = _tokens(name)
    lead = next((i for i, t in enumerate(tokens) if not _initial(t)), len(tokens))
    tail = len(tokens)
    while tail > lead + 1 and _initial(tokens[tail - 1]):
        tail -= 1
    if lead == 0 and tail < len(tokens):
        tokens = tokens[tail:] + tokens[:tail]  # ``sikri s. m.`` → ``s. m. sikri``
    if not any(len(t.rstrip(".")) > 1 for t in tokens):
        return None
    return " ".join(t[:1].upper() + t[1:].lower() if t.endswith(".") else t.title() for t in tokens)


def _parts(value: str) -> list[str]:
    """The names one written value holds: split at ``and``, then at commas that separate names (a comma before
    a designation or before a surname-first name's given names does not)."""
    parts = []
    for part in _AND.split(value):
        part = _strip(part)
        pieces = [p for p in part.split(",") if p.strip()]
        names_first = len(pieces) > 1 and any(_initial(t) for t in _tokens(pieces[0]))
        parts += pieces if names_first or len(pieces) > 2 else [part]
    return parts


def judge_names(value: str) -> tuple[str, ...]:
    """The judges one written value names, each once, in one form: ``Hon'ble Justice Dr. Arijit Pasayat`` →
    ``("Arijit Pasayat",)``, ``g. n. ray, j. and g.t. nanavati`` → ``("G. N. Ray", "G. T. Nanavati")``; empty
    when it names none (``:``). A value that does not read as names (digits, other signs) is kept as written."""
    if len(value) > MAX_CHARS or not _NAME_LIKE.fullmatch(value):
        return (value.strip(),)
    return tuple(dict.fromkeys(n for part in _parts(value) if (n := _one(part))))


def judge_key(name: str) -> str:
    """What two judges' names are compared by: the name's one form, lower case, accents folded (as the
    ``judges`` keyword field stores it); empty when it names no judge. Several names: the first's."""
    names = judge_names(name)
    if not names:
        return ""
    decomposed = unicodedata.normalize("NFKD", names[0].lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _escape(token: str) -> str:
    return "".join(ch if ch.isalnum() else "\\" + ch for ch in token)


def judge_pattern(name: str) -> str | None:
    """A Lucene regular expression (for a ``regexp`` query, lower case) that matches the stored values naming
    ``name`` however they are written: any title before it, dots and spaces between its words as any mix
    (``d.k.jain``, ``d. k. jain``), a dot after an initial optional, and anything after a following space, dot,
    comma or colon (``, j.``, ``and g.t. nanavati``). None when ``name`` names no judge."""
    key = judge_key(name)
    if not key:
        return None
    words = [_escape(t.rstrip(".")) for t in key.split()]
    forms = ["[. ]+".join(words)]
    initials = 0
    while initials < len(words) - 1 and key.split()[initials].endswith("."):
        initials += 1
    if initials:  # also written surname first: ``shah, j.c.``, ``sikri s. m.``
        forms.append(" ".join(words[initials:]) + ",?[ ]+" + "[. ]*".join(words[:initials]))
    return "(.*[ .])?(" + "|".join(forms) + ")\\.?([ .,:;].*)?"
