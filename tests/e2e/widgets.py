"""Choosing from Streamlit's select boxes in a real browser, robust to the page redrawing under the pointer."""

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
