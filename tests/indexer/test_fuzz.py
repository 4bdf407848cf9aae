"""Property-based fuzzing of the citation extractor, the sentence splitter and the loaders on arbitrary input.

Each example has a time bound (hypothesis ``deadline``): five seconds, where a linear rule takes milliseconds
and the old quadratic case-name rule took seven seconds on a 5k-character run. Texts mix arbitrary Unicode
with runs of one character (up to 20k) and legal fragments, the shapes that made rules backtrack.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.document import Judgment, LoadError, Provision
from indexer.loaders import load
from legal.citations import KINDS, extract_citations
from legal.sentences import split

FUZZ = settings(deadline=timedelta(seconds=5), max_examples=80, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_FRAGMENTS = [
    "State of Kerala v. ", "s. 302 ", "IPC", "(2017) 10 SCC 1", "AIR 1973 SC 1461", "Art. 21", "Sections 1, 2",
    " and ", " of the ", "Ors.", "(1)(a)", "Hon'ble", "J.", "Vs.", "versus", "Act, 1950", "\n", "\n\n", ". ", ";",
    "1. ", "\t", "A", "Ab", "...", "[1950] SCR 88", "u/s 34", "Cr.P.C.",
]
_RUN_CHARS = ["A", "a", " ", ".", "\n", "(", ")", "'", "1", ",", "-", "s. 1, ", "Ab ", "A. ", "\n \n", "(1)"]

runs = st.builds(lambda part, count: part * count, st.sampled_from(_RUN_CHARS), st.integers(1, 20_000))
texts = st.lists(st.one_of(st.text(max_size=200), st.sampled_from(_FRAGMENTS), runs), max_size=12).map("".join)


@FUZZ
@given(texts)
def test_citations_on_any_text(text: str) -> None:
    found = extract_citations(text)
    for citation in found:
        assert citation.kind in KINDS and citation.normalized
        assert 0 <= citation.start < citation.end <= len(text)
        assert text[citation.start:citation.end] == citation.text
    assert [c.start for c in found] == sorted(c.start for c in found)


@FUZZ
@given(texts, st.integers(2, 3_000))
def test_sentences_on_any_text(text: str, max_chars: int) -> None:
    sentences = split(text, max_chars=max_chars)
    previous_end = 0
    for index, sentence in enumerate(sentences):
        assert sentence.index == index
        assert previous_end <= sentence.start < sentence.end <= len(text)
        assert text[sentence.start:sentence.end] == sentence.text == sentence.text.strip()
        assert len(sentence.text) <= max_chars
        previous_end = sentence.end
    if text.strip():
        assert sentences


_SUFFIXES = [".txt", ".json", ".jsonl", ".html", ".txt.gz", ".pdf", ""]


@FUZZ
@given(st.one_of(st.binary(max_size=4_000), texts.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.builds(lambda body: b'{"id": "f1", "text": ' + body + b"}", st.binary(max_size=500))),
       st.sampled_from(_SUFFIXES))
def test_loaders_on_any_bytes(data: bytes, suffix: str) -> None:
    """Whatever the bytes and the extension, loading yields judgments, provisions or LoadErrors, never raises."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        loaded = list(load([path]))
    assert loaded
    for item in loaded:
        assert isinstance(item, (Judgment, Provision, LoadError))
        if isinstance(item, LoadError):
            assert item.item.startswith(str(path)) and item.reason
        if isinstance(item, Judgment):
            assert item.text.strip() and "\x00" not in item.text
