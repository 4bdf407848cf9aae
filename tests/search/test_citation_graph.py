"""The corpus citation graph: one resolution for "cites" and "cited by", ambiguity left unresolved."""

from __future__ import annotations

from search.graph.citation_graph import GraphEntry, build_graph


def test_reporter_and_case_name_citations_resolve_and_both_directions_agree() -> None:
    graph = build_graph([
        GraphEntry("A", "Ram Kumar v. State of Haryana", ("(1995) 6 SCC 315",), ("AIR 1973 SC 1461",)),
        GraphEntry("B", "Kesavananda Bharati v. State of Kerala", ("AIR 1973 SC 1461",),
                   ("(1995) 6 SCC 315", "Ram Kumar v. State of Haryana")),
        GraphEntry("C", None, (), ("Kesavananda Bharati v. State of Kerala", "(2001) 1 SCC 1", "AIR 1973 SC 1461")),
    ])
    assert graph.cites == {"A": ("B",), "B": ("A",), "C": ("B",)}
    assert set(graph.cited_by["B"]) == {"A", "C"} and graph.cited_by["A"] == ("B",)
    assert graph.cited_by_count("C") == 0
    for source, targets in graph.cites.items():
        assert all(source in graph.cited_by[t] for t in targets)


def test_a_citation_two_judgments_carry_stays_unresolved() -> None:
    graph = build_graph([GraphEntry("A", None, ("(1995) 6 SCC 315",)), GraphEntry("B", None, ("(1995) 6 SCC 315",)),
                         GraphEntry("C", None, (), ("(1995) 6 SCC 315",))])
    assert graph.cites == {} and "(1995) 6 SCC 315" not in graph.targets


def test_a_judgment_never_cites_itself() -> None:
    graph = build_graph([GraphEntry("A", None, ("(1995) 6 SCC 315",), ("(1995) 6 SCC 315",))])
    assert graph.cites == {}


def test_the_ranker_s_exact_resolution_keeps_case_names_as_written() -> None:
    """The shipped ranker was trained on exact strings: a differently written case name resolves only in the
    pages' party-word graph, never in the ranker's (switching needs a retrained model)."""
    entries = [GraphEntry("A", "State Of U.P. v Anil Singh"),
               GraphEntry("B", None, (), ("State of U.P. v. Anil Singh",))]
    assert build_graph(entries).cites == {"B": ("A",)}
    exact = build_graph(entries, by_parties=False)
    assert exact.cites == {} and exact.target("State of U.P. v. Anil Singh") is None
