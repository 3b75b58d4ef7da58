"""A question made only of common words, in a real browser on both backends: one clear message, and the thread
keeps working (the next question is answered, and the thread reloads), with no request leaving this machine.

Before, the turn was kept without its answer and every later draw of the thread crashed (`zip()` in
components/conversation.py): the next question hung at "submitted" and a reload crashed again.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from retrieval.text.readable import NOTHING_TO_SEARCH
from tests.e2e.conftest import Session, ask

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def _ask(page: Page, question: str) -> None:
    ask(page, question)


def _no_crash(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_a_question_of_common_words_is_one_message_and_the_thread_keeps_working(backend_session: Session) -> None:
    session = backend_session
    session.open("Ask")
    page = session.page
    _ask(page, "the")
    expect(page.get_by_text(NOTHING_TO_SEARCH)).to_have_count(1, timeout=WAIT_MS)
    expect(page.get_by_text("Export conversation (Markdown)")).to_be_visible(timeout=WAIT_MS)  # stored, redrawn
    _no_crash(page)

    _ask(page, "Who was Marley?")
    answered = page.get_by_text(re.compile(r"confidence \d+%"))  # a searched answer is rated; the first was not
    expect(answered).to_have_count(1, timeout=WAIT_MS)
    expect(page.get_by_text("answered by: extractive")).to_have_count(2, timeout=WAIT_MS)
    _no_crash(page)

    assert re.search(r"[?&]thread=\w+", page.url), page.url
    # the answer is drawn before it is stored: reload only once the thread lists both turns (stored, redrawn)
    expect(page.get_by_role("button", name="the (2)")).to_be_visible(timeout=WAIT_MS)
    page.reload()  # the thread read back from the store
    expect(answered).to_have_count(1, timeout=WAIT_MS)
    expect(page.get_by_text("answered by: extractive")).to_have_count(2)
    expect(page.get_by_text(NOTHING_TO_SEARCH)).to_have_count(1)
    expect(page.get_by_text("Who was Marley?", exact=True).first).to_be_visible()
    _no_crash(page)
    session.assert_offline()
