"""Neo4j vector indexes rebuilt in one pass after a bulk write.

Why: a Neo4j vector index is Lucene HNSW, one graph per Lucene segment, and each write transaction that adds
vectors leaves a small segment of its own, which Lucene did not merge: the MuSiQue pool indexed batch by batch
left 24 segments for 2,324 chunk vectors and 42 for 8,361 entity vectors. `db.index.vector.queryNodes` searches
every segment for the k it is asked for, so the index as written cost about ten times what the same index costs
when Neo4j populates it in one pass from the store (DROP + CREATE: 1 segment for the chunks, 3 for the entities;
k=100 128 -> 11.5 ms on the chunks, 227 -> 14.4 ms on the entities, load ~9.5; docs/benchmarks.md).
The rebuild costs seconds (8 s for the chunks, 30 s for the entities at that load) and the index answers no query
until it is online again, so only a bulk write earns one: an initial load, or a re-index of most of a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from retrieval.store.records import Row, ident

#: Fewer vectors than this in one run are left to the index as written: a few segments cost little.
MIN_VECTORS = 1000
#: ... and so is a write of less than this share of the label's nodes (the rest of the index stays as it was).
MIN_SHARE = 0.5

#: The node vector indexes with what recreating each needs; `options` keeps its exact configuration.
SHOW_VECTOR_INDEXES = (
    "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, options "
    "WHERE type = 'VECTOR' AND entityType = 'NODE' RETURN name, labelsOrTypes, properties, options"
)


def bulk(written: int, total: int) -> bool:
    """Whether `written` new or rewritten vectors of a label holding `total` nodes call for a rebuild."""
    return written >= MIN_VECTORS and written >= MIN_SHARE * total


def statements(index: Row) -> tuple[str, str, dict[str, Any]]:
    """DROP and CREATE of one index (a `SHOW_VECTOR_INDEXES` row) with its configuration, and CREATE's params.

    Neo4j allows no second index on the same label and property, so a rebuild cannot build beside the old one."""
    name, label = ident(str(index["name"])), ident(str(index["labelsOrTypes"][0]))
    prop = ident(str(index["properties"][0]))
    create = f"CREATE VECTOR INDEX {name} FOR (n:{label}) ON n.{prop} OPTIONS {{indexConfig: $config}}"
    return f"DROP INDEX {name}", create, {"config": dict(index["options"]["indexConfig"])}


def chosen(indexes: list[Row], prop: str, written: Mapping[str, int], totals: Mapping[str, int]) -> list[Row]:
    """The indexes on `prop` of the labels whose write was bulk."""
    return [
        index
        for index in indexes
        if list(index["properties"]) == [prop]
        and (label := str(index["labelsOrTypes"][0])) in written
        and bulk(written[label], totals.get(label, 0))
    ]
