"""Graph stores: `open_store(settings)` picks Neo4j when NEO4J_URI is set, else embedded FalkorDB Lite."""

from __future__ import annotations

from retrieval.config import Settings
from retrieval.store.base import GraphStore, Health, IndexState, StoreHit


def open_store(settings: Settings) -> GraphStore:
    if settings.backend == "neo4j":
        from retrieval.store.neo4j import Neo4jStore

        return Neo4jStore(settings)
    from retrieval.store.falkordb import FalkorDBStore

    return FalkorDBStore(settings)


__all__ = ["GraphStore", "Health", "IndexState", "StoreHit", "open_store"]
