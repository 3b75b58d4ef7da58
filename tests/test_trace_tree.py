"""The DRIFT tree's HTML: tooltips carry the step's text unescaped (vis-network shows titles as text)."""

from __future__ import annotations

import json
import re

from components.trace_tree import html_tree
from retrieval.models import TraceStep

QUESTION = "Why did Scrooge's & Marley's firm <b>refuse</b> the href=\"http://203.0.113.9\" charity?"


def _nodes(page: str) -> list[dict[str, object]]:
    match = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, flags=re.S)
    assert match, "no node data in the page"
    return list(json.loads(match.group(1)))


def test_tooltips_are_the_plain_text_and_never_html() -> None:
    steps = [
        TraceStep(id="p", kind="primer", question=QUESTION, confidence=0.8),
        TraceStep(id="f", parent_id="p", kind="followup", question="Tom & Jerry's 'ledger'"),
    ]

    page = html_tree(steps)

    titles = [str(node["title"]) for node in _nodes(page)]
    assert titles[1] == "Tom & Jerry's 'ledger'"
    assert titles[0].replace("\u2060", "") == f"{QUESTION} · confidence 0.80"
    assert not any("&amp;" in t or "&#x27;" in t or "&lt;" in t for t in titles)
    assert "popup.innerHTML" not in page  # pyvis's HTML tooltip stays off even when a question says href
