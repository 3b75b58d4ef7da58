"""Driving the app's plotly graphs from a real browser: where a node is drawn, and clicking it as a person does.

Each node's id is its point's `customdata`; plotly's own axis functions turn its data coordinates into page
pixels, so a test clicks the exact spot a person would, moving the mouse there first (plotly picks the
clicked point from what is under the pointer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page

from components.network import SELECTED_RING

WAIT_MS = 60_000

_NODES = """(gd) => {
  const SELECTED = "SELECTED_RING";
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
  const out = [];
  for (const t of gd._fullData) {
    const ring = ((t.marker || {}).line || {}).color;
    (t.customdata || []).forEach((id, i) => out.push({
      id: String(id), text: Array.isArray(t.text) ? (t.text[i] || "") : "", group: t.name || "",
      selected: Array.isArray(ring) && ring[i] === SELECTED,
      x: box.left + xa._offset + xa.l2p(t.x[i]), y: box.top + ya._offset + ya.l2p(t.y[i]),
    }));
  }
  return out;
}""".replace("SELECTED_RING", SELECTED_RING)


_MIDDLES = """(gd) => {
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
  const out = [];
  for (const t of gd._fullData) {
    if (t.mode !== "lines") continue;
    let run = [];
    const flush = () => {
      if (run.length >= 2) {
        const a = run[Math.floor(run.length / 2) - 1], b = run[Math.floor(run.length / 2)];
        out.push([box.left + xa._offset + xa.l2p((a[0] + b[0]) / 2), box.top + ya._offset + ya.l2p((a[1] + b[1]) / 2)]);
      }
      run = [];
    };
    t.x.forEach((x, i) => (x === null ? flush() : run.push([x, t.y[i]])));
    flush();
  }
  return out;
}"""


@dataclass(frozen=True)
class DrawnNode:
    id: str
    text: str
    group: str
    selected: bool
    x: float
    y: float


def key_ending(page: Page, suffix: str) -> str:
    """The widget key of the first element whose key ends with `suffix` (Ask keys a turn's widgets by its id)."""
    element = page.locator(f"[class*='{suffix}']").first
    element.wait_for(timeout=WAIT_MS)
    found = re.search(rf"st-key-(\S+{re.escape(suffix)})\b", element.get_attribute("class") or "")
    assert found, f"no widget key ending in {suffix}"
    return found.group(1)


def chart(page: Page, key: str) -> Locator:
    """The plotly graph div of the chart drawn with widget key `key`, once it has been drawn."""
    graph = page.locator(f".st-key-{key} .js-plotly-plot").first
    graph.locator("g.scatterlayer").first.wait_for(timeout=WAIT_MS)
    return graph


def nodes(page: Page, key: str, reads: int = 8) -> list[DrawnNode]:
    """Every node of that chart where it is on screen now (the chart is scrolled into view first), once two reads
    in a row agree.

    Why twice: just after its script run the chart's element can still be replaced by a new one (a read then fails
    with "not attached to the DOM", or reads a drawing about to change), and a click aimed by a stale read misses.
    """
    last: list[DrawnNode] | None = None
    for _ in range(reads):
        try:
            graph = chart(page, key)
            graph.scroll_into_view_if_needed(timeout=10_000)
            page.wait_for_timeout(300)
            now = [DrawnNode(**n) for n in graph.evaluate(_NODES)]
        except PlaywrightError as exc:
            if "not attached" not in str(exc):
                raise
            continue
        if now == last:
            return now
        last = now
    raise AssertionError(f"the chart {key} did not stay the same for two reads in a row in {reads} reads")


def edge_middles(page: Page, key: str) -> list[tuple[float, float]]:
    """Where each drawn relation's middle is on screen (where a relation's hover point would sit)."""
    return [(float(x), float(y)) for x, y in chart(page, key).evaluate(_MIDDLES)]


def click(page: Page, x: float, y: float) -> None:
    page.mouse.move(x - 3, y - 3)
    page.mouse.move(x, y)
    page.wait_for_timeout(400)  # plotly settles what is hovered before the click
    page.mouse.click(x, y)


_CLIPPED = """(gd) => {
  const box = gd.getBoundingClientRect();
  const out = (r) => r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom;
  return Array.from(gd.querySelectorAll("g.textpoint text"))
    .map((el) => [el.textContent, el.getBoundingClientRect()])
    .filter(([text, r]) => text && out(r))
    .map(([text, r]) => `${text} at x ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)}`
      + ` of 0..${Math.round(box.width)}, y ${Math.round(r.top - box.top)}..${Math.round(r.bottom - box.top)}`
      + ` of 0..${Math.round(box.height)}`);
}"""


def clipped_labels(page: Page, key: str) -> list[str]:
    """The drawn labels of that chart that reach past its edges, where the browser cuts them off (a label that
    starts left of the plot shows as "ob Dennard" for "Bob Dennard"); each with where it lies."""
    return [str(label) for label in chart(page, key).evaluate(_CLIPPED)]
