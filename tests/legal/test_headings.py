"""Published section headings (legal.headings): the tables load and check titles against act/section."""

from __future__ import annotations

import pytest

from legal.headings import heading_agreement, load_headings, normalise_heading


def test_tables_load() -> None:
    tables = load_headings()
    assert set(tables) >= {"IPC", "CrPC", "Evidence Act", "Constitution"}
    assert len(tables["IPC"]) > 500 and len(tables["Constitution"]) > 400
    assert all(section and heading for rows in tables.values() for section, heading in rows.items())


@pytest.mark.parametrize(("act", "section", "heading"), [
    ("IPC", "302", "Punishment for murder"),
    ("IPC", "304B", "Dowry death"),
    ("IPC", "498A", "Husband or relative of husband of a woman subjecting her to cruelty"),
    ("Constitution", "21", "Protection of life and personal liberty"),
    ("Constitution", "226", "Power of High Courts to issue certain writs"),
    ("CrPC", "438", "Direction for grant of bail to person apprehending arrest"),
    ("Evidence Act", "113B", "Presumption as to dowry death"),
])
def test_known_rows(act: str, section: str, heading: str) -> None:
    assert load_headings()[act][section] == heading


def test_load_returns_a_copy() -> None:
    load_headings()["IPC"]["302"] = "changed"
    assert load_headings()["IPC"]["302"] == "Punishment for murder"


@pytest.mark.parametrize(("title", "act", "section", "expected"), [
    ("Punishment for murder", "IPC", "302", True),
    ("Punishment for murder.", "IPC", "302", True),
    ("PUNISHMENT FOR MURDER —", "IPC", "302", True),
    ("Dowry death", "IPC", "304b", True),
    ("Theft in dwelling house, etc", "IPC", "380", True),  # the table has "etc."
    ("Power of High Courts to issue certain writs", "Constitution", "226", True),
    # containment: long enough and most of the longer heading
    ("Acts done by several persons in furtherance of common intention", "IPC", "34", True),
    ("Husband or relative of husband of a woman subjecting her to cruelty by dowry", "IPC", "498A", True),
    ("Punishment for murder", "IPC", "303", False),  # "Punishment for murder by life-convict"
    ("Punishment for murder", "IPC", "304B", False),
    ("Dowry death", "Constitution", "21", False),
    ("Punishment", "IPC", "302", False),
    ("", "IPC", "302", False),
    ("Punishment for murder", "IPC", "9999", None),
    ("Punishment for murder", "Arms Act", "27", None),
])
def test_heading_agreement(title: str, act: str, section: str, expected: bool | None) -> None:
    assert heading_agreement(title, act, section) is expected


def test_normalise_heading() -> None:
    assert normalise_heading("  Statements to police not to be signed: Use of statements in evidence1 ") == (
        "statements to police not to be signed use of statements in evidence")
    assert normalise_heading("Section 55A") == "section 55a"
    assert normalise_heading("Remedies under article 32") == "remedies under article 32"
