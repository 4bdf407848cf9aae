"""One box for everything a lawyer pastes: a whole judgment pasted into the search box gets the hits ``/brief`` gives
for the same text, on every door (``ratio.Client``, ``RemoteClient``, the API by GET and POST, the page, the CLI) and
in ``ratio eval run``'s ``default``, which prepares the text through the same function (the real node, the sample
corpus, the shipped ranker)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from lab.evaluate.systems import Runner
from ratio.cli import cli
from ratio.remote import RemoteClient
from search.query.understand import MAX_PASTE_CHARS, kind_rules

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"
# a whole judgment of the samples, as a lawyer copies it from a report (5,088 words: five times what one engine
# query holds); the box reads it whole, as /brief reads a brief
PASTED = (SAMPLES / "judgments" / "C12.txt").read_text(encoding="utf-8")
VOLATILE = {"took_ms", "next_cursor", "prev_cursor", "next"}


def _ids(page) -> list[str]:
    return [hit.judgment_id for hit in page.hits]


@pytest.fixture(scope="module")
def brief_ids(ratio_client) -> list[str]:
    return _ids(ratio_client.search_by_document(PASTED, size=10))


def test_a_pasted_judgment_gets_the_briefs_hits_and_says_it_was_read_whole(ratio_client, brief_ids) -> None:
    assert len(PASTED.split()) > 4 * 1000 and kind_rules().whole_words <= len(PASTED.split())
    page = ratio_client.search(PASTED, size=10)
    assert page.ranking.startswith("ranker:") and _ids(page) == brief_ids and len(brief_ids) == 10
    assert any("read whole as a document" in note for note in page.notes)
    assert "shortened" not in " ".join(page.notes)  # the ranker read every word: no "left out" note


def test_the_evaluations_default_is_the_box_and_the_cut_is_not(ratio_client, brief_ids) -> None:
    """``default`` scores what the box does with the same text; the former box (the text cut to what one engine
    query holds, ``default_cut``) ranks otherwise, so this test would see the eval drift from the box."""
    runner = Runner(ratio_client.searcher)
    assert runner.rank("default", PASTED)[:10] == brief_ids == runner.rank("default_document", PASTED)[:10]
    assert runner.rank("default_cut", PASTED)[:10] != brief_ids


def test_the_remote_client_and_both_api_verbs_give_the_same_page(ratio_client, live_server: str,
                                                                  brief_ids) -> None:
    local = ratio_client.search(PASTED, size=10)
    far = RemoteClient(live_server).search(PASTED, size=10)  # POST /api/v1/search
    assert far.model_dump(exclude=VOLATILE) == local.model_dump(exclude=VOLATILE)
    got = requests.get(f"{live_server}/api/v1/search", params={"q": PASTED, "size": 10}, timeout=120)  # a long URL
    assert got.status_code == 200, got.text[:300]
    assert [hit["judgment_id"] for hit in got.json()["hits"]] == brief_ids


def test_the_page_and_the_cli_give_the_briefs_hits(api, opensearch_settings, aliases, brief_ids) -> None:
    html = api.get("/", params={"q": PASTED}).text
    shown = list(dict.fromkeys(re.findall(r'<h2><a href="/judgments/([^"?#]+)">', html)))
    assert shown == brief_ids
    assert "read whole as a brief is" in html
    prefix = aliases["judgments"].removesuffix("-judgments")
    printed = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "search", PASTED,
                                       "--json"], catch_exceptions=False)
    assert printed.exit_code == 0, printed.output
    assert [hit["judgment_id"] for hit in json.loads(printed.stdout)["hits"]] == brief_ids


def test_a_paste_past_the_box_is_refused_by_name(ratio_client, api) -> None:
    import ratio

    with pytest.raises(ratio.QueryError, match=f"the search box takes {MAX_PASTE_CHARS:,}"):
        ratio_client.search("word " * (MAX_PASTE_CHARS // 5 + 1))
    answered = api.post("/api/v1/search", json={"q": "x" * (MAX_PASTE_CHARS + 1)})
    assert answered.status_code == 422 and "q" in answered.text
