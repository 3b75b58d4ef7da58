"""Node positions computed in Python, inside a fixed canvas, so a view is drawn at once and nothing jumps on rerun.

Why not the browser's force layout: on 2 cores vis-network needed tens of seconds for a few hundred nodes with
physics on, re-laid-out on every rerun, and let the picture grow past the frame. Here the force-directed layout is
igraph's Kamada-Kawai: deterministic from a given start (Fruchterman-Reingold draws random numbers, so a rerun
would shuffle the picture), and it honours per-node bounds, which keep every node on the canvas and pin the nodes
already placed, so click-to-expand grows the picture around what the analyst is looking at.

Coordinates are canvas pixels at the canvas's design size, y pointing down (the figures reverse their y axis).
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import igraph
import numpy as np

Point = tuple[float, float]
#: How much more one axis may be stretched than the other when a layout is fitted to its canvas.
MAX_STRETCH = 1.4
#: Distance (px) the layout tries to keep between any two node centres, when the canvas has room for it.
SPACING = 26.0
#: Widest gap between two levels of a radial tree, in pixels.
RING_PX = 110.0


@dataclass(frozen=True)
class Canvas:
    """The drawing area in pixels at design size; nodes keep `margin` away from its edges.

    A figure keeps its height but takes its column's width, so positions shrink or grow sideways while text keeps
    its pixel size: `narrowest` is the least share of the design width it is expected to be drawn at, and labels
    are placed to stay inside the plot down to that width (components.label_placement)."""

    width: float
    height: float
    margin: float = 28.0
    narrowest: float = 1.0

    def inside(self, point: Point) -> bool:
        x, y = point
        return self.margin <= x <= self.width - self.margin and self.margin <= y <= self.height - self.margin

    def clamp(self, point: Point) -> Point:
        x, y = point
        m = self.margin
        return (min(max(x, m), self.width - m), min(max(y, m), self.height - m))


def force(
    node_ids: Sequence[str],
    edges: Iterable[tuple[str, str]],
    canvas: Canvas,
    placed: Mapping[str, Point] | None = None,
    around: str | None = None,
) -> dict[str, Point]:
    """Force-directed positions for `node_ids` on `canvas`; nodes in `placed` keep their position.

    The first layout fills the canvas. Later calls (click-to-expand) pin every placed node, start each new one
    beside its placed neighbours and let the springs find it room, within the canvas bounds; with `around` (the
    node a click expanded, already placed) the new nodes are set on a ring around it instead, so they read as
    its neighbours rather than piling up wherever the springs leave room (often the canvas's edge).
    """
    ids = list(dict.fromkeys(node_ids))
    if not ids:
        return {}
    index = {node_id: i for i, node_id in enumerate(ids)}
    pairs = sorted({tuple(sorted((index[a], index[b]))) for a, b in edges if a in index and b in index and a != b})
    graph = igraph.Graph(n=len(ids), edges=pairs)
    pinned = {node_id: canvas.clamp(p) for node_id, p in (placed or {}).items() if node_id in index}
    if not pinned:
        fitted = _fit(ids, _tied(graph).layout_kamada_kawai(seed=_circle(len(ids))).coords, canvas)
        return _spread(fitted, frozenset(), canvas)
    if len(pinned) == len(ids):
        return {node_id: pinned[node_id] for node_id in ids}
    if around in pinned:
        return _spread(_ring(ids, pinned, pinned[around], canvas), frozenset(pinned), canvas)
    return _spread(_grow(ids, graph, pinned, canvas), frozenset(pinned), canvas)


def _ring(ids: Sequence[str], pinned: Mapping[str, Point], centre: Point, canvas: Canvas) -> dict[str, Point]:
    """Placed nodes where they are; the new ones evenly on a circle around `centre`, roomy enough for them all."""
    new = [node_id for node_id in ids if node_id not in pinned]
    radius = max(SPACING * 1.5, SPACING * len(new) / (2 * math.pi))
    turn = _angle("".join(new[:1]))  # where the ring starts: stable for the same click
    ring = {
        node_id: _round(
            canvas.clamp(
                (
                    centre[0] + radius * math.cos(turn + 2 * math.pi * k / len(new)),
                    centre[1] + radius * math.sin(turn + 2 * math.pi * k / len(new)),
                )
            )
        )
        for k, node_id in enumerate(new)
    }
    return {node_id: pinned.get(node_id) or ring[node_id] for node_id in ids}


def _spread(positions: dict[str, Point], fixed: frozenset[str], canvas: Canvas, rounds: int = 24) -> dict[str, Point]:
    """Push apart nodes closer than the canvas's fair share of room (capped at `SPACING` px), fixed ones staying.

    Why: Kamada-Kawai packs the hubs of a dense neighbourhood into a knot where markers cover each other; a few
    deterministic rounds of pairwise pushing open the knot without changing the picture's shape.
    """
    ids = list(positions)
    if len(ids) < 2:
        return positions
    room = (canvas.width - 2 * canvas.margin) * (canvas.height - 2 * canvas.margin)
    gap = min(SPACING, 0.75 * math.sqrt(room / len(ids)))
    at = np.array([positions[i] for i in ids], dtype=np.float32)  # float32: half the memory traffic, same picture
    free = np.array([i not in fixed for i in ids])
    lo, hi = np.array([canvas.margin] * 2), np.array([canvas.width - canvas.margin, canvas.height - canvas.margin])
    for _ in range(rounds):
        delta = at[:, None, :] - at[None, :, :]
        dist = np.sqrt(np.einsum("ijk,ijk->ij", delta, delta))
        np.fill_diagonal(dist, gap)  # a node does not push itself
        close = dist < gap
        if not close.any():
            break
        dist = np.maximum(dist, 1e-6)
        push = (delta / dist[..., None] * (np.where(close, gap - dist, 0.0) / 2)[..., None]).sum(axis=1)
        at[free] = np.clip(at[free] + push[free], lo, hi)
    return {i: positions[i] if i in fixed else _round((float(at[k, 0]), float(at[k, 1]))) for k, i in enumerate(ids)}


def _tied(graph: igraph.Graph) -> igraph.Graph:
    """The graph plus one layout-only edge from each smaller component's best-connected node to the first node
    (the seed): Kamada-Kawai sets unconnected parts far apart, and fitting that to the canvas shrank the main
    part to a knot in the middle."""
    parts = graph.connected_components()
    if len(parts) < 2:
        return graph
    home = parts.membership[0]
    ties = [(0, max(part, key=graph.degree)) for i, part in enumerate(parts) if i != home]
    tied = graph.copy()
    tied.add_edges(ties)
    return tied


def _circle(n: int) -> list[list[float]]:
    """Kamada-Kawai's usual start (what igraph uses without bounds), given explicitly: the same start every run."""
    radius = max(1.0, n / (2 * math.pi))
    return [[radius * math.cos(2 * math.pi * i / n), radius * math.sin(2 * math.pi * i / n)] for i in range(n)]


def _fit(
    ids: Sequence[str], coords: Sequence[Sequence[float]], canvas: Canvas, max_unit: float = math.inf
) -> dict[str, Point]:
    """Scale a layout (graph-distance units) to fill the canvas inside its margins, centred.

    Each axis gets its own scale (a wide canvas is filled by a round layout too), but never more than
    `MAX_STRETCH` times the other's, so the shape stays recognisable; one layout unit is at most `max_unit` pixels
    (a small tree stays compact in the middle instead of being pulled to the corners)."""
    xs = [c[0] for c in coords]
    ys = [c[1] for c in coords]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    room_x, room_y = canvas.width - 2 * canvas.margin, canvas.height - 2 * canvas.margin
    scale_x = room_x / span_x if span_x else math.inf
    scale_y = room_y / span_y if span_y else math.inf
    if math.isinf(scale_x) and math.isinf(scale_y):
        scale_x = scale_y = 0.0
    scale_x, scale_y = min(scale_x, scale_y * MAX_STRETCH, max_unit), min(scale_y, scale_x * MAX_STRETCH, max_unit)
    mid_x, mid_y = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return {
        node_id: _round(
            canvas.clamp((canvas.width / 2 + (x - mid_x) * scale_x, canvas.height / 2 + (y - mid_y) * scale_y))
        )
        for node_id, x, y in zip(ids, xs, ys, strict=True)
    }


def _grow(ids: Sequence[str], graph: igraph.Graph, pinned: Mapping[str, Point], canvas: Canvas) -> dict[str, Point]:
    """Kamada-Kawai with the placed nodes pinned (lower bound = upper bound) and the new ones bounded by the canvas.

    The layout runs in graph-distance units; one unit is the median drawn length of the edges among placed nodes,
    so the new nodes sit at the spacing the picture already has.
    """
    unit = _unit_length(ids, graph, pinned, canvas)
    cx, cy = canvas.width / 2, canvas.height / 2
    start = _starts(ids, graph, pinned, unit)
    lo_x, hi_x = (canvas.margin - cx) / unit, (canvas.width - canvas.margin - cx) / unit
    lo_y, hi_y = (canvas.margin - cy) / unit, (canvas.height - canvas.margin - cy) / unit
    bounds: dict[str, list[float]] = {"minx": [], "maxx": [], "miny": [], "maxy": []}
    seed = []
    for node_id, (x, y) in zip(ids, start, strict=True):
        ux, uy = (x - cx) / unit, (y - cy) / unit
        seed.append([ux, uy])
        fixed = node_id in pinned
        bounds["minx"].append(ux if fixed else lo_x)
        bounds["maxx"].append(ux if fixed else hi_x)
        bounds["miny"].append(uy if fixed else lo_y)
        bounds["maxy"].append(uy if fixed else hi_y)
    coords = graph.layout_kamada_kawai(seed=seed, **bounds).coords
    return {
        node_id: pinned[node_id] if node_id in pinned else _round(canvas.clamp((cx + x * unit, cy + y * unit)))
        for node_id, (x, y) in zip(ids, coords, strict=True)
    }


def _unit_length(ids: Sequence[str], graph: igraph.Graph, pinned: Mapping[str, Point], canvas: Canvas) -> float:
    lengths = [
        math.dist(pinned[ids[a]], pinned[ids[b]])
        for a, b in graph.get_edgelist()
        if ids[a] in pinned and ids[b] in pinned
    ]
    fallback = min(canvas.width, canvas.height) / (2 * math.sqrt(len(ids)))
    return max(statistics.median(lengths) if lengths else fallback, 12.0)


def _starts(ids: Sequence[str], graph: igraph.Graph, pinned: Mapping[str, Point], unit: float) -> list[Point]:
    """Start positions: placed nodes where they are; each new node one unit from its placed neighbours' centre,
    in a direction of its own (from its id), breadth-first from the placed part of the graph."""
    at: dict[int, Point] = {i: pinned[node_id] for i, node_id in enumerate(ids) if node_id in pinned}
    centre = (statistics.fmean(p[0] for p in at.values()), statistics.fmean(p[1] for p in at.values()))
    frontier = list(at)
    while len(at) < len(ids):
        fresh = sorted({n for i in frontier for n in graph.neighbors(i) if n not in at})
        if not fresh:  # not connected to anything placed: start beside the picture's centre
            fresh = [min(i for i in range(len(ids)) if i not in at)]
        for i in fresh:
            anchors = [at[n] for n in graph.neighbors(i) if n in at] or [centre]
            base = (statistics.fmean(p[0] for p in anchors), statistics.fmean(p[1] for p in anchors))
            angle = _angle(ids[i])
            at[i] = (base[0] + unit * math.cos(angle), base[1] + unit * math.sin(angle))
        frontier = fresh
    return [at[i] for i in range(len(ids))]


def _angle(node_id: str) -> float:
    return int(hashlib.md5(node_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF * 2 * math.pi


def _round(point: Point) -> Point:
    return (round(point[0], 1), round(point[1], 1))


def outline(nodes: Sequence[tuple[str, str | None]], indent: float = 26.0, row: float = 34.0) -> dict[str, Point]:
    """An indented tree (pre-order rows, depth as indentation) for (id, parent_id) pairs.

    Why an outline for reasoning trees: a top-down tree of 20 follow-ups is 20 boxes wide and had to shrink until
    no label could be read; one row per step keeps every label at full size however wide the tree is.
    """
    known = {node_id for node_id, _ in nodes}
    children: dict[str | None, list[str]] = {}
    for node_id, parent in nodes:
        children.setdefault(parent if parent in known else None, []).append(node_id)
    positions: dict[str, Point] = {}
    stack = [(root, 0) for root in reversed(children.get(None, []))]
    while stack:
        node_id, depth = stack.pop()
        if node_id in positions:
            continue
        positions[node_id] = (indent * (depth + 1), row * (len(positions) + 0.5))
        stack.extend((child, depth + 1) for child in reversed(children.get(node_id, [])))
    return positions


def hierarchy(nodes: Sequence[tuple[str, str | None]], canvas: Canvas) -> dict[str, Point]:
    """A radial tree (Reingold-Tilford, igraph) of (id, parent_id) pairs fitted to the canvas: roots near the centre,
    each level on its own ring, so a community hierarchy reads from the whole corpus outwards to its topics."""
    ids = [node_id for node_id, _ in nodes]
    if not ids:
        return {}
    index = {node_id: i + 1 for i, node_id in enumerate(ids)}  # 0 is a hidden root joining the top level
    edges = [(index.get(parent, 0) if parent else 0, index[node_id]) for node_id, parent in nodes]
    graph = igraph.Graph(n=len(ids) + 1, edges=edges)
    coords = graph.layout_reingold_tilford_circular(mode="out", root=[0]).coords
    return (
        _fit(ids, coords[1:], canvas, max_unit=RING_PX)
        if len(ids) > 1
        else {ids[0]: (canvas.width / 2, canvas.height / 2)}
    )
