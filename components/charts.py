"""plotly figures: the community hierarchy (sunburst/treemap and network), phase timelines, usage per phase,
community sizes.

plotly ships inside Streamlit's frontend, so these render offline. Community titles come from the documents:
they pass through `network.text`, so plotly draws them as text, never as markup or links.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Literal

import plotly.graph_objects as go

from components import layout, network
from components.layout import Canvas
from retrieval.search.explore import CommunityNode
from retrieval.telemetry.events import ProgressEvent

TOUCHED = "#e8590c"
UNTOUCHED = "#dee2e6"
ROOT = "all"


def community_hierarchy(
    tree: Sequence[CommunityNode],
    *,
    touched: Collection[str] = (),
    kind: Literal["sunburst", "treemap", "icicle"] = "sunburst",
    min_level: int = 0,
) -> go.Figure:
    """Communities nested under their parents (levels >= `min_level`), sized by members; `touched` in orange."""
    shown = [c for c in tree if c.level >= min_level]
    known = {c.id for c in shown}
    ids = [ROOT, *(c.id for c in shown)]
    parents = ["", *(c.parent if c.parent in known else ROOT for c in shown)]
    labels = ["all communities", *(network.text(network.short(c.title, 32)) for c in shown)]
    has_children = {c.parent for c in shown}
    # "remainder": a parent's area is the sum of its children's, so only leaves carry their size
    values = [0, *(0 if c.id in has_children else max(c.size, 1) for c in shown)]
    colours = ["#f8f9fa", *(TOUCHED if c.id in touched else UNTOUCHED for c in shown)]
    hover = ["", *(f"{network.text(c.title)}<br>level {c.level} · {c.size} members · rank {c.rank:.1f}" for c in shown)]
    trace_type = {"sunburst": go.Sunburst, "treemap": go.Treemap, "icicle": go.Icicle}[kind]
    figure = go.Figure(
        trace_type(
            ids=ids,
            parents=parents,
            labels=labels,
            values=values,
            branchvalues="remainder",
            marker={"colors": colours},
            hovertext=hover,
            hoverinfo="text",
            maxdepth=4,
        )
    )
    figure.update_layout(margin={"t": 10, "l": 0, "r": 0, "b": 0}, height=460)
    return figure


#: From the top level down: a hue per level, so a ring of the radial tree reads as one level.
LEVEL_COLOURS = ("#364fc7", "#1098ad", "#74b816", "#ae3ec9", "#868e96")


def community_network(
    tree: Sequence[CommunityNode],
    canvas: Canvas,
    *,
    touched: Collection[str] = (),
    selected: str | None = None,
    min_level: int = 0,
) -> network.Drawing:
    """The community hierarchy as a network: each community (levels >= `min_level`) linked to its parent, the top
    level at the centre (a radial tree), size by members, colour by level; `touched` ones in orange."""
    shown = [c for c in tree if c.level >= min_level]
    known = {c.id for c in shown}
    pairs = [(c.id, c.parent if c.parent in known else None) for c in shown]
    positions = layout.hierarchy(pairs, canvas)
    top = max((c.level for c in shown), default=0)
    dots = [
        network.Dot(
            id=c.id,
            label=network.short(c.title, 24),
            hover=(c.title, f"level {c.level} · {c.size} members · rank {c.rank:.1f}"),
            group="touched" if c.id in touched else f"level {c.level}" + (" (top)" if c.level == top else ""),
            colour=TOUCHED if c.id in touched else LEVEL_COLOURS[min(top - c.level, len(LEVEL_COLOURS) - 1)],
            size=8 + min(2.2 * c.size**0.5, 26),
            selected=c.id == selected,
        )
        for c in sorted(shown, key=lambda c: (-c.level, c.id))
    ]
    lines = [network.Line((positions[p], positions[c])) for c, p in pairs if p is not None]
    by_size = [c.id for c in sorted(shown, key=lambda c: (-c.level, -c.size, c.id))]
    return network.figure(dots, positions, canvas, lines, priority=by_size, max_labels=24)


def phase_timeline(events: Sequence[ProgressEvent]) -> go.Figure:
    """One bar per phase from its first event to the next phase's first event (a Gantt of the run)."""
    starts: list[tuple[str, datetime]] = []
    for event in events:
        at = datetime.fromisoformat(event.timestamp)
        if not starts or starts[-1][0] != event.phase:
            starts.append((event.phase, at))
    origin = starts[0][1] if starts else datetime.now()
    names, begins, lengths = [], [], []
    for i, (phase, at) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else at
        names.append(phase)
        begins.append((at - origin).total_seconds() * 1000)
        lengths.append(max((end - at).total_seconds() * 1000, 5.0))
    figure = go.Figure(
        go.Bar(
            y=names,
            x=lengths,
            base=begins,
            orientation="h",
            marker={"color": "#4263eb"},
            hovertemplate="%{y}: %{x:.0f} ms from %{base:.0f} ms<extra></extra>",
        )
    )
    figure.update_layout(
        xaxis_title="ms since start",
        yaxis={"autorange": "reversed"},
        height=60 + 32 * max(len(names), 1),
        margin={"t": 10, "l": 0, "r": 0, "b": 0},
    )
    return figure


def phase_durations(phases: Mapping[str, float]) -> go.Figure:
    """Wall time per phase (ms), for answers whose live events were not recorded."""
    figure = go.Figure(go.Bar(x=list(phases.values()), y=list(phases), orientation="h", marker={"color": "#4263eb"}))
    figure.update_layout(
        xaxis_title="ms", height=60 + 32 * max(len(phases), 1), margin={"t": 10, "l": 0, "r": 0, "b": 0}
    )
    return figure


def community_sizes(sizes: Mapping[str, Sequence[int]]) -> go.Figure:
    """Distribution of community sizes per level (a box per level)."""
    figure = go.Figure(
        [go.Box(y=list(values), name=f"level {level}", boxpoints="all") for level, values in sizes.items()]
    )
    figure.update_layout(yaxis_title="members", height=320, margin={"t": 10, "l": 0, "r": 0, "b": 0}, showlegend=False)
    return figure
