"""The app in a real browser on a small real graph: answers with citations, the DRIFT tree, expanding the
explorer's graph, sliders, the Memory page — and never a request that leaves 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import plotly_graph
from tests.e2e.conftest import Session, ask
from tests.e2e.widgets import unfold

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000


def _explore(session: Session, query: str = "Scrooge") -> Page:
    session.open("Graph explorer")
    page = session.page
    page.get_by_label("Search entities").fill(query)
    page.get_by_label("Search entities").press("Enter")
    page.get_by_text(re.compile(r"^\d+ nodes, \d+ relations")).wait_for(timeout=WAIT_MS)
    plotly_graph.chart(page, "ex_graph")
    return page


def test_home_shows_the_graph_counts(session: Session) -> None:
    session.open("Home")
    page = session.page
    expect(page.get_by_text("healthy").first).to_be_visible()
    expect(page.get_by_text("No LLM configured").first).to_be_visible()
    session.screenshot("home")
    session.assert_offline()


def test_ask_shows_answer_and_expanded_citation(backend_session: Session) -> None:
    session = backend_session
    session.open("Ask")
    page = session.page
    expect(page.get_by_text("Try one of these")).to_be_visible()
    ask(page, "Who was Marley?")
    expect(page.get_by_text("answered by: extractive").first).to_be_visible(timeout=WAIT_MS)
    # the cited span, highlighted in its chunk once the citation is expanded
    unfold(
        page.get_by_text(re.compile(r"^\[1\] ")).first,
        page.locator("mark").filter(has_text=re.compile(r"\w")).first,
    )
    plotly_graph.chart(page, plotly_graph.key_ending(page, "-local-evidence"))  # the latest answer's evidence
    session.screenshot("ask")
    session.assert_offline()


def test_moving_the_node_cap_slider_redraws_the_view(session: Session) -> None:
    _explore(session)
    page = session.page
    caption = page.get_by_text(re.compile(r"^\d+ nodes, \d+ relations"))
    before = int(caption.inner_text().split()[0])
    assert before > 10
    slider = page.get_by_test_id("stSlider").filter(has_text="Node cap").get_by_role("slider")
    slider.focus()
    slider.press("Home")  # the minimum, 10 nodes: the first view takes half, leaving room to expand
    expect(caption).to_have_text(re.compile(r"^5 nodes, .*more within reach"), timeout=WAIT_MS)
    session.assert_offline()


def test_memory_page_opens_with_scoped_memories(session: Session) -> None:
    session.open("Memory")
    page = session.page
    # the most recently active scope: the seeded memories, or a conversation an Ask test of this app stored
    expect(page.get_by_text(re.compile(r"^Scope: application_id=driftlens"))).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=WAIT_MS)
    session.screenshot("memory")
    session.assert_offline()


def test_index_page_shows_counts_and_community_sizes(session: Session) -> None:
    session.open("Index")
    page = session.page
    expect(page.get_by_text("Community sizes per level")).to_be_visible(timeout=WAIT_MS)
    session.screenshot("index")
    session.assert_offline()
