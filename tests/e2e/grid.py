"""Reading and clicking Streamlit's data grids (glide-data-grid): it draws on a canvas and keeps an accessible
table of the visible cells, which is what these read."""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import Locator

ROW_PX = 35  # glide-data-grid's default row (and header) height


def rows(grid: Locator) -> list[list[str]]:
    """The visible cells of a data grid, row by row."""
    return [r.locator("[role=gridcell]").all_text_contents() for r in grid.locator("tbody [role=row]").all()]


def pick_row(grid: Locator, n: int) -> None:
    """Select row `n` by its row marker, as a user clicks it (scrolled into view first: a mouse click lands at
    viewport coordinates, and content above, such as a list of conversations, can push the grid below the fold)."""
    grid.scroll_into_view_if_needed()
    box = grid.locator("canvas").first.bounding_box()
    assert box is not None
    grid.page.mouse.click(box["x"] + 15, box["y"] + ROW_PX * (n + 1) + ROW_PX / 2)


def wait_rows(grid: Locator, ready: Callable[[list[list[str]]], bool], timeout_s: float = 60) -> list[list[str]]:
    """The grid's rows once `ready(rows)` holds: after a rerun the grid redraws a moment after the text around it.

    Rows of unequal length are a redraw caught halfway (its accessible table filled cell by cell): not ready yet,
    and not handed to `ready`, which may read any column."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = rows(grid)
        whole = len({len(row) for row in found}) <= 1
        if (whole and ready(found)) or time.monotonic() > deadline:
            return found
        grid.page.wait_for_timeout(300)
