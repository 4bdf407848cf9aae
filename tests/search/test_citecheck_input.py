"""Citation lookup without a cluster: input checks, party-name comparison and the spans shown to the reader."""

from __future__ import annotations

import json

import pytest

from legal.citations import extract_citations
from search.graph.citecheck import (
    MAX_TEXT_BYTES,
    BinaryTextError,
    CitationCheck,
    CitationReport,
    CitationTextError,
    CorpusMatch,
    EmptyTextError,
    TextTooLongError,
    _as_written,
    decode_text,
    validate_text,
)
from search.query.errors import EmptyQueryError, QueryError, QueryTooLongError
from search.query.party_names import Fit, case_fit, party_tokens, split_case_name


@pytest.mark.parametrize(("text", "error", "words"), [
    ("", EmptyTextError, "empty"),
    ("  \n\t ", EmptyTextError, "empty"),
    ("brief\x00with a NUL", BinaryTextError, "NUL"),
    ("\x01\x02\x03\x04 binary-ish" * 10, BinaryTextError, "control characters"),
    ("a lone surrogate \ud800 here", BinaryTextError, "not valid Unicode"),
    ("x" * (MAX_TEXT_BYTES + 1), TextTooLongError, "over the limit"),
    ("ह" * (MAX_TEXT_BYTES // 3 + 1), TextTooLongError, "bytes"),  # the limit counts UTF-8 bytes, not characters
])
def test_bad_text_is_refused_with_a_reason(text: str, error: type[CitationTextError], words: str) -> None:
    with pytest.raises(error) as caught:
        validate_text(text)
    assert words in str(caught.value)
    assert isinstance(caught.value, QueryError)  # so the API answers 400 and the CLI a clean error


def test_errors_belong_to_the_query_error_family() -> None:
    assert issubclass(EmptyTextError, EmptyQueryError) and issubclass(TextTooLongError, QueryTooLongError)
    assert issubclass(BinaryTextError, CitationTextError) and issubclass(CitationTextError, ValueError)


@pytest.mark.parametrize(("data", "error", "words"), [
    (b"", EmptyTextError, "empty"),
    (b"%PDF-1.4\x00\x01binary", BinaryTextError, "NUL bytes"),
    (b"caf\xe9 au lait v. State", BinaryTextError, "not valid UTF-8 (byte 4"),
    (b"x" * (MAX_TEXT_BYTES + 1), TextTooLongError, "over the limit"),
])
def test_bad_bytes_are_refused(data: bytes, error: type[CitationTextError], words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(")):
        decode_text(data)


def test_good_text_passes_and_a_bom_is_dropped() -> None:
    assert validate_text("No citation here.") == "No citation here."
    assert decode_text("\ufeffSection 302 IPC".encode()) == "Section 302 IPC"
    assert decode_text(b"x" * 10, max_bytes=10) == "x" * 10


@pytest.mark.parametrize(("name", "tokens"), [
    ("State Of U.P.", {"state", "uttar", "pradesh"}),
    ("State of Uttar Pradesh and Others", {"state", "uttar", "pradesh"}),
    ("Govt. of NCT of Delhi", {"government", "nct", "delhi"}),
    ("S. V. Madan", {"sv", "madan"}),
    ("Mohd. Iqbal Ahmed", {"mohammad", "iqbal", "ahmed"}),
    ("Brij Mohan Gupta (Dead) through LRs. and another", {"brij", "mohan", "gupta"}),
    ("Bani Singh & Ors.", {"bani", "singh"}),
])
def test_party_names_reduce_to_comparable_words(name: str, tokens: set[str]) -> None:
    assert party_tokens(name) == tokens


@pytest.mark.parametrize(("cited", "parties", "fit"), [
    (("State of U.P.", "Anil Singh"), ("State Of U.P", "Anil Singh"), Fit.EXACT),
    (("State of Uttar Pradesh", "Anil Singh"), ("State Of U.P", "Anil Singh"), Fit.EXACT),
    (("Anil Singh", "State of U.P."), ("State Of U.P", "Anil Singh"), Fit.SWAPPED),
    (("Anil", "State of U.P."), ("Anil Kumar", "State of U.P"), Fit.PARTIAL),
    (("Govt. of NCT of Delhi", "Sunil"), ("State Government of Nct of Delhi", "Sunil and Another"), Fit.PARTIAL),
    (("Anil Singh", "State of Punjab"), ("State Of U.P", "Anil Singh"), None),  # the wrong State
    (("Ram", "State"), ("Ram Kumar", "State of U.P"), None),  # only generic words in common: fits half a corpus
])
def test_case_fit(cited: tuple[str, str], parties: tuple[str, str], fit: Fit | None) -> None:
    assert case_fit(cited, parties) == fit


def test_split_case_name() -> None:
    assert split_case_name("Lakshmi Devi vs Union of India") == ("Lakshmi Devi", "Union of India")
    assert split_case_name("Kesavananda Bharati v. State of Kerala") == ("Kesavananda Bharati", "State of Kerala")
    assert split_case_name("no parties here") is None


def test_shown_span_leaves_out_lead_in_words_and_the_full_stop() -> None:
    text = "In State of U.P. v. Anil Singh the court agreed. See also State v. Sunil."
    spans = [_as_written(c) for c in extract_citations(text, kinds={"case_name"})]
    assert spans == [("State of U.P. v. Anil Singh", 3, 30), ("State v. Sunil", 58, 72)]
    assert all(text[start:end] == shown for shown, start, end in spans)


def test_report_is_json_ready() -> None:
    match = CorpusMatch("judgment", "C99", None, "State Of U.P. v Anil Singh", "/judgments/C99", "parties")
    check = CitationCheck("case_name", "State v. Anil Singh", 0, 19, "State v. Anil Singh", "found", (match,),
                          "one judgment in the corpus has these parties", 0, ((0, 19),))
    data = json.loads(json.dumps(CitationReport((check,), 1, 0, 0, 19).as_dict()))
    assert data["ok"] is True
    assert data["checks"][0]["matches"][0]["link"] == "/judgments/C99"
    assert data["checks"][0]["occurrences"] == [[0, 19]]
