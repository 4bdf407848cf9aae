"""Cheap per-sentence features that the sentence vector does not carry well.

MiniLM vectors say what a sentence is about, not where it stands in the judgment, how long it is, or whether
it quotes a section number or a case citation. These features add that: relative position, length, case shape
and a set of regex cues kept as data in ``features.json`` so they can be read and changed without code.

The cues are Python regexes, and ``re`` decides what they mean. On a judgment whose text is plain ASCII, an
unanchored cue is run by RE2 instead (``google-re2``: automata, no backtracking, a few times quicker over a whole
judgment): there the two engines agree on every construct such a cue may hold, ``\\s`` aside (RE2's lacks
``\\v`` and the ASCII separators ``\\x1c``-``\\x1f``), so a text holding one of those, any other text, and any cue
RE2 cannot compile or that is not plain ASCII stay with ``re``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import re2

# Features computed from position and shape, in this order, before the regex cues.
POSITION_AND_SHAPE = (
    "relative_position",
    "relative_position_squared",
    "is_first",
    "is_last",
    "first_decile",
    "last_decile",
    "log_words",
    "log_document_sentences",
    "upper_ratio",
    "digit_ratio",
)


_GROUP_FLAG = re.compile(r"(?<!\\)\(\?")  # "(?" opening a lookaround or flag group, not an optional "\("
_SEPARATOR = "\x00"  # joins a judgment's sentences for one regex pass per cue (a match holding it spans two)
_ASCII_UPPER = {code: None for code in range(ord("A"), ord("Z") + 1)}
_ASCII_LOWER = {code: None for code in range(ord("a"), ord("z") + 1)}
_ASCII_DIGITS = {code: None for code in range(ord("0"), ord("9") + 1)}
_NOT_RE2_SPACE = re.compile("[\x0b\x1c-\x1f]")  # whitespace to ``re``, not to RE2: such a text stays with ``re``
_RE2: dict[tuple[str, int], re2._Regexp | None] = {}  # a cue's RE2 form (None: RE2 cannot run it), by source and flags


@dataclass(frozen=True)
class Cue:
    """A named regex whose match gives a 0/1 feature."""

    name: str
    pattern: re.Pattern[str]

    @property
    def anchored(self) -> bool:
        """Whether the pattern looks at string ends or around its match (``^``, ``$``, ``\\A``, ``\\Z``,
        ``\\B``, any ``(?`` group): such a cue is searched sentence by sentence."""
        source = self.pattern.pattern
        return any(token in source for token in ("^", "$", "\\A", "\\Z", "\\B")) or bool(_GROUP_FLAG.search(source))


@dataclass(frozen=True)
class FeatureSet:
    """The ordered list of features a head was trained with."""

    cues: tuple[Cue, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Feature names in column order."""
        return POSITION_AND_SHAPE + tuple(cue.name for cue in self.cues)

    @property
    def size(self) -> int:
        """Number of feature columns."""
        return len(self.names)

    def to_json(self) -> dict:
        """Serialise the cues, so a trained head carries the exact patterns it saw."""
        return {
            "cues": [
                {"name": cue.name, "pattern": cue.pattern.pattern, "flags": _flags_to_text(cue.pattern.flags)}
                for cue in self.cues
            ]
        }

    def compute(self, sentences: Sequence[str], *, use_re2: bool = True) -> np.ndarray:
        """Return a float32 array (len(sentences), size); ``use_re2=False`` runs every cue by ``re`` (what
        ``ratio bench cues`` compares the RE2 path with).

        Fast paths that give exactly what a sentence-by-sentence loop gives: an unanchored cue is run once
        over the sentences joined by a separator no cue can match (so no match spans two sentences, and each
        sentence is scanned from its start), and case and digit shares of ASCII sentences are counted by
        deleting character ranges rather than testing characters one by one.
        """
        count = len(sentences)
        out = np.zeros((count, self.size), dtype=np.float32)
        if count == 0:
            return out
        log_doc = math.log1p(count) / 7.0
        base = len(POSITION_AND_SHAPE)
        for index, sentence in enumerate(sentences):
            position = index / max(count - 1, 1)
            upper, digits = _shares(sentence)
            words = len(sentence.split())
            out[index, :base] = (
                position,
                position * position,
                float(index == 0),
                float(index == count - 1),
                float(position < 0.1),
                float(position > 0.9),
                math.log1p(words) / 5.0,
                log_doc,
                upper,
                digits,
            )
        joined = _SEPARATOR.join(sentences)
        separable = _SEPARATOR not in "".join(sentences)
        starts = np.cumsum([0] + [len(sentence) + 1 for sentence in sentences[:-1]])
        # bytes of an ASCII text: RE2's offsets are then the text's own
        ascii_text = joined.encode("ascii") if use_re2 and joined.isascii() and not _NOT_RE2_SPACE.search(joined) \
            else None
        for column, cue in enumerate(self.cues, start=base):
            if separable and not cue.anchored:
                fast = _re2_form(cue) if ascii_text is not None else None
                matches = list(fast.finditer(ascii_text) if fast is not None else cue.pattern.finditer(joined))
                separator = _SEPARATOR.encode() if fast is not None else _SEPARATOR
                # A match holding the separator (through ``.``, ``\\W``, a negated class) spans sentences:
                # then this cue is searched sentence by sentence after all.
                if not any(separator in match.group() for match in matches):
                    if matches:
                        hits = [match.start() for match in matches]
                        out[np.searchsorted(starts, hits, side="right") - 1, column] = 1.0
                    continue
            for index, sentence in enumerate(sentences):
                if cue.pattern.search(sentence):
                    out[index, column] = 1.0
        return out


def _re2_form(cue: Cue) -> re2._Regexp | None:
    """The cue compiled by RE2 for ASCII bytes, or None where RE2 would not mean what ``re`` means: a pattern
    that is not plain ASCII (``re`` folds some other letters onto ASCII ones under IGNORECASE), a flag other than
    IGNORECASE, ``re``'s ``{,n}`` (RE2 reads it as text), or a construct RE2 lacks (it refuses to compile those)."""
    key = (cue.pattern.pattern, cue.pattern.flags)
    if key not in _RE2:
        source, flags = cue.pattern.pattern, cue.pattern.flags & ~re.UNICODE
        form = None
        if source.isascii() and flags & ~re.IGNORECASE == 0 and "{," not in source:
            options = re2.Options()
            options.case_sensitive = not flags & re.IGNORECASE
            options.log_errors = False
            try:
                form = re2.compile(source.encode("ascii"), options)
            except re2.error:
                form = None
        _RE2[key] = form
    return _RE2[key]


def _shares(sentence: str) -> tuple[float, float]:
    """Share of capitals among letters, and of digits among characters."""
    if sentence.isascii():
        length = len(sentence)
        upper = length - len(sentence.translate(_ASCII_UPPER))
        letters = upper + length - len(sentence.translate(_ASCII_LOWER))
        digits = length - len(sentence.translate(_ASCII_DIGITS))
        return (upper / letters if letters else 0.0), (digits / length if length else 0.0)
    letters = [ch for ch in sentence if ch.isalpha()]
    upper = sum(ch.isupper() for ch in letters) / len(letters) if letters else 0.0
    digits = sum(ch.isdigit() for ch in sentence) / len(sentence) if sentence else 0.0
    return upper, digits


def _flags_from_text(text: str) -> int:
    flags = 0
    for char in text:
        flags |= {"i": re.IGNORECASE, "m": re.MULTILINE}[char]
    return flags


def _flags_to_text(flags: int) -> str:
    return ("i" if flags & re.IGNORECASE else "") + ("m" if flags & re.MULTILINE else "")


def parse_feature_set(data: dict) -> FeatureSet:
    """Compile the cue table; cues are case-insensitive unless their ``flags`` say otherwise."""
    cues = tuple(
        Cue(entry["name"], re.compile(entry["pattern"], _flags_from_text(entry.get("flags", "i"))))
        for entry in data["cues"]
    )
    names = [cue.name for cue in cues]
    if len(set(names)) != len(names) or set(names) & set(POSITION_AND_SHAPE):
        raise ValueError("feature names must be unique")
    return FeatureSet(cues)


def load_feature_set(path: Path | None = None) -> FeatureSet:
    """Read a cue table; ``None`` reads the one shipped with the package."""
    if path is None:
        text = resources.files("indexer.roles").joinpath("features.json").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return parse_feature_set(json.loads(text))
