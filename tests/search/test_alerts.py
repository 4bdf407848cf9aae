"""Saved searches as percolator queries, checked against judgments indexed on the real node, with webhooks.

Three sample judgments are indexed once for the module (the real encoder and role labeller, as the search
tests do); each test saves its own searches into a fresh saved-search index. Webhooks are real HTTP servers
on loopback; the failing one is a port nothing listens on.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import ConnectionSettings, IndexLayout, create_indices
from backends.webhooks import WebhookPolicy
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from ratio.cli import cli
from search import alerts
from search.query.errors import QueryError, UnbalancedQuoteError, UnknownFieldError

JUDGMENTS = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"
# C1: Masud Khan v State Of Uttar Pradesh, 1973, internment under the Foreigners (Internment) Order.
# C9: West Bengal State Electricity Board v Desh Bandhu Ghosh, 1985, an arbitrary regulation.
# C130: Mohd. Iqbal Ahmed v State of Andhra Pradesh, 1979, sanction for a prosecution for illegal gratification.
SAMPLE = ["C1", "C9", "C130"]
LOOPBACK = WebhookPolicy.from_entries(["127.0.0.1"])  # the test hooks listen on loopback: allowed by name


@pytest.fixture(scope="module")
def corpus(client: OpenSearch, encoder, tmp_path_factory) -> Iterator[tuple[IndexLayout, list[str]]]:
    """A layout holding the three judgments; yields it and the ids the writer reported as indexed."""
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    try:
        report = create_indices(client, layout, mappings.IndexOptions(dimension=384))
        assert report["saved_searches"]["created"], report["saved_searches"]  # the node must have percolator
        aliases = layout.aliases()
        labeller = RoleLabeller.load(encoder, cache_dir=tmp_path_factory.mktemp("embeddings"))
        paths = [str(JUDGMENTS / f"{j}.txt") for j in SAMPLE]
        written = IndexWriter(client, aliases, Pipeline(labeller)).run(load(paths))
        assert written.failed == [] and sorted(written.indexed_ids) == sorted(SAMPLE)
        yield layout, written.indexed_ids
    finally:
        client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


@pytest.fixture
def aliases(client: OpenSearch, corpus) -> dict[str, str]:
    """The corpus's aliases with no saved search left over from another test."""
    layout, _ = corpus
    aliases = layout.aliases()
    for search in alerts.list_searches(client, aliases):
        alerts.delete_search(client, aliases, search.name)
    return aliases


def _matched(found: list[alerts.Alert]) -> dict[str, list[str]]:
    return {a.search.name: [j.judgment_id for j in a.judgments] for a in found}


def test_saved_searches_catch_the_judgments_they_describe(client: OpenSearch, corpus, aliases) -> None:
    _, indexed = corpus
    alerts.save_search(client, aliases, "internment", "foreigners internment")
    alerts.save_search(client, aliases, "electricity", '"electricity board" arbitrary')
    alerts.save_search(client, aliases, "gratification", '"illegal gratification" sanction')
    alerts.save_search(client, aliases, "nothing", '"habeas corpus" AND "transfer of property"')
    found = alerts.check(client, aliases, indexed)
    assert _matched(found) == {"electricity": ["C9"], "gratification": ["C130"], "internment": ["C1"]}
    internment = next(a for a in found if a.search.name == "internment")
    (c1,) = internment.judgments
    assert c1.title == "Masud Khan v State Of Uttar Pradesh"
    assert c1.court == "Supreme Court of India" and c1.decision_date == "1973-09-26"
    assert c1.roles, "the roles of the matching chunks are reported"
    assert internment.search.query == "foreigners internment"
    # only the judgments asked about are checked
    assert _matched(alerts.check(client, aliases, ["C9"])) == {"electricity": ["C9"]}
    assert alerts.check(client, aliases, []) == []


def _roles_of_chunks_with(client: OpenSearch, aliases: dict[str, str], judgment_id: str, words: str) -> set[str]:
    body = {"size": 100, "_source": ["role"], "query": {"bool": {
        "must": [{"match": {"text": {"query": words, "operator": "and"}}}],
        "filter": [{"term": {"judgment_id": judgment_id}}]}}}
    return {h["_source"]["role"] for h in client.search(index=aliases["chunks"], body=body)["hits"]["hits"]}


def test_a_role_filter_restricts_to_chunks_of_that_role(client: OpenSearch, corpus, aliases) -> None:
    _, indexed = corpus
    with_word = _roles_of_chunks_with(client, aliases, "C1", "passport")
    assert with_word, "C1 speaks of the petitioner's passport"
    role = sorted(with_word)[0]
    absent = next(r for r in ("ruling_present_court", "precedent_relied", "argument_petitioner", "statute", "facts")
                  if r not in with_word)
    alerts.save_search(client, aliases, "passport-in-role", f"passport role:{role}")
    alerts.save_search(client, aliases, "passport-elsewhere", f"passport role:{absent}")
    alerts.save_search(client, aliases, "passport-option", "passport",
                       options=alerts.FilterOptions(roles=(absent,)))
    alerts.save_search(client, aliases, "passport-boosted", "passport",
                       options=alerts.FilterOptions(roles=(absent,), role_mode="boost"))
    found = {a.search.name: a for a in alerts.check(client, aliases, indexed)}
    assert set(found) == {"passport-in-role", "passport-boosted"}, "boost restricts nothing; a named role does"
    assert [j.judgment_id for j in found["passport-in-role"].judgments] == ["C1"]
    assert found["passport-in-role"].judgments[0].roles == (role,)


@pytest.mark.parametrize(("query", "options", "matches"), [
    ('foreigners court:"Supreme Court of India"', {}, True),
    ('foreigners court:"Delhi High Court"', {}, False),
    ("foreigners year:1970..1975", {}, True),
    ("foreigners year:1980..1990", {}, False),
    ("foreigners", {"date_from": "1973-09-01", "date_to": "1973-09-30"}, True),
    ("foreigners", {"date_from": "1974"}, False),
    ("foreigners", {"judges": ("Alagiriswami",)}, True),
    ("foreigners", {"judges": ("Chinnappa",)}, False),
    ("foreigners", {"courts": ("supreme court of india",)}, True),
    ('court:"Supreme Court of India" year:1985', {}, "C9"),
])
def test_filters_decide_which_judgments_match(client: OpenSearch, corpus, aliases, query: str, options: dict,
                                              matches: bool | str) -> None:
    _, indexed = corpus
    alerts.save_search(client, aliases, "filtered", query, options=alerts.FilterOptions(**options))
    found = _matched(alerts.check(client, aliases, indexed))
    expected = {"filtered": [matches if isinstance(matches, str) else "C1"]} if matches else {}
    assert found == expected


def test_bad_queries_names_and_webhooks_are_refused_with_a_clear_message(client: OpenSearch, aliases) -> None:
    with pytest.raises(UnbalancedQuoteError, match="never closes"):
        alerts.save_search(client, aliases, "broken", 'murder "common intention')
    with pytest.raises(UnknownFieldError, match="unknown field 'colour:'"):
        alerts.save_search(client, aliases, "broken", "colour:red murder")
    with pytest.raises(QueryError, match="unknown role"):
        alerts.save_search(client, aliases, "broken", "murder role:gossip")
    with pytest.raises(QueryError, match="name"):
        alerts.save_search(client, aliases, "  ", "murder")
    with pytest.raises(QueryError, match="webhook"):
        alerts.save_search(client, aliases, "hook", "murder", webhook="ftp://example.org/x")
    assert alerts.list_searches(client, aliases) == [], "nothing is stored when validation fails"


def test_names_are_unique_unless_replaced_and_delete_removes(client: OpenSearch, corpus, aliases) -> None:
    _, indexed = corpus
    alerts.save_search(client, aliases, "watch", "foreigners")
    with pytest.raises(alerts.DuplicateSearchError, match="exists"):
        alerts.save_search(client, aliases, "watch", "electricity")
    alerts.save_search(client, aliases, "watch", '"electricity board"', replace=True)
    assert [(s.name, s.query) for s in alerts.list_searches(client, aliases)] == [("watch", '"electricity board"')]
    assert _matched(alerts.check(client, aliases, indexed)) == {"watch": ["C9"]}
    alerts.delete_search(client, aliases, "watch")
    assert alerts.list_searches(client, aliases) == []
    assert alerts.check(client, aliases, indexed) == []
    with pytest.raises(alerts.UnknownSearchError, match="no saved search"):
        alerts.delete_search(client, aliases, "watch")


def test_without_a_saved_search_index_nothing_is_checked(client: OpenSearch, layout: IndexLayout) -> None:
    bare = layout.aliases()
    assert alerts.list_searches(client, bare) == []
    assert alerts.check(client, bare, ["C1"]) == []
    with pytest.raises(alerts.AlertsUnavailableError, match="ratio indices create"):
        alerts.save_search(client, bare, "x", "murder")


# ---------------------------------------------------------------- webhooks

class _Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict]]] = []  # each fixture makes a subclass with its own list

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        type(self).received.append((self.path, json.loads(self.rfile.read(length))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, dict]]]]:
    """A real HTTP server on a free loopback port; yields its URL and the (path, JSON body) it received."""
    handler = type("Receiver", (_Receiver,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler.received
    finally:
        server.shutdown()
        server.server_close()


def _dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"  # nothing listens there any more: connection refused


def test_webhooks_receive_the_alerts_and_a_dead_one_does_not_stop_the_rest(client: OpenSearch, corpus, aliases,
                                                                           receiver) -> None:
    _, indexed = corpus
    url, received = receiver
    dead = _dead_url()
    alerts.save_search(client, aliases, "a-dead", "foreigners", webhook=dead, policy=LOOPBACK)
    alerts.save_search(client, aliases, "b-live", '"electricity board"', webhook=f"{url}/ratio", policy=LOOPBACK)
    alerts.save_search(client, aliases, "c-silent", "sanction")  # no webhook: nothing sent
    found = alerts.check(client, aliases, indexed)
    assert [a.search.name for a in found] == ["a-dead", "b-live", "c-silent"]
    deliveries = alerts.notify(found, timeout=2, attempts=2, backoff=0.01, policy=LOOPBACK)
    assert [(d.name, d.ok) for d in deliveries] == [("a-dead", False), ("b-live", True)]
    failed, sent = deliveries
    assert failed.webhook == dead and failed.attempts == 2 and failed.status is None
    assert "ConnectionError" in failed.error
    assert sent.status == 204 and sent.attempts == 1 and sent.error is None
    assert len(received) == 1
    path, payload = received[0]
    assert path == "/ratio"
    assert payload["event"] == "ratio.saved_search.matched"
    assert payload["saved_search"]["name"] == "b-live" and payload["saved_search"]["query"] == '"electricity board"'
    assert "webhook" not in payload["saved_search"]
    assert payload["count"] == 1
    (judgment,) = payload["judgments"]
    assert judgment["judgment_id"] == "C9"
    assert judgment["title"].startswith("West Bengal State Electricity Board")
    assert dt.datetime.fromisoformat(payload["sent_at"]).tzinfo is not None


# ---------------------------------------------------------------- the CLI

@pytest.fixture
def ratio(opensearch_settings: ConnectionSettings):
    """Run ``ratio --url ... --prefix PREFIX ARGS`` in-process; returns the click result."""
    runner = CliRunner()

    def run(prefix: str, *args: str):
        return runner.invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, *args],
                             catch_exceptions=False)
    return run


def test_the_alerts_commands(client: OpenSearch, corpus, aliases, ratio, receiver, monkeypatch) -> None:
    layout, _ = corpus
    refused = ratio(layout.prefix, "alerts", "save", "internment", "foreigners", "--webhook", receiver[0])
    assert refused.exit_code == 1 and "loopback" in refused.output, "loopback hooks need the allow-list"
    monkeypatch.setenv("RATIO_WEBHOOK_ALLOW", "127.0.0.1")
    url, received = receiver
    result = ratio(layout.prefix, "alerts", "save", "internment", "foreigners", "--from", "1970", "--to", "1975",
                   "--webhook", url)
    assert result.exit_code == 0, result.output
    assert "saved 'internment'" in result.output
    result = ratio(layout.prefix, "alerts", "save", "role-filtered", "foreigners", "--role", "preamble",
                   "--judge", "Alagiriswami")
    assert result.exit_code == 0, result.output
    bad = ratio(layout.prefix, "alerts", "save", "broken", 'murder "common intention')
    assert bad.exit_code == 1 and "never closes" in bad.output
    listed = json.loads(ratio(layout.prefix, "alerts", "list", "--json").stdout)
    assert [(s["name"], s["options"]["date_from"], s["webhook"]) for s in listed] == [
        ("internment", "1970", url), ("role-filtered", None, None)]
    assert listed[1]["options"]["roles"] == ["preamble"]
    checked = ratio(layout.prefix, "alerts", "check", "--judgment", "C1", "--judgment", "C9", "--notify", "--json")
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert data["checked"] == 2
    assert [(a["search"]["name"], [j["judgment_id"] for j in a["judgments"]]) for a in data["alerts"]] == [
        ("internment", ["C1"])]
    assert [(d["name"], d["ok"]) for d in data["deliveries"]] == [("internment", True)]
    assert [p["saved_search"]["name"] for _, p in received] == ["internment"]
    since = ratio(layout.prefix, "alerts", "check", "--since", "2000-01-01T00:00:00")
    assert since.exit_code == 0 and "checked 3 judgment(s): 1 saved search(es) matched" in since.output
    assert "C1  Masud Khan v State Of Uttar Pradesh" in since.output
    future = ratio(layout.prefix, "alerts", "check", "--since", "2999-01-01")
    assert "checked 0 judgment(s)" in future.output
    assert ratio(layout.prefix, "alerts", "check").exit_code == 2, "check needs --judgment or --since"
    assert ratio(layout.prefix, "alerts", "delete", "internment").exit_code == 0
    missing = ratio(layout.prefix, "alerts", "delete", "internment")
    assert missing.exit_code == 1 and "no saved search is named 'internment'" in missing.output
    assert "role-filtered" in ratio(layout.prefix, "alerts", "list").output


def test_ratio_index_reports_the_saved_searches_its_new_judgments_match(client: OpenSearch, layout: IndexLayout,
                                                                        ratio) -> None:
    assert ratio(layout.prefix, "alerts", "save", "electricity", '"electricity board"').exit_code == 0
    assert ratio(layout.prefix, "alerts", "save", "internment", "foreigners internment").exit_code == 0
    result = ratio(layout.prefix, "index", str(JUDGMENTS / "C9.txt"), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["judgments_indexed"] == 1
    assert [(a["search"]["name"], [j["judgment_id"] for j in a["judgments"]]) for a in report["alerts"]] == [
        ("electricity", ["C9"])]
    again = json.loads(ratio(layout.prefix, "index", str(JUDGMENTS / "C9.txt"), "--json").stdout)
    assert again["judgments_unchanged"] == 1 and again["alerts"] == [], "an unchanged judgment alerts nobody"
