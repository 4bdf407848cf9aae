"""Typed queries drawn from a corpus's metadata (lab.training.typed) and how a typed name fits a title
(search.query.party_names.name_fit): pure functions, no node."""

from __future__ import annotations

import random

import pytest

from lab.training.typed import (
    KINDS,
    Record,
    first_party,
    provision_text,
    short_form,
    topic_text,
    typed_queries,
)
from legal.citations import extract_citations
from search.query.party_names import name_fit, name_query


@pytest.mark.parametrize(("title", "connector", "short"), [
    ("Sewa Singh & Ors. v State of Punjab", "vs", "Sewa Singh vs State of Punjab"),
    ("Land Acquisition Collector & Ors. v. Durga Pada Mukherjee & Ors.", "v.",
     "Land Acquisition Collector v. Durga Pada Mukherjee"),
    ("Commissioner of Income Tax, Bombay v Hiten Dalal (Dead) through LRs", "versus",
     "Commissioner of Income Tax versus Hiten Dalal through LRs"),
    ("The State of Bihar v M/s. Ram Lal", "v", "State of Bihar v Ram Lal"),
])
def test_short_forms_drop_filler_asides_and_places(title: str, connector: str, short: str) -> None:
    assert short_form(title, connector) == short


@pytest.mark.parametrize(("title", "party"), [
    ("Virsa Singh v The State of Punjab", "Virsa Singh"),
    ("Bani Singh & Ors. v State Of U.P.", "Bani Singh"),
    ("State of Punjab v Sewa Singh", None),  # a government is not a party one types to find a case
    ("Union of India v Ajay Agarwal", None),
    ("No parties here", None),
])
def test_first_party(title: str, party: str | None) -> None:
    assert first_party(title) == party


@pytest.mark.parametrize("canonical", ["IPC s. 304B", "CrPC s. 438", "Constitution art. 21", "Evidence Act s. 113B"])
def test_provision_spellings_read_back_as_the_same_provision(canonical: str) -> None:
    for seed in range(5):
        text = provision_text(canonical, random.Random(seed))
        assert text and canonical in {c.normalized for c in extract_citations(text, kinds={"provision"})}


def test_topic_words_leave_provisions_and_common_words_out() -> None:
    record = Record("J1", topics=("IPC s. 304B", "dowry", "accused", "cruelty", "dying declaration", "husband"))
    text = topic_text(record, random.Random(0), common={"accused"})
    assert text is not None and "IPC" not in text and "accused" not in text
    assert text.startswith("dowry cruelty")


@pytest.mark.parametrize(("query", "parties", "title", "fit"), [
    ("Sewa Singh v State of Punjab", ("Sewa Singh", "State of Punjab"), "Sewa Singh & Ors v State Of Punjab", 1.0),
    ("Sewa Singh vs State of Punjab", ("Sewa Singh", "State of Punjab"), "State of Punjab v Sewa Singh", 0.9),
    ("Anil Kumar v State of Uttar Pradesh", ("Anil Kumar", "State of Uttar Pradesh"), "Anil Kumar v State of U.P.",
     1.0),
    ("Virsa Singh", ("Virsa Singh",), "Virsa Singh v The State of Punjab", 1.0),
    ("Virsa Singh", ("Virsa Singh",), "Virsa Singh Sandhu v State", 0.6),
    ("Sewa Singh v State of Punjab", ("Sewa Singh", "State of Punjab"), "Virsa Singh v State of Punjab", 0.0),
])
def test_a_typed_name_against_a_title(query: str, parties: tuple[str, ...], title: str, fit: float) -> None:
    found = name_fit(name_query(query, parties), title)
    assert found.fit == fit
    assert 0 <= found.rare_cover <= 1 and 0 <= found.title_cover <= 1


RECORDS = [
    Record("J1", "Virsa Singh v State of Punjab", ("AIR 1958 SC 465",), ("IPC s. 302", "IPC s. 300"),
           ("murder", "intention", "injury")),
    Record("J2", "Sewa Singh & Ors. v State of Punjab", (), ("IPC s. 302",), ("murder", "common intention", "alibi")),
    Record("J3", "Sewa Singh v State of Punjab", (), ("IPC s. 302", "IPC s. 34"), ("alibi", "witness", "motive")),
    Record("J4", "Kesavananda Bharati v State of Kerala", ("(1973) 4 SCC 225",), ("Constitution art. 368",),
           ("basic structure", "amendment", "parliament")),
]
CITES = {"J2": ("J1",), "J3": ("J1", "J2"), "J4": ()}


def test_typed_queries_are_seeded_labelled_and_skip_what_is_held() -> None:
    counts = dict.fromkeys(KINDS, 10)
    first = typed_queries(RECORDS, CITES, counts=counts, seed=13)
    assert first == typed_queries(RECORDS, CITES, counts=counts, seed=13)  # the same corpus and seed, the same
    by_text = {(q.kind, q.text): q for q in first}
    sewa = next(q for q in first if q.kind == "title" and q.source in ("J2", "J3"))
    assert sewa.relevant == {"J2", "J3"}  # '& Ors.' aside, both name the same parties
    assert by_text[("citation", "AIR 1958 SC 465")].relevant == {"J1"}
    provision = next(q for q in first if q.kind == "provision")
    assert provision.source == "IPC s. 302" and provision.relevant == {"J1", "J2", "J3"}
    topics = [q for q in first if q.kind == "topic"]
    assert topics and all(q.exclude == (q.source,) and q.source not in q.relevant for q in topics)
    held = typed_queries(RECORDS, CITES, counts=counts, seed=13, skip={"J1", "provision:IPC s. 302"},
                         allowed=lambda batch: [d for d in batch if d != "J3"])
    assert not any(q.source in ("J1", "J3", "IPC s. 302") for q in held)
