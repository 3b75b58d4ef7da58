"""FalkorDB replies for callers: plain rows (whatever falkordb-py returns) and errors that name their cause."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from retrieval.config import Settings
from retrieval.store.base import timed_out
from retrieval.store.records import Row

#: What the server says when a query passed its memory cap (QUERY_MEM_CAPACITY).
MEMORY_CAP = "mem consumption exceeded"


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


def explain(message: str, s: Settings, timeout_ms: int | None, *, write: bool = False) -> str:
    """The server's reason, with the setting that caused it when a limit stopped the query."""
    if "timed out" in message.lower():
        return timed_out(s, timeout_ms)
    if MEMORY_CAP in message and write:
        return (
            f"Write stopped at the graph's per-query memory cap ({s.graph_query_memory_mb} MB to start with, "
            "DRIFTLENS_GRAPH_QUERY_MEMORY_MB, raised as the vector indexes grow up to "
            f"DRIFTLENS_GRAPH_MAX_MEMORY_MB = {s.graph_max_memory_mb} MB): write fewer rows at a time, or raise "
            "DRIFTLENS_GRAPH_MAX_MEMORY_MB if the vector indexes have grown to it."
        )
    if MEMORY_CAP in message:
        return (
            f"Query stopped: it needed more than {s.graph_query_memory_mb} MB of memory "
            "(DRIFTLENS_GRAPH_QUERY_MEMORY_MB); narrow it or add LIMIT."
        )
    if message.startswith("OOM"):
        return f"The graph holds its {s.graph_max_memory_mb} MB limit (DRIFTLENS_GRAPH_MAX_MEMORY_MB): {message}"
    return f"Query failed: {message}"
