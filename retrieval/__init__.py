"""DriftLens retrieval: GraphRAG search, answering and indexing, usable without any UI."""
