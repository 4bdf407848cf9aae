"""Hit to paragraph in real headless Chromium: a hit's passage link lands on its highlighted passage, a
pinpoint link lands on its paragraph, and a citation in the text leads to the cited judgment, which lists its
citer. Screenshots under test-artifacts/screenshots/paragraphs-*.png."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.browsing import ARTIFACTS, shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
expect = playwright_api.expect
QUERY = "common intention murder"


def test_a_hit_link_lands_on_its_highlighted_passage(page) -> None:
    page.goto(f"/?q={QUERY}")
    page.wait_for_selector("ol.hits li.hit")
    links = page.locator("ol.hits li.hit .passage-link")
    assert links.count() >= 2
    # the best passage that is not the judgment's header (the header says little about the hit)
    link = next((links.nth(i) for i in range(links.count()) if not links.nth(i).get_attribute("href").endswith("#s0")),
                links.first)
    href = link.get_attribute("href")
    assert href and re.fullmatch(r"/judgments/[^?#]+\?hl=[^#]+#s\d+", href)
    link.click()
    page.wait_for_url(re.compile(r"/judgments/.+#s\d+$"))
    url = urlparse(page.url)
    fragment = url.fragment
    assert re.fullmatch(r"s\d+", fragment) and parse_qs(url.query)["hl"][0]
    target = page.locator(f"#{fragment}")
    expect(target).to_be_visible()
    expect(target).to_be_in_viewport()
    # :target highlights it (the CSP allows no script to do so), and the hit's words are marked in the text
    expect(target).to_have_css("outline-style", "solid")
    expect(target).to_have_css("background-color", "rgb(254, 240, 138)")
    assert page.locator("#text mark").count() > 0
    # the passage sits in a paragraph of the judgment
    assert page.locator(f".para:has(#{fragment})").count() == 1
    shot(page, "paragraphs-hit-passage")
    page.screenshot(path=str(ARTIFACTS / "paragraphs-hit-passage-view.png"))  # what the reader sees on arrival


def test_a_pinpoint_link_and_a_citation_in_the_text(page) -> None:
    page.goto("/judgments/C26#para-25")
    paragraph = page.locator("#para-25")
    expect(paragraph).to_be_in_viewport()
    expect(paragraph).to_have_css("outline-style", "solid")
    assert paragraph.locator("a.para-link").inner_text() == "¶25"
    assert paragraph.locator("p").first.inner_text().startswith("25. Yet again in State of U.P. v. Anil Singh")
    shot(page, "paragraphs-pinpoint")
    cite = paragraph.locator("a.cite-link", has_text="State of U.P. v. Anil Singh")
    cite.click()
    page.wait_for_url(re.compile(r"/judgments/C99$"))
    cited_by = page.locator("section.cited-by")
    expect(cited_by.get_by_role("link", name="Ramjee Rai and Others v State of Bihar")).to_be_visible()
    shot(page, "paragraphs-cited-by")
