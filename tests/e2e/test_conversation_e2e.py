"""A two-turn conversation in a real browser: the follow-up uses the first turn, the new turn comes into view
while the reader is scrolled up, and the thread survives a reload and opens by URL in a fresh session."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Session, ask, browse

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000
FIRST, SECOND = "Who was Marley?", "What did he wear?"


def _ask(page: Page, question: str) -> None:
    ask(page, question)


def _answers(page: Page, n: int) -> None:
    expect(page.get_by_text("answered by: extractive")).to_have_count(n, timeout=WAIT_MS)


def test_a_follow_up_uses_the_first_turn_and_the_thread_survives_a_reload(
    backend_session: Session, browser: Browser
) -> None:
    session = backend_session  # on both backends: the thread is stored in the graph as memories
    session.open("Ask")
    page = session.page
    _ask(page, FIRST)
    _answers(page, 1)
    expect(page.get_by_text(re.compile(r"confidence \d+%")).first).to_be_visible()

    # the turn is stored and the page redrawn from the thread once the conversation can be exported
    expect(page.get_by_text("Export conversation (Markdown)")).to_be_visible(timeout=WAIT_MS)
    heading = page.get_by_role("heading", name="Ask").first
    for _ in range(10):  # the reader scrolls back up to the top, again if a late redraw scrolled the page down
        heading.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        if heading.evaluate("h => h.getBoundingClientRect().bottom > 0"):
            break
    expect(heading).to_be_in_viewport()
    _ask(page, SECOND)
    expect(page.get_by_text(SECOND, exact=True).first).to_be_in_viewport(timeout=WAIT_MS)  # brought into view
    _answers(page, 2)
    searched = page.get_by_text("Follow-up read as: What did Marley wear?", exact=True)
    # .first: while the page redraws the thread from the store, the live copy of the question is briefly shown too
    expect(searched.first).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Follow-up: read “he” as “Marley”")).first).to_be_visible()

    thread = re.search(r"[?&]thread=(\w+)", page.url)
    assert thread, page.url
    page.reload()
    _answers(page, 2)
    for question in (FIRST, SECOND):
        expect(page.get_by_text(question, exact=True).first).to_be_visible()
    session.screenshot("ask-conversation")
    session.assert_offline()

    with browse(browser, session.url) as fresh:  # a new session, e.g. a shared link
        fresh.page.goto(f"{session.url}/ask?thread={thread.group(1)}")
        _answers(fresh.page, 2)
        expect(fresh.page.get_by_text(SECOND, exact=True).first).to_be_visible()
        fresh.assert_offline()
