"""Small things an analyst trips on, in a real browser: `/home` opens Home, the global level reads "auto", and the
mode box says what agent mode does without a model before it is chosen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Session

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def test_home_path_auto_level_and_agent_said_up_front(session: Session) -> None:
    page = session.page
    page.goto(f"{session.url}/home")
    expect(page.get_by_role("heading", name="DriftLens")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Backend").first).to_be_visible()
    expect(page.get_by_text("Page not found")).to_have_count(0)

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stExpander").get_by_text("Tuning", exact=True).click()
    level = sidebar.get_by_test_id("stSelectbox").filter(has_text="Global level")
    expect(level.get_by_role("combobox")).to_have_value("auto")  # not the placeholder "Choose an option"

    sidebar.get_by_test_id("stSelectbox").filter(has_text="Answer mode").click()
    expect(page.get_by_role("option", name=re.compile(r"^Agent \(no model: lists search results\)"))).to_be_visible()
    session.assert_offline()
