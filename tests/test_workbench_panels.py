"""Tuning panels: a labelling preview shows the sentence that matched, in context; the grid heatmap's axes are
categories (ticks at the grid's values, never at -0.5 and 1.5)."""

from __future__ import annotations

from components.labels import preview
from components.tuning_charts import heatmap

CHUNK = (
    "Marley was dead, to begin with. There is no doubt whatever about that. The register of his burial was signed "
    "by the clergyman, the clerk, the undertaker, and the chief mourner. Scrooge signed it. And Scrooge's name was "
    "good upon 'Change, for anything he chose to put his hand to. Old Marley was as dead as a door-nail."
)


def test_preview_shows_the_matching_sentence_with_its_context() -> None:
    before, sentence, after = preview(CHUNK, "Who signed the register of Marley's burial?")
    assert sentence.startswith("The register of his burial was signed")
    assert before.endswith("about that. ") and after.startswith(" Scrooge signed it.")
    _b, cited, _a = preview(CHUNK, "Who was Marley?", spans=["as dead as a door-nail"])
    assert cited == "Old Marley was as dead as a door-nail."


def test_heatmap_axes_are_the_grid_values() -> None:
    rows = [{"max_hops": h, "top_k": k, "recall": 0.5} for h in (0, 1) for k in (5, 10)]
    layout = heatmap(rows, "max_hops", "top_k", "recall").layout
    assert layout.xaxis.type == "category" and layout.yaxis.type == "category"
