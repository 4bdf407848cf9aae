"""``POST /api/v1/ask``, its server-sent-event stream, and ``RemoteClient.ask``: the real node, the sample corpus,
the real small LLM (answers cached for the session, so each question is generated once; see
``tests/ratio/web/answering.py``), and the same app without an LLM for the error it must give."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient

from ratio.errors import UnavailableError
from ratio.remote import RemoteClient
from ratio.web.answer_schemas import AskBody
from ratio.web.answers import AnswerRun
from search.explain.extractive import content_words
from search.query.errors import QueryError
from tests.ratio.web.answering import GROUNDED_QUESTION, QUICK, UNANSWERABLE, answering_app, serve
from tests.waiting import wait_for

LINK = re.compile(r"^/judgments/(?P<id>[^/?#]+)(\?hl=(?P<hl>[^#]+))?#s(?P<sentence>\d+)$")


@pytest.fixture(scope="module")
def answering(opensearch_settings, aliases, encoder, small_llm, tmp_path_factory):
    app = answering_app(opensearch_settings.url, aliases, encoder, small_llm,
                        tmp_path_factory.getbasetemp() / "ask-answers.sqlite")
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def grounded(answering: TestClient) -> dict:
    response = answering.post("/api/v1/ask", json={"question": GROUNDED_QUESTION, **QUICK})
    assert response.status_code == 200, response.text
    return response.json()


def events(response) -> list[tuple[str, dict]]:
    """The (event, data) pairs of a server-sent-event body; comment lines are skipped."""
    found, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            found.append((name, json.loads(line[6:])))
    return found


def test_an_answer_cites_corpus_passages_by_their_anchors(answering: TestClient, grounded: dict) -> None:
    assert grounded["status"] == "answered", grounded["reason"]
    assert grounded["question"] == GROUNDED_QUESTION and grounded["mode"] == "judgments"
    assert "not legal advice" in grounded["notice"] and grounded["reason"] is None
    assert len(grounded["rounds"]) == 1 and grounded["rounds"][0]["query"] == GROUNDED_QUESTION
    numbers = {c["number"] for c in grounded["citations"]}
    cited = {n for claim in grounded["claims"] for n in claim["cites"]}
    assert grounded["claims"] and cited <= numbers and all(c["grounded"] for c in grounded["claims"])
    assert {c["number"] for c in grounded["citations"] if c["cited"]} == cited
    assert set(map(int, re.findall(r"\[(\d+)\]", grounded["text"]))) == cited
    asked = content_words(GROUNDED_QUESTION)
    for citation in grounded["citations"]:
        match = LINK.match(citation["link"])
        assert match, citation["link"]
        assert match["id"] == citation["judgment_id"] and int(match["sentence"]) == citation["sentence"]
        assert citation["label"] == f"[{citation['number']}]" and citation["kind"] == "judgment"
        # the words to mark are the passage's own, those the question asks about
        highlighted = parse_qs(urlparse(citation["link"]).query).get("hl", [""])[0].split()
        assert all(content_words(w) <= asked and w in citation["text"].lower() for w in highlighted), highlighted
        # the anchor is a sentence of that judgment, and the passage's text is that judgment's
        view = answering.get(f"/api/v1/judgments/{citation['judgment_id']}").json()
        sentences = {s["number"]: s["text"] for s in view["sentences"]}
        assert citation["sentence"] in sentences
        from_anchor = " ".join(" ".join(t.split()) for n, t in sorted(sentences.items()) if n >= citation["sentence"])
        assert " ".join(citation["text"].split()[:4]) in from_anchor
    # Anil Kumar Bhunja (C7) holds what possession under the Arms Act needs
    assert "C7" in {c["judgment_id"] for c in grounded["citations"] if c["cited"]}


def test_the_stream_sends_progress_then_the_answer_then_done(answering: TestClient, grounded: dict) -> None:
    with answering.stream("POST", "/api/v1/ask/stream", json={"question": GROUNDED_QUESTION, **QUICK}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        sent = events(response)
    names = [name for name, _ in sent]
    assert names[-2:] == ["answer", "done"] and set(names[:-2]) == {"progress"}, names
    kinds = [data["kind"] for name, data in sent if name == "progress"]
    assert kinds[:4] == ["started", "retrieved", "drafted", "checked"] and kinds[-1] == "done"
    stages = [data["stage"] for name, data in sent if name == "progress"]
    assert stages[:3] == ["retrieving", "drafting", "checking"]
    assert all(data["message"] for name, data in sent if name == "progress")
    answer = sent[-2][1]
    assert {k: v for k, v in answer.items() if k != "took_ms"} == {k: v for k, v in grounded.items() if k != "took_ms"}
    assert sent[-1][1]["status"] == "answered"


def test_a_withheld_answer_carries_its_reason_and_the_passages(answering: TestClient) -> None:
    body = answering.post("/api/v1/ask", json={"question": UNANSWERABLE, "mode": "judgments", **QUICK}).json()
    assert body["status"] == "withheld", body
    assert body["text"] == "" and body["claims"] == [] and "No answer is given" in body["notice"]
    assert body["reason"].startswith(("the answer did not pass its checks", "no answer was found"))
    assert "answer_relevance" in body["failures"]
    assert body["citations"] and not any(c["cited"] for c in body["citations"])
    assert all(LINK.match(c["link"]) for c in body["citations"])


def test_without_an_llm_the_api_says_so_and_search_still_works(api: TestClient) -> None:
    for path in ("/api/v1/ask", "/api/v1/ask/stream"):
        response = api.post(path, json={"question": GROUNDED_QUESTION})
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "llm_unavailable" and "need an LLM" in error["message"]
    assert api.get("/api/v1/search", params={"q": "fire-arm possession"}).json()["hits"]
    page = api.get("/ask")
    assert page.status_code == 200 and 'id="no-llm"' in page.text and "Search works without one" in page.text
    posted = api.post("/ask", data={"question": GROUNDED_QUESTION})
    assert posted.status_code == 503 and "has none" in posted.text


@pytest.mark.parametrize(("body", "status", "needle"), [
    ({}, 422, "question"),
    ({"question": ""}, 422, "question"),
    ({"question": "x" * 1001}, 422, "question"),
    ({"question": "why", "rounds": 0}, 422, "rounds"),
    ({"question": "why", "mode": "poetry"}, 422, "mode"),
    ({"question": "why", "temperature": 2}, 422, "temperature"),
    ({"question": "   "}, 400, "question is empty"),
    ({"question": "why", "date_from": "yesterday"}, 400, "cannot read date"),
])
def test_bad_questions_are_refused_before_any_answer(api: TestClient, body, status, needle) -> None:
    for path in ("/api/v1/ask", "/api/v1/ask/stream"):
        response = api.post(path, json=body)
        assert response.status_code == status, response.text
        assert needle in response.json()["error"]["message"]


def test_a_run_stops_when_its_client_stops_listening(ratio_client, uncached_llm) -> None:
    """The consumer leaves after the first search (as a closed stream does): the thread stops at the loop's next
    step instead of drafting, checking and answering for nobody. (The model generates every draft here: a draft
    answered at once from the session's cache could finish the run before the cancellation is seen.)"""
    from ratio.client import Client

    client = Client(ratio_client.connection.url, prefix=ratio_client.layout.prefix, encoder=ratio_client.encoder,
                    llm=uncached_llm)

    async def leave_early() -> tuple[list[str], AnswerRun]:
        run = AnswerRun(client, AskBody(question=GROUNDED_QUESTION, rounds=1), GROUNDED_QUESTION)
        seen = []
        async for kind, value in run.events(300):
            seen.append(value["kind"] if kind == "progress" else kind)
            if seen[-1] == "retrieved":
                break
        return seen, run

    before = {t for t in threading.enumerate() if t.name == "ratio-answer"}
    seen, run = asyncio.run(leave_early())
    assert seen == ["started", "retrieved"] and run.cancelled.is_set()
    worker = ({t for t in threading.enumerate() if t.name == "ratio-answer"} - before)
    for thread in worker:
        thread.join(timeout=120)  # the draft under way finishes; nothing after it starts
        assert not thread.is_alive()
    assert run._queue.empty()  # no draft, check or answer was reported after the client left


def test_remote_client_asks_over_http(answering: TestClient, grounded: dict, live_server: str) -> None:
    with serve(answering.app) as url:
        progress: list[str] = []
        answer = RemoteClient(url).ask(GROUNDED_QUESTION, rounds=1,
                                       on_event=lambda kind, data: progress.append(kind))
    assert answer.status == "answered" and answer.text == grounded["text"]
    assert [c.link for c in answer.citations] == [c["link"] for c in grounded["citations"]]
    assert progress[0] == "started" and "checked" in progress
    with pytest.raises(UnavailableError) as refused:
        RemoteClient(live_server).ask(GROUNDED_QUESTION)
    assert refused.value.status == 503 and refused.value.code == "llm_unavailable"
    with pytest.raises(QueryError, match="cannot read date"):
        RemoteClient(live_server).ask(GROUNDED_QUESTION, date_from="yesterday")


def test_with_a_key_the_ask_page_and_its_stream_open_with_the_cookie_but_the_api_needs_the_header(ratio_client) -> None:
    from ratio.web import create_app

    with TestClient(create_app(ratio_client, api_key="s3cret"), follow_redirects=False) as web:
        assert web.get("/ask").headers["location"].startswith("/login?next=%2Fask")
        assert web.post("/api/v1/ask", json={"question": "why"}).status_code == 401
        web.post("/login", data={"key": "s3cret", "next": "/ask"})
        assert web.get("/ask").status_code == 200
        # the cookie opens the page's stream (a GET); without an LLM it then says so
        stream = web.get("/ui/ask/stream", params={"question": "why"})
        assert stream.status_code == 503 and stream.json()["error"]["code"] == "llm_unavailable"
        assert web.post("/api/v1/ask", json={"question": "why"}).status_code == 401  # writes need the header
        answered = web.post("/api/v1/ask", json={"question": "why"}, headers={"X-API-Key": "s3cret"})
        assert answered.status_code == 503 and answered.json()["error"]["code"] == "llm_unavailable"


def test_an_answer_past_its_deadline_is_a_typed_503_and_stops_before_the_llm(opensearch_settings, aliases, encoder,
                                                                             uncached_llm, tmp_path) -> None:
    app = answering_app(opensearch_settings.url, aliases, encoder, uncached_llm, tmp_path / "answers.sqlite",
                        answer_timeout=0.001)  # shorter than any search
    body = {"question": GROUNDED_QUESTION, **QUICK}
    with TestClient(app) as web:
        response = web.post("/api/v1/ask", json=body)
        assert response.status_code == 503 and response.json()["error"]["code"] == "deadline_exceeded"
        with web.stream("POST", "/api/v1/ask/stream", json=body) as streamed:
            if streamed.status_code == 200:  # the deadline passed once the stream had begun: its last event
                name, data = events(streamed)[-1]
                assert name == "error" and data["code"] == "deadline_exceeded" and data["message"]
            else:  # or while the LLM was being made ready, before it
                streamed.read()
                assert streamed.status_code == 503 and streamed.json()["error"]["code"] == "deadline_exceeded"
        wait_for(lambda: not any(t.name == "ratio-answer" for t in threading.enumerate()), 120,
                 "the cancelled answer runs' threads (ratio-answer) to end")
        assert app.state.service.client.llm.misses == 0  # the cancelled runs stopped before drafting anything

