"""Choosing from Streamlit's select boxes and opening its expanders in a real browser, robust to the page redrawing
under the pointer."""

from __future__ import annotations

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def choose(page: Page, select: Locator, option_name: str) -> None:
    """Open the select box `select` and click its option `option_name`, as a user would.

    The dropdown can close again just after it opens (an expander around it still unfolding), and a rerun of the
    page just after it opened redraws the list, detaching the option under the pointer; either way the dropdown is
    opened again (a few times at most) rather than waiting out one click's whole timeout."""
    option = page.get_by_role("option", name=option_name, exact=True)
    for _ in range(4):
        if not option.is_visible():
            select.click()
        try:
            option.click(timeout=5_000)
            return
        except PlaywrightTimeoutError:
            continue
    option.click()  # the last try: its timeout reports a missing option


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
