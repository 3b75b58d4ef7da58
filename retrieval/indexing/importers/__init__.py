"""Importers for graphs built elsewhere (Microsoft GraphRAG output, neo4j-graphrag SimpleKGPipeline JSON)."""

from retrieval.indexing.importers.common import ImportReport
from retrieval.indexing.importers.graphrag import import_graphrag
from retrieval.indexing.importers.neo4j_kg import import_kg

__all__ = ["ImportReport", "import_graphrag", "import_kg"]
