"""The DRIFT tree's figure: a step's question is drawn and hovered as the text it is, never as markup or a link."""

from __future__ import annotations

import json

from components import network
from components.trace_tree import drawing
from retrieval.models import TraceStep

QUESTION = "Why did Scrooge's & Marley's firm <b>refuse</b> the <a href=\"http://203.0.113.9\">charity</a>?"


def test_questions_are_drawn_and_hovered_as_text() -> None:
    steps = [
        TraceStep(id="p", kind="primer", question=QUESTION, confidence=0.8),
        TraceStep(id="f", parent_id="p", kind="followup", round=1, question="Tom & Jerry's 'ledger'"),
    ]

    spec = json.loads(drawing(steps).figure.to_json())

    nodes = [t for t in spec["data"] if t.get("customdata")]
    shown = {i: (t["text"][k], t["hovertext"][k]) for t in nodes for k, i in enumerate(t["customdata"])}
    assert shown["f"][0] == "r1 Tom &amp; Jerry's 'ledger'"  # plotly decodes the entity: it shows "&"
    assert shown["p"][1].startswith(network.text(network.short(QUESTION, 110)))
    everything = json.dumps(spec["data"])
    assert "<a " not in everything and "<b>" not in everything
    assert "confidence 0.80" in shown["p"][1]
