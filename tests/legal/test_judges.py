"""Judges' names in one form (legal.judges): the variants written in the AILA and IRLeD corpora's headers, each
row a value the ``judges`` field of the real index holds (a terms aggregation of size 500), and what it names."""

from __future__ import annotations

import re

import pytest

from legal.judges import judge_key, judge_names, judge_pattern


@pytest.mark.parametrize(("written", "names"), [
    # titles and honorifics
    ("dr. arijit pasayat", ("Arijit Pasayat",)),
    ("dr.arijit pasayat", ("Arijit Pasayat",)),
    ("arijit pasayat", ("Arijit Pasayat",)),
    ("hon'ble justice arijit pasayat", ("Arijit Pasayat",)),
    ("hon'ble justice dr. arijit pasayat", ("Arijit Pasayat",)),
    ("Dr. Arijit Pasayat", ("Arijit Pasayat",)),
    ("hon'ble mr. justice a.k. ganguly", ("A. K. Ganguly",)),
    ("dr a. s. anand", ("A. S. Anand",)),
    ("HON'BLE MR. JUSTICE N.KUMAR", ("N. Kumar",)),
    # initials: a dot and a space each
    ("d.k.jain", ("D. K. Jain",)),
    ("s .b. sinha", ("S. B. Sinha",)),
    ("r .m. lodha", ("R. M. Lodha",)),
    ("k. j shetty", ("K. J. Shetty",)),
    ("m fathima beevi", ("M. Fathima Beevi",)),
    ("a. k.sarkar", ("A. K. Sarkar",)),
    ("dr. ar. lakshmanan", ("Ar. Lakshmanan",)),
    ("chandramauli kr. prasad", ("Chandramauli Kr. Prasad",)),
    # stray dots, spaces and designations
    ("t. s. thakur.", ("T. S. Thakur",)),
    ("rajendra. babu", ("Rajendra Babu",)),
    ("ranganath  misra", ("Ranganath Misra",)),
    ("ranganath misra, c.", ("Ranganath Misra",)),
    ("dharmadhikari, j. :", ("Dharmadhikari",)),
    ("A. Alagiriswami, J.", ("A. Alagiriswami",)),
    # surname first
    ("hon'ble justice sikri s. m.", ("S. M. Sikri",)),
    ("shah, j.c.", ("J. C. Shah",)),
    ("gupta, k.c. das", ("K. C. Das Gupta",)),
    ("reddy, o. chinnappa", ("O. Chinnappa Reddy",)),
    ("JEEVAN REDDY, B.P.", ("B. P. Jeevan Reddy",)),
    ("MAJMUDAR S.B.", ("S. B. Majmudar",)),
    ("ray, b. c.", ("B. C. Ray",)),
    ("shetty, k. j.", ("K. J. Shetty",)),
    # several judges in one value
    ("g. n. ray, j. and g.t. nanavati", ("G. N. Ray", "G. T. Nanavati")),
    ("s. b. sinha, j. and h.s. bedi", ("S. B. Sinha", "H. S. Bedi")),
    ("hon'ble justice untwalia n. l. and hon'ble justice pathak r. s.", ("N. L. Untwalia", "R. S. Pathak")),
    ("a. n. ray, mathew isaacs and hameedullah beg", ("A. N. Ray", "Mathew Isaacs", "Hameedullah Beg")),
    # left as they are
    ("ray", ("Ray",)),
    ("arijit pasatat", ("Arijit Pasatat",)),  # a misspelling stays apart
    ("O'Brien", ("O'Brien",)),
    (":", ()),
    ("", ()),
    ("+cmd|' /C calc'!A0", ("+cmd|' /C calc'!A0",)),  # not a name: kept as written
    ("-2+3", ("-2+3",)),
])
def test_names(written: str, names: tuple[str, ...]) -> None:
    assert judge_names(written) == names


@pytest.mark.parametrize("variants", [
    ["dr. arijit pasayat", "arijit pasayat", "hon'ble justice dr. arijit pasayat", "dr.arijit pasayat"],
    ["d. k. jain", "d.k.jain", "D. K. Jain"],
    ["s. m. sikri", "hon'ble justice sikri s. m.", "sikri, s.m."],
    ["ranganath misra", "ranganath  misra", "ranganath misra, c."],
])
def test_variants_share_a_key(variants: list[str]) -> None:
    assert len({judge_key(v) for v in variants}) == 1


def test_key_is_lower_case_and_folded() -> None:
    assert judge_key("Dr. Arijit Pasayat") == "arijit pasayat"
    assert judge_key("José Pérez") == "jose perez"
    assert judge_key(":") == ""


def _lucene(pattern: str) -> re.Pattern[str]:
    """The pattern as Python reads it (the subset used: groups, alternation, classes, escapes: same meaning)."""
    return re.compile(pattern)


@pytest.mark.parametrize(("name", "stored", "matches"), [
    ("Arijit Pasayat", "dr. arijit pasayat", True),
    ("Arijit Pasayat", "dr.arijit pasayat", True),
    ("Arijit Pasayat", "hon'ble justice dr. arijit pasayat", True),
    ("D. K. Jain", "d.k.jain", True),
    ("D. K. Jain", "d. k. jain", True),
    ("H. S. Bedi", "s. b. sinha, j. and h.s. bedi", True),
    ("S. B. Sinha", "s. b. sinha, j. and h.s. bedi", True),
    ("S. M. Sikri", "hon'ble justice sikri s. m.", True),
    ("J. C. Shah", "shah, j.c.", True),
    ("Dharmadhikari", "dharmadhikari, j. :", True),
    ("Ray", "murray", False),
    ("Ray", "g. n. ray", True),
    ("A. N. Ray", "g. n. ray", False),
    ("Arijit Pasayat", "arijit pasayatx", False),
])
def test_pattern(name: str, stored: str, matches: bool) -> None:
    pattern = judge_pattern(name)
    assert pattern is not None
    assert bool(_lucene(pattern).fullmatch(stored)) is matches


def test_no_pattern_without_a_name() -> None:
    assert judge_pattern(":") is None
