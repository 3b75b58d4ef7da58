"""The sidebar's knobs reach the answer in a real browser: a fresh session answers with the configured defaults.

Chromium drew the collapsed Tuning panel's sliders without their state and reported each slider's minimum, so
answers ran with top-k 1, no graph hops and alpha 0 (one evidence chunk, nothing expanded) while the sliders
showed 10, 2 and 0.6. Two sessions in a row, since it showed in the second more often than in the first.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import ask, browse

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def test_fresh_sessions_answer_with_the_default_knobs(browser: Browser, app_url: str) -> None:
    for _ in range(2):
        with browse(browser, app_url) as session:
            session.open("Ask")
            page = session.page
            ask(page, "Who was Marley?")
            effect = page.get_by_text(re.compile(r"^Knobs' effect: ")).first
            expect(effect).to_be_visible(timeout=WAIT_MS)
            text = effect.inner_text()
            assert re.match(r"Knobs' effect: 10 evidence items · \d+ cited · [1-9]\d* entities expanded", text), text
            session.assert_offline()
