"""Citation resolution on the bundled sample judgments: one case however it is cited, "cites" and "cited by"
from one graph, parallel citations grouped, and paragraphs read under the judgment's own numbers.

The judgments are read by the indexer's loader (what the index stores: title, own citations, cited strings),
so the graph here is the one the pages and the ranker build from the sample corpus.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from indexer.document import Judgment
from indexer.loaders import load
from legal.citations import extract_citations
from legal.cited_cases import cited_cases, reporter_series
from legal.paragraphs import paragraphs
from legal.sentences import split
from search.graph.citation_graph import CitationGraph, GraphEntry, build_graph, citation_key
from search.pages.judgment_text import cited_case_links, paragraph_views, text_links

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"


@lru_cache(maxsize=1)
def sample_judgments() -> dict[str, Judgment]:
    return {j.judgment_id: j for j in load([str(SAMPLES)]) if isinstance(j, Judgment)}


def entries(*extra: GraphEntry) -> list[GraphEntry]:
    return [GraphEntry(j.judgment_id, j.title, j.citations, j.cited_judgments)
            for j in sample_judgments().values()] + list(extra)


def no_titles(ids):
    return {}


def test_the_sample_corpus_has_its_eighteen_judgments() -> None:
    assert len(sample_judgments()) == 18


def test_a_case_name_spelt_another_way_names_the_judgment_both_ways() -> None:
    """The issue's example: C26 cites "State of U.P. v. Anil Singh"; C99 is titled "State Of U.P. v Anil
    Singh". The page linked C26 to C99 (the citation check's party match) while "cited by" looked for the
    exact string, so C99 said nothing cites it. One graph, parties compared by their words, fixes both."""
    cited = "State of U.P v. Anil Singh"
    assert cited in sample_judgments()["C26"].cited_judgments
    graph = build_graph(entries())
    assert graph.target(cited) == "C99"
    assert "C99" in graph.cites["C26"] and "C26" in graph.cited_by["C99"]


def test_cites_and_cited_by_agree_for_every_sample_judgment() -> None:
    graph = build_graph(entries())
    assert graph.cites, "the sample corpus cites itself at least once"
    edges = {(a, b) for a, targets in graph.cites.items() for b in targets}
    reverse = {(a, b) for b, citers in graph.cited_by.items() for a in citers}
    assert edges == reverse
    for judgment in sample_judgments().values():
        page = cited_case_links(judgment.text, extract_citations(judgment.text), judgment.cited_judgments, graph,
                                judgment.judgment_id, no_titles)
        linked = {case.target_id for case in page if case.target_id}
        assert linked == set(graph.cites.get(judgment.judgment_id, ())), judgment.judgment_id


def test_a_judgments_own_parallel_citations_are_one_case() -> None:
    """A judgment reported in two reporters is one node: citing either names it (C99 given both reports)."""
    judgments = entries()
    judgments = [GraphEntry(e.judgment_id, e.title, ("AIR 1988 SC 1998", "(1988) 3 SCC 686"), e.cited)
                 if e.judgment_id == "C99" else e for e in judgments]
    judgments += [GraphEntry("X1", None, (), ("AIR 1988 SC 1998",)), GraphEntry("X2", None, (), ("(1988) 3 SCC 686",))]
    graph = build_graph(judgments)
    assert graph.cites["X1"] == graph.cites["X2"] == ("C99",)
    assert {"X1", "X2", "C26"} <= set(graph.cited_by["C99"])


def test_generic_or_ambiguous_case_names_name_nothing() -> None:
    assert citation_key("Ram v. State") is None
    graph = build_graph([GraphEntry("A", "Anil Singh v. State of U.P."), GraphEntry("B", "Anil Singh v. State of UP"),
                         GraphEntry("C", None, (), ("Anil Singh v. State of Uttar Pradesh",))])
    assert graph.cites == {}


def test_parallel_citations_in_the_text_group_into_one_cited_case() -> None:
    text = sample_judgments()["C26"].text
    cases = [case.names for case in cited_cases(text, extract_citations(text))]
    assert ("Sahaj Ram v. The State of U.P", "(1973) 1 SCC 490", "1972 Indlaw SC 432") in cases
    # a report the rules do not read ("1988 Supp SCC 686") between the name and the one they do
    assert ("State of U.P v. Anil Singh", "1988 Indlaw SC 28") in cases
    # a string citation of two cases in one reporter is two cases
    two = "See (2001) 8 SCC 311, (2002) 7 SCC 198."
    assert [c.names for c in cited_cases(two, extract_citations(two))] == [("(2001) 8 SCC 311",), ("(2002) 7 SCC 198",)]
    assert reporter_series("(1973) 1 SCC 490") == "SCC" and reporter_series("AIR 1973 SC 1461") == "AIR SC"


def test_a_cited_case_links_all_its_citations_and_a_later_bare_one() -> None:
    """With "Rama Nand v. State of Himachal Pradesh" in the corpus, C26's cited case, its two reports and the
    later "1981 Indlaw SC 129 (supra)" all link to it, and the sidebar lists the case once."""
    judgment = sample_judgments()["C26"]
    graph: CitationGraph = build_graph(entries(GraphEntry("RN", "Rama Nand and Others v. State of H.P.")))
    found = extract_citations(judgment.text)
    page = cited_case_links(judgment.text, found, judgment.cited_judgments, graph, "C26", lambda ids: {"RN": "R"})
    rama = [case for case in page if case.target_id == "RN"]
    assert len(rama) == 1 and rama[0].citations == ("Rama Nand v. State of Himachal Pradesh", "(1981) 1 SCC 511",
                                                     "1981 Indlaw SC 129")
    links = [link for link in text_links(judgment.text, found, graph, "C26", {}) if link.target_id == "RN"]
    bare = judgment.text.index("1981 Indlaw SC 129 (supra)")
    assert [link.citation for link in links] == ["Rama Nand v. State of Himachal Pradesh", "(1981) 1 SCC 511",
                                                 "1981 Indlaw SC 129", "1981 Indlaw SC 129"]
    assert links[-1].start == bare and all(judgment.text[link.start:link.end] for link in links)


@pytest.mark.parametrize("judgment_id", ["C12", "C26", "C99", "C182"])
def test_paragraphs_carry_the_judgments_own_numbers(judgment_id: str) -> None:
    """Each sample numbers its paragraphs 1, 2, 3, ...; a sub-list restarting at (1) inside one is not a
    paragraph, and every sentence is in exactly one paragraph."""
    text = sample_judgments()[judgment_id].text
    sentences = split(text)
    views = paragraph_views(text, [(s.index, s.start, s.end) for s in sentences])
    numbers = [v.number for v in views]
    assert numbers[0] is None and views[0].anchor is None  # the header: parties, court, date
    assert numbers[1:] == list(range(1, len(views))) and all(v.numbered for v in views[1:])
    assert [n for v in views for n in v.sentences] == [s.index for s in sentences]
    for view in views[1:]:
        assert text[view.start:].startswith(f"{view.number}.") and view.anchor == f"para-{view.number}"


def test_a_paragraph_keeps_its_unnumbered_lines_and_an_unnumbered_text_is_counted() -> None:
    text = sample_judgments()["C26"].text
    sentences = split(text)
    first = paragraph_views(text, [(s.index, s.start, s.end) for s in sentences])[1]
    assert first.number == 1 and len(first.line_starts) == 1  # "... his dead body." then "A First Information ..."
    assert text[sentences[first.line_starts[0]].start:].startswith("A First Information Report")
    plain = "The appellant was convicted.\n\nHe appealed. The High Court dismissed it.\n\nWe allow the appeal."
    spans = [(s.start, s.end) for s in split(plain)]
    counted = paragraphs(plain, spans)
    assert [(p.number, p.numbered, p.end - p.first) for p in counted] == [(1, False, 1), (2, False, 2), (3, False, 1)]
