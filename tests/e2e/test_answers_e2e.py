"""What an analyst reads in a real browser: a question the documents do not answer says so, the facts of an
answer are never filler or headings, and moving a knob says which cited passages changed, not how many."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from retrieval.search.filler import never_a_fact
from tests.e2e.conftest import Session, ask
from tests.e2e.widgets import unfold

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def _facts(page: Page) -> list[str]:
    """The key facts shown (the numbered list items "text [1]"), without their citation marks."""
    items = page.locator("[data-testid='stMarkdownContainer'] ol > li").all_inner_texts()
    return [re.sub(r"(\s*\[\d+\])+\s*$", "", t) for t in items]


def test_a_question_the_documents_do_not_answer_reads_not_in_these_documents(session: Session) -> None:
    session.open("Ask")
    page = session.page
    ask(page, "What is the capital of Australia?")
    expect(page.get_by_text("not in these documents").first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text(re.compile(r"^Not in these documents: ")).first).to_be_visible()
    expect(page.get_by_text("Key facts", exact=True)).to_have_count(0)
    session.assert_offline()


def test_key_facts_are_never_filler_and_a_knob_change_names_what_moved(session: Session) -> None:
    session.open("Ask")
    page = session.page
    ask(page, "Who was Marley?")
    expect(page.get_by_text("Key facts", exact=True).first).to_be_visible(timeout=WAIT_MS)
    # the facts are drawn one by one after their heading: read them once the turn is drawn from the thread
    expect(page.get_by_text("Export conversation (Markdown)")).to_be_visible(timeout=WAIT_MS)
    facts = _facts(page)
    assert facts and not [f for f in facts if never_a_fact(f)], facts

    alpha = page.get_by_test_id("stSlider").filter(has_text="Alpha")
    unfold(page.get_by_test_id("stSidebar").get_by_test_id("stExpander").get_by_text("Tuning", exact=True), alpha)
    alpha.get_by_role("slider").focus()
    page.keyboard.press("Home")  # alpha 0: keywords only
    expect(alpha.get_by_role("slider")).to_have_value("0")
    ask(page, "Who was Marley?")
    line = page.get_by_text(re.compile(r"^Since the previous local answer: alpha 0\.6 → 0\.0 — "))
    expect(line.first).to_be_visible(timeout=WAIT_MS)
    text = line.first.inner_text()
    assert re.search(r"cited passages: |entities: |evidence: |the same passages and entities were cited", text), text
    assert "no change in evidence" not in text  # the old line compared counts
    session.assert_offline()
