"""The saved-searches page and the site's icon (issue 29, item 6): save a search from its results page, see it
with its alerts, delete it, all through the page's forms; the page behind the key like the others; forms from
another site refused. Real app, real node, the 18 sample judgments.
"""

from __future__ import annotations

import html
import re
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient

from ratio.web import create_app

SAME_SITE = {"Origin": "http://testserver"}  # what a browser sends with a form from the page


def _name() -> str:
    return f"page watch {uuid.uuid4().hex[:8]}"


def _saved(api: TestClient) -> dict[str, dict]:
    return {s["name"]: s for s in api.get("/api/v1/saved-searches").json()}


def _form_fields(page: str, action: str) -> list[tuple[str, str]]:
    """The named fields of the page's form that posts to ``action``, as the browser would send them."""
    form = re.search(rf'<form[^>]*action="{re.escape(action)}" method="post">(.*?)</form>', page, re.DOTALL)
    assert form, f"no form to {action}"
    fields = []
    for tag in re.findall(r"<input[^>]*>", form.group(1)):
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', tag))
        if "name" in attributes:
            fields.append((html.unescape(attributes["name"]), html.unescape(attributes.get("value", ""))))
    return fields


@pytest.fixture
def cleanup(api: TestClient):
    names: list[str] = []
    yield names
    for name in names:
        api.delete(f"/api/v1/saved-searches/{name}")


def test_a_search_is_saved_from_its_page_listed_with_its_alerts_and_deleted(api: TestClient, cleanup) -> None:
    results = api.get("/", params={"q": "murder", "court": "Supreme Court of India"})
    assert results.status_code == 200 and "Save this search" in results.text
    fields = _form_fields(results.text, "/saved")
    assert ("q", "murder") in fields and ("court", "Supreme Court of India") in fields
    name = _name()
    cleanup.append(name)
    form = urlencode([*[(k, v) for k, v in fields if k != "name"], ("name", name)])  # repeated fields stay repeated
    sent = api.post("/saved", content=form, follow_redirects=False,
                    headers={**SAME_SITE, "Content-Type": "application/x-www-form-urlencoded"})
    assert sent.status_code == 303 and sent.headers["location"].startswith("/saved?saved=")
    stored = _saved(api)[name]
    assert stored["query"] == "murder" and stored["options"]["courts"] == ["Supreme Court of India"]

    listed = api.get(sent.headers["location"])
    assert listed.status_code == 200 and f"Saved <q>{name}</q>." in listed.text
    run = re.search(rf'<a href="([^"]+)">{re.escape(name)}</a>', listed.text)
    assert run and parse_qs(urlsplit(html.unescape(run.group(1))).query) == {
        "q": ["murder"], "court": ["Supreme Court of India"]}, "the name runs the search"

    # its alerts: the judgments indexed since a date that it matches, as the API's check says
    expected = api.post("/api/v1/alerts/check", json={"since": "2000-01-01T00:00:00"}).json()
    (alert,) = [a for a in expected["alerts"] if a["search"]["name"] == name]
    assert alert["judgments"], "the sample corpus has judgments for it"
    checked = api.get("/saved", params={"since": "2000-01-01"})
    assert checked.status_code == 200 and "18 judgments indexed since 2000-01-01" in checked.text
    item = checked.text.split(f'data-name="{html.escape(name)}"', 1)[1].split("</li>\n", 1)[0]
    shown = re.findall(r'<a href="/judgments/([^"]+)">', item)
    assert shown == [j["judgment_id"] for j in alert["judgments"]]
    assert f"{len(shown)} new judgment" in item

    # a taken name, a query the engine cannot run: the list again with the reason
    again = api.post("/saved", data={"name": name, "q": "murder"}, headers=SAME_SITE)
    assert again.status_code == 409 and "exists" in again.text
    bad = api.post("/saved", data={"name": "bad one", "q": '"open'}, headers=SAME_SITE)
    assert bad.status_code == 400 and 'role="alert"' in bad.text and "bad one" not in _saved(api)

    delete = _form_fields(item, "/saved/delete")
    assert delete == [("name", name)]
    gone = api.post("/saved/delete", data=dict(delete), headers=SAME_SITE, follow_redirects=False)
    assert gone.status_code == 303 and name not in _saved(api)
    _, rest = api.get(gone.headers["location"]).text.split(f"Deleted <q>{name}</q>.", 1)
    assert name not in rest, "said deleted, and no longer listed"
    assert api.post("/saved/delete", data=dict(delete), headers=SAME_SITE).status_code == 404


def test_a_name_left_empty_is_made_from_the_query_and_a_statute_goes_into_it(api: TestClient, cleanup) -> None:
    query = f"dowry death {uuid.uuid4().hex[:6]}"
    sent = api.post("/saved", data={"q": query, "statute": "s. 304B IPC", "name": ""}, headers=SAME_SITE,
                    follow_redirects=False)
    assert sent.status_code == 303, sent.text
    cleanup.append(query)
    assert _saved(api)[query]["query"] == f'{query} statute:"s. 304B IPC"'


def test_forms_from_another_site_are_refused(api: TestClient) -> None:
    name = _name()
    for headers in ({"Origin": "https://evil.example"}, {"Referer": "https://evil.example/page"},
                    {"Origin": "null"}):
        refused = api.post("/saved", data={"name": name, "q": "murder"}, headers=headers)
        assert refused.status_code == 403, headers
    assert name not in _saved(api)


def test_the_page_is_behind_the_key(ratio_client) -> None:
    with TestClient(create_app(ratio_client, api_key="s3cret"), follow_redirects=False) as web:
        page = web.get("/saved")
        assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fsaved"
        name = _name()
        assert web.post("/saved", data={"name": name, "q": "murder"}, headers=SAME_SITE).status_code == 401
        assert web.post("/saved/delete", data={"name": name}, headers=SAME_SITE).status_code == 401
        assert web.post("/login", data={"key": "s3cret", "next": "/saved"}).status_code == 303
        assert web.get("/saved").status_code == 200
        try:
            assert web.post("/saved", data={"name": name, "q": "murder"}, headers=SAME_SITE).status_code == 303
            assert name in web.get("/saved").text
        finally:
            assert web.post("/saved/delete", data={"name": name}, headers=SAME_SITE).status_code == 303
        assert name not in web.get("/saved").text


def test_the_site_has_an_icon(api: TestClient, ratio_client) -> None:
    icon = api.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.text.startswith("<svg") and len(icon.content) < 1024
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in api.get("/").text
    assert api.get("/static/favicon.svg").content == icon.content
    with TestClient(create_app(ratio_client, api_key="k"), follow_redirects=False) as web:
        assert web.get("/favicon.ico").status_code == 200, "no key needed for the icon"
