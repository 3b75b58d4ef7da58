"""The DRIFT reasoning tree as an outline figure: one row per step, indented by depth, every label at full size.

Why an outline: a top-down tree with a dozen follow-ups had to shrink to fit its frame until the boxes could
not be read (and a pyvis page could not report a click). Here each step owns a row, the figure grows in height
with the steps, and clicking anywhere on a step's row selects it (`hovermode="y"`: the row, not the marker,
is the target). The aggregation step has no parent in the trace; it is drawn last, joined to the primer by a
dotted line, since it gathers every answer above it.
"""

from __future__ import annotations

from collections.abc import Sequence

from components import label_placement, layout, network
from components.layout import Canvas
from retrieval.models import TraceStep

KIND_COLOURS = {"primer": "#4263eb", "hyde": "#9c36b5", "followup": "#2f9e44", "aggregate": "#e8590c"}
KIND_NAMES = {"primer": "primer", "followup": "follow-up", "aggregate": "aggregation", "hyde": "HyDE"}
ROW = 34.0
INDENT = 26.0
#: The tree column's width at design size (a 1440 px window); longer questions are cut to fit it.
WIDTH = 620.0


def step_label(step: TraceStep, limit: int = 38) -> str:
    return network.short(step.question or step.kind, limit)


def shown_steps(steps: Sequence[TraceStep]) -> list[TraceStep]:
    """The steps worth a row: those with a question or an answer (DRIFT pre-registers empty follow-ups)."""
    return [s for s in steps if s.question or s.answer or s.kind != "step"]


def drawing(steps: Sequence[TraceStep], selected: str | None = None, width: float = WIDTH) -> network.Drawing:
    """The outline of `steps`; `selected` is ringed and bold."""
    shown = shown_steps(steps)
    ids = {s.id for s in shown}
    positions = layout.outline([(s.id, s.parent_id) for s in shown], indent=INDENT, row=ROW)
    canvas = Canvas(width, max(ROW * len(shown), ROW), margin=0)
    dots = [
        network.Dot(
            id=s.id,
            label=_row_text(s, width - positions[s.id][0]),
            hover=_hover(s),
            group=KIND_NAMES.get(s.kind, s.kind),
            colour=KIND_COLOURS.get(s.kind, "#868e96"),
            size=14,
            symbol="diamond" if s.kind == "aggregate" else "circle",
            selected=s.id == selected,
        )
        for s in shown
    ]
    lines = [_elbow(positions[s.parent_id], positions[s.id]) for s in shown if s.parent_id in ids]
    roots = [s for s in shown if s.parent_id not in ids]
    lines += [_elbow(positions[roots[0].id], positions[r.id], dashed=True) for r in roots[1:]]
    return network.figure(
        dots,
        positions,
        canvas,
        lines,
        priority=[s.id for s in shown],
        sides=("middle right",),
        max_labels=len(shown),
        hovermode="y",
    )


def _row_text(step: TraceStep, room: float) -> str:
    confidence = "" if step.confidence is None else f" ({step.confidence:.2f})"
    tag = f"r{step.round} " if step.kind == "followup" else f"{KIND_NAMES.get(step.kind, step.kind)}: "
    fits = int((room - 14) / (label_placement.FONT_PX * label_placement.CHAR_WIDTH)) - len(tag) - len(confidence)
    return f"{tag}{step_label(step, max(fits, 12))}{confidence}"


def _hover(step: TraceStep) -> tuple[str, ...]:
    confidence = "no confidence reported" if step.confidence is None else f"confidence {step.confidence:.2f}"
    return (
        network.short(step.question, 110),
        f"{KIND_NAMES.get(step.kind, step.kind)} · round {step.round} · {confidence}",
        f"{len(step.chunk_ids)} evidence chunks · {step.duration_ms:.0f} ms · click for the details",
    )


def _elbow(parent: layout.Point, child: layout.Point, dashed: bool = False) -> network.Line:
    return network.Line((parent, (parent[0], child[1]), child), dashed=dashed)
