"""Indexing: documents -> GraphRAG knowledge graph, incremental by content hash; importers for other graphs.

The names below load on first use: searching imports small parts of this package (speaker labels, graph
labels), and importing the whole pipeline with it (spaCy, wordfreq, igraph) cost every search process seconds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retrieval.indexing.model import StageProgress, document_id
    from retrieval.indexing.pipeline import remove_document, run_index
    from retrieval.indexing.report import DocumentEvent, IndexReport
    from retrieval.indexing.sources import LoadIssue
    from retrieval.indexing.stats import graph_stats

#: name -> the module that defines it
_WHERE = {
    "DocumentEvent": "report",
    "IndexReport": "report",
    "LoadIssue": "sources",
    "StageProgress": "model",
    "document_id": "model",
    "graph_stats": "stats",
    "remove_document": "pipeline",
    "run_index": "pipeline",
}

__all__ = [
    "DocumentEvent",
    "IndexReport",
    "LoadIssue",
    "StageProgress",
    "document_id",
    "graph_stats",
    "remove_document",
    "run_index",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
