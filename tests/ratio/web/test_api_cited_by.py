"""Each hit says how many judgments of the corpus cite it (issue 25, item 7): the API's ``cited_by`` (documented in
the OpenAPI schema), the search page's "cited by 2" (nothing for 0), ``ratio search`` and its ``--json``, all read
from the citation graph the judgment page and the cited-by sort read (the real node, the sample corpus)."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from fastapi.testclient import TestClient

from ratio.cli import cli

NAME = "State of U.P. v Anil Singh"  # C99, which C26 and C152 cite (docs/web.md, "One citation graph")


def _hit_items(page: str) -> dict[str, str]:
    """Each hit's list item on the search page, by judgment id."""
    return {m.group(1): m.group(2) for m in re.finditer(r'<li class="hit" data-judgment="([^"]+)">(.*?)</li>\s*(?=<li '
                                                        r'class="hit"|</ol>)', page, re.DOTALL)}


def test_each_hit_says_how_many_corpus_judgments_cite_it(api: TestClient) -> None:
    found = api.get("/api/v1/search", params={"q": NAME, "size": 10}).json()
    counts = {hit["judgment_id"]: hit["cited_by"] for hit in found["hits"]}
    citers = api.get("/api/v1/judgments/C99").json()["cited_by"]
    assert counts["C99"] == len(citers) == 2  # the citation graph the judgment page reads
    assert all(count == 0 for doc, count in counts.items() if doc != "C99"), counts
    sorted_page = api.get("/api/v1/search", params={"q": NAME, "sort": "cited_by", "size": 3}).json()
    assert sorted_page["hits"][0]["judgment_id"] == "C99" and sorted_page["hits"][0]["cited_by"] == 2
    field = api.get("/api/v1/openapi.json").json()["components"]["schemas"]["JudgmentHit"]["properties"]["cited_by"]
    assert field["type"] == "integer" and "cite" in field["description"]

    items = _hit_items(api.get("/", params={"q": NAME}).text)
    assert set(items) == set(counts)
    assert re.search(r'<a class="cited-by" href="/judgments/C99#cited-by"[^>]*>cited by 2</a>', items["C99"])
    assert all('class="cited-by"' not in item for doc, item in items.items() if doc != "C99")  # 0: nothing shown
    assert 'id="cited-by"' in api.get("/judgments/C99").text  # where the link lands


def test_ratio_search_says_it_too(opensearch_settings, aliases) -> None:
    prefix = aliases["judgments"].removesuffix("-judgments")
    base = ["--url", opensearch_settings.url, "--prefix", prefix, "search", NAME, "--size", "10"]
    shown = CliRunner().invoke(cli, base, catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count("cited by 2") == 1 and "cited by 0" not in shown.stdout
    printed = CliRunner().invoke(cli, [*base, "--json"], catch_exceptions=False)
    hits = {hit["judgment_id"]: hit["cited_by"] for hit in json.loads(printed.stdout)["hits"]}
    assert hits["C99"] == 2 and sum(hits.values()) == 2
