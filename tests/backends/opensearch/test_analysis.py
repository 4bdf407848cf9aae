"""Token tables for legal strings, asked of the real node's ``_analyze``."""

from __future__ import annotations

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices


@pytest.fixture
def chunks_index(client: OpenSearch, layout: IndexLayout) -> str:
    create_indices(client, layout, mappings.IndexOptions(), kinds=("chunks",))
    return layout.alias("chunks")


def tokens(client: OpenSearch, index: str, analyzer: str, text: str) -> list[str]:
    body = {"analyzer": analyzer, "text": text}
    return [t["token"] for t in client.indices.analyze(index=index, body=body)["tokens"]]


INDEX_TIME = [
    ("s. 302 IPC", ["section_302", "ipc"]),
    ("Section 302 of the Indian Penal Code", ["section_302", "indian", "penal", "code"]),
    ("u/s 498A IPC", ["section_498a", "ipc"]),
    ("ss. 302 and 34", ["section_302", "34"]),
    ("§ 1983", ["section_1983"]),
    ("Art. 21", ["article_21"]),
    ("Article 14 of the Constitution", ["article_14", "constitution"]),
    ("(2017) 10 SCC 1", ["scc_2017_10_1"]),
    ("(1995)6 S.C.C. 315", ["scc_1995_6_315"]),
    ("AIR 1973 SC 1461", ["air_1973_sc_1461"]),
    ("A.I.R. 1950 Cal 12", ["air_1950_cal_12"]),
    ("[1950] SCR 88", ["scr_1950_88"]),
    ("[1950] 1 SCR 88", ["scr_1950_1_88"]),
    ("1978 Indlaw SC 192", ["indlaw_1978_sc_192"]),
    ("The appellants were convicted", ["appellant", "were", "convict"]),
    ("No evidence is not enough", ["no", "evidence", "not", "enough"]),
]


@pytest.mark.parametrize(("text", "expected"), INDEX_TIME)
def test_index_analyzer_keeps_legal_tokens_whole(client: OpenSearch, chunks_index: str, text, expected) -> None:
    assert tokens(client, chunks_index, "ratio_text", text) == expected


NAMES = [  # ratio_name (title.name, parties.name): party names as lawyers write them
    ("K. M. Nanavati vs. State of Maharashtra & Ors.", ["nanavati", "state", "maharashtra"]),  # km is Kumari: filler
    ("S.V. Madan versus UOI", ["sv", "madan", "union", "india"]),
    ("S. V. Madan v Union of India", ["sv", "madan", "union", "india"]),
    ("Mohd. Iqbal Ahmed v State of A.P.", ["mohammad", "iqbal", "ahmed", "state", "andhra", "pradesh"]),
    ("Dharminder Singh @ Vijay Singh v State", ["dharminder", "singh", "vijay", "singh", "state"]),
    ("Ramjee Rai and Others v State of Bihar", ["ramjee", "rai", "state", "bihar"]),
    ("The Commissioner of Income-Tax, Bombay v M/s. Hiten P. Dalal and Another",
     ["commissioner", "income", "tax", "mumbai", "hiten", "p", "dalal"]),
]


@pytest.mark.parametrize(("text", "expected"), NAMES)
def test_name_analyzer_reads_parties_as_lawyers_write_them(client: OpenSearch, chunks_index: str, text,
                                                           expected) -> None:
    assert tokens(client, chunks_index, "ratio_name", text) == expected


@pytest.mark.parametrize("text", ["State of U.P. v Anil Singh", "State Of UP v. Anil Singh",
                                  "state of u.p. vs anil singh", "State of Uttar Pradesh versus Anil Singh"])
def test_name_analyzer_spells_one_title_one_way(client: OpenSearch, chunks_index: str, text: str) -> None:
    assert sorted(tokens(client, chunks_index, "ratio_name", text)) == ["anil", "pradesh", "singh", "state", "uttar"]


@pytest.mark.parametrize(
    ("text", "must_contain"),
    [
        ("s. 302 IPC", {"section_302", "ipc", "indian", "penal", "code"}),
        ("Indian Penal Code", {"ipc", "indian", "penal", "code"}),
        ("CrPC", {"crpc", "criminal", "procedure", "code"}),
        ("High Court", {"hc", "high", "court"}),
        ("SC", {"sc", "supreme", "court"}),
    ],
)
def test_search_analyzer_expands_abbreviations(client: OpenSearch, chunks_index: str, text, must_contain) -> None:
    assert must_contain <= set(tokens(client, chunks_index, "ratio_text_search", text))


def test_exact_analyzer_does_not_stem(client: OpenSearch, chunks_index: str) -> None:
    assert tokens(client, chunks_index, "ratio_exact", "The appellants were convicted u/s 302") == [
        "the", "appellants", "were", "convicted", "section_302"]


def test_quoted_phrase_on_exact_field_does_not_match_stemmed_forms(client: OpenSearch, chunks_index: str) -> None:
    docs = {"a": "the appellant was convicted of murder", "b": "the appellants were convicting everyone"}
    for doc_id, text in docs.items():
        client.index(index=chunks_index, id=doc_id, body={"chunk_id": doc_id, "text": text}, refresh=True)

    def hits(field: str, phrase: str) -> set[str]:
        body = {"query": {"match_phrase": {field: phrase}}}
        return {h["_id"] for h in client.search(index=chunks_index, body=body)["hits"]["hits"]}

    # The main field stems and drops stopwords (leaving a position gap), so both forms match.
    assert hits("text", "appellants was convicting") == {"a", "b"}
    assert hits("text.exact", "appellant was convicted") == {"a"}
    assert hits("text.exact", "appellants were convicting") == {"b"}
    assert hits("text.exact", "appellants was convicting") == set()


def test_korean_uses_cjk_bigrams(client: OpenSearch, layout: IndexLayout) -> None:
    create_indices(client, layout, mappings.IndexOptions(), language="ko", kinds=("provisions",))
    assert tokens(client, layout.alias("provisions"), "ratio_text", "대법원 판결") == ["대법", "법원", "판결"]
