"""Counts and sorts that mean what was asked, through the API and the search page (HTML), on the real node and the
18 sample judgments: a typed query's count requires every word (equal to OpenSearch's own ``match`` with
``operator: and`` over the judgments' text, asked here directly), beside the any-word count; a hit that lacks a
word says which; a search of filters alone pages through every judgment passing them, newest first, and explains
each hit by its filters (the deferred ``/ui/explain`` and ``/api/v1/explain`` answer for it).
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs

from fastapi.testclient import TestClient
from opensearchpy import OpenSearch

SEARCH = "/api/v1/search"
WORDS = "conviction acquittal witness"  # 4 sample judgments have every word, 12 some
STATUTE = "s. 302 IPC"  # cited by 7 sample judgments, stored as "IPC s. 302"


def _count(client: OpenSearch, aliases, query: dict) -> int:
    return int(client.count(index=aliases["judgments"], body={"query": query})["count"])


def _ids(client: OpenSearch, aliases, query: dict) -> set[str]:
    hits = client.search(index=aliases["judgments"], body={"query": query, "size": 100, "_source": False})
    return {hit["_id"] for hit in hits["hits"]["hits"]}


def _citing(client: OpenSearch, aliases) -> set[str]:
    return _ids(client, aliases, {"term": {"cited_provisions": "IPC s. 302"}})


def _pages(api: TestClient, **params) -> list[dict]:
    """Every page of an API search, following next_cursor."""
    pages = [api.get(SEARCH, params=params)]
    while True:
        assert pages[-1].status_code == 200, pages[-1].text
        cursor = pages[-1].json()["next_cursor"]
        if not cursor:
            return [p.json() for p in pages]
        pages.append(api.get(SEARCH, params={**params, "cursor": cursor}))


def test_the_api_counts_every_word_beside_any_word(api: TestClient, client: OpenSearch, aliases) -> None:
    every = _ids(client, aliases, {"match": {"text": {"query": WORDS, "operator": "and"}}})
    some = _count(client, aliases, {"match": {"text": WORDS}})
    assert 0 < len(every) < some
    page = api.get(SEARCH, params={"q": WORDS, "size": 18}).json()
    assert (page["total"], page["total_any"], page["count_rule"]) == (len(every), some, "every_word")
    words = [hit for hit in page["hits"] if hit["match"] == "words"]
    assert {h["judgment_id"] for h in words if not h["missing"]} == every
    assert all(set(h["missing"]) <= set(WORDS.split()) for h in words)
    assert any(h["missing"] for h in words), "the ranking reaches judgments with only some of the words"
    # the facets and Explore count the same judgments
    assert sum(b["judgments"] for b in page["facets"]["court"]) == len(every)
    assert api.get("/api/v1/explore", params={"q": WORDS}).json()["judgments"] == len(every)
    assert sum(b["judgments"] for b in api.get("/api/v1/facets", params={"q": WORDS}).json()["court"]) == len(every)
    # the sorts list exactly those judgments (and none with only some of the words)
    for sort in ("newest", "cited_by"):
        hits = [h for p in _pages(api, q=WORDS, sort=sort, size=3) for h in p["hits"]]
        assert {h["judgment_id"] for h in hits if h["match"] == "words"} == every, sort
        assert all(h["match"] == "meaning" and not h["missing"] for h in hits if h["judgment_id"] not in every)


def test_the_page_states_both_counts_and_what_a_hit_lacks(api: TestClient, client: OpenSearch, aliases) -> None:
    every = _count(client, aliases, {"match": {"text": {"query": WORDS, "operator": "and"}}})
    some = _count(client, aliases, {"match": {"text": WORDS}})
    html = api.get("/", params={"q": WORDS}).text
    summary = unescape(re.search(r'<p class="summary" id="summary">(.*?)</p>', html, re.S).group(1))
    assert re.match(rf"{every} judgments have every word · {some} have any; showing 1–10 of the best \d+", summary)
    lacking = re.findall(r'<p class="match-missing"[^>]*>missing: (.*?)</p>', html)
    assert lacking and all(re.fullmatch(r"<s>\w+</s>(, <s>\w+</s>)*", m) for m in lacking)
    # a pasted text says what it counted instead
    pasted = ("the appellant was convicted of murder on the evidence of the eye witnesses and the dying declaration "
              "of the deceased recorded by the magistrate and the High Court confirmed the conviction and sentence")
    counted = _count(client, aliases, {"match": {"text": pasted}})
    html = api.get("/", params={"q": pasted}).text
    assert f"{counted} judgments have any of the pasted text&#39;s words" in html
    assert api.get(SEARCH, params={"q": pasted}).json()["count_rule"] == "any_word"


def test_a_filter_only_search_pages_every_judgment_newest_first_in_the_api(api: TestClient, client: OpenSearch,
                                                                         aliases) -> None:
    citing = _citing(client, aliases)
    assert len(citing) == 7
    for params in ({"statute": STATUTE}, {"q": f'statute:"{STATUTE}"'}):  # relevance asked: nothing to rank
        pages = _pages(api, **params, size=3)
        assert len(pages) == 3 and [p["page"] for p in pages] == [1, 2, 3]
        hits = [h for p in pages for h in p["hits"]]
        assert [h["judgment_id"] for h in hits if h["judgment_id"] in citing] == [h["judgment_id"] for h in hits]
        assert len(hits) == len({h["judgment_id"] for h in hits}) == len(citing)
        first = pages[0]
        assert first["sort"] == "newest" and "no words to rank by" in first["ranking_note"]
        assert first["total"] == first["judgments_found"] == 7 and first["count_rule"] == "filters"
        dates = [h["decision_date"] for h in hits if h["decision_date"]]
        assert dates == sorted(dates, reverse=True)
        # the previous page of the last is the middle one
        back = api.get(SEARCH, params={**params, "size": 3, "cursor": pages[2]["prev_cursor"]}).json()
        assert [h["judgment_id"] for h in back["hits"]] == [h["judgment_id"] for h in pages[1]["hits"]]
    cited = [h for p in _pages(api, statute=STATUTE, sort="cited_by", size=3) for h in p["hits"]]
    assert {h["judgment_id"] for h in cited} == citing  # cited-by on request
    # past the ranked window: candidates no longer bounds a filter-only search
    narrow = _pages(api, statute=STATUTE, size=2, candidates=2)
    assert sum(len(p["hits"]) for p in narrow) == 7


def test_a_filter_only_search_pages_every_judgment_on_the_page(api: TestClient, client: OpenSearch, aliases) -> None:
    """The form's court filter alone: 18 judgments pass it, ten a page, newest first, by the page's own links."""
    court = "Supreme Court of India"
    passing = _ids(client, aliases, {"term": {"court": court}})
    assert len(passing) == _count(client, aliases, {"term": {"court": court}}) == 18
    seen: list[str] = []
    url: str | None = f"/?court={court}"
    summaries = []
    while url:
        response = api.get(url)
        assert response.status_code == 200
        html = response.text
        seen += re.findall(r'<li class="hit" data-judgment="([^"]+)"', html)
        summaries.append(unescape(re.search(r'<p class="summary" id="summary">(.*?)</p>', html, re.S).group(1)))
        assert "No explanation" not in html
        found = re.search(r'<a class="next" href="([^"]+)"', html)
        url = unescape(found.group(1)) if found else None
        assert len(summaries) <= 3
    assert len(seen) == len(set(seen)) and set(seen) == passing
    assert summaries[0].startswith("18 judgments match the filters; showing 1–10, newest first (no words to rank by)")
    assert summaries[1].startswith("18 judgments match the filters; showing 11–18, newest first")
    assert len(summaries) == 2


def test_the_explanations_of_a_filter_only_search_name_its_filters(api: TestClient, client: OpenSearch,
                                                                   aliases) -> None:
    html = api.get("/", params={"statute": STATUTE}).text
    slot = re.search(r'<p class="why" data-q="" data-filters="([^"]*)" data-id="([^"]+)"', html)
    assert slot, "each hit's explanation slot carries the search's filters"
    filters, judgment_id = unescape(slot.group(1)), slot.group(2)
    assert parse_qs(filters) == {"statute": [STATUTE]}
    fragment = api.get(f"/ui/explain?q=&judgment_id={judgment_id}&{filters}")
    assert fragment.status_code == 200, fragment.text
    assert "Cites IPC s. 302; Supreme Court of India" in fragment.text
    assert api.get("/ui/explain", params={"q": "", "judgment_id": judgment_id}).status_code == 400  # nothing asked
    explained = api.get("/api/v1/explain", params={"judgment_id": judgment_id, "statute": STATUTE}).json()
    assert explained["explanation"]["text"].startswith("Cites IPC s. 302; Supreme Court of India; decided ")
    typed = api.get("/api/v1/explain", params={"q": f'statute:"{STATUTE}"', "judgment_id": judgment_id}).json()
    assert typed["explanation"] == explained["explanation"]
    assert api.get("/api/v1/explain", params={"judgment_id": judgment_id}).status_code == 400
    # the API's JSON carries the same explanation when asked for
    page = api.get(SEARCH, params={"statute": STATUTE, "explain": True, "size": 3}).json()
    assert all(h["explanation"]["text"].startswith("Cites IPC s. 302") for h in page["hits"])
