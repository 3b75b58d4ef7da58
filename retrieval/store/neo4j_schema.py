"""The Cypher of Neo4j's schema: the indexes DriftLens creates, how it lists them, and what to say when one is
missing.

Why apart from the store: these are statements and their parsing, with no connection in them, as
`neo4j_hybrid` holds the search's statement and `neo4j_rebuild` the rebuild's; the store runs them.
Vector indexes are created without quantisation, so their scores match exact cosine, with the HNSW settings the
project's settings name. Full-text indexes use the English analyser, which stems and drops stopwords as the
embedded store's RediSearch index does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from retrieval.store.base import IndexState
from retrieval.store.records import Row, ident

#: The indexes DriftLens reads: vector, full-text and range, with each one's configuration.
SHOW_INDEXES = (
    "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, options "
    "WHERE type IN ['VECTOR', 'FULLTEXT', 'RANGE'] RETURN *"
)


def vector_index(name: str, label: str, prop: str, dim: int, *, hnsw: tuple[int, int]) -> tuple[str, dict[str, Any]]:
    """CREATE of a cosine vector index without quantisation, and its parameters (`hnsw`: M and ef_construction)."""
    cypher = (
        f"CREATE VECTOR INDEX {ident(name)} IF NOT EXISTS FOR (n:{ident(label)}) ON n.{ident(prop)} "
        "OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine', "
        "`vector.quantization.enabled`: false, `vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $ef}}"
    )
    m, ef = hnsw
    return cypher, {"dim": int(dim), "m": m, "ef": ef}


def fulltext_index(name: str, label: str, props: Sequence[str]) -> str:
    """CREATE of a full-text index over `props` with the English analyser."""
    fields = ", ".join(f"n.{ident(p)}" for p in props)
    return (
        f"CREATE FULLTEXT INDEX {ident(name)} IF NOT EXISTS FOR (n:{ident(label)}) ON EACH [{fields}] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
    )


def range_index(label: str, prop: str) -> str:
    return f"CREATE INDEX IF NOT EXISTS FOR (n:{ident(label)}) ON (n.{ident(prop)})"


def index_state(row: Row) -> IndexState:
    """One `SHOW_INDEXES` row as the state every store reports."""
    config = (row.get("options") or {}).get("indexConfig") or {}
    dim = config.get("vector.dimensions")
    return IndexState(
        name=str(row["name"]),
        kind=str(row["type"]).lower(),
        label=str((row.get("labelsOrTypes") or [""])[0]),
        properties=tuple(row.get("properties") or ()),
        state=str(row["state"]),
        dimension=int(dim) if dim is not None else None,
    )


def create_hint(kind: str) -> str:
    """How to create a missing index: by indexing, or by hand for a graph another tool built."""
    example = (
        "CREATE VECTOR INDEX name FOR (n:Label) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384, "
        "`vector.similarity_function`: 'cosine'}}"
        if kind == "vector"
        else "CREATE FULLTEXT INDEX name FOR (n:Label) ON EACH [n.text]"
    )
    return (
        "Build the graph first (Index page or `python -m retrieval index PATH`), or for a graph built by another "
        f"tool create it in Neo4j ({example}) and name it in the settings."
    )
