"""``ratio ... --json`` prints the REST API's shapes, errors included, and a user's mistake is one line, not a
traceback (the real node and the sample corpus)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from fastapi.testclient import TestClient

from ratio.cli import cli

QUERY = "public servant dishonestly misappropriated property entrusted"
VOLATILE = ("took_ms", "next_cursor")


def _ratio(url: str, *args: str):
    return CliRunner().invoke(cli, ["--url", url, *args], catch_exceptions=False)


def _stable(page: dict) -> dict:
    return {k: v for k, v in page.items() if k not in VOLATILE}


def test_search_json_is_the_api_json(opensearch_settings, aliases, api: TestClient) -> None:
    prefix = aliases["judgments"].removesuffix("-judgments")
    printed = _ratio(opensearch_settings.url, "--prefix", prefix, "search", QUERY, "--size", "3", "--provisions", "2",
                     "--json")
    assert printed.exit_code == 0, printed.output
    answered = api.get("/api/v1/search", params={"q": QUERY, "size": 3, "provisions": 2})
    assert answered.status_code == 200
    said, served = json.loads(printed.stdout), answered.json()
    # next is the server's URL of the following page: the CLI has no address to give, so it prints null and the
    # same next_cursor; everything else is the API's JSON
    assert said.pop("next") is None and served.pop("next").endswith(f"cursor={served['next_cursor']}")
    assert _stable(said) == _stable(served)
    assert said["hits"][0]["decision_date"][4] == "-"  # ISO dates in JSON


def test_a_missing_index_is_one_line_or_the_api_error(opensearch_settings) -> None:
    said = _ratio(opensearch_settings.url, "--prefix", "ratio-test-nosuch", "search", "x")
    assert said.exit_code == 1 and said.stdout == ""
    assert said.stderr.count("\n") == 1 and "Traceback" not in said.stderr
    assert said.stderr.startswith("Error: ") and "no index ratio-test-nosuch-judgments" in said.stderr
    as_json = _ratio(opensearch_settings.url, "--prefix", "ratio-test-nosuch", "search", "x", "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)["error"]["code"] == "index_not_found"


def test_query_mistakes_and_a_node_that_is_down_are_said_plainly(opensearch_settings, aliases) -> None:
    prefix = aliases["judgments"].removesuffix("-judgments")
    quote = _ratio(opensearch_settings.url, "--prefix", prefix, "search", '"open quote', "--json")
    assert quote.exit_code == 1
    error = json.loads(quote.stdout)["error"]
    assert error["code"] == "bad_query" and "never closes" in error["message"]
    usage = _ratio(opensearch_settings.url, "search", "x", "--size", "0", "--json")
    assert usage.exit_code == 2 and json.loads(usage.stdout)["error"]["code"] == "usage_error"
    down = _ratio("http://127.0.0.1:9", "--prefix", prefix, "search", "x")
    assert down.exit_code == 1 and down.stderr.count("\n") == 1 and "Traceback" not in down.stderr
    assert "did not answer" in down.stderr


def test_read_commands_print_the_api_json(opensearch_settings, aliases, api: TestClient) -> None:
    prefix = aliases["judgments"].removesuffix("-judgments")
    judgment = _ratio(opensearch_settings.url, "--prefix", prefix, "judgment", "C7", "--json")
    assert judgment.exit_code == 0, judgment.output
    assert json.loads(judgment.stdout) == api.get("/api/v1/judgments/C7").json()
    shown = _ratio(opensearch_settings.url, "--prefix", prefix, "judgment", "C7")
    assert shown.exit_code == 0 and "sentences; roles" in shown.stdout
    why = _ratio(opensearch_settings.url, "--prefix", prefix, "explain", QUERY, "C7", "--json")
    assert why.exit_code == 0, why.output
    assert json.loads(why.stdout) == api.get("/api/v1/explain", params={"q": QUERY, "judgment_id": "C7"}).json()
    facts = "punishment for criminal breach of trust"
    found = _ratio(opensearch_settings.url, "--prefix", prefix, "provisions", facts, "--size", "3", "--json")
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout) == api.get("/api/v1/provisions", params={"q": facts, "size": 3}).json()
    missing = _ratio(opensearch_settings.url, "--prefix", prefix, "judgment", "no-such-id")
    assert missing.exit_code == 1 and missing.stderr == "Error: the corpus has no judgment 'no-such-id'\n"
    as_json = _ratio(opensearch_settings.url, "--prefix", prefix, "judgment", "no-such-id", "--json")
    assert json.loads(as_json.stdout) == api.get("/api/v1/judgments/no-such-id").json()


def test_ask_without_an_llm_is_the_api_s_llm_unavailable(opensearch_settings, aliases, monkeypatch) -> None:
    """``ratio ask --json`` with no LLM configured prints the body ``POST /api/v1/ask`` answers then (503
    ``llm_unavailable``), and without ``--json`` one line."""
    monkeypatch.delenv("RATIO_LLM", raising=False)
    prefix = aliases["judgments"].removesuffix("-judgments")
    printed = _ratio(opensearch_settings.url, "--prefix", prefix, "ask", "what is dowry death", "--json")
    assert printed.exit_code == 1
    assert json.loads(printed.stdout)["error"]["code"] == "llm_unavailable"
    said = _ratio(opensearch_settings.url, "--prefix", prefix, "ask", "what is dowry death")
    assert said.exit_code == 1 and said.stderr.count("\n") == 1 and "needs an LLM" in said.stderr
