"""FalkorDB replies as plain Python rows: what every adapter method returns, whatever falkordb-py's objects are."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from retrieval.store.base import Row


def rows(result: Any) -> list[Row]:
    """Rows keyed by column name; `None` (a graph never written) is no rows."""
    if result is None:
        return []
    columns = [h[1] for h in result.header]
    return [dict(zip(columns, (_plain(v) for v in row), strict=True)) for row in result.result_set]


def similarity(distance: Any) -> float:
    """Cosine similarity from FalkorDB's cosine distance; an undefined one (a zero vector) counts as unrelated."""
    value = 1.0 - float(distance)
    return 0.0 if math.isnan(value) else value


_SCALAR_TYPES = frozenset((str, int, float, bool, type(None)))


def _plain(value: Any) -> Any:
    """Turn falkordb-py result objects (Node, Edge, OrderedDict) into plain Python data."""
    if type(value) in _SCALAR_TYPES:
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        # A vector is a list of floats; checking each element's exact type is far cheaper than recursing into it.
        if all(type(v) in _SCALAR_TYPES for v in value):
            return value
        return [_plain(v) for v in value]
    props = getattr(value, "properties", None)
    if isinstance(props, dict):
        labels = getattr(value, "labels", None) or [getattr(value, "relation", None)]
        return {"_labels": [x for x in labels if x], **{k: _plain(v) for k, v in props.items()}}
    return value
