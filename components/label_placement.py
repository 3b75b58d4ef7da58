"""Which nodes get a drawn label, and on which side, so that no label covers another label or another node.

Why: a readable graph shows a dozen or a few dozen names at full size, not three hundred at 6 px. Nodes are
taken in priority order (the caller's: selected and seed nodes first, then by degree); each tries below, above,
right and left of its marker and keeps the first spot that stays on the canvas and clear of every marker and
every label already placed. The rest are shown on hover. Sizes are estimated from the font size, which is
what the browser draws at any zoom, so the check holds at the canvas's design size and only gets looser when
the figure is drawn larger (a wide window, fullscreen). A figure drawn narrower than its design (an evidence
graph in a compare column) would push a label near its edge out of the plot, where the browser cuts it off
("ob Dennard"): the edge check holds down to the canvas's `narrowest` width, so there the inward side wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from components.layout import Canvas, Point

FONT_PX = 12.0
#: Average advance of a character in the UI's sans-serif font, as a share of the font size (a little generous).
CHAR_WIDTH = 0.6
LINE_HEIGHT = 1.3
GAP = 2.0
#: plotly's names for the sides, in the order they are tried.
SIDES = ("bottom center", "top center", "middle right", "middle left")


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlap(self, other: Box) -> float:
        """Area shared with `other` (0 when apart)."""
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return max(w, 0.0) * max(h, 0.0)


def text_width(text: str, font_px: float = FONT_PX) -> float:
    return len(text) * font_px * CHAR_WIDTH


def label_box(point: Point, marker_px: float, text: str, side: str, font_px: float = FONT_PX) -> Box:
    """Where plotly draws `text` for a marker of diameter `marker_px` at `point` with textposition `side`."""
    x, y = point
    r = marker_px / 2 + GAP
    w, h = text_width(text, font_px), font_px * LINE_HEIGHT
    if side == "bottom center":
        return Box(x - w / 2, y + r, x + w / 2, y + r + h)
    if side == "top center":
        return Box(x - w / 2, y - r - h, x + w / 2, y - r)
    if side == "middle right":
        return Box(x + r, y - h / 2, x + r + w, y + h / 2)
    return Box(x - r - w, y - h / 2, x - r, y + h / 2)


def marker_box(point: Point, marker_px: float) -> Box:
    x, y = point
    r = marker_px / 2
    return Box(x - r, y - r, x + r, y + r)


def place(
    order: Sequence[str],
    positions: Mapping[str, Point],
    sizes: Mapping[str, float],
    texts: Mapping[str, str],
    canvas: Canvas,
    *,
    limit: int | None = None,
    sides: Sequence[str] = SIDES,
    font_px: float = FONT_PX,
    must: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """{node id: side} for the labels that fit, trying nodes in `order` (at most `limit` labels).

    Nodes in `must` (the selected one, seeds) are named even where no side is clear of markers: their label
    then goes where it covers the fewest markers, still clear of the labels placed before it."""
    ids = [n for n in positions if n in sizes]
    markers = np.array([_coords(marker_box(positions[n], sizes[n])) for n in ids]).reshape(-1, 4)
    owner = {n: i for i, n in enumerate(ids)}
    taken = np.empty((0, 4))
    chosen: dict[str, str] = {}
    for node_id in order:
        if limit is not None and len(chosen) >= limit:
            break
        if node_id not in owner or not texts.get(node_id):
            continue
        fits: list[tuple[int, int, str, Box]] = []
        for rank, side in enumerate(sides):
            box = label_box(positions[node_id], sizes[node_id], texts[node_id], side, font_px)
            if not _inside(box, positions[node_id][0], canvas):
                continue
            if _hits(taken, box).any():
                continue
            hits_marker = _hits(markers, box)
            hits_marker[owner[node_id]] = False  # its own marker is where the label starts from
            fits.append((int(hits_marker.sum()), rank, side, box))
        best = min(fits, default=None)
        if best is not None and (best[0] == 0 or node_id in must):
            chosen[node_id] = best[2]
            taken = np.vstack([taken, _coords(best[3])])
    return chosen


def _inside(box: Box, x: float, canvas: Canvas) -> bool:
    """Whether a label box stays on the canvas however narrow the figure is drawn, down to `canvas.narrowest` of
    its width: the marker at `x` moves with the width, the text's reach on either side of it does not (so near
    an edge of a narrow figure only a label facing inward fits)."""
    left = x - max(x - box.x0, 0.0) / canvas.narrowest
    right = x + max(box.x1 - x, 0.0) / canvas.narrowest
    return left >= 0 and right <= canvas.width and box.y0 >= 0 and box.y1 <= canvas.height


def _coords(box: Box) -> list[float]:
    return [box.x0, box.y0, box.x1, box.y1]


def _hits(boxes: np.ndarray, box: Box) -> np.ndarray:
    if not len(boxes):
        return np.zeros(0, dtype=bool)
    return (
        (boxes[:, 0] < box.x1) & (box.x0 < boxes[:, 2]) & (boxes[:, 1] < box.y1) & (box.y0 < boxes[:, 3])
    )  # strict: touching edges do not count
