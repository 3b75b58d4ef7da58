"""Indexing: documents -> GraphRAG knowledge graph, incremental by content hash; importers for other graphs."""

from retrieval.indexing.model import StageProgress
from retrieval.indexing.pipeline import remove_document, run_index
from retrieval.indexing.report import DocumentEvent, IndexReport, document_id
from retrieval.indexing.sources import LoadIssue
from retrieval.indexing.stats import graph_stats

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
