"""Heavy requests that cost what they read and stop at their deadline (issue 29, items 2 and 5).

Citation checks run in a pool of worker processes started with the app: a small text is answered by a warm
worker, a check past the deadline kills its worker and a fresh one takes its place, and checks beyond the pool
and its queue are refused with Retry-After. A large document search runs off the event loop under an OpenSearch
deadline: /health answers while it runs, and past the deadline the node cancels its searches and the abandoned
work stops at its next request. Every test runs the real app over the real node and the sample corpus.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import psutil
import pytest
import requests
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch, helpers

from backends.opensearch import ConnectionSettings, IndexLayout, connect
from backends.opensearch.deadline import DeadlinePassedError, opensearch_deadline
from ratio.web import create_app
from tests.waiting import serve, wait_for

DENSE = "Held in (2017) 10 SCC 1 under section 302 of the Indian Penal Code, 1860 and Art. 21. "
MEGABYTE = DENSE * (1_000_000 // len(DENSE))  # about 1.5 s of extraction: 35,000 citations
SAMPLES = Path(__file__).resolve().parents[2].parent / "samples" / "aila-2019" / "judgments"


def _is_302(report: dict) -> bool:
    return [(c["kind"], c["canonical"]) for c in report["checks"]] == [("provision", "IPC s. 302")]


# ---------------------------------------------------------------- item 2: a citation check that costs what it reads

def test_the_pool_starts_with_the_app_and_answers_small_checks_from_warm_workers(ratio_client) -> None:
    app = create_app(ratio_client, citation_workers=2)
    pool = app.state.extract_citations.pool
    assert pool.pids() == [], "nothing runs before the app starts"
    with serve(app) as url:
        workers = pool.pids()
        assert len(workers) == 2, "the workers start with the server, before the first check"
        for _ in range(3):
            answer = requests.post(f"{url}/api/v1/citations/check", json={"text": "Section 302 IPC"}, timeout=60)
            assert answer.status_code == 200 and _is_302(answer.json()), answer.text[:300]
        assert pool.pids() == workers, "the same long-lived workers answer every check"
        # what a worker has imported (eval, a builtin, is pickled by name and runs in the worker)
        imported = set(pool.run(30, eval, "sorted(__import__('sys').modules)"))
        assert "legal.citations" in imported
        # the server's entry script (here pytest's) is not run again in a worker, nor anything heavy imported
        assert pool.run(30, eval, "getattr(__import__('sys').modules['__main__'], '__file__', None)") is None
        heavy = {"ratio.cli", "torch", "fastapi", "opensearchpy", "pytest"}
        assert not imported & heavy, sorted(imported & heavy)
    assert pool.pids() == [] and not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
                                         for pid in workers), "the workers end with the server"


def test_a_check_past_the_deadline_is_a_503_and_a_fresh_worker_takes_the_next(ratio_client) -> None:
    app = create_app(ratio_client, heavy_timeout=0.3, citation_workers=1)
    pool = app.state.extract_citations.pool
    with TestClient(app) as web:
        (before,) = pool.pids()
        slow = web.post("/api/v1/citations/check", json={"text": MEGABYTE})
        assert slow.status_code == 503 and slow.json()["error"]["code"] == "deadline_exceeded", slow.text[:300]
        assert slow.headers["retry-after"]
        (after,) = pool.pids()
        assert after != before and not psutil.pid_exists(before), "the worker past its deadline was killed"
        small = web.post("/api/v1/citations/check", json={"text": "Section 302 IPC"})
        assert small.status_code == 200 and _is_302(small.json()), small.text[:300]
        assert pool.pids() == [after]


def test_checks_beyond_the_pool_and_its_queue_are_refused_with_retry_after(ratio_client) -> None:
    import time

    app = create_app(ratio_client, citation_workers=1)  # one worker, four checks may wait
    pool = app.state.extract_citations.pool
    capacity = pool.processes + pool.queue
    outcomes: list[str] = []

    def occupy() -> None:  # a task that holds a worker (or a place in the queue) until the pool closes
        try:
            pool.run(120, time.sleep, 120)
        except RuntimeError as exc:
            outcomes.append(type(exc).__name__)

    with serve(app) as url:
        holders = [threading.Thread(target=occupy) for _ in range(capacity)]
        for holder in holders:
            holder.start()
        wait_for(lambda: pool.admitted == capacity, 30, f"{capacity} tasks to occupy the pool and its queue")
        refused = requests.post(f"{url}/api/v1/citations/check", json={"text": "Section 302 IPC"}, timeout=60)
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "busy", refused.text[:300]
        assert int(refused.headers["retry-after"]) > 0
        assert requests.get(f"{url}/api/v1/health", timeout=60).status_code == 200
    for holder in holders:  # the server's end closed the pool: the held worker killed, the waiting tasks woken
        holder.join(30)
    assert not any(h.is_alive() for h in holders) and len(outcomes) == capacity


def test_eight_concurrent_checks_run_in_the_pool_alone(ratio_client) -> None:
    app = create_app(ratio_client, citation_workers=2)
    pool = app.state.extract_citations.pool
    me = psutil.Process()
    with serve(app) as url:
        workers = set(pool.pids())
        processes_before = {p.pid for p in me.children(recursive=True)}
        seen: set[int] = set()
        answers: list[requests.Response] = []
        text = DENSE * 2000  # 170 kB each

        def check() -> None:
            answers.append(requests.post(f"{url}/api/v1/citations/check", json={"text": text}, timeout=120))

        checks = [threading.Thread(target=check) for _ in range(8)]
        for thread in checks:
            thread.start()
        while alive := [t for t in checks if t.is_alive()]:
            seen |= {p.pid for p in me.children(recursive=True)}
            alive[0].join(0.02)
        for thread in checks:
            thread.join()
        assert [a.status_code for a in answers] == [200] * 8, [a.text[:200] for a in answers if a.status_code != 200]
        assert all(a.json()["characters"] == len(text) for a in answers)
        assert seen <= processes_before, f"processes started for checks: {seen - processes_before}"
        assert set(pool.pids()) == workers


# ---------------------------------------------------------------- item 5: a large document search and /health

def _brief(size: int = 990_000) -> str:
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in sorted(SAMPLES.glob("*.txt")))
    return (text * (size // len(text) + 1))[:size]


def test_health_answers_while_a_large_document_search_runs(ratio_client, monkeypatch) -> None:
    app = create_app(ratio_client)
    client = app.state.service.client
    search = client.search_by_document
    started = threading.Event()
    order: list[str] = []

    def watched(*args, **kwargs):  # the real document search, which says when it begins and ends
        started.set()
        try:
            return search(*args, **kwargs)
        finally:
            order.append("search finished")

    monkeypatch.setattr(client, "search_by_document", watched)
    outcome: dict[str, requests.Response] = {}
    with serve(app) as url:
        def post() -> None:
            outcome["search"] = requests.post(f"{url}/api/v1/search/document", json={"text": _brief()}, timeout=300)

        poster = threading.Thread(target=post)
        poster.start()
        assert started.wait(120), "the server did not begin the document search within 120 s"
        health = requests.get(f"{url}/api/v1/health", timeout=60)
        order.append("health answered")
        poster.join(300)
    assert health.status_code == 200
    assert order == ["health answered", "search finished"], "health waited for the document search"
    assert outcome["search"].status_code == 200, outcome["search"].text[:300]
    assert outcome["search"].json()["hits"]


def test_document_searches_beyond_the_gate_are_refused_with_retry_after(ratio_client, monkeypatch) -> None:
    from ratio.web.offload import Gate

    app = create_app(ratio_client)
    app.state.document_searches = Gate(running=1, waiting=0)
    client = app.state.service.client
    search = client.search_by_document
    started, refused = threading.Event(), threading.Event()

    def held(*args, **kwargs):  # the real search, begun once the second request has had its answer
        started.set()
        refused.wait(60)
        return search(*args, **kwargs)

    monkeypatch.setattr(client, "search_by_document", held)
    outcome: dict[str, requests.Response] = {}
    with serve(app) as url:
        def post() -> None:
            outcome["first"] = requests.post(f"{url}/api/v1/search/document", json={"text": _brief(50_000)},
                                             timeout=120)

        first = threading.Thread(target=post)
        first.start()
        assert started.wait(60), "the first document search did not begin"
        second = requests.post(f"{url}/api/v1/search/document", json={"text": _brief(50_000)}, timeout=60)
        page = requests.post(f"{url}/brief", data={"text": _brief(50_000)}, timeout=60)  # the page shares the gate
        refused.set()
        first.join(120)
        third = requests.post(f"{url}/api/v1/search/document", json={"text": _brief(50_000)}, timeout=120)
    assert second.status_code == 503 and second.json()["error"]["code"] == "busy", second.text[:300]
    assert int(second.headers["retry-after"]) > 0
    assert page.status_code == 503 and "large documents already" in page.text
    assert outcome["first"].status_code == 200 and third.status_code == 200, "the gate lets the next one in"


def _search_tasks(client: OpenSearch, index_prefix: str) -> list[str]:
    tasks = client.tasks.list(actions="*search*", detailed=True)
    return [task.get("description", "") for node in tasks["nodes"].values() for task in node["tasks"].values()
            if index_prefix in task.get("description", "")]


def test_a_document_search_past_its_deadline_is_a_503_and_its_work_stops(ratio_client, client: OpenSearch,
                                                                          aliases, monkeypatch) -> None:
    app = create_app(ratio_client, heavy_timeout=0.5)
    ratio = app.state.service.client
    search = ratio.search_by_document
    ended = threading.Event()
    outcome: dict[str, BaseException | None] = {}

    def watched(*args, **kwargs):  # the real document search, which says how it ended
        try:
            result = search(*args, **kwargs)
            outcome["error"] = None
            return result
        except BaseException as exc:
            outcome["error"] = exc
            raise
        finally:
            ended.set()

    monkeypatch.setattr(ratio, "search_by_document", watched)
    with TestClient(app) as web:
        late = web.post("/api/v1/search/document", json={"text": _brief()})
        assert late.status_code == 503 and late.json()["error"]["code"] == "deadline_exceeded", late.text[:300]
        assert late.headers["retry-after"]
        assert web.get("/api/v1/health").status_code == 200
    assert ended.wait(120), "the abandoned document search did not end"
    assert isinstance(outcome["error"], DeadlinePassedError), f"it ran on past the deadline: {outcome['error']!r}"
    prefix = aliases["judgments"].removesuffix("-judgments")
    wait_for(lambda: not _search_tasks(client, prefix), 30, "no search of the sample indices left on the node")


def test_a_search_running_on_the_node_is_cancelled_at_the_deadline(client: OpenSearch, opensearch_settings,
                                                                   layout: IndexLayout) -> None:
    """The node itself stops a search when the work's deadline passes (cancel_after_time_interval), and the
    caller hears DeadlinePassedError; unbounded, the same search would run for about 10 s."""
    index = f"{layout.prefix}-slow"
    client.indices.create(index=index, body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}})
    # about 0.5 ms of script a judgment: the node checks for cancellation every 2,048 documents or more
    helpers.bulk(client, ({"_index": index, "_id": str(i), "n": i} for i in range(20_000)), refresh=True)
    slow = {"size": 1, "query": {"script_score": {"query": {"match_all": {}}, "script": {
        "source": "double s = 0; for (int i = 0; i < 20000; i++) { s += Math.sqrt(i + doc['n'].value); } return s;"}}}}
    settings = ConnectionSettings(opensearch_settings.url, opensearch_settings.user, opensearch_settings.password,
                                  opensearch_settings.verify_certs)
    label = f"ratio-test-{uuid.uuid4().hex[:8]}"
    with opensearch_deadline(1.0, label), pytest.raises(DeadlinePassedError) as caught:
        connect(settings).search(index=index, body=slow)
    assert "cancel" in str(caught.value.__context__).lower(), "the node cancelled it, not the search ending late"

    def ours() -> list[str]:
        tasks = client.tasks.list(actions="*search*", detailed=True)
        return [t["action"] for n in tasks["nodes"].values() for t in n["tasks"].values()
                if t.get("headers", {}).get("X-Opaque-Id") == label]

    wait_for(lambda: not ours(), 10, f"the node to end the search tasks of {label}")
    with opensearch_deadline(0.0, label), pytest.raises(DeadlinePassedError):  # nothing is sent after it
        connect(settings).count(index=index)
