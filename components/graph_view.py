"""agraph rendering of a Subgraph: colours by type or community, size by degree, fixed positions.

Positions come from components.layout (physics off), so the browser draws at once and a rerun does
not shuffle the picture. agraph returns the id of a clicked node, which pages use to expand in place.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Literal

from streamlit_agraph import Config, Edge, Node, _agraph

from components.layout import Point
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
KIND_COLOURS = {"chunk": "#adb5bd", "community": "#fab005", "document": "#495057"}
ColourBy = Literal["type", "community"]


def colour(key: str) -> str:
    """Stable colour for a category: the same type/community gets the same colour on every page."""
    if not key:
        return "#868e96"
    return PALETTE[int(hashlib.md5(key.encode()).hexdigest()[:6], 16) % len(PALETTE)]


def node_colour(node: GraphNode, colour_by: ColourBy) -> str:
    if node.kind in KIND_COLOURS:
        return KIND_COLOURS[node.kind]
    return colour(node.community if colour_by == "community" else node.group)


def node_size(node: GraphNode) -> float:
    return 8 + min(4 * math.sqrt(node.degree), 30)


def draw(
    graph: Subgraph,
    positions: Mapping[str, Point],
    *,
    colour_by: ColourBy = "type",
    height: int = 560,
    highlight: frozenset[str] = frozenset(),
    key: str | None = None,
) -> str | None:
    """Draw the graph; returns the id of the node the user clicked last (None before any click).

    With a `key` the browser keeps one component frame and only swaps its data on rerun (a slider move
    redraws in place instead of reloading the frame); agraph() itself takes no key, so this calls its
    component the way agraph() does.
    """
    nodes = [
        Node(
            id=n.id,
            label=n.label if len(n.label) <= 28 else n.label[:27] + "…",
            title=f"{n.label} ({n.group or n.kind}) · degree {n.degree}",
            color=node_colour(n, colour_by),
            size=node_size(n) * (1.4 if n.id in highlight else 1.0),
            shape="square" if n.kind == "chunk" else "dot",
            x=positions.get(n.id, (0.0, 0.0))[0],
            y=positions.get(n.id, (0.0, 0.0))[1],
            physics=False,
            borderWidth=4 if n.id in highlight else 1,
        )
        for n in graph.nodes
    ]
    edges = [
        Edge(
            source=e.source,
            target=e.target,
            title=e.label,  # on hover: labels on every edge make a dense view unreadable
            color="#ced4da",
            dashes=e.label == "mentions",
            arrows={"to": {"enabled": e.directed}},  # only a directed RELATED (an LLM's statement) has an arrow
        )
        for e in graph.edges
    ]
    config = Config(height=height, width=1000, directed=True, physics=False, hierarchical=False)
    config.width = "100%"
    config.groups = {}  # agraph sends null otherwise, which vis-network rejects
    config.interaction = {"hover": True, "navigationButtons": False, "dragNodes": True, "hideEdgesOnDrag": True}
    config.edges = {"smooth": False}  # straight lines: curved ones cost a physics pass per edge
    data = json.dumps({"nodes": [n.to_dict() for n in nodes], "edges": [e.to_dict() for e in edges]})
    return _agraph(data=data, config=json.dumps(config.__dict__), key=key)  # type: ignore[no-any-return]
