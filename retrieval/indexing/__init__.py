"""Indexing: documents -> GraphRAG knowledge graph, incremental by content hash; importers for other graphs."""

from retrieval.indexing.model import StageProgress
from retrieval.indexing.pipeline import IndexReport, document_id, remove_document, run_index
from retrieval.indexing.sources import LoadIssue
from retrieval.indexing.stats import graph_stats

__all__ = [
    "IndexReport",
    "LoadIssue",
    "StageProgress",
    "document_id",
    "graph_stats",
    "remove_document",
    "run_index",
]
