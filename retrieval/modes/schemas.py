"""JSON-schema builders for the modes' structured outputs.

Why: the answer shapes of local, global and DRIFT differ only in how a key fact cites its evidence;
building them from the same parts keeps the three in step when one changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STRING: dict[str, Any] = {"type": "string"}


def obj(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def final_answer(citations: dict[str, Any], citations_key: str) -> dict[str, Any]:
    """{final_answer, key_facts: [{fact, <citations_key>}], residual_uncertainty}: the aggregating modes' reply."""
    fact = obj({"fact": STRING, citations_key: citations}, ["fact", citations_key])
    return obj(
        {"final_answer": STRING, "key_facts": array(fact), "residual_uncertainty": STRING},
        ["final_answer", "key_facts", "residual_uncertainty"],
    )
