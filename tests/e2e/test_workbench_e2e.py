"""Small things an analyst trips on, in a real browser on both backends: `/home` opens Home, the global level
reads "auto", the mode box says what agent mode does without a model before it is chosen; the Tuning panel draws
its knobs only while open and keeps their values; the sidebar's settings live in the URL (a shared link reproduces
them) and can be saved as the analyst's own defaults; Memory search ranks by similarity, an invalidation can be
undone, the timeline scales to the memories (stored in the graph)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import Session, browse, clicked, clicked_until, idle
from tests.e2e.graph import MEMORY_SCOPE
from tests.e2e.grid import pick_row, wait_rows
from tests.e2e.widgets import choose, unfold

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def test_home_path_auto_level_and_agent_said_up_front(backend_session: Session) -> None:
    session, page = backend_session, backend_session.page
    page.goto(f"{session.url}/home")
    expect(page.get_by_role("heading", name="DriftLens")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Backend").first).to_be_visible()
    expect(page.get_by_text("Page not found")).to_have_count(0)

    sidebar = page.get_by_test_id("stSidebar")
    level = sidebar.get_by_test_id("stSelectbox").filter(has_text="Global level")
    # a click while the page's first run is still drawing is undone by it (seen at load 20): click until it shows
    unfold(sidebar.get_by_test_id("stExpander").get_by_text("Tuning", exact=True), level)
    expect(level.get_by_role("combobox")).to_have_value("auto")  # not the placeholder "Choose an option"

    sidebar.get_by_test_id("stSelectbox").filter(has_text="Answer mode").click()
    expect(page.get_by_role("option", name=re.compile(r"^Agent \(no model: lists search results\)"))).to_be_visible()
    session.assert_offline()


def _tuning(page: Page) -> Locator:
    """The Top-k slider, with the sidebar's Tuning panel opened."""
    sidebar = page.get_by_test_id("stSidebar")
    slider = sidebar.get_by_test_id("stSlider").filter(has_text="Top-k").get_by_role("slider")
    # a click while the page's first run is still drawing is undone by it: `unfold` clicks again while it is shut
    unfold(sidebar.get_by_test_id("stExpander").get_by_text("Tuning", exact=True), slider)
    return slider


def test_settings_live_in_the_url_and_can_be_my_defaults(
    browser: Browser, backend_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with browse(browser, backend_url) as first:
        first.open("Home")
        page = first.page
        top_k = _tuning(page)
        top_k.focus()
        top_k.press("End")  # 50
        expect(page).to_have_url(re.compile(r"[?&]top_k=50\b"), timeout=WAIT_MS)
        mode = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(has_text="Answer mode")
        choose(page, mode, "DRIFT")
        expect(page).to_have_url(re.compile(r"[?&]mode=drift\b"), timeout=WAIT_MS)
        shared = page.url
        first.assert_offline()

    try:
        with browse(browser, backend_url) as second:  # a new tab on the shared link: the same settings
            second.page.goto(shared)
            expect(_tuning(second.page)).to_have_value("50", timeout=WAIT_MS)
            expect(second.page.get_by_role("combobox", name="Answer mode")).to_have_value("DRIFT")
            saved = second.page.get_by_text("Saved: new sessions start with these settings.")
            clicked_until(second.page, second.page.get_by_role("button", name="Save as my defaults"), saved)

        with browse(browser, backend_url) as third:  # a plain link: the analyst's own defaults
            third.open("Home")
            expect(_tuning(third.page)).to_have_value("50", timeout=WAIT_MS)
            expect(third.page.get_by_role("combobox", name="Answer mode")).to_have_value("DRIFT")
            forgot = third.page.get_by_text(re.compile(r"^Forgot your defaults"))
            clicked_until(third.page, third.page.get_by_role("button", name="Forget my defaults"), forgot)

        with browse(browser, backend_url) as fourth:  # forgotten: the configured defaults again
            fourth.open("Home")
            expect(_tuning(fourth.page)).to_have_value("10", timeout=WAIT_MS)
            fourth.assert_offline()
    finally:
        # Saved defaults outlive the test in the app's data folder, which later tests' apps share: a failure
        # above must not leave every later session in DRIFT with top-k 50.
        for saved_defaults in tmp_path_factory.getbasetemp().glob("**/defaults/*.json"):
            saved_defaults.unlink(missing_ok=True)


def test_tuning_knobs_are_drawn_only_while_their_panel_is_open(session: Session) -> None:
    """The closed panel holds no widgets (mounting its fourteen took ~0.3 s of every page switch); the values set
    while it was open outlive it, across pages."""
    session.open("Home")
    page = session.page
    sidebar = page.get_by_test_id("stSidebar")
    idle(page)
    expect(sidebar.get_by_test_id("stExpander").get_by_text("Tuning", exact=True)).to_be_visible()
    expect(sidebar.get_by_test_id("stSlider")).to_have_count(0)
    top_k = _tuning(page)
    top_k.focus()
    top_k.press("End")  # 50
    expect(page).to_have_url(re.compile(r"[?&]top_k=50\b"), timeout=WAIT_MS)
    sidebar.get_by_test_id("stExpander").get_by_text("Tuning", exact=True).click()
    expect(sidebar.get_by_test_id("stSlider")).to_have_count(0, timeout=WAIT_MS)
    page.get_by_role("link", name="Documents", exact=True).click()
    expect(page.get_by_role("heading", name="Documents")).to_be_visible(timeout=WAIT_MS)
    expect(page).to_have_url(re.compile(r"[?&]top_k=50\b"))
    expect(_tuning(page)).to_have_value("50", timeout=WAIT_MS)
    session.assert_offline()


def test_memory_search_ranks_by_similarity_undoes_invalidation_and_scales_the_timeline(
    backend_session: Session,
) -> None:
    session = backend_session
    session.open("Memory")
    page = session.page
    application = page.get_by_test_id("stSelectbox").filter(has_text="application")
    choose(page, application, MEMORY_SCOPE.application_id)
    axis = page.locator(".js-plotly-plot text").filter(has_text=re.compile(r"^per (hour|minute)$"))
    expect(axis).to_have_count(1, timeout=WAIT_MS)  # the seeded memories are minutes apart, not days
    box = page.get_by_label("Search memories")
    box.fill("How warm is Bob Cratchit's fire?")
    box.press("Enter")
    expect(page.get_by_text("3 most similar valid memories")).to_be_visible(timeout=WAIT_MS)
    grid = page.get_by_test_id("stDataFrame").first
    found = wait_rows(grid, lambda r: len(r) == 3 and r[0][0] != "")
    assert "fire very small" in found[0][1], found  # the most similar first, not the newest
    scores = [float(r[0]) for r in found]
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] < scores[0] <= 1

    pick_row(grid, 0)
    clicked(page, page.get_by_role("button", name="Invalidate 1"))
    expect(page.get_by_text("2 most similar valid memories")).to_be_visible(timeout=WAIT_MS)  # search skips it
    box.fill("")
    box.press("Enter")
    expect(page.get_by_text(re.compile(r"invalidated ones included"))).to_be_visible(timeout=WAIT_MS)
    grid = page.get_by_test_id("stDataFrame").first
    # Waits for the listing with the invalidated memory marked: the grid redraws a moment after the caption.
    listed = wait_rows(
        grid,
        lambda r: any(len(row) > 2 and "fire very small" in row[1] and row[0] == "" and row[2] == "false" for row in r),
    )
    row = next((i for i, r in enumerate(listed) if len(r) > 2 and "fire very small" in r[1]), None)
    assert row is not None and listed[row][2] == "false", listed
    pick_row(grid, row)
    clicked(page, page.get_by_role("button", name=re.compile(r"^Restore 1")))
    expect(page.get_by_role("button", name=re.compile(r"^Restore"))).to_have_count(0, timeout=WAIT_MS)
    box.fill("How warm is Bob Cratchit's fire?")
    box.press("Enter")
    expect(page.get_by_text("3 most similar valid memories")).to_be_visible(timeout=WAIT_MS)
    session.assert_offline()
