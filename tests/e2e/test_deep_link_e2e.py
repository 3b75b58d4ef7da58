"""A deep link is the first request a fresh server gets: it must open that page with the app's shared state.

Streamlit used to treat the `pages/` folder as a legacy multipage app, so /ask right after start ran the
page file alone, without app.py (`KeyError: 'health'`); the pages now live in `views/`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import browse, free_port, require_chromium, start_app, stop_app
from tests.e2e.graph import demo_graph

pytestmark = pytest.mark.e2e


@pytest.fixture
def fresh_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_chromium()
    graph = demo_graph(tmp_path_factory.getbasetemp() / "app-graph")
    port = free_port()
    process = start_app(graph, port, tmp_path_factory.mktemp("deep-link") / "app.log")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_app(process)


def test_a_deep_link_to_ask_on_a_fresh_server_opens_ask_with_the_sidebar(browser: Browser, fresh_app: str) -> None:
    with browse(browser, fresh_app) as session:
        page = session.page
        page.goto(f"{fresh_app}/ask")
        expect(page.get_by_role("heading", name="Ask").first).to_be_visible(timeout=60_000)
        expect(page.get_by_placeholder("Ask the graph")).to_be_visible()
        expect(page.get_by_text("Backend").first).to_be_visible()  # the sidebar app.py draws
        assert page.get_by_text("KeyError").count() == 0
        assert page.get_by_test_id("stException").count() == 0
        session.assert_offline()
