"""Graph stores: `open_store(settings)` picks Neo4j when NEO4J_URI is set, else embedded FalkorDB Lite."""

from __future__ import annotations

from collections.abc import Callable

from retrieval.config import Settings
from retrieval.store.base import GraphStore, Health, IndexState
from retrieval.store.records import StoreHit


def open_store(settings: Settings, progress: Callable[[str], None] | None = None) -> GraphStore:
    """The configured store, open; `progress` hears what a slow open is doing (an embedded graph loading)."""
    if settings.backend == "neo4j":
        from retrieval.store.neo4j import Neo4jStore

        if progress:
            progress("Connecting to Neo4j")
        return Neo4jStore(settings)
    from retrieval.store.falkordb import FalkorDBStore

    return FalkorDBStore(settings, progress=progress)


__all__ = ["GraphStore", "Health", "IndexState", "StoreHit", "open_store"]
