"""Citation extraction as tables: an input string and the canonical strings it must yield, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.citations import citations_in, enrich
from indexer.document import Judgment
from indexer.loaders import load
from legal.citations import (
    canonical_act,
    canonical_case_name,
    canonical_section,
    extract_citations,
    extract_sections,
    load_rules,
    parse_provision,
)

JUDGMENT_CASES = [
    ("(2017) 10 SCC 1", ["(2017) 10 SCC 1"]),
    ("relied on (1995) 6 SCC 315 and 1995 (6) SCC 315", ["(1995) 6 SCC 315", "(1995) 6 SCC 315"]),
    ("1995 SCC (6) 315", ["(1995) 6 SCC 315"]),
    ("AIR 1973 SC 1461", ["AIR 1973 SC 1461"]),
    ("A.I.R. 1973 S.C. 1461", ["AIR 1973 SC 1461"]),
    ("AIR 1987 Delhi 239", ["AIR 1987 Delhi 239"]),
    ("CITATION: 1996 AIR 463", ["AIR 1996 SC 463"]),
    ("[1950] SCR 88", ["[1950] SCR 88"]),
    ("[1950] 1 SCR 88", ["[1950] 1 SCR 88"]),
    ("[1950] S.C.R. 88", ["[1950] SCR 88"]),
    ("(2003) 2 SCR 1", ["[2003] 2 SCR 1"]),
    ("1975 (1) SCR 173 and 1975 SCR (1) 173", ["[1975] 1 SCR 173", "[1975] 1 SCR 173"]),
    ("1953 SCR 136", ["[1953] SCR 136"]),
    ("1978 Indlaw SC 192", ["1978 Indlaw SC 192"]),
    ("[1974] INSC 106", ["[1974] INSC 106"]),
    ("1995 (7) JT 225; JT 1995 (7) SC 225", ["JT 1995 (7) 225", "JT 1995 (7) 225"]),
    ("1995 (5) SCALE 690", ["(1995) 5 SCALE 690"]),
    ("(1960) 40 I.T.R. 106", ["(1960) 40 ITR 106"]),
    ("1990 Cri LJ 123", ["1990 Cri LJ 123"]),
    ("In the year 1973 the SC held", []),
    ("Rs. 1,48,000 in 1995 (six lakhs)", []),
    ("citation masked: [?CITATION?]", []),
]

CASE_NAME_CASES = [
    ("In Kesavananda Bharati v. State of Kerala the Court", ["Kesavananda Bharati v. State of Kerala"]),
    ("See Maneka Gandhi vs. Union of India AIR 1978 SC 597", ["Maneka Gandhi v. Union of India"]),
    ("Munni Lal & Ors. versus Lt. Governor of Delhi &", ["Munni Lal v. Lt. Governor of Delhi"]),  # & Ors. dropped
    ("State of Punjab v. Union of the India", ["State of Punjab v. Union of the India"]),
    ("the accused v. the State", []),
]

PROVISION_CASES = [
    ("Section 302 of the Indian Penal Code", ["IPC s. 302"]),
    ("s. 302 IPC", ["IPC s. 302"]),
    ("ss. 302 and 34 IPC", ["IPC s. 302", "IPC s. 34"]),
    ("u/s 302 IPC", ["IPC s. 302"]),
    ("U/s. 302 I.P.C.", ["IPC s. 302"]),
    ("Sections 302 read with Section 34 of the I.P.C.", ["IPC s. 302", "IPC s. 34"]),
    ("Section 498A IPC", ["IPC s. 498A"]),
    ("Section 438 CrPC", ["CrPC s. 438"]),
    ("Section 161 of the Cr. P.C.", ["CrPC s. 161"]),
    ("Section 482 of the Code of Criminal Procedure, 1973", ["CrPC s. 482"]),
    ("Section 100 of the Code of Civil Procedure", ["CPC s. 100"]),
    ("Section 27 of the Evidence Act", ["Evidence Act s. 27"]),
    ("Section 20 of the NDPS Act", ["NDPS Act s. 20"]),
    ("Section 13(1)(e) of the Hindu Marriage Act", ["Hindu Marriage Act s. 13(1)(e)"]),
    ("Section 64(1) (iv) of the Income Tax Act, 1961", ["Income Tax Act, 1961 s. 64(1)(iv)"]),
    ("Section 3 of the Gujarat University Act, 1949", ["Gujarat University Act, 1949 s. 3"]),
    ("IPC, Section 302", ["IPC s. 302"]),
    ("Article 21 of the Constitution", ["Constitution art. 21"]),
    ("Article 21 of the Constitution of India", ["Constitution art. 21"]),
    ("Art. 14", ["Constitution art. 14"]),
    ("Articles 14, 19 and 21", ["Constitution art. 14", "Constitution art. 19", "Constitution art. 21"]),
    ("Section 5 of the Act", []),
    ("Article 6 of the European Convention", []),
    ("paid Rs. 302 in cash", []),
    # issue 26: hyphenated or lower-case section letters, lower-case aliases, sections joined by '/', a bare
    # number before a known Act
    ("Section 304-B of the Indian Penal Code", ["IPC s. 304B"]),
    ("convicted under Section 304-B IPC", ["IPC s. 304B"]),
    ("Sections 498-A and 304-B of the Indian Penal Code", ["IPC s. 498A", "IPC s. 304B"]),
    ("u/s. 302/34 IPC", ["IPC s. 302", "IPC s. 34"]),
    ("sec 302 ipc", ["IPC s. 302"]),
    ("section 304b ipc", ["IPC s. 304B"]),
    ("section 438 crpc", ["CrPC s. 438"]),
    ("304B IPC", ["IPC s. 304B"]),
    ("438 CrPC", ["CrPC s. 438"]),
    ("302/34 IPC", ["IPC s. 302", "IPC s. 34"]),
    ("altered from 302 IPC to 304B and 201 IPC", ["IPC s. 302", "IPC s. 304B", "IPC s. 201"]),
    ("376(1), IPC", ["IPC s. 376(1)"]),
    ("u/s. 302 read with S. 34 IPC", ["IPC s. 34"]),  # 'S.' is no section word: 302 has no Act of its own
    ("Section 113-B of the Evidence Act", ["Evidence Act s. 113B"]),
    ("Articles 14 and 300-A of the Constitution", ["Constitution art. 14", "Constitution art. 300A"]),
    ("article 21", ["Constitution art. 21"]),
    ("art. 226 of the Constitution", ["Constitution art. 226"]),
    ("Order 21 Rule 97 CPC", []),
    ("order 21 rule 97 cpc", []),
    ("under O. 7, R. 10, C. P. C.", []),
    ("AIR 1973 SC 1461", []),
    ("in 1995 302 IPC", []),
    ("page 302 IPC", []),
    ("para 12 IPC", []),
    ("Crl. A. No. 302/1995 IPC", []),
    ("Section 302/1995", []),
    ("Article 6 of the agreement", []),
    ("s.304-B", []),  # a section without an Act is no provision (extract_sections reads it)
]

SECTION_CASES = [
    ("s.304-B", ["304B"]),
    ("section 304b", ["304B"]),
    ("Sec. 438", ["438"]),
    ("u/s 302/34", ["302", "34"]),
    ("s. 13(1)(e)", ["13(1)(e)"]),
    ("section 304B IPC", []),  # a provision: its section is not read again
    ("Article 21", []),
    ("304B", []),  # a number alone is no section
    ("Section 302/1995", []),
]


def normalized(text: str, kind: str) -> list[str]:
    return [c.normalized for c in extract_citations(text, kinds={kind})]


@pytest.mark.parametrize(("text", "expected"), JUDGMENT_CASES)
def test_judgment_citations(text: str, expected: list[str]) -> None:
    assert normalized(text, "judgment") == expected


@pytest.mark.parametrize(("text", "expected"), CASE_NAME_CASES)
def test_case_names(text: str, expected: list[str]) -> None:
    assert normalized(text, "case_name") == expected


@pytest.mark.parametrize(("text", "expected"), PROVISION_CASES)
def test_provisions(text: str, expected: list[str]) -> None:
    assert normalized(text, "provision") == expected


@pytest.mark.parametrize(("text", "expected"), SECTION_CASES)
def test_sections_without_an_act(text: str, expected: list[str]) -> None:
    assert [c.normalized for c in extract_sections(text)] == expected


def test_sections_are_never_a_kind_of_extract_citations() -> None:
    assert extract_citations("convicted under s.304-B and Article 21") == extract_citations(
        "convicted under s.304-B and Article 21", kinds={"judgment", "case_name", "provision"})


@pytest.mark.parametrize(("written", "canonical"), [("304-B", "304B"), ("304b", "304B"), ("498 A", "498A"),
                                                    ("13(1)(e)", "13(1)(e)"), ("5-A(1)(a)", "5A(1)(a)")])
def test_canonical_section(written: str, canonical: str) -> None:
    assert canonical_section(written) == canonical


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Indian Penal Code, 1860", "IPC"),
        ("the Code of Criminal Procedure", "CrPC"),
        ("Cr.P.C.", "CrPC"),
        ("Constitution of India", "Constitution"),
        ("Income-tax Act, 1961", "Income Tax Act, 1961"),
        ("Prevention of Food Adulteration Act, 1954", "Prevention of Food Adulteration Act, 1954"),
        ("Gujarat university act", "Gujarat University Act"),
    ],
)
def test_canonical_act(name: str, expected: str) -> None:
    assert canonical_act(name) == expected


def test_offsets_point_at_the_written_citation() -> None:
    text = "He was convicted u/s 302 IPC; see (1973) 4 SCC 225 and Art. 21."
    found = extract_citations(text)
    assert [c.normalized for c in found] == ["IPC s. 302", "(1973) 4 SCC 225", "Constitution art. 21"]
    for citation in found:
        assert text[citation.start : citation.end] == citation.text


def test_rules_file_loads_from_a_path() -> None:
    rules = load_rules(Path(__file__).resolve().parents[2] / "legal" / "citation_rules.json")
    assert normalized("AIR 1973 SC 1461", "judgment") == [
        c.normalized for c in extract_citations("AIR 1973 SC 1461", rules, {"judgment"})
    ]


def test_enrich_on_a_real_judgment(data_dir: Path) -> None:
    text = (data_dir / "aila-2019" / "Object_casedocs" / "C1.txt").read_text(encoding="utf-8")
    judgment = enrich(Judgment("C1", text, "aila-2019", title="Masud Khan v State Of Uttar Pradesh"))
    assert "AIR 1956 SC 415" in judgment.cited_judgments
    assert "1955 Indlaw SC 111" in judgment.cited_judgments
    assert "Masud Khan v. State Of Uttar Pradesh" not in judgment.cited_judgments  # its own title
    assert len(set(judgment.cited_judgments)) == len(judgment.cited_judgments)


@pytest.mark.parametrize(
    ("canonical", "parts"),
    [
        ("IPC s. 302", ("IPC", "s.", "302", None)),
        ("CrPC s. 438(2)", ("CrPC", "s.", "438(2)", "438")),
        ("Constitution art. 21", ("Constitution", "art.", "21", None)),
        ("Gujarat University Act, 1949 s. 33", ("Gujarat University Act, 1949", "s.", "33", None)),
        ("(2017) 10 SCC 1", None),
    ],
)
def test_provision_citations_read_back_into_parts(canonical: str, parts: tuple | None) -> None:
    parsed = parse_provision(canonical)
    assert (None if parsed is None else (parsed.act, parsed.unit, parsed.section, parsed.base)) == parts


def test_every_canonical_provision_the_extractor_writes_reads_back() -> None:
    text = "u/s 302 read with 34 IPC, s. 438(2) Cr.P.C., Art. 21 and section 33 of the Gujarat University Act, 1949"
    for citation in extract_citations(text, kinds={"provision"}):
        parsed = parse_provision(citation.normalized)
        assert parsed is not None and parsed.citation(parsed.section) == citation.normalized


def test_canonical_case_name_of_a_title() -> None:
    assert canonical_case_name("Masud Khan v State Of Uttar Pradesh") == "Masud Khan v. State Of Uttar Pradesh"
    assert canonical_case_name("In re: Special Reference No. 1 of 1998") is None
    assert canonical_case_name(None) is None


def test_the_loader_scans_once_and_later_stages_read_that_scan(data_dir: Path) -> None:
    path = data_dir / "aila-2019" / "Object_casedocs" / "C1.txt"
    loaded = next(iter(load([str(path)])))
    assert loaded.text_citations == tuple(extract_citations(loaded.text))
    assert citations_in(loaded) is loaded.text_citations
    by_hand = Judgment("C1", loaded.text, "aila-2019", title=loaded.title)  # never scanned: scanned on demand
    assert by_hand.text_citations is None and citations_in(by_hand) == loaded.text_citations
    assert enrich(by_hand).cited_judgments == loaded.cited_judgments
    assert enrich(by_hand).cited_provisions == loaded.cited_provisions


def test_the_bare_number_rules_lookahead_admits_every_first_character_of_its_sections() -> None:
    """``number_then_act`` opens with a lookahead for its first character (so its lookbehinds run only before a
    digit): a ``BARE_SECS`` macro that came to start with another character would be cut off by it, silently."""
    import json
    import re

    from legal.citations import DEFAULT_RULES_PATH, _expand

    data = json.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8"))
    rule = next(r for r in data["provision_rules"] + data.get("section_rules", []) if r["name"] == "number_then_act")
    head = re.match(r"\(\?=(\[[^\]]+\])\)", rule["pattern"])
    assert head, "number_then_act no longer opens with a one-class lookahead: update this test with it"
    lookahead = re.compile(head.group(1))
    sections = re.compile(_expand("<<BARE_SECS>>", data["macros"]))
    starts = [chr(c) for c in range(0x3000) if sections.match(chr(c) + "2(1)(a) ")]
    assert starts and all(lookahead.match(c) for c in starts), [c for c in starts if not lookahead.match(c)]
