"""Explore's judges and most cited judgments on the real node: one judge however the index writes the name, one
cited case however the judgments cite it, each judgment counted once.

The judgments are written as an index built before the indexer wrote judges in one form holds them (the AILA
index's own spellings: ``Dr. Arijit Pasayat``, ``arijit pasayat``, ``hon'ble justice arijit pasayat``,
``d.k.jain``), straight into the judgments index of a fresh layout; no model is needed. One judgment holds two
spellings of one judge, and one cites a case by its name and both its reports: each must count once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from indexer.document import Judgment
from indexer.documents import _filters
from search.explain.extractive import explain_filters
from search.graph.citation_graph import citation_key, load_graph
from search.graph.most_cited import join_cases, most_cited
from search.pages.browse import Bucket, explore
from search.pages.judge_facet import group_judges
from search.query.request import SearchRequest
from search.retrieval.builders import filter_clauses

UMADEVI = "State of Karnataka v. Umadevi [(2006) 4 SCC 1 : 2006 Indlaw SC 125]"
VIRSA = "Virsa Singh v. State of Punjab (AIR 1958 SC 465)"
JUDGMENTS = [
    # id, title, judges as written, what the text cites, the cited strings the extractor stored
    ("T1", "Ram v. Shyam", ["Dr. Arijit Pasayat"], f"As held in {UMADEVI}, the appointment was irregular.",
     ["State of Karnataka v. Umadevi", "(2006) 4 SCC 1", "2006 Indlaw SC 125"]),
    ("T2", "Mohan v. Sohan", ["arijit pasayat", "Dr. Arijit Pasayat"],
     "Regularisation is not permanence: see (2006) 4 SCC 1.", ["(2006) 4 SCC 1"]),
    ("T3", "Gita v. Sita", ["hon'ble justice arijit pasayat"],
     "The rule of 2006 Indlaw SC 125 applies. Judges. In Protima Dutta v. The State the point was left open.",
     ["2006 Indlaw SC 125", "Judges. In Protima Dutta v. The State"]),
    ("T4", "Secretary, State of Karnataka and Others v Umadevi and Others", ["d.k.jain"],
     f"The intention to kill is read as in {VIRSA}.", ["Virsa Singh v. State of Punjab", "AIR 1958 SC 465"]),
    ("T5", "Hari v. State of Punjab", ["D. K. Jain"], "See AIR 1958 SC 465 on the third clause.", ["AIR 1958 SC 465"]),
]


@pytest.fixture(scope="module")
def aliases(client: OpenSearch) -> Iterator[dict[str, str]]:
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    try:
        create_indices(client, layout, mappings.IndexOptions(dimension=384))
        aliases = layout.aliases()
        for judgment_id, title, judges, text, cited in JUDGMENTS:
            client.index(index=aliases["judgments"], id=judgment_id, body={
                "judgment_id": judgment_id, "title": title, "judges": judges, "text": text,
                "cited_judgments": cited, "court": "Supreme Court of India", "decision_date": "2010-01-01",
                "year": 2010})
        client.indices.refresh(index=aliases["judgments"])
        yield aliases
    finally:
        client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


def test_explore_lists_each_judge_once_counted_exactly(client: OpenSearch, aliases: dict[str, str]) -> None:
    view = explore(client, aliases)
    assert view.judges == (Bucket("Arijit Pasayat", 3, 'judge:"Arijit Pasayat"'),  # the buckets sum to 4
                           Bucket("D. K. Jain", 2, 'judge:"D. K. Jain"'))


def test_a_judge_filter_matches_every_spelling(client: OpenSearch, aliases: dict[str, str]) -> None:
    for typed, ids in (("Arijit Pasayat", {"T1", "T2", "T3"}), ("D. K. Jain", {"T4", "T5"}),
                       ("Dr. Arijit Pasayat", {"T1", "T2", "T3"})):
        request = SearchRequest.from_query(f'judge:"{typed}"', classify=False)
        body = {"query": {"bool": {"filter": filter_clauses(request.filters)}}, "_source": False}
        hits = client.search(index=aliases["judgments"], body=body)["hits"]["hits"]
        assert {h["_id"] for h in hits} == ids, typed


def test_explore_merges_parallel_citations_and_names_the_case(client: OpenSearch, aliases: dict[str, str]) -> None:
    view = explore(client, aliases)
    umadevi, virsa = view.cited_judgments
    # the strings are cited by 1 + 2 + 2 judgments; the case by three (T1 cites all three strings)
    assert (umadevi.key, umadevi.judgments, umadevi.judgment_id) == (
        "Secretary, State of Karnataka and Others v Umadevi and Others", 3, "T4")
    assert set(umadevi.citations) == {"State of Karnataka v. Umadevi", "(2006) 4 SCC 1", "2006 Indlaw SC 125"}
    assert (virsa.key, virsa.judgments, virsa.judgment_id) == ("Virsa Singh v. State of Punjab", 2, None)
    assert virsa.filter == 'cites:"AIR 1958 SC 465"'  # the case's most cited string
    assert all("Protima" not in c for b in view.cited_judgments for c in b.citations)  # junk is no case


def test_most_cited_counts_within_the_query(client: OpenSearch, aliases: dict[str, str]) -> None:
    graph = load_graph(client, aliases["judgments"])
    found = most_cited(client, aliases["judgments"], {"ids": {"values": ["T2", "T3", "T5"]}}, graph)
    # T5 cites only the report; T4, outside the query, writes it with the case's name
    assert [(c.name, c.judgments) for c in found] == [
        ("Secretary, State of Karnataka and Others v Umadevi and Others", 2), ("Virsa Singh v. State of Punjab", 1)]


def test_join_cases() -> None:
    """Real readings of AILA judgments (how they write Umadevi and Virsa Singh), and slips."""
    readings = [("State of Karnataka v. Umadevi", "(2006) 4 SCC 1", "2006 Indlaw SC 125"),
                ("State of Karnataka v. Uma Devi", "(2006) 4 SCC 1"),
                ("(2006) 5 SCC 493", "2006 Indlaw SC 125"),  # a slip: two SCC reports would be one case
                ("Judges. In Protima Dutta v. The State", "AIR 1958 SC 465"),  # a junk name joins nothing
                ("Virsa Singh v. State of Punjab", "1958 Indlaw SC 821958"),  # a page glued to a year: left out
                ("Virsa Singh v. The State of Punjab", "AIR 1958 SC 465", "1958 Indlaw SC 82")]
    assert join_cases(readings, citation_key) == [
        ("State of Karnataka v. Umadevi", "(2006) 4 SCC 1", "2006 Indlaw SC 125", "State of Karnataka v. Uma Devi"),
        ("AIR 1958 SC 465", "Virsa Singh v. State of Punjab", "Virsa Singh v. The State of Punjab",
         "1958 Indlaw SC 82")]


def test_group_judges() -> None:
    buckets = [{"key": "dr. arijit pasayat", "judgments": 152}, {"key": "arijit pasayat", "judgments": 101},
               {"key": "s. b. sinha, j. and h.s. bedi", "judgments": 1}, {"key": "h.s. bedi", "judgments": 10}]
    groups = {g.name: (g.values, g.upper) for g in group_judges(buckets)}
    assert groups == {"Arijit Pasayat": (("dr. arijit pasayat", "arijit pasayat"), 253),
                      "H. S. Bedi": (("h.s. bedi", "s. b. sinha, j. and h.s. bedi"), 11),
                      "S. B. Sinha": (("s. b. sinha, j. and h.s. bedi",), 1)}


def test_the_indexer_writes_judges_in_one_form() -> None:
    judgment = Judgment("X", "text", "test", judges=("Hon'ble Dr. Justice Arijit Pasayat", "arijit pasayat",
                                                     "g. n. ray, j. and g.t. nanavati"))
    assert _filters(judgment)["judges"] == ["Arijit Pasayat", "G. N. Ray", "G. T. Nanavati"]


def test_a_filter_only_explanation_names_the_judge_however_typed() -> None:
    filters = SearchRequest.from_query('judge:"D.K. Jain"', classify=False).filters
    assert explain_filters(filters, judges=("D. K. Jain", "Arijit Pasayat")).text == "Bench: D. K. Jain"
