"""The app in a real browser on a small real graph: answers with citations, the DRIFT tree, expanding the
explorer's graph, sliders, the Memory page — and never a request that leaves 127.0.0.1."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import FrameLocator, Locator, Page, expect

from components.graph_view import KIND_COLOURS, PALETTE
from tests.e2e.conftest import Session

pytestmark = pytest.mark.e2e
AGRAPH = 'iframe[title="streamlit_agraph.agraph"]'
WAIT_MS = 60_000


def _agraph_canvas(page: Page) -> Locator:
    canvas = page.frame_locator(AGRAPH).first.locator("canvas").first
    canvas.wait_for(timeout=WAIT_MS)
    return canvas


def _node_spots(canvas: Locator, limit: int = 12) -> list[tuple[float, float]]:
    """Centres of drawn nodes: pixels in the node palette, bucketed, biggest clusters first."""
    image = Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")
    colours = {tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in (*PALETTE, *KIND_COLOURS.values())}
    buckets: dict[tuple[int, int], list[tuple[int, int]]] = {}
    width, height = image.size
    pixels = image.load()
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            if pixels[x, y] in colours:
                buckets.setdefault((x // 16, y // 16), []).append((x, y))
    ranked = sorted(buckets.values(), key=len, reverse=True)[:limit]
    return [(sum(p[0] for p in b) / len(b), sum(p[1] for p in b) / len(b)) for b in ranked]


def _explore(session: Session, query: str = "Scrooge") -> Locator:
    session.open("Graph explorer")
    page = session.page
    page.get_by_label("Search entities").fill(query)
    page.get_by_label("Search entities").press("Enter")
    page.get_by_text(re.compile(r"^\d+ nodes, \d+ relations")).wait_for(timeout=WAIT_MS)
    canvas = _agraph_canvas(page)
    page.wait_for_timeout(800)  # vis draws after the iframe's first frame
    return canvas


def test_home_shows_the_graph_counts(session: Session) -> None:
    session.open("Home")
    page = session.page
    expect(page.get_by_text("healthy").first).to_be_visible()
    expect(page.get_by_text("No LLM configured").first).to_be_visible()
    session.screenshot("home")
    session.assert_offline()


def test_ask_shows_answer_and_expanded_citation(session: Session) -> None:
    session.open("Ask")
    page = session.page
    expect(page.get_by_text("Try one of these")).to_be_visible()
    box = page.get_by_placeholder("Ask the graph")
    box.fill("Who was Marley?")
    box.press("Enter")
    expect(page.get_by_text("answered by: extractive").first).to_be_visible(timeout=WAIT_MS)
    citation = page.get_by_text(re.compile(r"^\[1\] ")).first
    citation.click()
    mark = page.locator("mark").first
    expect(mark).to_be_visible()
    assert mark.inner_text().strip()
    _agraph_canvas(page)  # the evidence graph of the latest answer
    session.screenshot("ask")
    session.assert_offline()


def test_drift_tree_renders_in_pyvis_frame(session: Session) -> None:
    session.open("DRIFT trace")
    page = session.page
    page.get_by_label("Question").fill("How does Scrooge treat his clerk?")
    page.get_by_role("button", name="Run DRIFT").click()
    expect(page.get_by_text("Communities touched")).to_be_visible(timeout=WAIT_MS)
    frame: FrameLocator = page.frame_locator("iframe[srcdoc*='vis-network']").first
    expect(frame.locator("canvas").first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Target communities")).to_be_visible()
    page.wait_for_timeout(500)
    session.screenshot("drift-trace")
    session.assert_offline()


def test_clicking_a_node_expands_it_in_place(session: Session) -> None:
    canvas = _explore(session)
    page = session.page
    collapse = page.get_by_role("button", name="Collapse expansions")
    for x, y in _node_spots(canvas):
        canvas.click(position={"x": x, "y": y})
        try:
            collapse.wait_for(timeout=3_000)
            break
        except Exception:  # that spot was the seed itself or an edge: try the next node
            continue
    expect(collapse).to_be_visible()
    _agraph_canvas(page)
    page.wait_for_timeout(800)
    session.screenshot("graph-explorer")
    session.assert_offline()


def test_moving_the_node_cap_slider_redraws_the_view(session: Session) -> None:
    _explore(session)
    page = session.page
    caption = page.get_by_text(re.compile(r"^\d+ nodes, \d+ relations"))
    before = int(caption.inner_text().split()[0])
    assert before > 10
    slider = page.get_by_test_id("stSlider").filter(has_text="Node cap").get_by_role("slider")
    slider.focus()
    slider.press("Home")  # the minimum: 10 nodes
    expect(caption).to_have_text(re.compile(r"^10 nodes, .*cap 10 reached"), timeout=WAIT_MS)
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
