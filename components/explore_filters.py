"""The explorer's filters as widgets: entity types, least degree, least relation weight, relation direction, and
nodes hidden by hand. Their values live in the session (keys `exf_*`), so they hold while the picture grows."""

from __future__ import annotations

import streamlit as st

from components.graph_view import type_name
from retrieval.search.explore import Subgraph
from retrieval.search.explore_view import Direction, Filters

DIRECTIONS: dict[Direction, str] = {
    "any": "any",
    "directed": "directed (a statement's source to its object)",
    "undirected": "co-occurrence only",
}


def read(view: Subgraph) -> Filters:
    """Draw the filters for what `view` holds; return the chosen ones."""
    types = sorted({n.group for n in view.nodes if n.group})
    names = {n.id: n.label for n in view.nodes}
    top_degree = max((n.degree for n in view.nodes), default=0)
    top_weight = max((e.weight for e in view.edges), default=1.0)
    type_col, degree_col, weight_col = st.columns(3)
    state = st.session_state
    state["exf_types"] = [t for t in state.get("exf_types", []) if t in types]
    chosen_types = type_col.multiselect(
        "Entity types", types, format_func=type_name, key="exf_types", placeholder="all types"
    )
    # a value past a slider's new end (the picture changed) would be refused: bring it back within reach
    state["exf_degree"] = min(state.get("exf_degree", 0), max(top_degree, 1))
    state["exf_weight"] = min(state.get("exf_weight", 0.0), max(float(top_weight), 1.0))
    min_degree = degree_col.slider("Least degree", 0, max(top_degree, 1), key="exf_degree")
    min_weight = weight_col.slider(
        "Least relation weight", 0.0, max(float(top_weight), 1.0), step=0.5, key="exf_weight"
    )
    direction_col, hide_col = st.columns([1, 2])
    direction: Direction = direction_col.radio(
        "Relations", list(DIRECTIONS), format_func=DIRECTIONS.__getitem__, key="exf_direction"
    )
    state["exf_hidden"] = [h for h in state.get("exf_hidden", []) if h in names]
    hidden = hide_col.multiselect(
        "Hide nodes", sorted(names, key=lambda i: names[i].lower()), format_func=names.__getitem__, key="exf_hidden"
    )
    return Filters(chosen_types, min_degree, min_weight, direction, hidden)
