"""The DRIFT reasoning tree as a pyvis network: JavaScript inlined, no CDN tags, positions from Python.

Why pyvis here (agraph elsewhere): this view never needs a click back into Python (a selectbox picks
the node to inspect), and a self-contained HTML document can be redrawn into a placeholder after
every finished step while the search runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pyvis.network import Network

from components import layout
from retrieval.models import TraceStep

_CDN_TAG = re.compile(
    r"<link\b[^>]*cdn\.jsdelivr\.net[^>]*>|<script\b[^>]*cdn\.jsdelivr\.net[^>]*>\s*</script>", re.IGNORECASE
)
KIND_COLOURS = {"primer": "#4263eb", "hyde": "#9c36b5", "followup": "#2f9e44", "aggregate": "#e8590c"}


def strip_cdn(page: str) -> str:
    """Drop pyvis's bootstrap tags: offline they never load, and the graph does not need them."""
    return _CDN_TAG.sub("", page)


def step_label(step: TraceStep, limit: int = 38) -> str:
    text = " ".join((step.question or step.kind).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tooltip(text: str) -> str:
    """Hover text as it is: vis-network shows a string title as text (innerText), so escaping showed `&amp;`.

    pyvis swaps in its own innerHTML popup when any title contains "href"; a word joiner (invisible) keeps
    a question that mentions href from turning the tooltips into HTML.
    """
    return text.replace("href", "h\u2060ref")


def html_tree(steps: Sequence[TraceStep], selected: str | None = None, height: int = 520) -> str:
    """Self-contained HTML of the tree (top-down, physics off)."""
    shown = [s for s in steps if s.question or s.answer or s.kind != "step"]
    positions = layout.tree([(s.id, s.parent_id) for s in shown], level_gap=130, slot=250)
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line")
    for step in shown:
        x, y = positions.get(step.id, (0.0, 0.0))
        confidence = "" if step.confidence is None else f" · confidence {step.confidence:.2f}"
        net.add_node(
            step.id,
            label=f"{step.kind} r{step.round}\n{step_label(step)}",
            title=tooltip(f"{step.question}{confidence}"),
            x=x,
            y=y,
            physics=False,
            shape="box",
            color=KIND_COLOURS.get(step.kind, "#868e96") if step.id != selected else "#e03131",
            font={"color": "#ffffff", "size": 13},
            borderWidth=3 if step.id == selected else 1,
        )
    ids = {s.id for s in shown}
    for step in shown:
        if step.parent_id in ids:
            net.add_edge(step.parent_id, step.id)
    net.toggle_physics(False)
    return strip_cdn(net.generate_html())
