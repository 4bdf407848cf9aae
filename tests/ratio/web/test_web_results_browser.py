"""The pages around the results (issue 25, item 7) in real headless Chromium over the sample corpus: a case name
typed in the box, a pasted fact pattern with a stray quote, the first hit on a phone's first screen with the skip
link and the page's heading, and the ask page on a server without an LLM. Screenshots under
test-artifacts/screenshots/ (results-name, results-pasted, results-phone, results-phone-first-screen, ask-no-llm)."""

from __future__ import annotations

import re

import pytest

from tests.ratio.web.browsing import ARTIFACTS, shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
expect = playwright_api.expect

NAME = "Kashmiri Lal v State Of Haryana"  # C152's title
# a fact pattern as a lawyer pastes it: more than 30 words and one quotation mark that never closes
PASTED = ("The accused and the deceased had quarrelled over the boundary of their fields for years. On the evening of "
          'the incident the accused said "I will finish you today and came back with a gun, and the witnesses saw '
          "him fire at the deceased, who died of the injuries on the way to the hospital")
PHONE = {"width": 390, "height": 844}


def test_a_case_name_finds_its_judgment_first(page) -> None:
    page.goto("/")
    page.get_by_label("Query").fill(NAME)
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("ol.hits li.hit h2 a").first.inner_text() == NAME
    assert page.locator("ol.hits li.hit").first.get_attribute("data-judgment") == "C152"
    expect(page.locator("#read-as")).to_have_text("Read as a case name.")
    assert page.locator("h1").inner_text() == f"Search results for {NAME}"
    shot(page, "results-name")


def test_a_pasted_fact_pattern_with_a_stray_quote_shows_results(page) -> None:
    assert len(PASTED.split()) > 30 and PASTED.count('"') == 1
    page.goto("/")
    page.get_by_label("Query").fill(PASTED)
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("ol.hits li.hit").count() >= 3
    assert page.locator("p.error").count() == 0 and "never closes" not in page.content()
    expect(page.locator("#read-as")).to_have_text(
        f"Read as pasted text ({len(PASTED.split())} words, read whole as a brief is): quotes and operators are "
        "not parsed.")
    expect(page.locator("#summary")).to_contain_text("have any of the pasted text's words")
    shot(page, "results-pasted")


def test_the_first_hit_is_on_a_phones_first_screen(browser, live_server: str) -> None:
    """At 390 x 844 the header, the form, three filter chips, the counts and the provisions box all fit above the
    first hit; the skip link is the first thing a keyboard reaches and goes to the results."""
    context = browser.new_context(base_url=live_server, viewport=PHONE, device_scale_factor=1, is_mobile=True)
    phone = context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    try:
        phone.goto("/?q=murder&court=Supreme+Court+of+India&date_from=1990&date_to=2010")
        phone.wait_for_selector("ol.hits li.hit")
        assert phone.locator("#chips li.chip").count() == 3
        assert phone.locator("section.provisions-matched li").count() >= 1  # the box is there, and still fits
        assert phone.evaluate("window.scrollY") == 0
        first = phone.locator("ol.hits li.hit").first.bounding_box()
        assert first and first["y"] + 40 < PHONE["height"], f"the first hit starts at {first['y']:.0f} px"
        assert phone.locator("ol.hits li.hit h2").first.bounding_box()["y"] < PHONE["height"]
        assert phone.locator("h1").count() == 1 and phone.locator("h1").inner_text() == "Search results for murder"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        screen = ARTIFACTS / "results-phone-first-screen.png"
        phone.screenshot(path=str(screen))  # the first screen, as the phone shows it
        assert screen.stat().st_size > 10_000
        shot(phone, "results-phone")
        phone.keyboard.press("Tab")
        assert phone.evaluate("document.activeElement.textContent") == "Skip to results"
        phone.keyboard.press("Enter")
        assert phone.url.endswith("#results") and phone.evaluate("document.activeElement.id") == "results"
    finally:
        context.close()
    assert errors == [], f"JavaScript errors or blocked content on the page: {errors}"


def test_the_ask_page_without_an_llm_says_so_when_asked(page) -> None:
    """The session's live server has no LLM: the stream answers 503 llm_unavailable, and the page shows the
    server's sentence, not a lost connection."""
    page.goto("/ask")
    expect(page.locator("#no-llm")).to_contain_text("has none")  # said at once, before any question
    page.get_by_label("Question").fill("When can a dying declaration alone support a conviction?")
    page.get_by_role("button", name="Ask").click()
    error = page.locator("#ask-error")
    expect(error).to_contain_text("Answers need an LLM and this server has none")
    assert not re.search(r"connection|refused|lost", error.inner_text())
    expect(page.get_by_role("button", name="Ask")).to_be_enabled()
    shot(page, "ask-no-llm")
