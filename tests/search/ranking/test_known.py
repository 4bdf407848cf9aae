"""A reporter citation typed alone finds its judgment: one whose header carries it (its own citation), or one the
corpus's other judgments name with it (``Virsa Singh v. State of Punjab (AIR 1958 SC 465)`` in a later
judgment), on a small corpus indexed by the default (static) pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from search.execute import Searcher
from search.query.request import SearchRequest
from search.query.understand import QueryKind
from search.ranking.known import cited_as
from search.retrieval.records import MatchKind
from tests.search.ranking.corpora import static_corpus

FILES = {
    # cited by name and citation in K2, but its own header carries no citation (AILA's headers carry none)
    "V1.txt": """Virsa Singh v The State of Punjab
Supreme Court of India

11 March 1958
Criminal Appeal No. 90 of 1957
The Judgment was delivered by : Vivian Bose, J.
1. The appellant Virsa Singh was sentenced to imprisonment for life under section 302 of the Indian Penal Code
for the murder of one Khem Singh. He was granted special leave to appeal by this Court.
2. The prosecution case is that the appellant thrust a spear into the abdomen of the deceased. The injury was a
punctured wound which penetrated the peritoneum, and the deceased died the next day.
3. The question is whether the injury was intended and whether it was sufficient in the ordinary course of nature
to cause death. If both are proved, the offence is murder under clause thirdly of section 300.
4. We hold that the injury was intentionally inflicted and sufficient in the ordinary course of nature to cause
death. The appeal is dismissed.
""",
    "K2.txt": """Kuldip Singh v State of Haryana
Supreme Court of India

5 May 1990
Criminal Appeal No. 12 of 1989
The Judgment was delivered by : K. Jagannatha Shetty, J.
1. The appellant was convicted of murder. The injury on the head of the deceased was caused by a lathi blow.
2. The law on clause thirdly of section 300 of the Indian Penal Code was stated in Virsa Singh v. State of Punjab
(AIR 1958 SC 465) and has been followed ever since: the prosecution must prove that the injury was intended and that
it was sufficient in the ordinary course of nature to cause death.
3. Applying that test, the injury was not shown to have been intended. The conviction is altered to one under
section 304 Part II and the appeal is partly allowed.
""",
    # FIRE IRLeD's header: the judgment's own reporter citations on its first line
    "R3.txt": """ 605; AIR 1962 SC 605; 1962 (3) SCR 123 (12 March 1962)
GAJENDRAGADKAR, P.B. (J) GAJENDRAGADKAR, P.B. (J) WANCHOO, K.N. (J)
CITATION: 1962 AIR 605 1962 SCR (3) 123
P.B. GAJENDRAGADKAR, J.
This appeal by special leave raises the question whether a tenant who sublets premises without the written
consent of the landlord may be evicted under the Rent Control Act. The High Court held that he may.
The landlord proved that the tenant sublet a part of the shop to a stranger. The consent pleaded was oral only,
and the Act requires consent in writing.
We agree with the High Court that oral consent does not satisfy the Act. The appeal fails and is dismissed.
""",
}


@pytest.fixture(scope="module")
def corpus(client: OpenSearch, static_encoder, tmp_path_factory) -> dict[str, str]:
    folder: Path = tmp_path_factory.mktemp("known")
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    with static_corpus(client, static_encoder, folder, 3) as aliases:
        yield aliases


def test_the_citing_judgments_name_a_citation_the_judgment_does_not_carry(client: OpenSearch, corpus) -> None:
    assert cited_as(client, corpus["judgments"], ["AIR 1958 SC 465"]) == {"V1": "AIR 1958 SC 465"}
    assert cited_as(client, corpus["judgments"], ["AIR 1999 SC 1"]) == {}  # nobody cites it: nothing is guessed


@pytest.mark.parametrize(("text", "judgment"), [
    ("AIR 1962 SC 605", "R3"),  # its own header's citation
    ("(1962) 3 SCR 123", "R3"),  # a parallel citation in its header, written another way
    ("Virsa Singh", "V1"),
])
def test_a_citation_or_a_name_typed_alone_finds_its_judgment_first(client: OpenSearch, corpus, static_encoder,
                                                                   text: str, judgment: str) -> None:
    request = SearchRequest.from_query(text, facets=False)
    result = Searcher(client, corpus, static_encoder).search(request)
    assert result.ranking.startswith("ranker:"), result.ranking_note
    assert request.kind in (QueryKind.CITATION, QueryKind.NAME)
    assert result.hits and result.hits[0].judgment_id == judgment


def test_a_judgment_named_only_by_others_is_kept_and_says_so(client: OpenSearch, corpus, static_encoder) -> None:
    """V1's text never writes AIR 1958 SC 465, so neither its words nor its meaning would keep it; the corpus's use
    of the citation does (on three judgments the ranker's order means little: the real corpus's order is checked
    in test_real_judgments_cited_by_name_find_theirs)."""
    result = Searcher(client, corpus, static_encoder).search(SearchRequest.from_query("AIR 1958 SC 465",
                                                                                      facets=False))
    found = {hit.judgment_id: hit for hit in result.hits}
    assert found["V1"].match == MatchKind.CITATION and found["K2"].match == MatchKind.WORDS


AILA = "aila-2019/Object_casedocs"
CITED_AS = {"C94": "AIR 1958 SC 465"}  # Virsa Singh v. The State of Punjab, cited so by C171, C1765, C548, C2802


@pytest.fixture(scope="module")
def real_corpus(client: OpenSearch, shared_data: Path, static_encoder, tmp_path_factory) -> dict[str, str]:
    """Five real AILA judgments: Virsa Singh's case, whose header carries no citation, and four that cite it."""
    folder = tmp_path_factory.mktemp("aila-virsa")
    for name in ("C94", "C171", "C1765", "C548", "C2802"):
        (folder / f"{name}.txt").write_bytes((shared_data / AILA / f"{name}.txt").read_bytes())
    with static_corpus(client, static_encoder, folder, 5) as aliases:
        yield aliases


def test_real_judgments_cited_by_name_find_theirs(client: OpenSearch, real_corpus, static_encoder) -> None:
    for judgment, citation in CITED_AS.items():
        result = Searcher(client, real_corpus, static_encoder).search(SearchRequest.from_query(citation,
                                                                                               facets=False))
        assert result.hits[0].judgment_id == judgment and result.hits[0].match == MatchKind.CITATION
