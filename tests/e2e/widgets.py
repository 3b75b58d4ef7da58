"""Choosing from Streamlit's select boxes and opening its expanders in a real browser, robust to the page redrawing
under the pointer."""

from __future__ import annotations

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def choose(page: Page, select: Locator, option_name: str) -> None:
    """Open the select box `select` and click its option `option_name`, as a user would.

    The dropdown can close again just after it opens (an expander around it still unfolding), and a rerun of the
    page just after it opened redraws the list, detaching the option under the pointer; either way the dropdown is
    opened again (a few times at most) rather than waiting out one click's whole timeout.

    A multiselect's click counts only once the box shows the option as a chosen tag. On a loaded machine a click
    on the option has been seen to leave nothing chosen: no tag, and no rerun sent to the app (most likely the
    dropdown was already closing, as it does when the page under it scrolls, and the box ignores a choice from a
    closing list). Such a click is made again. Whether the app then applies the choice is for the caller to check."""
    option = page.get_by_role("option", name=option_name, exact=True)
    tag = select.locator("[data-tag]").filter(has=page.get_by_text(option_name, exact=True))
    multi = select.get_by_test_id("stMultiSelectTagsContainer").count() > 0
    for _ in range(4):
        if multi and tag.count():
            return
        if not option.is_visible():
            select.click()
        try:
            option.click(timeout=5_000)
        except PlaywrightTimeoutError:
            continue
        if not multi:
            return
        try:
            tag.first.wait_for(state="attached", timeout=3_000)
            return
        except PlaywrightTimeoutError:
            continue
    option.click()  # the last try: its timeout reports a missing option
    if multi:
        tag.first.wait_for(state="attached", timeout=3_000)  # and this one a click the box ignored


def unfold(toggle: Locator, content: Locator, attempts: int = 6) -> None:
    """Click `toggle` (an expander's label) until `content` inside it shows.

    A click that lands while the page reruns (the Ask page's answer still drawing, or setting its thread link) is
    undone by the rerun, which draws the expander folded again; the click is repeated only while the content is
    still hidden, so an expander that opened is not folded by a second click."""
    for _ in range(attempts):
        if content.is_visible():
            return
        toggle.click()
        try:
            content.wait_for(state="visible", timeout=10_000)
            return
        except PlaywrightTimeoutError:
            continue
    content.wait_for(state="visible", timeout=10_000)  # the last try: its timeout reports what kept it hidden


def click_inside(toggle: Locator, target: Locator) -> None:
    """Click `target` in the expander labelled by `toggle`, unfolding it again when a rerun folded it."""
    for _ in range(4):
        unfold(toggle, target)
        try:
            target.click(timeout=5_000)
            return
        except PlaywrightTimeoutError:
            continue
    target.click()
