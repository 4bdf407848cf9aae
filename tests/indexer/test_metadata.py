"""Header metadata read from the real corpora, and the conservative parsers behind it."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest

from indexer.document import Judgment
from indexer.metadata import HeaderMetadata, apply_metadata, extract_metadata, parse_date, split_parties
from legal.citations import extract_citations


def aila(data_dir: Path, name: str) -> str:
    return (data_dir / "aila-2019" / "Object_casedocs" / f"{name}.txt").read_text(encoding="utf-8")


def irled(data_dir: Path, number: str) -> str:
    path = data_dir / "fire2017-irled-precedent" / "Prior_Cases" / f"prior_case_{number}.txt.gz"
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def test_aila_header(data_dir: Path) -> None:
    meta = extract_metadata(aila(data_dir, "C1"))
    assert meta == HeaderMetadata(
        layout="aila",
        title="Masud Khan v State Of Uttar Pradesh",
        parties=("Masud Khan", "State Of Uttar Pradesh"),
        court="Supreme Court of India",
        judges=("A. Alagiriswami",),
        decision_date=dt.date(1973, 9, 26),
        case_number="Writ Petition No. 117 of 1973",
        author="A. Alagiriswami",
    )


def test_aila_header_with_status_lines(data_dir: Path) -> None:
    meta = extract_metadata(aila(data_dir, "C1020"))
    assert meta.layout == "aila"
    assert meta.status == "Negative Judicial Treatment"
    assert meta.court == "Supreme Court of India"
    assert meta.decision_date is not None


def test_aila_header_with_a_very_long_case_number(data_dir: Path) -> None:
    meta = extract_metadata(aila(data_dir, "C1395"))
    assert meta.decision_date == dt.date(2010, 2, 8)
    assert meta.author == "Deepak Verma"
    assert meta.case_number is not None and meta.case_number.startswith("Civil Appeal No. 1514 OF 2010")


def test_all_aila_headers_give_a_date(data_dir: Path) -> None:
    folder = data_dir / "aila-2019" / "Object_casedocs"
    missing = [p.name for p in sorted(folder.glob("C*.txt")) if extract_metadata(p.read_text()).decision_date is None]
    assert missing == []


def test_irled_header(data_dir: Path) -> None:
    meta = extract_metadata(irled(data_dir, "0001"))
    assert meta.layout == "irled"
    assert meta.decision_date == dt.date(1995, 10, 11)
    assert meta.citations == ("AIR 1996 SC 463", "(1995) 6 SCC 315", "JT 1995 (7) 225", "(1995) 5 SCALE 690")
    assert meta.judges == ("JEEVAN REDDY, B.P.", "MAJMUDAR S.B.")
    assert meta.author == "B.P. JEEVAN REDDY"
    assert meta.title is None  # IRLeD headers do not name the parties; no guess


def test_irled_bench_without_markers_is_not_guessed(data_dir: Path) -> None:
    meta = extract_metadata(irled(data_dir, "0002"))
    assert meta.decision_date == dt.date(1974, 4, 26)
    assert meta.judges == ()
    assert "[1975] 1 SCR 173" in meta.citations


def opennyai(data_dir: Path, index: int) -> str:
    documents = json.loads((data_dir / "opennyai-rhetorical-roles" / "dev.json").read_text(encoding="utf-8"))
    return documents[index]["data"]["text"]


def test_judis_preamble(data_dir: Path) -> None:
    meta = extract_metadata(opennyai(data_dir, 2))
    assert meta.layout == "judis"
    assert meta.parties == ("COMMISSIONER OF INCOME TAX, MADRAS", "G.R. KARTHIKEYAN, COIMBATORE")
    assert meta.decision_date == dt.date(1993, 4, 22)
    assert meta.judges == ("JEEVAN REDDY, B.P.", "VENKATACHALA N.")
    assert "AIR 1993 SC 1671" in meta.citations and "[1993] 3 SCR 328" in meta.citations


def test_high_court_preamble(data_dir: Path) -> None:
    meta = extract_metadata(opennyai(data_dir, 5))
    assert meta.layout == "court_preamble"
    assert meta.court == "High Court of Karnataka"
    assert meta.decision_date == dt.date(2015, 1, 20)
    assert meta.judges == ("N.KUMAR", "B.VEERAPPA")


def test_unknown_header_gives_nothing(data_dir: Path) -> None:
    assert extract_metadata(opennyai(data_dir, 4)).layout is None  # a trial court, not a known layout
    assert extract_metadata("Leave granted. The appeal is allowed.") == HeaderMetadata()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("26 September 1973", dt.date(1973, 9, 26)),
        ("5th May, 1961", dt.date(1961, 5, 5)),
        ("05/05/1961", dt.date(1961, 5, 5)),
        ("03.10.2009", dt.date(2009, 10, 3)),
        ("31 February 1990", None),
        ("26 Septembre 1973", None),
        ("1961", None),
        ("Writ Petition No. 117 of 1973", None),
        ("01/01/0200", None),
    ],
)
def test_parse_date(value: str, expected: dt.date | None) -> None:
    assert parse_date(value) == expected


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Masud Khan v State Of Uttar Pradesh", ("Masud Khan", "State Of Uttar Pradesh")),
        ("Union of India vs. Dr. J. K. Goel", ("Union of India", "Dr. J. K. Goel")),
        ("In re Special Reference", ()),
        ("A v B v C", ()),
    ],
)
def test_split_parties(title: str, expected: tuple[str, ...]) -> None:
    assert split_parties(title) == expected


def test_apply_metadata_keeps_explicit_fields(data_dir: Path) -> None:
    text = aila(data_dir, "C1")
    judgment = Judgment("C1", text, "test", title="Given title")
    applied = apply_metadata(judgment, extract_metadata(text))
    assert applied.title == "Given title"
    assert applied.decision_date == dt.date(1973, 9, 26)
    assert applied.extra["header_layout"] == "aila"


def test_header_reads_the_same_citations_from_the_loaders_scan(data_dir: Path) -> None:
    """The loader passes its one scan of the whole text; the header's own citations must be what a scan of the
    header alone finds (IRLeD first and CITATION lines, the judis CITATION field)."""
    texts = [irled(data_dir, n) for n in ("0001", "0002", "0003", "0010")] + [opennyai(data_dir, i) for i in range(8)]
    for text in texts:
        scanned = extract_metadata(text, extract_citations(text))
        assert scanned == extract_metadata(text)
    assert extract_metadata(irled(data_dir, "0001"), extract_citations(irled(data_dir, "0001"))).citations[0] == (
        "AIR 1996 SC 463")
