"""Hit to paragraph over the API and the pages, on the sample corpus: paragraphs with their numbers, a hit's
passage anchored to its first sentence, citations in the text linked, and "cites" / "cited by" in agreement."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments"
IDS = sorted(p.stem for p in SAMPLES.glob("*.txt"))
QUERY = "common intention murder"


@pytest.fixture(scope="module")
def views(api: TestClient) -> dict[str, dict]:
    found = {}
    for judgment_id in IDS:
        response = api.get(f"/api/v1/judgments/{judgment_id}")
        assert response.status_code == 200, judgment_id
        found[judgment_id] = response.json()
    return found


def test_judgment_json_has_its_numbered_paragraphs(views: dict[str, dict]) -> None:
    view = views["C26"]
    paragraphs = view["paragraphs"]
    assert paragraphs[0]["number"] is None and paragraphs[0]["anchor"] is None  # the header
    assert [p["number"] for p in paragraphs[1:]] == list(range(1, 36))
    assert all(p["numbered"] and p["anchor"] == f"para-{p['number']}" for p in paragraphs[1:])
    # every sentence is in exactly one paragraph, in order, and a paragraph starts with its number
    assert [n for p in paragraphs for n in p["sentences"]] == [s["number"] for s in view["sentences"]]
    text_of = {s["number"]: s["text"] for s in view["sentences"]}
    assert all(text_of[p["sentences"][0]].startswith(f"{p['number']}.") for p in paragraphs[1:])
    for judgment_id, other in views.items():
        assert other["paragraphs"], judgment_id


def test_cites_and_cited_by_agree_for_every_judgment(views: dict[str, dict]) -> None:
    """C26 cites C99 ("State of U.P. v. Anil Singh"); C99 used to say nothing cites it."""
    cites = {(j, c["target_id"]) for j, v in views.items() for c in v["cited_cases"] if c["target_id"]}
    cited_by = {(c["judgment_id"], j) for j, v in views.items() for c in v["cited_by"]}
    assert ("C26", "C99") in cites and cites == cited_by
    # the flat list agrees with the grouped one
    for view in views.values():
        flat = {c["target_id"] for c in view["cites_judgments"] if c["target_id"]}
        assert flat == {c["target_id"] for c in view["cited_cases"] if c["target_id"]}


def test_parallel_citations_are_one_cited_case_and_link_in_the_text(views: dict[str, dict]) -> None:
    view = views["C26"]
    anil = [c for c in view["cited_cases"] if c["target_id"] == "C99"]
    assert len(anil) == 1 and anil[0]["citations"] == ["State of U.P v. Anil Singh", "1988 Indlaw SC 28"]
    assert anil[0]["target_title"] == "State Of U.P. v Anil Singh"
    sahaj = next(c for c in view["cited_cases"] if c["citations"][0].startswith("Sahaj Ram"))
    assert sahaj["citations"][1:] == ["(1973) 1 SCC 490", "1972 Indlaw SC 432"] and sahaj["target_id"] is None
    text = "".join(s["text"] for s in view["sentences"])
    assert "State of U.P. v. Anil Singh" in text
    linked = [link for link in view["text_links"] if link["target_id"] == "C99"]
    assert [link["citation"] for link in linked] == ["State of U.P v. Anil Singh", "1988 Indlaw SC 28"]


def test_a_hits_passage_link_names_its_first_sentence(api: TestClient) -> None:
    hits = api.get("/api/v1/search", params={"q": QUERY, "size": 5}).json()["hits"]
    assert hits
    page = api.get("/", params={"q": QUERY, "size": 5}).text
    links = [unescape(h) for h in re.findall(r'class="passage-link" href="([^"]+)"', page)]
    assert links
    for link in links[:4]:
        url = urlparse(link)
        judgment_id = url.path.rsplit("/", 1)[1]
        number = int(re.fullmatch(r"s(\d+)", url.fragment).group(1))
        passage = next(p for h in hits if h["judgment_id"] == judgment_id for p in h["passages"]
                       if p["sentence_start"] == number)
        view = api.get(f"/api/v1/judgments/{judgment_id}").json()
        first = next(s for s in view["sentences"] if s["number"] == number)
        assert first["start"] == passage["char_start"]  # the anchor is where the passage begins
        assert parse_qs(url.query)["hl"][0]


def test_the_judgment_page_marks_hl_words_and_anchors_paragraphs(api: TestClient) -> None:
    html = api.get("/judgments/C26", params={"hl": "Anil Singh acquittals"}).text
    assert 'id="para-25"' in html and 'href="#para-25"' in html and 'id="s125"' in html
    assert "<mark>Anil</mark> <mark>Singh</mark>" in html and "<mark>acquittals</mark>" in html
    assert re.search(r'<a class="cite-link cite-judgment" href="/judgments/C99"[^>]*>State of U\.P\. v\. ', html)
    plain = api.get("/judgments/C26").text
    assert "<mark>" not in plain
    # markup in hl is text, never markup
    hostile = api.get("/judgments/C26", params={"hl": "<script>alert(1)</script> Singh"}).text
    assert "<script>alert" not in hostile and "<mark>Singh</mark>" in hostile
