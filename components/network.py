"""A node-link diagram as a plotly figure: fixed positions, a legend, readable labels, hover for the rest.

Why plotly for graphs: it ships inside Streamlit's frontend (nothing to load, nothing from a CDN), draws text at
a constant pixel size at any zoom, has a clickable legend, and `st.plotly_chart(on_select=...)` returns the
clicked node to Python; Streamlit adds the fullscreen button. Each node carries its id as `customdata`, which is
how a click is turned back into a node (`picked`).

Text from documents (entity names, questions, community titles) reaches plotly's text renderer, which reads
`<a href>`, `<b>` and friends as markup; `text` escapes it so a name is drawn as typed and never becomes a link.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from components import label_placement
from components.layout import Canvas, Point

EDGE_COLOUR = "#adb5bd"
SELECTED_RING = "#e03131"
TEXT_COLOUR = "#212529"
#: At most this many drawn labels: beyond it a picture reads as a wall of words even when nothing overlaps.
MAX_LABELS = 45
LEGEND_PX = 34
#: A relation's hover point: its size, and how far (px) beyond a node's edge it must lie to be drawn at all.
HOVER_POINT_PX = 6
HOVER_CLEARANCE = HOVER_POINT_PX + 8
MODEBAR_PX = 32


def text(value: str) -> str:
    """Untrusted text for plotly: its markup characters escaped (plotly decodes the entities back for display)."""
    return html.escape(value, quote=False)


def short(value: str, limit: int) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Dot:
    """One node as drawn: `hover` lines show on hover, `group` is its legend entry; `strong` nodes (seeds, cited
    chunks) and the `selected` one are labelled first."""

    id: str
    label: str
    hover: tuple[str, ...]
    group: str
    colour: str
    size: float
    symbol: str = "circle"
    strong: bool = False
    selected: bool = False


@dataclass(frozen=True)
class Line:
    """An edge as a polyline (two points for a straight edge, three for an elbow); `hover` on its middle."""

    points: tuple[Point, ...]
    hover: str = ""
    dashed: bool = False
    #: Drawn with an arrowhead towards its last point (a relation whose source gave it a direction).
    directed: bool = False


@dataclass
class Drawing:
    """What a figure shows, for tests and captions: the labelled node ids and each one's side."""

    figure: go.Figure
    labelled: dict[str, str] = field(default_factory=dict)


def figure(
    dots: Sequence[Dot],
    positions: Mapping[str, Point],
    canvas: Canvas,
    lines: Sequence[Line] = (),
    *,
    priority: Sequence[str] = (),
    sides: Sequence[str] = label_placement.SIDES,
    max_labels: int = MAX_LABELS,
    legend_title: str = "",
    hovermode: str = "closest",
) -> Drawing:
    """The figure: lines under nodes, one trace per legend group, labels where `label_placement.place` finds them room.

    `priority` orders the nodes for labelling after the strong ones (default: biggest first).
    """
    shown = [d for d in dots if d.id in positions]
    by_id = {d.id: d for d in shown}
    order = [d.id for d in shown if d.strong or d.selected]
    order += [i for i in (priority or [d.id for d in sorted(shown, key=lambda d: -d.size)]) if i in by_id]
    order = list(dict.fromkeys(order))
    sizes = {d.id: d.size + (6 if d.selected else 0) for d in shown}
    must = frozenset(d.id for d in shown if d.selected or d.strong)
    placed = label_placement.place(
        order, positions, sizes, {d.id: d.label for d in shown}, canvas, limit=max_labels, sides=sides, must=must
    )
    fig = go.Figure()
    for dashed in (False, True):
        _add_lines(fig, [ln for ln in lines if ln.dashed == dashed], dashed)
    _add_hover_points(fig, lines, {d.id: (positions[d.id], sizes[d.id]) for d in shown})
    groups: dict[str, list[Dot]] = {}
    for d in shown:
        groups.setdefault(d.group, []).append(d)
    for name, members in groups.items():
        _add_nodes(fig, name, members, positions, placed)
    fig.update_layout(
        height=canvas.height + LEGEND_PX,
        margin={"l": 0, "r": MODEBAR_PX, "t": LEGEND_PX, "b": 0},
        modebar={"orientation": "v"},  # in the right margin, off the legend above the graph
        xaxis={"range": [0, canvas.width], "visible": False},
        yaxis={"range": [canvas.height, 0], "visible": False},
        showlegend=True,
        legend={
            "orientation": "h",
            "x": 0,
            "y": 1,
            "yanchor": "bottom",
            "title": {"text": text(legend_title)},
            "itemclick": "toggle",
            "font": {"size": 12},
        },
        hovermode=hovermode,
        hoverdistance=18,
        plot_bgcolor="#ffffff",
        paper_bgcolor="#ffffff",
    )
    return Drawing(fig, placed)


def _add_lines(fig: go.Figure, lines: Sequence[Line], dashed: bool) -> None:
    if not lines:
        return
    xs: list[float | None] = []
    ys: list[float | None] = []
    for line in lines:
        for x, y in line.points:
            xs.append(x)
            ys.append(y)
        xs.append(None)
        ys.append(None)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"width": 1, "color": EDGE_COLOUR, "dash": "dot" if dashed else "solid"},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    directed = [ln for ln in lines if ln.directed]
    if directed:  # an arrowhead three quarters of the way along, turned to the edge's last segment
        heads = [_arrowhead(ln.points[-2], ln.points[-1]) for ln in directed]
        fig.add_trace(
            go.Scatter(
                x=[h[0] for h in heads],
                y=[h[1] for h in heads],
                mode="markers",
                marker={"symbol": "arrow", "size": 9, "color": EDGE_COLOUR, "angle": [h[2] for h in heads]},
                hoverinfo="skip",
                showlegend=False,
            )
        )


def _add_hover_points(fig: go.Figure, lines: Sequence[Line], nodes: Mapping[str, tuple[Point, float]]) -> None:
    """Invisible midpoints carry each relation's description on hover, except where one would lie on or next to
    a node: plotly hands a click to the nearest point, and in a dense centre that was an edge's midpoint instead of
    the node under the pointer (the relation's description is in the node panel as well)."""
    described = []
    for ln in lines:
        middle = _middle(ln.points)
        if ln.hover and all(math.dist(middle, at) > size / 2 + HOVER_CLEARANCE for at, size in nodes.values()):
            described.append((middle, ln.hover))
    if described:
        fig.add_trace(
            go.Scatter(
                x=[m[0] for m, _h in described],
                y=[m[1] for m, _h in described],
                mode="markers",
                marker={"size": HOVER_POINT_PX, "opacity": 0},
                hovertext=[text(h) for _m, h in described],
                hoverinfo="text",
                showlegend=False,
            )
        )


def _arrowhead(start: Point, end: Point) -> tuple[float, float, float]:
    """(x, y, angle): plotly's arrow symbol points up at angle 0 and turns clockwise; the y axis runs downwards."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    return start[0] + 0.75 * dx, start[1] + 0.75 * dy, math.degrees(math.atan2(dx, -dy))


def _middle(points: Sequence[Point]) -> Point:
    a, b = points[len(points) // 2 - 1], points[len(points) // 2]
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _add_nodes(
    fig: go.Figure, name: str, members: Sequence[Dot], positions: Mapping[str, Point], placed: Mapping[str, str]
) -> None:
    legend = members[0]
    fig.add_trace(  # the legend's entry: a plain marker (the nodes' own may carry a selection ring)
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=text(name),
            legendgroup=name,
            marker={"size": 11, "color": legend.colour, "symbol": legend.symbol},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[positions[d.id][0] for d in members],
            y=[positions[d.id][1] for d in members],
            mode="markers+text",
            name=text(name),
            legendgroup=name,
            showlegend=False,
            text=[text(d.label) if d.id in placed else "" for d in members],
            textposition=[placed.get(d.id, "bottom center") for d in members],
            textfont={
                "size": label_placement.FONT_PX,
                "color": TEXT_COLOUR,
                "weight": [700 if d.selected or d.strong else 400 for d in members],
                "shadow": "1px 1px 2px #ffffff, -1px -1px 2px #ffffff",
            },
            hovertext=["<br>".join(text(line) for line in d.hover) for d in members],
            hoverinfo="text",
            customdata=[d.id for d in members],
            marker={
                "opacity": 1,  # Streamlit's chart theme draws scatter markers translucent
                "size": [d.size + (6 if d.selected else 0) for d in members],
                "color": members[0].colour if len({d.colour for d in members}) == 1 else [d.colour for d in members],
                "symbol": [d.symbol for d in members],
                "line": {
                    "width": [4 if d.selected else 2 if d.strong else 1 for d in members],
                    "color": [SELECTED_RING if d.selected else "#343a40" if d.strong else "#ffffff" for d in members],
                },
            },
            unselected={"marker": {"opacity": 1}, "textfont": {"color": TEXT_COLOUR}},  # a click dims nothing
            cliponaxis=False,
        )
    )


def picked(selection: Any) -> str | None:
    """The node id a click selected, from `st.plotly_chart`'s selection state (None when it was no node)."""
    points = ((selection or {}).get("selection") or {}).get("points") or []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list):
            data = data[0] if data else None
        if isinstance(data, str) and data:
            return data
    return None


def config() -> dict[str, Any]:
    """plotly's toolbar: zoom with the wheel, no logo, no tools that make no sense on a graph."""
    return {
        "scrollZoom": True,
        "displaylogo": False,
        "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "toImage"],
    }
