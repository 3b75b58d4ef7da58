"""The Tuning page's figures: a metric over two grid axes as a heatmap, current and best settings marked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go


def heatmap(rows: Sequence[dict[str, Any]], x: str, y: str, metric: str, *, title: str = "") -> go.Figure:
    """`rows` are a summary's rows filtered to one value of every other axis; cells show the metric."""
    xs = sorted({r[x] for r in rows if x in r})
    ys = sorted({r[y] for r in rows if y in r})
    grid: list[list[float | None]] = [[None] * len(xs) for _ in ys]
    marks: list[list[str]] = [[""] * len(xs) for _ in ys]
    for r in rows:
        if x in r and y in r:
            i, j = ys.index(r[y]), xs.index(r[x])
            grid[i][j] = r[metric]
            tags = [t for t, on in (("current", r.get("current")), ("best", r.get("best"))) if on]
            marks[i][j] = f"{r[metric]:.3f}" + (f"<br>{' · '.join(tags)}" if tags else "")
    figure = go.Figure(
        go.Heatmap(
            z=grid,
            x=[str(v) for v in xs],
            y=[str(v) for v in ys],
            text=marks,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0.0,
            zmax=1.0,
            hovertemplate=f"{x}=%{{x}}<br>{y}=%{{y}}<br>{metric}=%{{z:.3f}}<extra></extra>",
        )
    )
    figure.update_layout(
        title=title,
        xaxis={"title": x, "type": "category"},  # grid values, not a scale: ticks at 0, 1, 2, never at -0.5
        yaxis={"title": y, "type": "category"},
        height=360,
        margin={"t": 40 if title else 10, "l": 0, "r": 0, "b": 0},
    )
    return figure
