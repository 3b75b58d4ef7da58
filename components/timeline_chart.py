"""The Memory page's timeline, scaled to the data: per day when the memories span days, else per hour, else per
minute (a day's conversation was one bar)."""

from __future__ import annotations

from typing import Literal

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from retrieval.conversation.memory import MemoryStore, Scope, TimelinePoint

Unit = Literal["day", "hour", "minute"]
UNITS: tuple[Unit, ...] = ("day", "hour", "minute")


def points(memory: MemoryStore, scope: Scope) -> tuple[Unit, list[TimelinePoint]]:
    """The finest unit that still spreads the memories over more than one bar (minutes at the finest)."""
    for unit in UNITS:
        found = memory.timeline(scope, unit)
        if len({p.day for p in found}) > 1 or unit == UNITS[-1]:
            return unit, found
    return UNITS[-1], []


def figure(unit: Unit, found: list[TimelinePoint]) -> go.Figure:
    chart = pd.DataFrame([p.model_dump() for p in found])
    chart["when"] = pd.to_datetime(chart["day"].str.replace("T", " "), format="mixed")
    fig = px.bar(chart, x="when", y="count", color="role", hover_data=["invalid"], height=260)
    width_ms = {"day": 86_400_000, "hour": 3_600_000, "minute": 60_000}[unit]
    fig.update_traces(width=width_ms * 0.8)
    fig.update_layout(margin={"t": 10, "l": 0, "r": 0, "b": 0}, xaxis_title=f"per {unit}", bargap=0.1)
    return fig
