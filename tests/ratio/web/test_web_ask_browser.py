"""The ask page in real headless Chromium over the sample corpus and the small LLM: the question streamed with its
progress, the answer with citations linked to their passages, a withheld answer with its reason, and the same
page without JavaScript. Answers come from the session's answer cache when tests/ratio/web/test_api_ask.py
asked the same questions first (tests/ratio/web/answering.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.answering import GROUNDED_QUESTION, UNANSWERABLE, answering_app, serve
from tests.ratio.web.browsing import checked_page, shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
expect = playwright_api.expect
ANSWER_WAIT = 600_000  # ms: a question not yet in the cache is generated on two shared cores


@pytest.fixture(scope="module")
def ask_server(opensearch_settings, aliases, encoder, small_llm, tmp_path_factory):
    app = answering_app(opensearch_settings.url, aliases, encoder, small_llm,
                        tmp_path_factory.getbasetemp() / "ask-answers.sqlite")
    with serve(app) as url:
        yield url


@pytest.fixture
def page(browser, ask_server: str):
    """conftest's page on this module's server (the session's live server has no LLM); JavaScript errors and
    anything the CSP blocks fail the test."""
    with checked_page(browser, ask_server) as new_page:
        yield new_page


def _ask(page, question: str, *, mode: str = "auto") -> None:
    page.get_by_label("Question").fill(question)
    page.locator("summary", has_text="Options").click()
    page.get_by_label("Answer from").select_option(mode)
    page.get_by_label("Most rounds").select_option("1")
    page.get_by_role("button", name="Ask").click()


def test_an_ask_page_streams_an_answer_with_linked_citations(page) -> None:
    page.goto("/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Ask").click()
    expect(page).to_have_url(re.compile(r"/ask$"))
    _ask(page, GROUNDED_QUESTION)
    # progress shows at once and grows as the server reports each step
    expect(page.locator("#progress")).to_be_visible()
    expect(page.locator("#steps li").first).to_be_visible()
    answer = page.locator("article.answer")
    expect(answer).to_be_visible(timeout=ANSWER_WAIT)
    assert answer.get_attribute("data-status") == "answered", answer.inner_text()
    steps = page.locator("#steps li").all_inner_texts()
    assert steps[0] == "Asking…" and any(s.startswith("Round 1: ") and "passage" in s for s in steps)
    assert any("checking the draft" in s for s in steps) and steps[-1] == "Finished: answered"
    assert "/ask" in page.url and "question=" not in page.url  # the stream, not a page load, brought the answer
    marks = answer.locator(".answer-text a.cite")
    assert marks.count() >= 1 and re.fullmatch(r"\[\d+\]", marks.first.inner_text())
    sources = answer.locator("ol.citations li.citation")
    assert sources.count() >= 1 and "not legal advice" in answer.locator(".notice").inner_text()
    shot(page, "ask-answer")

    href = marks.first.get_attribute("href")
    target = urlparse(href)
    assert re.fullmatch(r"/judgments/[^/]+", target.path) and re.fullmatch(r"s\d+", target.fragment), href
    assert parse_qs(target.query).get("hl"), href
    marks.first.click()
    page.wait_for_url(re.compile(r"/judgments/"))
    sentence = page.locator(f"#{target.fragment}")
    expect(sentence).to_have_count(1)
    expect(sentence).to_be_in_viewport()
    marked = {m.lower() for m in page.locator("#text mark").all_inner_texts()}
    assert marked and marked <= set(parse_qs(target.query)["hl"][0].split())  # the hl words, marked in the text


def test_a_withheld_answer_shows_its_reason(page) -> None:
    page.goto("/ask")
    _ask(page, UNANSWERABLE, mode="judgments")
    answer = page.locator("article.answer")
    expect(answer).to_be_visible(timeout=ANSWER_WAIT)
    assert answer.get_attribute("data-status") == "withheld"
    reason = answer.locator(".withheld").inner_text()
    assert reason.startswith("Withheld:") and len(reason) > 30
    assert answer.locator(".answer-text").count() == 0
    links = answer.locator("ol.citations a.passage-link")
    assert links.count() >= 1 and all(re.match(r"/judgments/[^/?#]+(\?hl=[^#]*)?#s\d+$", h)
                                      for h in (links.nth(i).get_attribute("href") for i in range(links.count())))
    shot(page, "ask-withheld")


def test_the_ask_page_works_without_javascript(browser, ask_server: str) -> None:
    context = browser.new_context(base_url=ask_server, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto("/ask")
        _ask(page, GROUNDED_QUESTION)
        page.wait_for_load_state()
        answer = page.locator("article.answer")
        expect(answer).to_be_visible(timeout=ANSWER_WAIT)
        assert answer.get_attribute("data-status") == "answered"
        assert answer.locator(".answer-text a.cite").count() >= 1
        assert page.get_by_label("Question").input_value() == GROUNDED_QUESTION
        assert page.locator("#progress").is_hidden()
    finally:
        context.close()
