"""Hostile inputs for the write path, and how long each takes through loading, citations and sentences.

Lab code (``ratio bench hostile`` and the tests use it; the product path does not import it). Each input is a
file a careless or malicious user could hand to ``ratio index``, or a body they could post to the citation
check: the probes of issue 16 (a capitalised run without spaces, a megabyte of citation-like text, a NUL
byte or a terminal escape after the first 8 KB) and more of the same kind (huge lines, deep nesting, mixed
encodings, runs of dots, spaces and section numbers that made the old rules backtrack).

Every input must finish in time linear in its size: :func:`measure` reports the seconds of each step so a
regression shows up as a number, and the tests check what each input yields.
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.document import Judgment, LoadError, Provision
from indexer.loaders import LoadOptions, load
from legal.citations import extract_citations
from legal.sentences import split

__all__ = ["AnalysisTiming", "HostileInput", "Timing", "analysis_seconds", "citation_check_body",
           "hostile_inputs", "measure", "unicode_texts", "write_inputs"]

_KB = 1024
_FRAGMENTS = (
    "State of Kerala v. ", "s. 302 ", "IPC ", "(2017) 10 SCC 1 ", "AIR 1973 SC 1461 ", "Art. 21 ", "Section 1, 2, 3 ",
    "A" * 50, "  ", "\n", ".", "...", "1. ", "The ", "and ", "of ", "Ors. ", "(1)(a)", "Hon'ble ", "J. ", "Vs. ",
    "versus ", "Act, 1950 ", "Indian Penal Code ", "&", "/", "\t", "'", '"', "s. 1, ", "Article 14, ",
)
_TAIL = "\n\nIn Kesavananda Bharati v. State of Kerala, (1973) 4 SCC 225, s. 302 IPC was not in issue.\n"


@dataclass(frozen=True, slots=True)
class HostileInput:
    """One hostile file: ``name``, what it probes, its file name and bytes, and what loading should give
    (``"judgment"``, or ``"error"`` for a file refused with a reason)."""

    name: str
    about: str
    filename: str
    data: bytes
    expect: str


def citation_check_body(size: int = 1_000_000, seed: int = 16) -> str:
    """``size`` characters of citation-like fragments in random order: what the 1 MB citation-check body of the
    probe held (party names, reporters, sections, runs of capitals, dots and spaces)."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        part = rng.choice(_FRAGMENTS)
        parts.append(part)
        length += len(part)
    return "".join(parts)[:size]


def _runs(size: int) -> Iterator[tuple[str, str, str]]:
    """Texts made of one repeated pattern, each once the undoing of a backtracking rule."""
    yield "capital-run", "a capitalised run without spaces (the case-name rule took 114 s on 20k)", "A" * size
    yield "capital-words", "capitalised words with no 'v.' among them", "Ab " * (size // 3)
    yield "initials", "'A. ' repeated: initials, a sentence-splitter candidate each", "A. " * (size // 3)
    yield "section-list", "'s. 1, ' repeated with no Act after the list", "s. 1, " * (size // 6)
    yield "article-list", "'Article 1, ' repeated", "Article 1, " * (size // 11)
    yield "spaces", "a section number, then a run of spaces", "s. 1" + " " * size + "x"
    yield "dots", "a run of dots", "." * size + "x"
    yield "paragraph-numbers", "'1. A ' repeated on one line", "1. A " * (size // 5)
    yield "subsections", "a section with thousands of sub-section brackets", "302" + "(1)" * (size // 3)
    yield "nested-brackets", "brackets nested deep", "(" * (size // 2) + ")" * (size // 2)
    yield "blank-lines", "newline, space, newline repeated", "\n \n" * (size // 3)
    yield "combining-marks", "a letter, then a run of combining acutes (quadratic in the node's old char filters)", \
        "a" + "\u0301" * size
    yield "cjk-run", "a run of Chinese characters without a space (a token each)", "判" * size


def hostile_inputs(size: int = 200_000, body_size: int = 1_000_000) -> list[HostileInput]:
    """The hostile corpus; ``size`` is the length of the pathological runs (200k characters by default) and
    ``body_size`` that of the citation-check body (1 MB, as in the probe)."""
    inputs = [
        HostileInput(name, about + "; a real sentence follows", f"{name}.txt", (text + _TAIL).encode(), "judgment")
        for name, about, text in _runs(size)
    ]
    body = citation_check_body(body_size)
    words = " ".join(["lorem"] * (2 * size // 6))
    head = "The appellant was convicted under s. 302 IPC. " * (9 * _KB // 46)
    nested = "<div>" * (size // 10) + "deep text" + "</div>" * (size // 10)
    inputs += [
        HostileInput("citation-body", f"{body_size:,} characters of citation-like fragments (the citation-check probe)",
                     "citation-body.txt", body.encode(), "judgment"),
        HostileInput("huge-line", f"one line of {len(words):,} characters without punctuation", "huge-line.txt",
                     (words + _TAIL).encode(), "judgment"),
        HostileInput("nul-after-8k", "text with a NUL byte after the first 8 KB", "nul-after-8k.txt",
                     (head + "\x00" + _TAIL).encode(), "error"),
        HostileInput("ansi-after-8k", "terminal escape sequences after the first 8 KB (removed, with a warning)",
                     "ansi-after-8k.txt", (head + "\x1b[31mred\x1b[0m \x1b]0;title\x07" + _TAIL).encode(),
                     "judgment"),
        HostileInput("controls-after-8k", "control characters making up 5% of the text after 8 KB",
                     "controls-after-8k.txt", (head + ("\x01\x02\x03 word " * 4000) + _TAIL).encode(), "error"),
        HostileInput("mixed-encodings", "UTF-8 text with cp1252 and Latin-1 bytes in it (decoded as cp1252)",
                     "mixed-encodings.txt", head.encode() + "caf\u00e9 \u2014 ".encode() + b"\x93quoted\x94 \xe9t\xe9"
                     + _TAIL.encode(), "judgment"),
        HostileInput("utf16", "a UTF-16 file (NUL bytes throughout)", "utf16.txt", (head + _TAIL).encode("utf-16"),
                     "error"),
        HostileInput("deep-json", "a JSON value nested 100,000 deep", "deep.json",
                     b'{"id": "deep", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "error"),
        HostileInput("deep-jsonl", "a JSON Lines record nested 100,000 deep", "deep.jsonl",
                     b'{"id": "deep", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "error"),
        HostileInput("deep-html", f"HTML nested {size // 10:,} elements deep", "deep.html",
                     f"<html><body>{nested}{_TAIL}</body></html>".encode(), "judgment"),
        HostileInput("huge-record", "a JSON Lines record whose text is the citation body",
                     "huge-record.jsonl", json.dumps({"id": "huge", "text": body}).encode() + b"\n", "judgment"),
        HostileInput("gzip-bomb", "a .txt.gz that unpacks to 60 MB of one letter (over the 50 MB limit)",
                     "bomb.txt.gz", gzip.compress(b"a" * (60 * _KB * _KB), compresslevel=9), "error"),
    ]
    return inputs


def write_inputs(folder: Path, inputs: list[HostileInput]) -> list[Path]:
    """Write each input into ``folder`` under its file name; the paths, in order."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for item in inputs:
        path = folder / item.filename
        path.write_bytes(item.data)
        paths.append(path)
    return paths


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds one input took per step (wall clock), and what loading gave."""

    name: str
    bytes: int
    load: float
    citations: float
    sentences: float
    outcome: str
    longest_sentence: int

    @property
    def total(self) -> float:
        return self.load + self.citations + self.sentences


def _timed(step: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    value = step()
    return time.perf_counter() - started, value


def measure(folder: Path, inputs: list[HostileInput], options: LoadOptions | None = None) -> list[Timing]:
    """Load each input (decoding, header metadata and the citation scan), then scan its text for citations
    again on its own and split it into sentences; the seconds of each step."""
    timings = []
    for item, path in zip(inputs, write_inputs(folder, inputs), strict=True):
        load_seconds, loaded = _timed(lambda path=path: list(load([path], options)))
        judgments = [x for x in loaded if isinstance(x, Judgment)]  # type: ignore[union-attr]
        errors = [x for x in loaded if isinstance(x, LoadError)]  # type: ignore[union-attr]
        cite_seconds = split_seconds = 0.0
        longest = 0
        for judgment in judgments:
            seconds, _ = _timed(lambda judgment=judgment: extract_citations(judgment.text))
            cite_seconds += seconds
            seconds, sentences = _timed(lambda judgment=judgment: split(judgment.text))
            split_seconds += seconds
            longest = max([longest, *(len(s.text) for s in sentences)])  # type: ignore[attr-defined]
        provisions = sum(isinstance(x, Provision) for x in loaded)  # type: ignore[union-attr]
        outcome = (f"{len(judgments)} judgment(s)" if judgments else
                   f"refused: {errors[0].reason}" if errors else f"{provisions} provision(s)")
        timings.append(Timing(item.name, len(item.data), load_seconds, cite_seconds, split_seconds, outcome, longest))
    return timings


def unicode_texts(size: int = 20_000) -> dict[str, str]:
    """The Unicode probes of issue 29 as text for the node's analyzers (what a query or a chunk holds), each at
    ``size`` characters: a letter and combining acutes (``a`` and 6,000 took 15 s of the node's CPU under the old
    ``\\b`` char filters; 9,000 passed the server's 30 s deadline), an ideograph and marks, a run of ideographs,
    ``s.``/``302`` with zero-width characters between, right-to-left overrides."""
    return {
        "combining-marks": "a" + "\u0301" * (size - 1),
        "marks-on-ideographs": "判" + "\u0301" * (size - 1),
        "cjk-run": "判" * size,
        "zero-width": ("s.\u200b302\u200c IPC\u200d\u2060\ufeff " * size)[:size],
        "right-to-left": ("\u202e\u05e9\u05dc\u05d5\u05dd Art. 21\u202c\u200f " * size)[:size],
    }


@dataclass(frozen=True, slots=True)
class AnalysisTiming:
    """Seconds the node took to analyse one probe with one analyzer (``_analyze``), and the tokens it made."""

    name: str
    chars: int
    analyzer: str
    seconds: float
    tokens: int


def analysis_seconds(client: Any, index: str, texts: dict[str, str],
                     analyzers: tuple[str, ...] = ("ratio_text", "ratio_text_search")) -> list[AnalysisTiming]:
    """Time each text through each analyzer of ``index`` on the node (``ratio_text`` is what indexing runs,
    ``ratio_text_search`` what a query runs); the index needs ``index.analyze.max_token_count`` above the
    longest text."""
    timings = []
    for name, text in texts.items():
        for analyzer in analyzers:
            seconds, answer = _timed(lambda text=text, analyzer=analyzer: client.indices.analyze(
                index=index, body={"analyzer": analyzer, "text": text}, params={"request_timeout": 600}))
            timings.append(AnalysisTiming(name, len(text), analyzer, seconds, len(answer["tokens"])))  # type: ignore[index]
    return timings
