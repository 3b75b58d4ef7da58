"""Graph explorer: find an entity, see its neighbourhood, click to expand in place, browse communities, run Cypher."""

from __future__ import annotations

import json
from typing import Literal

import pandas as pd
import streamlit as st

from components import charts, graph_view, layout, session, status
from components.graph_view import ColourBy
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.search import explore
from retrieval.search.hybrid import search_entities

MAX_CAP = 300
#: Relations drawn per node of the cap: the strongest ones; the rest are counted, not drawn.
EDGES_PER_NODE = 2
ctx = session.context()
if status.empty_graph(st.session_state["health"]):
    st.stop()

st.title("Graph explorer")
state = st.session_state
state.setdefault("ex_seeds", [])
state.setdefault("ex_pos", {})
state.setdefault("ex_selected", None)
state.setdefault("ex_last_click", None)


def _start(entity_id: str | None) -> None:
    """A new pick starts a new picture: one seed, nothing placed, nothing selected."""
    state.ex_seeds = [entity_id] if entity_id else []
    state.ex_pos = {}
    state.ex_selected = entity_id
    state.ex_last_click = None


search_col, opts_col = st.columns([3, 2])
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
pick = search_col.selectbox("Entity", list(labels), format_func=lambda i: labels[i], key="ex_pick")
if pick and (not state.ex_seeds or state.ex_seeds[0] != pick):
    _start(pick)

state.setdefault("ex_hops", min(max(state.get("tune_max_hops", 2), 1), 3))
state.setdefault("ex_cap", min(state.get("tune_max_nodes", 100), MAX_CAP))
hops = opts_col.slider("Hops", 1, 3, key="ex_hops")
cap = opts_col.slider("Node cap", 10, MAX_CAP, step=10, key="ex_cap")
colour_by: ColourBy = opts_col.radio("Colour by", ["type", "community"], horizontal=True, key="ex_colour")

graph_col, side_col = st.columns([3, 2])
if state.ex_seeds:
    try:
        first = explore.neighbourhood(ctx, state.ex_seeds[:1], session.params(max_hops=hops), cap)
        more = [explore.neighbourhood(ctx, [s], session.params(max_hops=1), cap) for s in state.ex_seeds[1:]]
        view = explore.merge([first, *more], cap, keep_first=state.ex_seeds, max_edges=EDGES_PER_NODE * cap)
    except DriftLensError as exc:
        session.show_error(exc)
        st.stop()
    state.ex_pos = layout.radial(
        [n.id for n in view.nodes], [(e.source, e.target) for e in view.edges], state.ex_seeds, state.ex_pos
    )
    with graph_col:
        cut = f"{view.cut} known nodes" if view.cut else "more nodes"
        st.caption(
            f"{len(view.nodes)} nodes, {len(view.edges)} relations · click a node to expand it"
            + (f" · {view.hidden_edges} weaker relations not drawn" if view.hidden_edges else "")
            + (f" · cap {cap} reached: {cut} within {hops} hops not shown" if view.truncated else "")
        )
        clicked = graph_view.draw(
            view, state.ex_pos, colour_by=colour_by, highlight=frozenset(state.ex_seeds), height=600, key="ex_graph"
        )
    if clicked and clicked != state.ex_last_click:
        state.ex_last_click = clicked
        state.ex_selected = clicked
        if clicked not in state.ex_seeds:
            state.ex_seeds.append(clicked)
        st.rerun()
    with side_col:
        details = explore.node_details(ctx, state.ex_selected) if state.ex_selected else None
        if details is None:
            st.caption("Click a node to see its properties and source chunks.")
        else:
            st.subheader(inert(details.title))
            st.caption(f"{details.kind} · `{details.id}`")
            if details.description:
                st.markdown(inert(details.description))
            with st.expander("Properties"):
                st.json(details.properties)
            st.markdown(f"**Source chunks** ({len(details.chunks)})")
            for chunk in details.chunks:
                with st.expander(f"{inert(chunk.document_name or '')} · {chunk.id.rsplit(':', 1)[-1]}"):
                    st.markdown(inert(chunk.text))
        if len(state.ex_seeds) > 1 and st.button("Collapse expansions"):
            _start(state.ex_seeds[0])
            st.rerun()
else:
    graph_col.info("Search for an entity and pick one to see its neighbourhood.")

st.divider()
st.subheader("Communities")
tree = explore.community_tree(ctx)
if not tree:
    st.caption("No communities yet: indexing builds them.")
else:
    levels = sorted({c.level for c in tree})
    left, right = st.columns([3, 2])
    if state.get("ex_level") not in levels:
        state.ex_level = levels[0]
    level = left.select_slider("Show levels from", levels, key="ex_level")
    shape: Literal["treemap", "sunburst"] = left.radio(
        "Chart", ["treemap", "sunburst"], horizontal=True, key="ex_chart"
    )
    left.plotly_chart(charts.community_hierarchy(tree, kind=shape, min_level=level), width="stretch")
    at_level = sorted((c for c in tree if c.level == level), key=lambda c: -c.size)
    chosen = right.selectbox(
        "Community",
        [c.id for c in at_level],
        format_func=lambda i: next(f"{c.title} ({c.size})" for c in at_level if c.id == i),
        key="ex_community",
    )
    detail = explore.community_detail(ctx, chosen) if chosen else None
    if detail:
        right.markdown(
            f"**{inert(detail.community.title)}** · level {detail.community.level} · {detail.community.size} members"
        )
        right.markdown(inert(detail.summary) or "No summary.")
        right.dataframe(
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
        positions = layout.radial(
            [n.id for n in result.graph.nodes], [(e.source, e.target) for e in result.graph.edges], []
        )
        graph_view.draw(result.graph, positions, height=420)
