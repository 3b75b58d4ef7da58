"""A Subgraph on screen: coloured by type or community with a legend, labels for the important nodes, hover for
the rest, fullscreen from Streamlit's toolbar, and a click that tells the page which node was picked.

Positions come from components.layout (computed in Python, physics nowhere), the figure from
components.network. `node_panel` shows what a picked node is: its description, properties and source chunks.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Literal

import streamlit as st

from components import layout, network
from components.layout import Canvas, Point
from components.untrusted import inert
from retrieval.context import Context
from retrieval.search import explore
from retrieval.search.explore import GraphNode, Subgraph

PALETTE = (
    "#4263eb",
    "#f08c00",
    "#2f9e44",
    "#e03131",
    "#9c36b5",
    "#1098ad",
    "#d6336c",
    "#5c940d",
    "#e8590c",
    "#3b5bdb",
    "#0c8599",
    "#862e9c",
)
#: The entity types the offline extractor writes, each with a colour of its own (others get one by hash).
TYPE_COLOURS = {
    "PERSON": "#4263eb",
    "ORG": "#f08c00",
    "GPE": "#2f9e44",
    "CONCEPT": "#9c36b5",
    "WORK_OF_ART": "#d6336c",
    "NORP": "#e8590c",
    "LOC": "#1098ad",
    "PRODUCT": "#5c940d",
    "EVENT": "#e03131",
    "FAC": "#0c8599",
    "LAW": "#862e9c",
}
#: spaCy's type names, in words, for the legend.
TYPE_NAMES = {
    "GPE": "place (GPE)",
    "LOC": "location",
    "NORP": "group (NORP)",
    "FAC": "facility",
    "ORG": "organisation",
    "WORK_OF_ART": "work of art",
}
KIND_COLOURS = {"chunk": "#868e96", "community": "#fab005", "document": "#495057"}
OTHER = "#ced4da"
#: Communities with a colour of their own in a view; the rest share "other communities".
COMMUNITY_COLOURS = 9
#: Views with more nodes than this draw smaller markers.
CROWD = 80
ColourBy = Literal["type", "community"]
Pick = Callable[[str], None]


def colour(key: str) -> str:
    """Stable colour for a category: the same type gets the same colour on every page."""
    if not key:
        return "#868e96"
    if key in TYPE_COLOURS:
        return TYPE_COLOURS[key]
    return PALETTE[int(hashlib.md5(key.encode()).hexdigest()[:6], 16) % len(PALETTE)]


def type_name(group: str) -> str:
    return TYPE_NAMES.get(group, group.replace("_", " ").lower() or "untyped")


def node_size(node: GraphNode, crowd: int = 0) -> float:
    """Marker diameter (px) by degree; smaller in a crowded view (`crowd` nodes), so hubs do not cover each other."""
    scale = min(1.0, max(0.55, math.sqrt(CROWD / crowd))) if crowd else 1.0
    return (10 + min(3 * math.sqrt(node.degree), 22)) * scale


def dots(
    graph: Subgraph,
    *,
    colour_by: ColourBy = "type",
    strong: frozenset[str] = frozenset(),
    selected: str | None = None,
    community_titles: Mapping[str, str] | None = None,
) -> list[network.Dot]:
    """Graph nodes as drawn dots: legend group and colour by type (or by community), size by degree."""
    entities = [n for n in graph.nodes if n.kind == "entity"]
    ranked = sorted({n.community for n in entities if n.community}, key=lambda c: (-_count(entities, c), c))
    community_colour = {c: PALETTE[i] for i, c in enumerate(ranked[:COMMUNITY_COLOURS])}
    titles = community_titles or {}
    out = []
    for n in graph.nodes:
        if n.kind in KIND_COLOURS:
            group, fill = n.kind, KIND_COLOURS[n.kind]
        elif colour_by == "community":
            fill = community_colour.get(n.community, OTHER)
            group = network.short(titles.get(n.community, n.community), 28) if fill != OTHER else "other communities"
        else:
            group, fill = type_name(n.group), colour(n.group)
        hover = (n.label, f"{type_name(n.group) if n.kind == 'entity' else n.kind} · {n.degree} relations")
        out.append(
            network.Dot(
                id=n.id,
                label=_label(n),
                hover=(*hover, network.short(n.description, 90)) if n.description else hover,
                group=group,
                colour=fill,
                size=node_size(n, len(graph.nodes)),
                symbol="square" if n.kind == "chunk" else "circle",
                strong=n.id in strong,
                selected=n.id == selected,
            )
        )
    return out


def _label(node: GraphNode) -> str:
    """A chunk is named by its number ("chunk 57"; its document shows on hover), anything else by its title."""
    if node.kind == "chunk" and "#" in node.label:
        return f"chunk {node.label.rsplit('#', 1)[1].strip()}"
    return network.short(node.label, 26)


def _count(nodes: list[GraphNode], community: str) -> int:
    return sum(1 for n in nodes if n.community == community)


def lines(graph: Subgraph, positions: Mapping[str, Point]) -> list[network.Line]:
    return [
        network.Line(
            (positions[e.source], positions[e.target]),
            hover=e.label,
            dashed=e.label == "mentions",
            directed=e.directed,
        )
        for e in graph.edges
        if e.source in positions and e.target in positions
    ]


def drawing(
    graph: Subgraph,
    positions: Mapping[str, Point],
    canvas: Canvas,
    *,
    colour_by: ColourBy = "type",
    strong: frozenset[str] = frozenset(),
    selected: str | None = None,
    community_titles: Mapping[str, str] | None = None,
) -> network.Drawing:
    """The figure of a Subgraph (pure: no Streamlit), labels by priority: picked, seeds, then most related."""
    shown = dots(graph, colour_by=colour_by, strong=strong, selected=selected, community_titles=community_titles)
    by_degree = [n.id for n in sorted(graph.nodes, key=lambda n: (-n.degree, n.label))]
    legend = "" if colour_by == "type" else "community"
    return network.figure(shown, positions, canvas, lines(graph, positions), priority=by_degree, legend_title=legend)


def draw(
    graph: Subgraph,
    positions: Mapping[str, Point],
    canvas: Canvas,
    *,
    key: str,
    colour_by: ColourBy = "type",
    strong: frozenset[str] = frozenset(),
    selected: str | None = None,
    community_titles: Mapping[str, str] | None = None,
    on_pick: Pick | None = None,
) -> network.Drawing:
    """Draw the graph; a click on a node calls `on_pick(node id)` before the page reruns."""
    result = drawing(
        graph,
        positions,
        canvas,
        colour_by=colour_by,
        strong=strong,
        selected=selected,
        community_titles=community_titles,
    )
    show(result, key=key, on_pick=on_pick)
    return result


def show(result: network.Drawing, *, key: str, on_pick: Pick | None = None) -> None:
    """Put a drawing on the page; with `on_pick`, clicking a node selects it."""
    st.plotly_chart(
        result.figure,
        key=key,
        on_select=partial(_clicked, key, on_pick) if on_pick else "ignore",
        selection_mode="points",
        config=network.config(),
        width="stretch",
    )


def _clicked(key: str, on_pick: Pick) -> None:
    node = network.picked(st.session_state.get(key))
    if node:
        on_pick(node)


def node_panel(ctx: Context, node_id: str, *, nested: bool = False) -> None:
    """What a node is: title, kind, description, properties and source chunks (bordered boxes when `nested`
    inside an expander, where Streamlit allows no expander)."""
    details = explore.node_details(ctx, node_id)
    if details is None:
        st.caption("That node is no longer in the graph.")
        return
    st.markdown(f"**{inert(details.title)}**")
    kind = details.kind if details.kind != "entity" else type_name(str(details.properties.get("type") or ""))
    st.caption(f"{kind} · `{details.id}`")
    if details.aliases:
        st.caption("Also written: " + ", ".join(inert(a) for a in details.aliases))
        for reason in details.merge_reasons:
            st.caption(f"· {inert(reason)}")
    body = details.description or (str(details.properties.get("text") or "") if details.kind == "chunk" else "")
    if body:
        if nested:
            with st.container(height=160 if len(body) > 400 else "content", border=False):
                st.markdown(inert(body))
        else:
            st.markdown(inert(body))
    if not nested:
        with st.expander("Properties"):
            st.json(details.properties)
    if details.chunks:
        st.markdown(f"**Source chunks** ({len(details.chunks)})")
    for chunk in details.chunks[:NESTED_CHUNKS] if nested else details.chunks:
        title = f"{inert(chunk.document_name or '')} · {chunk.id.rsplit(':', 1)[-1]}"
        if nested:
            with st.container(border=True):
                st.caption(title)
                st.markdown(inert(network.short(chunk.text, 240)))
        else:
            with st.expander(title):
                st.markdown(inert(chunk.text))


EVIDENCE_CANVAS = Canvas(640, 420)
#: An evidence graph in a column beside other answers (compare): such a plot is ~265 px wide at a 1440 px window
#: with three answers and ~215 px with four, so it is laid out for that width (a 640 px layout squeezed into it
#: piled nodes together) and its labels stay inside down to the narrower.
BESIDE_CANVAS = Canvas(270, 460, narrowest=0.75)
#: Source chunks shown for a node picked inside an answer (the explorer shows them all).
NESTED_CHUNKS = 3


def evidence(ctx: Context, graph: Subgraph, cited: list[str], key: str, *, beside: bool = False) -> None:
    """An answer's evidence graph: cited chunks and their entities; a click shows that node below the graph.
    `beside`: drawn in a narrow column next to other answers' (compare)."""
    picked_key = f"{key}-picked"
    canvas = BESIDE_CANVAS if beside else EVIDENCE_CANVAS
    positions = layout.force([n.id for n in graph.nodes], [(e.source, e.target) for e in graph.edges], canvas)
    selected = st.session_state.get(picked_key)
    if selected not in positions:
        selected = None
    draw(
        graph,
        positions,
        canvas,
        key=key,
        strong=frozenset(cited),
        selected=selected,
        on_pick=partial(_remember, picked_key),
    )
    if selected:
        node_panel(ctx, selected, nested=True)
    else:
        st.caption("Click a node to see what it is and where it comes from.")


def _remember(state_key: str, node_id: str) -> None:
    st.session_state[state_key] = node_id
