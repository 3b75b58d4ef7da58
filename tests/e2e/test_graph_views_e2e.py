"""The graph views in a real browser at 1440x900: legend, fullscreen, clicking nodes in the explorer, the DRIFT
tree, the evidence graph (alone, and in compare columns with every label inside) and the community network —
and never a request that leaves 127.0.0.1. On both backends: the views read the graph through the store, and
on Neo4j through its own Cypher."""

from __future__ import annotations

import html
import math
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import plotly_graph
from tests.e2e.conftest import ARTIFACTS, Session, ask
from tests.e2e.widgets import choose

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000
CAPTION = re.compile(r"^\d+ nodes, \d+ relations")


@pytest.fixture
def wide(backend_session: Session) -> Session:
    backend_session.page.set_viewport_size({"width": 1440, "height": 900})
    return backend_session


def _done(session: Session, screenshot: str) -> None:
    """No exception box on the page, a screenshot, and no request that left this machine."""
    expect(session.page.get_by_test_id("stException")).to_have_count(0)
    session.screenshot(screenshot)
    session.assert_offline()


def _explore(session: Session, query: str = "Scrooge") -> Page:
    session.open("Graph explorer")
    page = session.page
    page.get_by_label("Search entities").fill(query)
    page.get_by_label("Search entities").press("Enter")
    page.get_by_text(CAPTION).wait_for(timeout=WAIT_MS)
    plotly_graph.chart(page, "ex_graph")
    return page


def test_explorer_has_a_legend_and_a_fullscreen_view(wide: Session) -> None:
    page = _explore(wide)
    legend = page.locator(".st-key-ex_graph g.legend text.legendtext")
    expect(legend.first).to_be_visible()
    assert "person" in legend.all_text_contents()
    drawn = plotly_graph.nodes(page, "ex_graph")
    named = [n for n in drawn if n.text]
    assert 0 < len(named) <= len(drawn)
    wide.screenshot("graph-explorer-wide")

    graph = plotly_graph.chart(page, "ex_graph")
    graph.hover()
    fullscreen = page.locator(".st-key-ex_graph").get_by_role("button", name="Fullscreen")
    expect(fullscreen).to_be_visible()
    before = graph.bounding_box()
    fullscreen.click()
    page.wait_for_timeout(1_000)
    after = plotly_graph.chart(page, "ex_graph").bounding_box()
    assert before and after and after["width"] > before["width"] * 1.3, (before, after)
    page.screenshot(path=str(ARTIFACTS / "graph-explorer-fullscreen.png"))  # the viewport: what a person sees
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    wide.assert_offline()


def test_clicking_a_node_selects_and_expands_it(wide: Session) -> None:
    page = _explore(wide)
    caption = page.get_by_text(CAPTION)
    expect(caption).not_to_contain_text("reached")  # the first view leaves room to explore
    slider = page.get_by_test_id("stSlider").filter(has_text="Node cap").get_by_role("slider")
    slider.focus()
    slider.press("Home")  # a cap of 10 (the demo graph is small): the first view takes half of it
    expect(caption).to_have_text(re.compile(r"^5 nodes"), timeout=WAIT_MS)
    drawn = plotly_graph.nodes(page, "ex_graph")
    assert sum(n.selected for n in drawn) == 1, "the picked entity starts selected"
    before = {n.id for n in drawn}
    picked = next(n.id for n in drawn if n.selected)
    # the node with a relation's middle closest to it: where a relation's hover point used to take the click
    middles = plotly_graph.edge_middles(page, "ex_graph")
    candidates = [n for n in drawn if n.text and not n.selected]
    target = min(candidates, key=lambda n: min(math.dist((n.x, n.y), m) for m in middles))

    plotly_graph.click(page, target.x, target.y)

    expect(page.get_by_role("button", name="Collapse expansions")).to_be_visible(timeout=WAIT_MS)
    panel = page.get_by_test_id("stColumn").filter(has=page.get_by_role("button", name="Collapse expansions"))
    expect(panel.get_by_text(html.unescape(target.text), exact=True).first).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Expanding .* added [1-9]\d* nodes"))).to_be_visible()
    drawn = plotly_graph.nodes(page, "ex_graph")
    assert [n.id for n in drawn if n.selected] == [target.id]
    added = [n for n in drawn if n.id not in before]
    assert added, "a click adds the node's unseen neighbours"
    clicked = next(n for n in drawn if n.id == target.id)
    assert max(math.dist((n.x, n.y), (clicked.x, clicked.y)) for n in added) < 200, "laid out around the clicked node"
    box = plotly_graph.chart(page, "ex_graph").bounding_box()
    assert box is not None
    outside = [n.id for n in drawn if not (box["x"] <= n.x <= box["x"] + box["width"])]
    assert outside == [], "expanded nodes land inside the canvas"

    # filters: one entity type; the picked and the clicked entity stay whatever their type. The type is one that
    # leaves out some other node (which nodes the click added depends on the layout), so the view must change.
    others = [n for n in drawn if n.id not in (target.id, picked)]
    keep = next(t for t in sorted({n.group for n in drawn}) if any(n.group != t for n in others))
    expected = {target.id, picked} | {n.id for n in others if n.group == keep}
    page.get_by_test_id("stExpander").filter(has_text="Filters").get_by_text("Filters").click()
    types = page.get_by_test_id("stMultiSelect").filter(has_text="Entity types")
    choose(page, types, keep)
    page.keyboard.press("Escape")
    expect(caption).to_have_text(re.compile(rf"^{len(expected)} nodes"), timeout=WAIT_MS)
    page.wait_for_timeout(500)
    assert {n.id for n in plotly_graph.nodes(page, "ex_graph")} == expected, keep
    _done(wide, "graph-explorer")


def test_clicking_a_drift_step_shows_its_detail(wide: Session) -> None:
    wide.open("DRIFT trace")
    page = wide.page
    # Two DRIFT rounds, set in the sidebar's Tuning panel: after a page change with that panel closed, the browser
    # currently reports its sliders at their minimum (0 rounds), and the tree would hold no follow-up to click.
    tuning = page.get_by_test_id("stSidebar").get_by_test_id("stExpander").get_by_text("Tuning", exact=True)
    tuning.click()
    rounds = page.get_by_test_id("stSlider").filter(has_text="DRIFT rounds")
    rounds.get_by_role("slider").focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(rounds.get_by_role("slider")).to_have_value("2")
    page.get_by_label("Question").fill("How does Scrooge treat his clerk?")
    page.get_by_role("button", name="Run DRIFT").click()
    expect(page.get_by_text("Communities touched")).to_be_visible(timeout=WAIT_MS)
    steps = {n.id: n for n in plotly_graph.nodes(page, "drift_tree_0")}
    assert {"primer", "aggregate"} <= set(steps) and all(n.text for n in steps.values())
    step_box = page.get_by_role("combobox", name="Step")
    expect(step_box).to_have_value(re.compile(r"^primer"))
    followup = next(n for i, n in steps.items() if i.startswith("f"))

    plotly_graph.click(page, followup.x + 150, followup.y)  # on the row's text, not the marker: the row is the target

    expect(step_box).to_have_value(re.compile(r"^followup"), timeout=WAIT_MS)
    question = html.unescape(followup.text).split(" ", 1)[1].rstrip("…").split(" (")[0]
    expect(page.get_by_text(re.compile("^Question " + re.escape(question[:30])))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^confidence|^no confidence reported")).first).to_be_visible()
    tuning.click()  # closed again for the screenshot
    page.wait_for_timeout(800)
    _done(wide, "drift-trace")


def test_clicking_an_evidence_node_shows_what_it_is(wide: Session) -> None:
    wide.open("Ask")
    page = wide.page
    ask(page, "Who was Marley?")
    expect(page.get_by_text("answered by: extractive").first).to_be_visible(timeout=WAIT_MS)
    key = plotly_graph.key_ending(page, "-local-evidence")
    expect(page.get_by_text("Click a node to see what it is").first).to_be_visible(timeout=WAIT_MS)
    entity = next(n for n in plotly_graph.nodes(page, key) if n.text and n.group != "chunk")

    plotly_graph.click(page, entity.x, entity.y)

    expect(page.get_by_text("Click a node to see what it is")).to_have_count(0, timeout=WAIT_MS)
    expect(
        page.locator(f".st-key-{key}").locator("..").get_by_text(html.unescape(entity.text), exact=True).first
    ).to_be_visible()
    # While the click's rerun finishes, Streamlit keeps the previous drawing of the element too (data-stale).
    page.locator(f".st-key-{key}:not([data-stale='true'])").evaluate("(el) => el.scrollIntoView({block: 'center'})")
    _done(wide, "ask-evidence")


def test_clicking_a_community_in_the_network_opens_it(wide: Session) -> None:
    wide.open("Graph explorer")
    page = wide.page
    communities = plotly_graph.nodes(page, "ex_communities")
    chosen = page.get_by_role("combobox", name="Community")
    first = next(n for n in communities if n.selected)
    target = next(n for n in communities if n.text and n.text != first.text)
    title = html.unescape(target.text).rstrip("…")  # plotly gets text escaped and shows it unescaped

    plotly_graph.click(page, target.x, target.y)

    expect(chosen).to_have_value(re.compile(re.escape(title)), timeout=WAIT_MS)
    _done(wide, "communities")


def test_evidence_graphs_in_compare_columns_keep_their_labels_inside(wide: Session) -> None:
    wide.open("Ask")
    page = wide.page
    page.get_by_text(re.compile(r"^Compare modes")).click()
    ask(page, "Who was Marley?")
    expect(page.get_by_role("button", name="Export Markdown")).to_have_count(3, timeout=WAIT_MS)
    # the page then redraws the thread from the store (a rerun): read the graphs once that is done
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=WAIT_MS)
    keys = [plotly_graph.key_ending(page, f"-{mode}-evidence") for mode in ("local", "drift", "global")]
    for key in keys:
        assert any(n.text for n in plotly_graph.nodes(page, key)), f"{key} draws labels"
        assert plotly_graph.clipped_labels(page, key) == [], key
    _done(wide, "ask-compare")
