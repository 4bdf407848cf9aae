"""Links a client can follow as they are (issue 29, item 6): the CSV's ``link`` cells are absolute URLs of this
server (behind a proxy's ``root_path`` too), and a paged API answer carries ``next``, the URL of the following
page, null on the last. Real app, real node, the 18 sample judgments.
"""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch

from ratio.web import create_app

SEARCH = "/api/v1/search"


def _rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.text
    return list(csv.DictReader(io.StringIO(response.text)))


def test_csv_links_are_absolute_urls_of_this_server(api: TestClient) -> None:
    rows = _rows(api.get("/api/v1/export.csv", params={"q": "murder", "limit": 5}))
    assert rows
    for row in rows:
        assert row["link"] == f"http://testserver/judgments/{row['judgment_id']}"
        assert api.get(row["link"]).status_code == 200, "the link opens the judgment's page"


def test_csv_links_keep_the_root_path_of_a_proxied_server(ratio_client) -> None:
    with TestClient(create_app(ratio_client), base_url="https://ratio.example", root_path="/ratio") as web:
        rows = _rows(web.get("/api/v1/export.csv", params={"q": "murder", "limit": 3}))
    assert rows and all(r["link"] == f"https://ratio.example/ratio/judgments/{r['judgment_id']}" for r in rows)


def _follow(api: TestClient, first) -> list[dict]:
    """Every page of a search, from its first answer, by GETting ``next`` until it is null."""
    pages = [first]
    while True:
        assert pages[-1].status_code == 200, pages[-1].text
        link = pages[-1].json()["next"]
        if link is None:
            assert pages[-1].json()["next_cursor"] is None
            return [p.json() for p in pages]
        assert link.startswith("http://testserver/api/v1/search?")
        assert dict(parse_qsl(urlsplit(link).query))["cursor"] == pages[-1].json()["next_cursor"]
        assert len(pages) < 20, "next never ends"
        pages.append(api.get(link))


@pytest.mark.parametrize("params", [
    {"q": "appeal", "size": 3},  # ranked: the window's judgments, page by page
    {"q": "appeal", "size": 4, "sort": "newest", "court": ["Supreme Court of India"]},  # sorted, in a point in time
    {"q": "", "date_from": "1900", "size": 5},  # filters alone: every judgment, newest first
])
def test_next_links_walk_every_page_once(api: TestClient, params: dict) -> None:
    pages = _follow(api, api.get(SEARCH, params=params))
    assert len(pages) > 1, "the search spans pages"
    ids = [hit["judgment_id"] for page in pages for hit in page["hits"]]
    assert len(ids) == len(set(ids)), "no judgment comes twice"
    assert len(ids) == pages[0]["judgments_found"]
    assert [page["page"] for page in pages] == list(range(1, len(pages) + 1))


def test_a_posted_search_links_its_next_page_as_a_get(api: TestClient) -> None:
    body = {"q": "murder conviction evidence", "size": 4, "statute": [], "highlight": False, "facets": False}
    posted = api.post(SEARCH, json=body)
    pages = _follow(api, posted)
    query = parse_qsl(urlsplit(posted.json()["next"]).query)
    assert ("highlight", "false") in query and ("facets", "false") in query and ("size", "4") in query
    ids = [hit["judgment_id"] for page in pages for hit in page["hits"]]
    assert len(pages) > 1 and len(ids) == len(set(ids)) == pages[0]["judgments_found"]
    again = api.get(SEARCH, params={k: v for k, v in query if k != "cursor"})
    assert again.json()["hits"] == posted.json()["hits"], "the link holds the same search"


@pytest.fixture
def murder_provision(client: OpenSearch, aliases: dict[str, str]):
    """Section 302 IPC as a provision (its citation read from its title), which several samples cite; removed
    afterwards."""
    index, doc_id = aliases["provisions"], "Plinks-302"
    client.index(index=index, id=doc_id, refresh=True, body={
        "provision_id": doc_id, "source": "test", "title": "Section 302 IPC: Punishment for murder",
        "text": "Whoever commits murder shall be punished with death, or imprisonment for life."})
    yield doc_id
    client.delete(index=index, id=doc_id, refresh=True)


def test_the_citing_judgments_of_a_provision_link_their_next_page(api: TestClient, client: OpenSearch,
                                                                   aliases: dict[str, str],
                                                                   murder_provision: str) -> None:
    expected = client.count(index=aliases["judgments"],
                            body={"query": {"term": {"cited_provisions": "IPC s. 302"}}})["count"]
    assert expected >= 2
    link: str | None = f"http://testserver/api/v1/provisions/{murder_provision}?size=1&sort=cited_by"
    seen: list[str] = []
    while link is not None:
        citing = api.get(link).json()["citing"]
        seen += [j["judgment_id"] for j in citing["judgments"]]
        link = citing["next"]
        assert link is None or ("sort=cited_by" in link and "size=1" in link)
        assert len(seen) <= expected, "next never ends"
    assert len(seen) == len(set(seen)) == expected == citing["total"]
