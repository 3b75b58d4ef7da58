"""JSON-schema builders for every structured model output (extraction, reports, answers).

Why: the schemas are small trees of the same few parts; building them from these keeps them short
and alike, and the three answer shapes differ only in how a key fact cites its evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

STRING: dict[str, Any] = {"type": "string"}
NUMBER: dict[str, Any] = {"type": "number"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}


def obj(properties: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    """An object; every property is required unless `required` names fewer."""
    return {"type": "object", "properties": properties, "required": list(properties if required is None else required)}


def array(items: dict[str, Any], **limits: int) -> dict[str, Any]:
    """An array of `items`; `limits` are minItems/maxItems."""
    return {"type": "array", "items": items, **limits}


def final_answer(citations: dict[str, Any], citations_key: str) -> dict[str, Any]:
    """{final_answer, key_facts: [{fact, <citations_key>}], residual_uncertainty}: the aggregating modes' reply."""
    fact = obj({"fact": STRING, citations_key: citations}, ["fact", citations_key])
    return obj(
        {"final_answer": STRING, "key_facts": array(fact), "residual_uncertainty": STRING},
        ["final_answer", "key_facts", "residual_uncertainty"],
    )
