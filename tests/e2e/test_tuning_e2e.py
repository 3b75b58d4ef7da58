"""The tuning panels in a real browser, on both backends (labels are stored in the graph, the grid searches it):
a labelling preview shows the sentence that matched, in its context; the grid's heatmap has a tick at each grid
value and nowhere else; "which settings found which labelled chunks" quotes the passages, not document names."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.conftest import Session, ask, idle
from tests.e2e.widgets import choose, click_inside, unfold

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def label_and_save(page: Page, toggle: Locator, panel: Locator, name: str) -> None:
    """Thumbs up on the first (cited) chunk, the set's name typed, then Save, until the page says it saved. Why
    more than one try: a rerun that starts after `idle` returned (the Ask page setting its thread link) redraws the
    panel and drops the thumb and the typed name, as it would an analyst's, who marks and types again (the clean
    clone's run of be0f52c: "Mark at least one chunk with a thumb first." with the box empty). A thumb already up
    is not clicked again (that would take it back), and the saved message must show in the end."""
    saved = page.get_by_text(f"Saved 1 labels (1 relevant) to '{name}'.")
    thumb_up = panel.get_by_role("radiogroup", name="Feedback rating").first.get_by_role("radio", name="Thumbs up")
    set_box = panel.get_by_label("Question set")
    for _ in range(3):
        idle(page)
        unfold(toggle, thumb_up)
        if not thumb_up.is_checked():
            click_inside(toggle, panel.get_by_test_id("stFeedbackButton").first)
        unfold(toggle, set_box)
        set_box.fill(name)
        set_box.press("Enter")
        idle(page)
        click_inside(toggle, panel.get_by_role("button", name="Save labels to the set"))
        try:
            saved.wait_for(state="visible", timeout=20_000)
            return
        except PlaywrightTimeoutError:
            continue
    expect(saved).to_be_visible(timeout=WAIT_MS)


def test_label_previews_heatmap_ticks_and_found_passages(backend_session: Session) -> None:
    session, page = backend_session, backend_session.page
    session.open("Ask")
    ask(page, "Who was Marley?")
    panel = page.get_by_test_id("stExpander").filter(has_text="Label evidence for tuning")
    # `.last`: while a rerun draws the answer again, the stale panel of the run before can still be attached
    toggle = panel.get_by_text("Label evidence for tuning").last
    previews = panel.get_by_test_id("stMarkdownContainer").filter(has_text=" — ")
    expect(toggle).to_be_visible(timeout=WAIT_MS)
    idle(page)
    unfold(toggle, previews.first)
    # "**document** — …before **the sentence that matched** after…": the cited chunk's sentence names Marley
    expect(previews.first.locator("strong").nth(1)).to_contain_text("Marley")

    name = f"e2e-{uuid.uuid4().hex[:8]}"
    label_and_save(page, toggle, panel, name)

    page.get_by_role("link", name="Tuning", exact=True).click()
    choose(page, page.get_by_test_id("stSelectbox").filter(has_text="Question set"), f"{name} — 1 labelled of 1")
    page.get_by_role("button", name="Run the grid").click()
    heatmap = page.locator(".st-key-tune_heatmap .js-plotly-plot")
    expect(heatmap).to_be_visible(timeout=WAIT_MS)
    # across alpha and hops (the page's default grid): one tick per grid value, never -0.5 or 1.5
    expect(heatmap.locator(".xtick text")).to_have_text(["0.3", "0.5", "0.7"])
    expect(heatmap.locator(".ytick text")).to_have_text(["0", "1", "2"])

    found = page.get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r" — “.+”$"))
    expect(found.first).to_be_visible(timeout=WAIT_MS)
    quoted = re.search(r"“(.+)”", found.first.inner_text())
    assert quoted and len(quoted.group(1)) > 40, found.first.inner_text()  # a passage, not a document's name
    session.assert_offline()
