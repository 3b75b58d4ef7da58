"""The explorer's picture as it grows by clicks, and the filters an analyst puts on it: pure functions over
`Subgraph`s the store already returned.

Why growth is decided here and not by a plain union capped at the first comer: at the cap, a union kept the
first view whole and a click added nothing. Here the first view takes only part of the cap, and every click adds
the clicked node's best unseen neighbours, evicting the weakest nodes of earlier views when the cap is reached.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from retrieval.search.explore import GraphEdge, GraphNode, Subgraph, strongest_edges

Direction = Literal["any", "directed", "undirected"]


@dataclass(frozen=True)
class Growth:
    """The picture, and what the last click did to it."""

    view: Subgraph
    added: int = 0
    replaced: int = 0


def grow(
    views: Sequence[Subgraph], seeds: Sequence[str], cap: int, *, first: int, per_click: int, max_edges: int
) -> Growth:
    """`views[0]` is the picked entity's neighbourhood, `views[i]` the clicked `seeds[i]`'s, each best first.

    The first view gives at most `first` nodes; each click its `per_click` best nodes not in the picture yet. Past
    `cap`, the weakest nodes of the earliest views leave first (a view's last nodes are its weakest); seeds and
    the nodes the same click brought never leave."""
    keep = set(seeds)
    nodes: dict[str, GraphNode] = {}
    brought: list[list[str]] = []
    edges: dict[tuple[str, str], GraphEdge] = {}
    added = replaced = 0
    for i, view in enumerate(views):
        for edge in view.edges:
            edges.setdefault((edge.source, edge.target), edge)
        fresh = sorted((n for n in view.nodes if n.id not in nodes), key=lambda n: n.id not in keep)  # seeds first
        taken = fresh[: first if i == 0 else per_click]
        nodes.update((n.id, n) for n in taken)
        brought.append([n.id for n in taken])
        added, replaced = len(taken), 0
        weakest = (node_id for earlier in brought[:i] for node_id in reversed(earlier))
        while len(nodes) > cap:
            victim = next((v for v in weakest if v in nodes and v not in keep), None)
            if victim is None:
                break
            del nodes[victim]
            replaced += 1
    kept_edges = [e for e in edges.values() if e.source in nodes and e.target in nodes]
    shown = strongest_edges(kept_edges, max_edges)
    reachable = len({n.id for v in views for n in v.nodes}) + sum(v.cut for v in views)
    picture = Subgraph(
        list(nodes.values()),
        shown,
        cut=max(0, reachable - len(nodes)),  # known to be within reach, not shown
        truncated=len(nodes) >= cap,  # at the cap: the next click replaces nodes
        hidden_edges=len(kept_edges) - len(shown),
    )
    return Growth(picture, added if len(views) > 1 else 0, replaced)


@dataclass(frozen=True)
class Filters:
    """What the analyst asked to see: entity types (empty: all), least degree, least relation weight, relation
    direction, nodes hidden by hand. Seeds stay unless hidden by hand."""

    types: Collection[str] = ()
    min_degree: int = 0
    min_weight: float = 0.0
    direction: Direction = "any"
    hidden: Collection[str] = ()


def apply(view: Subgraph, filters: Filters, seeds: Collection[str] = ()) -> Subgraph:
    """The view with the filtered-out nodes and relations removed (relations of removed nodes go with them)."""
    nodes = [
        n
        for n in view.nodes
        if n.id not in filters.hidden
        and (n.id in seeds or ((not filters.types or n.group in filters.types) and n.degree >= filters.min_degree))
    ]
    ids = {n.id for n in nodes}
    edges = [
        e
        for e in view.edges
        if e.source in ids
        and e.target in ids
        and e.weight >= filters.min_weight
        and (filters.direction == "any" or e.directed == (filters.direction == "directed"))
    ]
    return replace(view, nodes=nodes, edges=edges)
