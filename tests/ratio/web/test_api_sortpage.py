"""Sort, count, page on the real node and the 18 sample judgments: date and cited-by orders over every matching
judgment (not the ranked window re-sorted), cursors in a point in time both ways, expired and forged cursors,
the Python and remote clients, and ``ratio search --sort``.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import date

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch

from ratio.web.schemas import SearchParams
from ratio.web.service import encode_cursor
from search.graph.citation_graph import load_graph
from search.query.errors import ExpiredPositionError
from search.query.options import SortOrder
from search.query.request import SearchRequest
from search.retrieval.sorting import SortPosition, sort_clauses, sorted_body

QUERY = "appeal"  # in most sample judgments: several pages of 4
SEARCH = "/api/v1/search"


def _pages(api: TestClient, **params) -> list[dict]:
    """Every page of a search, following next_cursor."""
    pages = [api.get(SEARCH, params=params)]
    while True:
        assert pages[-1].status_code == 200, pages[-1].text
        cursor = pages[-1].json()["next_cursor"]
        if not cursor:
            return [p.json() for p in pages]
        pages.append(api.get(SEARCH, params={**params, "cursor": cursor}))


def _dates(hits: list[dict]) -> list[str | None]:
    return [hit["decision_date"] for hit in hits]


def _ordered(dates: list[str | None], newest: bool) -> bool:
    """Dated judgments in order, the undated after them all."""
    known = [d for d in dates if d]
    first_missing = dates.index(None) if None in dates else len(dates)
    return all(d is None for d in dates[first_missing:]) and known == sorted(known, reverse=newest)


def test_sort_by_date_orders_every_matching_judgment_across_pages(api: TestClient) -> None:
    pages = _pages(api, q=QUERY, sort="newest", size=4)
    assert len(pages) >= 2 and [p["page"] for p in pages] == list(range(1, len(pages) + 1))
    hits = [hit for page in pages for hit in page["hits"]]
    ids = [hit["judgment_id"] for hit in hits]
    found = pages[0]["judgments_found"]
    assert len(ids) == len(set(ids)) == found, "the pages cover the sorted set once, without overlap"
    assert _ordered(_dates(hits), newest=True)
    assert all(page["sort"] == "newest" for page in pages)
    # the sorted set is every judgment with the words (the exact total) plus the meaning-only ones over the floor,
    # not the ranked window: more judgments than one relevance window of 4 shows
    meaning = [hit for hit in hits if hit["match"] == "meaning"]
    assert found == pages[0]["total"] + len(meaning)
    assert all(hit["similarity"] >= pages[0]["meaning_floor"] for hit in meaning)
    ranked = api.get(SEARCH, params={"q": QUERY, "size": 4}).json()
    assert ranked["total"] == pages[0]["total"]


def test_oldest_reverses_newest(api: TestClient) -> None:
    newest = [h for p in _pages(api, q=QUERY, sort="newest", size=5) for h in p["hits"]]
    oldest = [h for p in _pages(api, q=QUERY, sort="oldest", size=5) for h in p["hits"]]
    assert {h["judgment_id"] for h in newest} == {h["judgment_id"] for h in oldest}
    assert _ordered(_dates(oldest), newest=False)
    dated = [d for d in _dates(newest) if d]
    assert [d for d in _dates(oldest) if d] == dated[::-1]
    assert len(dated) >= 2 and dated[0] > dated[-1]


def test_a_filter_only_search_sorts_all_its_judgments(api: TestClient) -> None:
    page = api.get(SEARCH, params={"q": "year:1980..2020", "sort": "oldest", "size": 100}).json()
    years = [int(hit["decision_date"][:4]) for hit in page["hits"]]
    assert years and years == sorted(years) and all(1980 <= y <= 2020 for y in years)
    assert page["judgments_found"] == page["total"] == len(years)


def test_cited_by_is_non_increasing_by_the_citation_graph(api: TestClient, client: OpenSearch, aliases) -> None:
    graph = load_graph(client, aliases["judgments"])
    hits = [h for p in _pages(api, q=QUERY, sort="cited_by", size=5) for h in p["hits"]]
    counts = [graph.cited_by_count(h["judgment_id"]) for h in hits]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 2, counts  # C99: cited by C26 and C152
    equal = {}  # among equally cited judgments, newest first
    for hit, count in zip(hits, counts, strict=True):
        equal.setdefault(count, []).append(hit["decision_date"])
    assert all(_ordered(dates, newest=True) for dates in equal.values())


def test_the_cited_by_script_orders_by_counts_and_dates_on_the_node(client: OpenSearch) -> None:
    """The sort clauses themselves, with counts the sample's graph may not have: most cited first, then newest,
    undated last; reversed for paging backwards."""
    index = f"ratio-test-sortpage-{uuid.uuid4().hex[:8]}"
    client.indices.create(index=index, body={"mappings": {"properties": {
        "judgment_id": {"type": "keyword"}, "decision_date": {"type": "date"}}}})
    try:
        rows = {"A": "2001-01-01", "B": "2010-01-01", "C": None, "D": "1990-05-05", "E": "2020-02-02"}
        for doc, day in rows.items():
            client.index(index=index, id=doc, body={"judgment_id": doc, **({"decision_date": day} if day else {})})
        client.indices.refresh(index=index)
        counts = {"A": 3, "C": 3, "D": 1}
        request = SearchRequest.from_query("", courts=["x"], sort=SortOrder.CITED_BY, classify=False)

        def order(position: SortPosition | None = None) -> list[str]:
            body = sorted_body(request, {"match_all": {}}, size=10, position=position, counts=counts)
            return [h["_id"] for h in client.search(index=index, body=body)["hits"]["hits"]]

        assert order() == ["A", "C", "D", "E", "B"]
        assert order(SortPosition(backwards=True)) == ["B", "E", "D", "C", "A"]
        newest = {"sort": sort_clauses(SortOrder.NEWEST), "query": {"match_all": {}}}
        assert [h["_id"] for h in client.search(index=index, body=newest)["hits"]["hits"]] == ["E", "B", "A", "D", "C"]
        oldest = {"sort": sort_clauses(SortOrder.OLDEST), "query": {"match_all": {}}}
        assert [h["_id"] for h in client.search(index=index, body=oldest)["hits"]["hits"]] == ["D", "A", "B", "E", "C"]
    finally:
        client.indices.delete(index=index)


@pytest.mark.parametrize("sort", ["newest", "cited_by", "relevance"])
def test_next_then_previous_gives_the_first_page_again(api: TestClient, sort: str) -> None:
    params = {"q": QUERY, "sort": sort, "size": 3}
    first = api.get(SEARCH, params=params).json()
    assert first["page"] == 1 and first["prev_cursor"] is None and first["next_cursor"]
    second = api.get(SEARCH, params={**params, "cursor": first["next_cursor"]}).json()
    assert second["page"] == 2 and second["prev_cursor"]
    assert not {h["judgment_id"] for h in first["hits"]} & {h["judgment_id"] for h in second["hits"]}
    back = api.get(SEARCH, params={**params, "cursor": second["prev_cursor"]}).json()
    assert back["page"] == 1
    assert [h["judgment_id"] for h in back["hits"]] == [h["judgment_id"] for h in first["hits"]]
    again = api.get(SEARCH, params={**params, "cursor": back["next_cursor"]}).json()
    assert [h["judgment_id"] for h in again["hits"]] == [h["judgment_id"] for h in second["hits"]]


def _decoded(cursor: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))


def _encoded(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def test_expired_and_forged_cursors_are_clear_4xx(api: TestClient, client: OpenSearch, aliases) -> None:
    params = {"q": QUERY, "sort": "newest", "size": 3}
    cursor = api.get(SEARCH, params=params).json()["next_cursor"]
    data = _decoded(cursor)
    assert data["t"], "a sorted search with more pages keeps a point in time"
    forged = [_encoded({**data, "a": ["2001-01-01", data["a"][1]]}), _encoded({**data, "a": data["a"][:1]}),
              _encoded({**data, "a": [1.5, data["a"][1]]}), _encoded({**data, "b": "yes"}),
              _encoded({**data, "t": 7}), _encoded({k: v for k, v in data.items() if k != "a"})]
    for bad in forged:
        response = api.get(SEARCH, params={**params, "cursor": bad})
        assert response.status_code == 400 and response.json()["error"]["code"] == "bad_query", bad
    other_order = api.get(SEARCH, params={**params, "sort": "oldest", "cursor": cursor})
    assert other_order.status_code == 400 and "another search" in other_order.json()["error"]["message"]
    # a point-in-time id nobody opened, and one of another index, are refused like an expired one
    foreign = client.create_pit(index=aliases["provisions"], params={"keep_alive": "1m"})["pit_id"]
    try:
        for pit in ("bm90IGEgcGl0", foreign):
            response = api.get(SEARCH, params={**params, "cursor": _encoded({**data, "t": pit})})
            assert response.status_code == 410, response.text
    finally:
        client.delete_pit(body={"pit_id": [foreign]})
    # expiry: the point in time gone (deleted here, as the cluster does after its keep-alive)
    assert api.get(SEARCH, params={**params, "cursor": cursor}).status_code == 200
    client.delete_pit(body={"pit_id": [data["t"]]})
    expired = api.get(SEARCH, params={**params, "cursor": cursor})
    assert expired.status_code == 410
    error = expired.json()["error"]
    assert error["code"] == "cursor_expired" and "search again from the first page" in error["message"]
    # the search page (pages of 10) says the same
    paged = api.get(SEARCH, params={"q": QUERY, "sort": "newest"}).json()["next_cursor"]
    assert paged, "more than one page of 10"
    client.delete_pit(body={"pit_id": [_decoded(paged)["t"]]})
    page = api.get("/", params={"q": QUERY, "sort": "newest", "cursor": paged})
    assert page.status_code == 410 and "search again from the first page" in page.text


def test_a_sorted_cursor_goes_past_the_ranked_window(api: TestClient) -> None:
    """Relevance pages stay inside candidates; a sorted search pages every match, whatever candidates says."""
    params = {"q": QUERY, "sort": "oldest", "size": 2, "candidates": 2}
    pages = _pages(api, **params)
    assert len(pages) >= 3 and pages[-1]["next_cursor"] is None
    relevance = api.get(SEARCH, params={**params, "sort": "relevance"}).json()
    assert relevance["next_cursor"] is None


def test_client_and_remote_client_agree(ratio_client, live_server: str, client: OpenSearch) -> None:
    from ratio.remote import RemoteClient

    remote = RemoteClient(live_server)
    for sort in ("newest", "oldest", "cited_by"):
        local = ratio_client.search(QUERY, sort=sort, size=6)
        page = remote.search(QUERY, sort=sort, size=6)
        assert [h.judgment_id for h in local.hits] == [h.judgment_id for h in page.hits]
        assert local.judgments_found == page.judgments_found and local.total == page.total
        assert page.sort == sort and local.sort == sort
        second = ratio_client.search(QUERY, sort=sort, size=6, page=2)
        following = remote.search(QUERY, sort=sort, size=6, cursor=page.next_cursor)
        assert [h.judgment_id for h in second.hits] == [h.judgment_id for h in following.hits]
    # an expired cursor is the same error from the remote client as from the API: ExpiredPositionError (410)
    client.delete_pit(body={"pit_id": [_decoded(page.next_cursor)["t"]]})
    with pytest.raises(ExpiredPositionError, match="search again from the first page") as raised:
        remote.search(QUERY, sort="cited_by", size=6, cursor=page.next_cursor)
    assert raised.value.status == 410 and raised.value.code == "cursor_expired"


def test_sorted_searches_still_come_back_empty_when_nothing_matches(api: TestClient) -> None:
    for q in ("xyzzyqwerty", '"dowry death"'):
        page = api.get(SEARCH, params={"q": q, "sort": "newest"}).json()
        assert page["hits"] == [] and page["judgments_found"] == 0 and page["next_cursor"] is None


def test_the_cli_sorts(opensearch_settings, aliases) -> None:
    from click.testing import CliRunner

    from ratio.cli import cli

    base = ["--url", opensearch_settings.url, "--prefix", aliases["chunks"].removesuffix("-chunks"), "search"]
    runner = CliRunner()
    shown = runner.invoke(cli, [*base, QUERY, "--sort", "newest", "--size", "3", "--page", "2"],
                          catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert "judgments match; showing 4-6, newest first" in shown.stdout
    data = json.loads(runner.invoke(cli, [*base, QUERY, "--sort", "oldest", "--size", "50", "--json"],
                                    catch_exceptions=False).stdout)
    assert data["sort"] == "oldest"
    days = [date.fromisoformat(h["decision_date"]) for h in data["hits"] if h["decision_date"]]
    assert days == sorted(days) and len(days) >= 2
    wrong = runner.invoke(cli, [*base, QUERY, "--sort", "sideways"])
    assert wrong.exit_code == 2 and "sideways" in wrong.output


def test_sort_is_validated_like_every_option(api: TestClient) -> None:
    response = api.get(SEARCH, params={"q": QUERY, "sort": "sideways"})
    assert response.status_code == 422 and "sort" in response.text
    assert SearchParams(q=QUERY, sort="cited_by").options().sort is SortOrder.CITED_BY
    assert encode_cursor(SearchParams(q=QUERY), 1)
