"""The domain objects of the write path: a judgment, a statutory provision, a chunk, a summary, a load error.

A judgment's sentences and citations are :mod:`legal` objects (:class:`~legal.sentences.Sentence`,
:class:`~legal.citations.Citation`), shared with the read path; ``Sentence`` is re-exported here.

They are frozen so that a stage of the pipeline (metadata, citations, sentences, roles, chunks) can never
change what an earlier stage produced behind its back: a stage returns a new object made with
``dataclasses.replace``.

Judgment ids
------------
A judgment id must be stable across re-indexing runs, because OpenSearch documents, qrels and links
between judgments are keyed on it. The rule, applied by :func:`judgment_id_for`:

1. If the record carries its own id (the ``"id"`` field of a JSON Lines record, the ``"id"`` of an
   OpenNyAI Label-Studio document), that id is used, as a string.
2. Otherwise the id is the file's stem with every compression and format suffix removed:
   ``Object_casedocs/C123.txt`` gives ``C123``, ``Prior_Cases/prior_case_0001.txt.gz`` gives
   ``prior_case_0001``, ``judgment.html`` gives ``judgment``.
3. With a source prefix (for example ``"aila"``), the id becomes ``"<prefix>:<id>"``, so that two corpora
   whose files share a stem (``C1`` in two collections) do not collide in one index.

The id is Unicode-normalised (NFC, so a name typed on macOS and on Linux gives one id). Letters, marks and
digits of any script are kept, so ``判决一.txt`` and ``判决二.txt`` give the distinct ids ``判决一`` and ``判决二``;
every run of other characters (spaces, slashes, punctuation but ``_.:-``) becomes one ``_``. An id is at most
:data:`MAX_ID_BYTES` bytes of UTF-8 (OpenSearch refuses an ``_id`` over 512 bytes, and a chunk's id adds
``:<ordinal>``); :func:`id_problem` says what is wrong with one, and the loaders turn that into a LoadError.

Two sources may still give one id (``a/X1.txt`` and ``b/X1.txt``, ``a b.txt`` and ``a_b.txt``): the writer
refuses the second within a run, and a judgment already in the index from another source file is never
replaced unless asked (see :mod:`indexer.identity`).
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from legal.citations import Citation
from legal.sentences import Sentence

__all__ = [
    "MAX_ID_BYTES",
    "Chunk",
    "Judgment",
    "LoadError",
    "Provision",
    "Sentence",
    "Summary",
    "id_problem",
    "judgment_id_for",
    "safe_id",
    "strip_suffixes",
]

_KNOWN_SUFFIXES = (".gz", ".txt", ".json", ".jsonl", ".ndjson", ".pdf", ".html", ".htm", ".xhtml")
_ID_PUNCTUATION = frozenset("_.:-")
MAX_ID_BYTES = 500


def _id_char(ch: str) -> bool:
    """Kept in an id: ASCII letters and digits, ``_.:-``, and letters, marks and digits of other scripts."""
    if ch.isascii():
        return ch.isalnum() or ch in _ID_PUNCTUATION
    return unicodedata.category(ch)[0] in "LMN"


def safe_id(text: str) -> str:
    """``text`` NFC-normalised, each run of characters an id may not hold replaced by one ``_``."""
    out: list[str] = []
    replacing = False  # inside a run of replaced characters (an ``_`` of the name itself stays as it is)
    for ch in unicodedata.normalize("NFC", text):
        if _id_char(ch):
            out.append(ch)
            replacing = False
        elif not replacing:
            out.append("_")
            replacing = True
    return "".join(out)


def id_problem(judgment_id: str) -> str | None:
    """Why ``judgment_id`` cannot be an id (empty, or over :data:`MAX_ID_BYTES`), or None when it can."""
    if not judgment_id.strip():
        return "the id is empty"
    size = len(judgment_id.encode("utf-8"))
    if size > MAX_ID_BYTES:
        return f"the id is {size} bytes long, over the limit of {MAX_ID_BYTES} bytes ({judgment_id[:40]!r}...)"
    return None


def strip_suffixes(name: str) -> str:
    """Return ``name`` without its format and compression suffixes (``a.txt.gz`` → ``a``).

    Only known suffixes are removed, so that a dotted stem such as ``2019.SC.12`` survives.
    """
    stripped = name
    changed = True
    while changed:
        changed = False
        for suffix in _KNOWN_SUFFIXES:
            if stripped.lower().endswith(suffix) and len(stripped) > len(suffix):
                stripped = stripped[: -len(suffix)]
                changed = True
    return stripped


def judgment_id_for(path: str | Path | None, record_id: object = None, prefix: str | None = None) -> str:
    """Build the stable judgment id following the rule in the module docstring.

    ``record_id`` wins over ``path``; one of the two must be given.
    """
    if record_id is not None and str(record_id).strip():
        base = str(record_id).strip()
    elif path is not None:
        base = strip_suffixes(Path(path).name)
    else:
        raise ValueError("a judgment id needs either a record id or a path")
    base = safe_id(base)
    return f"{prefix}:{base}" if prefix else base


def _frozen_mapping(value: Mapping[str, object] | None) -> Mapping[str, object]:
    return MappingProxyType(dict(value or {}))


@dataclass(frozen=True, slots=True)
class Judgment:
    """One court judgment as the indexer sees it.

    ``text`` is the judgment exactly as loaded (header included), so that sentence and chunk offsets can
    be shown against it. ``citations`` are the judgment's *own* reporter citations (how others cite it);
    ``cited_judgments`` and ``cited_provisions`` are what it cites, normalised for faceting and linking.
    ``text_citations`` holds every citation found in ``text`` (all kinds, in text order), scanned once by
    the loader so that the header reader, the citation filler and the summariser do not scan the text again;
    ``None`` means the text has not been scanned (see :func:`indexer.citations.citations_in`).
    """

    judgment_id: str
    text: str
    source: str
    source_path: str | None = None
    title: str | None = None
    parties: tuple[str, ...] = ()
    court: str | None = None
    judges: tuple[str, ...] = ()
    decision_date: dt.date | None = None
    case_number: str | None = None
    citations: tuple[str, ...] = ()
    cited_judgments: tuple[str, ...] = ()
    cited_provisions: tuple[str, ...] = ()
    text_citations: tuple[Citation, ...] | None = None
    status: str | None = None
    language: str = "en"
    extra: Mapping[str, object] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    source_item: str | None = None  # one record of a multi-record file, as LoadError names it (a.jsonl#line 7)

    def __post_init__(self) -> None:
        # A frozen dataclass with a plain dict would still be mutable through that dict.
        object.__setattr__(self, "extra", _frozen_mapping(self.extra))

    @property
    def item(self) -> str:
        """How a report names this judgment: its record, else its file, else its id."""
        return self.source_item or self.source_path or self.judgment_id


@dataclass(frozen=True, slots=True)
class Provision:
    """A statutory provision (a section of an Act, an article of the Constitution).

    ``citation`` is the canonical string that :mod:`legal.citations` produces for references to it
    (``"IPC s. 302"``), so that a judgment's ``cited_provisions`` can link to it; ``None`` when the source
    does not say which Act and section it is (the AILA statutes carry only a title and a text).
    """

    provision_id: str
    text: str
    source: str
    title: str | None = None
    act: str | None = None
    section: str | None = None
    citation: str | None = None
    source_path: str | None = None
    chapter: str | None = None  # the chapter of a bare Act the section sits in ("CHAPTER XVI — Of offences ...")


@dataclass(frozen=True, slots=True)
class LoadError:
    """An item that could not be loaded, named so that a batch report can say what to fix.

    ``item`` is the file path, with ``#<record>`` appended for one record of a multi-record file
    (``cases.jsonl#line 7``, ``dev.json#doc 3``).
    """

    item: str
    reason: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of consecutive sentences of one judgment, indexed as one document of the ``chunks`` index.

    Chunks follow rhetorical roles, so that a hit can be filtered and coloured by role and a case-level hit
    can name its best chunks. ``text`` is the exact source span: ``judgment.text[char_start:char_end] ==
    text``, so a hit can be shown in place. ``sentence_start``/``sentence_end`` are sentence indices (end
    exclusive). ``sentence_offsets`` is a flat ``(start, end, start, end, ...)`` tuple of each sentence's
    offsets *in the judgment text* (the same frame as ``char_start`` and :class:`Sentence`), which is what
    the integer ``sentence_offsets`` field of the mapping stores. ``role`` is the role with the most
    characters in the chunk; ``sentence_roles`` keeps every sentence's own role, so folding a one-sentence
    role into a neighbour loses nothing. ``content_hash`` (sha256 of role and text) lets a re-indexing run
    skip chunks that did not change.
    """

    chunk_id: str
    judgment_id: str
    role: str
    ordinal: int
    sentence_start: int
    sentence_end: int
    char_start: int
    char_end: int
    sentence_offsets: tuple[int, ...]
    text: str
    sentence_roles: tuple[str, ...]
    content_hash: str


def _frozen_provenance(value: Mapping[str, Mapping[str, object]] | None) -> Mapping[str, Mapping[str, object]]:
    return MappingProxyType({name: MappingProxyType(dict(entry)) for name, entry in (value or {}).items()})


@dataclass(frozen=True, slots=True)
class Summary:
    """The structured summary of a judgment: the ``summary`` object of the ``judgments`` index.

    Every field is taken from the judgment's own sentences (or trimmed from them), and ``provenance`` says
    for each field how it was made (``"method": "extractive"``) and from which sentence indices, so a reader
    can check it against the text and a later refinement step can say what it changed.
    ``cited_principles`` holds what each cited judgment stands for, not its name.
    """

    facts: str = ""
    legal_issues: tuple[str, ...] = ()
    reasoning: str = ""
    legal_principles: str = ""
    topics: tuple[str, ...] = ()
    cited_principles: tuple[str, ...] = ()
    provenance: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "provenance", _frozen_provenance(self.provenance))

    @property
    def is_empty(self) -> bool:
        """True when no field holds anything (a judgment with no sentences)."""
        fields = (self.facts, self.legal_issues, self.reasoning, self.legal_principles, self.topics)
        return not any(fields) and not self.cited_principles
