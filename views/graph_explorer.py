"""Graph explorer: find an entity, see its neighbourhood, click to expand in place, browse communities, run Cypher."""

from __future__ import annotations

import json
from typing import Literal

import pandas as pd
import streamlit as st

from components import charts, explore_filters, graph_view, layout, session, status
from components.graph_view import ColourBy
from components.layout import Canvas
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.search import explore, explore_view
from retrieval.search.hybrid import search_entities

MAX_CAP = 300
#: Relations drawn per node of the cap: the strongest ones; the rest are counted, not drawn.
EDGES_PER_NODE = 2
#: The neighbourhood's drawing area at design size: the graph column of a 1440 px wide window.
CANVAS = Canvas(640, 520)
COMMUNITY_CANVAS = Canvas(560, 460)
CYPHER_CANVAS = Canvas(900, 420)
ctx = session.context()
if status.empty_graph(st.session_state["health"]):
    st.stop()

st.title("Graph explorer")
state = st.session_state
state.setdefault("ex_seeds", [])
state.setdefault("ex_pos", {})
state.setdefault("ex_selected", None)


def _start(entity_id: str | None) -> None:
    """A new pick starts a new picture: one seed, nothing placed, the seed selected."""
    state.ex_seeds = [entity_id] if entity_id else []
    state.ex_pos = {}
    state.ex_selected = entity_id


def _picked(node_id: str) -> None:
    """A click selects the node and expands its neighbourhood into the picture."""
    state.ex_selected = node_id
    if node_id not in state.ex_seeds:
        state.ex_seeds = [*state.ex_seeds, node_id]


def _found() -> None:
    """Find-in-graph selects the node it found, then empties itself for the next search."""
    if state.get("ex_find"):
        state.ex_selected = state.ex_find
    state.ex_find = None


search_col, pick_col, hops_col, cap_col, colour_col = st.columns([3, 3, 2, 2, 2], vertical_alignment="bottom")
query = search_col.text_input("Search entities", key="ex_query", placeholder="e.g. Scrooge, Marley, Christmas")
if state.get("ex_hits_for") != (ctx.project, query):  # search once per query: reruns keep the same options
    try:
        state.ex_hits = search_entities(ctx, query, session.params(), k=15) if query.strip() else []
    except DriftLensError as exc:
        session.show_error(exc)
        state.ex_hits = []
    state.ex_hits_for = (ctx.project, query)
hits = state.ex_hits
labels = {h.id: f"{h.metadata.get('title') or h.text or h.id} · {h.metadata.get('type', '')}" for h in hits}
if query.strip() and not hits:
    search_col.caption("No entity matches that search.")
if state.get("ex_pick") not in labels:  # a new search picks its best hit
    state.ex_pick = next(iter(labels), None)
pick = pick_col.selectbox("Entity", list(labels), format_func=lambda i: labels[i], key="ex_pick")
if pick and (not state.ex_seeds or state.ex_seeds[0] != pick):
    _start(pick)

state.setdefault("ex_hops", 1)  # one hop, strongest first: the first view leaves room to explore
state.setdefault("ex_cap", min(state.get("tune_max_nodes", 100), MAX_CAP))
hops = hops_col.slider("Hops", 1, 3, key="ex_hops")
cap = cap_col.slider("Node cap", 10, MAX_CAP, step=10, key="ex_cap")
colour_by: ColourBy = colour_col.radio("Colour by", ["type", "community"], horizontal=True, key="ex_colour")
tree = explore.community_tree(ctx)
titles = {c.id: c.title for c in tree}

if state.ex_seeds:
    try:
        first = explore.neighbourhood(ctx, state.ex_seeds[:1], session.params(max_hops=hops), cap)
        more = [explore.neighbourhood(ctx, [s], session.params(max_hops=1), cap) for s in state.ex_seeds[1:]]
    except DriftLensError as exc:
        session.show_error(exc)
        st.stop()
    grown = explore_view.grow(
        [first, *more],
        state.ex_seeds,
        cap,
        first=max(5, cap // 2),
        per_click=max(5, cap // 10),
        max_edges=EDGES_PER_NODE * cap,
    )
    whole = grown.view
    with st.expander("Filters", expanded=False):
        filters = explore_filters.read(whole)
    view = explore_view.apply(whole, filters, state.ex_seeds)
    graph_col, side_col = st.columns([2, 1])
    if state.get("ex_pos_for") != (state.ex_seeds[0], hops, cap):  # other sliders: a fresh picture
        state.ex_pos, state.ex_pos_for = {}, (state.ex_seeds[0], hops, cap)
    placed = {k: v for k, v in state.ex_pos.items() if k in whole.ids()}  # replaced nodes free their place
    state.ex_pos = layout.force(
        [n.id for n in whole.nodes],
        [(e.source, e.target) for e in whole.edges],
        CANVAS,
        placed,
        around=state.ex_seeds[-1] if len(state.ex_seeds) > 1 else None,
    )
    names = {n.id: n.label for n in view.nodes}
    with graph_col:
        last = names.get(state.ex_seeds[-1], "") if len(state.ex_seeds) > 1 else ""
        st.caption(
            f"{len(view.nodes)} nodes, {len(view.edges)} relations · click a node to expand it"
            + (f" · {view.hidden_edges} weaker relations not drawn" if view.hidden_edges else "")
            + (f" · cap {cap} reached: a click replaces the weakest nodes" if whole.truncated else "")
            + (f" · {whole.cut} more within reach: click a node to add its strongest neighbours" if whole.cut else "")
        )
        if last:
            st.caption(
                f"Expanding {inert(last)} added {grown.added} nodes"
                + (f", replacing the {grown.replaced} weakest" if grown.replaced else "")
                + ("" if grown.added else ": all its neighbours are already shown")
            )
        drawn = graph_view.draw(
            view,
            state.ex_pos,
            CANVAS,
            key="ex_graph",
            colour_by=colour_by,
            strong=frozenset(state.ex_seeds),
            selected=state.ex_selected,
            community_titles=titles,
            on_pick=_picked,
        )
        st.caption(
            f"Names shown for {len(drawn.labelled)} of {len(view.nodes)} nodes (hover for the others) · "
            "wheel to zoom, drag to pan, ⛶ for fullscreen · the legend hides and shows a group"
        )
    with side_col:
        st.selectbox(
            "Find in graph",
            sorted(names, key=lambda i: names[i].lower()),
            index=None,
            format_func=lambda i: names[i],
            placeholder="Type a name to find it in the picture",
            key="ex_find",
            on_change=_found,
        )
        if state.ex_selected:
            graph_view.node_panel(ctx, state.ex_selected)
        else:
            st.caption("Click a node to see its properties and source chunks.")
        if len(state.ex_seeds) > 1 and st.button("Collapse expansions"):
            _start(state.ex_seeds[0])
            st.rerun()
else:
    st.info("Search for an entity and pick one to see its neighbourhood.")


def _community_picked(community_id: str) -> None:
    state.ex_community = community_id


st.divider()
st.subheader("Communities")
if not tree:
    st.caption("No communities yet: indexing builds them.")
else:
    levels = sorted({c.level for c in tree})
    if state.get("ex_level") not in levels:
        state.ex_level = levels[0]
    level_col, shape_col = st.columns([3, 2])
    level = level_col.select_slider("Show levels from", levels, key="ex_level")
    shape: Literal["treemap", "sunburst"] = shape_col.radio(
        "Chart", ["sunburst", "treemap"], horizontal=True, key="ex_chart"
    )
    shown = sorted((c for c in tree if c.level >= level), key=lambda c: (-c.level, -c.size))
    if state.get("ex_community") not in {c.id for c in shown}:
        state.ex_community = shown[0].id if shown else None
    chart_col, network_col = st.columns(2)
    chart_col.plotly_chart(charts.community_hierarchy(tree, kind=shape, min_level=level), width="stretch")
    with network_col:
        communities = charts.community_network(tree, COMMUNITY_CANVAS, min_level=level, selected=state.ex_community)
        graph_view.show(communities, key="ex_communities", on_pick=_community_picked)
        st.caption("Each community linked to the one above it; click one to read it below.")
    chosen = st.selectbox(
        "Community",
        [c.id for c in shown],
        format_func=lambda i: next(f"level {c.level} · {c.title} ({c.size})" for c in shown if c.id == i),
        key="ex_community",
    )
    detail = explore.community_detail(ctx, chosen) if chosen else None
    if detail:
        summary_col, members_col = st.columns([3, 2])
        summary_col.markdown(
            f"**{inert(detail.community.title)}** · level {detail.community.level} · {detail.community.size} members"
        )
        summary_col.markdown(inert(detail.summary) or "No summary.")
        members_col.dataframe(
            pd.DataFrame([{"entity": m.label, "type": m.group, "degree": m.degree} for m in detail.members]),
            hide_index=True,
            height=260,
        )

st.divider()
st.subheader("Read-only Cypher")
cypher = st.text_area(
    "Query",
    value=explore.example_cypher(ctx),
    key="ex_cypher",
)
if st.button("Run query", key="ex_run"):
    try:
        state.ex_result = explore.run_cypher(ctx, cypher)
    except DriftLensError as exc:
        state.ex_result = None
        session.show_error(exc)
result = state.get("ex_result")
if result is not None:
    st.caption(f"{len(result.rows)} rows" + (" (first rows only)" if result.truncated else ""))
    table = pd.DataFrame(
        [
            {k: json.dumps(v, default=str) if isinstance(v, (dict, list)) else v for k, v in r.items()}
            for r in result.rows
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")
    if result.graph.nodes:
        positions = layout.force(
            [n.id for n in result.graph.nodes], [(e.source, e.target) for e in result.graph.edges], CYPHER_CANVAS
        )
        graph_view.draw(result.graph, positions, CYPHER_CANVAS, key="ex_cypher_graph")
