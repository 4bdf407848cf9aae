"""The search page around its results (issue 25, item 7) on the real node over the sample corpus: its heading and
the skip link to the results, and how the box read the query. In Chromium: test_web_results_browser.py."""

from __future__ import annotations

import html
import re

from fastapi.testclient import TestClient


def test_the_results_page_has_a_heading_and_a_skip_link_to_the_results(api: TestClient) -> None:
    shown = api.get("/", params={"q": "murder"}).text
    body = shown[shown.index("<body>"):]
    first_link = re.search(r"<a [^>]*>[^<]*</a>", body)
    assert first_link and first_link.group(0) == '<a class="skip" href="#results">Skip to results</a>'
    assert re.search(r'<section class="results" id="results" tabindex="-1"', shown)
    headings = re.findall(r"<h1[^>]*>(.*?)</h1>", shown, re.DOTALL)
    assert [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in headings] == ["Search results for murder"]
    filters_only = api.get("/", params={"court": "Supreme Court of India"}).text
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", filters_only) == ["Judgments passing the filters"]
    home = api.get("/").text  # no results: the skip link goes to the content, the page's own heading stays
    assert '<a class="skip" href="#main">Skip to content</a>' in home and "<h1>Search court judgments</h1>" in home
    refused = api.get("/", params={"q": '"open quote'})
    assert refused.status_code == 400 and len(re.findall(r"<h1", refused.text)) == 1


def test_the_page_says_how_it_read_the_query(api: TestClient) -> None:
    pasted = ("The deceased was found dead in her matrimonial home with burn injuries. Her father said that the "
              'husband and his mother had demanded a scooter, and the neighbour said "she cried every night since the '
              "wedding and nobody came to help her in the house")
    assert len(pasted.split()) > 30 and pasted.count('"') == 1
    page = api.get("/", params={"q": pasted})
    assert page.status_code == 200 and "never closes" not in page.text
    note = re.search(r'<p class="read-as[^"]*" id="read-as">(.*?)</p>', page.text)
    words = len(pasted.split())
    assert note and html.unescape(note.group(1)) == (f"Read as pasted text ({words} words, read whole as a brief is): "
                                                     "quotes and operators are not parsed.")
    named = api.get("/", params={"q": "Kashmiri Lal v State Of Haryana"}).text
    assert re.search(r'id="read-as">Read as a case name\.</p>', named)
    assert 'id="read-as"' not in api.get("/", params={"q": "murder evidence"}).text  # plain words: nothing to say
