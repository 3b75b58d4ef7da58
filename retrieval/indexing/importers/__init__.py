"""Importers for graphs built elsewhere (Microsoft GraphRAG output, neo4j-graphrag SimpleKGPipeline JSON)."""
