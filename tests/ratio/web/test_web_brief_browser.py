"""The brief page in real headless Chromium over the sample corpus: a pasted or uploaded brief returns judgments
with the parts of the brief each matched, and "More like this judgment" lands on such a page without the
judgment itself. Screenshots via :func:`tests.ratio.web.browsing.shot` (``brief-*``).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.indexer.conftest import make_pdf
from tests.ratio.web.browsing import shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019"


def _fact_pattern() -> str:
    """AILA's first query, a fact pattern a lawyer would paste (quotes dropped: the PDF test reads it back)."""
    first = (SAMPLES / "Query_doc.txt").read_text().splitlines()[0].split("||", 1)[1]
    return " ".join(re.sub(r"['\"`]", "", first).split())


def test_a_pasted_brief_returns_results_with_matched_parts(page) -> None:
    page.goto("/")
    assert page.locator("section.intro a[href='/brief']").count() == 1  # beside the search box, and in the menu
    page.get_by_role("navigation").get_by_role("link", name="Search with a brief").click()
    page.wait_for_url("**/brief")
    page.get_by_label("Brief text").fill(_fact_pattern())
    page.get_by_role("button", name="Search with this brief").click()
    page.wait_for_selector("ol.hits li.hit")
    hits = page.locator("ol.hits li.hit")
    assert hits.count() >= 5
    assert re.match(r"\d+ judgments ranked for the brief \([\d,]+ words\)", page.locator("#summary").inner_text())
    # each hit says which parts of the brief matched: at least one names the brief's sentences and their words
    parts = page.locator("ol.hits .matched-parts > li")
    assert parts.count() >= hits.count() // 2
    kinds = set(parts.evaluate_all("items => items.map(i => i.dataset.kind)"))
    assert kinds & {"facts", "issues", "passages"}
    sentence_part = page.locator(".matched-parts > li[data-kind=facts], .matched-parts > li[data-kind=passages]").first
    words = sentence_part.inner_text()
    assert "words:" in words and sentence_part.locator(".part-item").count() == 1
    assert page.locator("ol.hits mark").count() > 0  # passages highlighted for the brief's terms
    shot(page, "brief-results")


def test_an_uploaded_pdf_brief(page, tmp_path: Path) -> None:
    words = _fact_pattern().split()
    path = tmp_path / "brief.pdf"
    path.write_bytes(make_pdf([" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]))
    page.goto("/brief")
    page.get_by_label("or upload a file").set_input_files(str(path))
    page.get_by_role("button", name="Search with this brief").click()
    page.wait_for_selector("ol.hits li.hit")
    assert "from brief.pdf" in page.locator("#summary").inner_text()
    # an unreadable file is refused with its reason, on the same page
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(b"%PDF-1.4\nnot really a pdf")
    page.goto("/brief")
    page.get_by_label("or upload a file").set_input_files(str(bad))
    page.get_by_role("button", name="Search with this brief").click()
    assert "the PDF cannot be read" in page.get_by_role("alert").inner_text()
    page.goto("/brief")
    page.get_by_role("button", name="Search with this brief").click()
    assert "the brief is empty" in page.get_by_role("alert").inner_text()


def test_more_like_this_lands_on_results_without_the_judgment(page) -> None:
    page.goto("/judgments/C1")
    title = page.locator("h1").inner_text()
    page.get_by_role("link", name="More like this judgment").click()
    page.wait_for_selector("ol.hits li.hit")
    assert unquote(page.url).endswith("/brief?like=C1")  # not the judgment page again
    assert title in page.locator("h1").inner_text()
    ids = page.locator("ol.hits li.hit").evaluate_all("items => items.map(i => i.dataset.judgment)")
    assert len(ids) >= 5 and "C1" not in ids
    assert "leaving out C1" in page.locator("#summary").inner_text()
    shot(page, "brief-more-like-this")

    # from a hit list: the link runs the same path for that hit's judgment, which is then left out
    link = page.locator("ol.hits li.hit").first.get_by_role("link", name="More like this judgment")
    first = ids[0]
    link.click()
    page.wait_for_selector("ol.hits li.hit")
    after = page.locator("ol.hits li.hit").evaluate_all("items => items.map(i => i.dataset.judgment)")
    assert first not in after and after

    # and from the search page's hits
    page.goto("/?q=public+servant+misappropriated+property")
    page.wait_for_selector("ol.hits li.hit")
    hit = page.locator("ol.hits li.hit").first
    hit_id = hit.get_attribute("data-judgment")
    assert hit.get_by_role("link", name="More like this judgment").get_attribute("href") == f"/brief?like={hit_id}"
