"""A copy of the one Neo4j database's graph, taken after a shared fixture built it, to put it back later.

Why: Neo4j Community has one user database, so a shared graph (the demo graph, the Christmas Carol graph, the
search graph) is wiped whenever another test resets the database, and the next test that needs it had to index
it again: 10-25 s of spaCy and ONNX work for the demo graph, several times per module. Putting back the same
nodes and relationships takes about a second. The first build of every graph is the real indexer; a restore
gives the same labels, properties (embeddings included: Neo4j keeps a LIST<FLOAT> as it is) and relationships.
It is only used when the database's indexes and constraints are the ones the snapshot was taken with, so a
graph whose builder creates its own schema is still built by its builder after a reset that dropped it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from retrieval.store import GraphStore

#: Rows per write: one UNWIND statement each.
BATCH = 2_000


def _label(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def schema_of(store: GraphStore) -> tuple[tuple[Any, ...], ...]:
    """The database's indexes and constraints, comparable between two moments."""
    indexes = store.query(
        "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options "
        "RETURN name, type, labelsOrTypes, properties, options.indexConfig AS config ORDER BY name"
    )
    constraints = store.query("SHOW CONSTRAINTS YIELD name, type RETURN name, type ORDER BY name")
    return tuple(tuple(sorted((k, repr(v)) for k, v in row.items())) for row in [*indexes, *constraints])


@dataclass(frozen=True)
class Snapshot:
    """Every node (by label set) and relationship (by type) of the database, with their properties."""

    schema: tuple[tuple[Any, ...], ...]
    nodes: dict[tuple[str, ...], list[dict[str, Any]]]  # labels -> [{key, props}]
    relationships: dict[str, list[dict[str, Any]]]  # type -> [{a, b, props}]

    @classmethod
    def take(cls, store: GraphStore) -> Snapshot:
        nodes: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
        for row in store.query("MATCH (n) RETURN elementId(n) AS key, labels(n) AS labels, properties(n) AS props"):
            nodes[tuple(sorted(row["labels"]))].append({"key": row["key"], "props": row["props"]})
        relationships: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in store.query(
            "MATCH (a)-[r]->(b) RETURN elementId(a) AS a, elementId(b) AS b, type(r) AS type, properties(r) AS props"
        ):
            relationships[row["type"]].append({"a": row["a"], "b": row["b"], "props": row["props"]})
        return cls(schema_of(store), dict(nodes), dict(relationships))

    def fits(self, store: GraphStore) -> bool:
        """Whether the (emptied) database has the schema this graph was built with."""
        return schema_of(store) == self.schema

    def restore(self, store: GraphStore) -> None:
        """Write the graph back into the emptied database (new element ids, the same everything else)."""
        ids: dict[str, str] = {}
        for labels, rows in self.nodes.items():
            create = f"CREATE (n{''.join(':' + _label(label) for label in labels)})"
            for start in range(0, len(rows), BATCH):
                for row in store.query(
                    f"UNWIND $rows AS row {create} SET n = row.props RETURN row.key AS key, elementId(n) AS id",
                    {"rows": rows[start : start + BATCH]},
                ):
                    ids[row["key"]] = row["id"]
        for kind, rows in self.relationships.items():
            mapped = [{"a": ids[r["a"]], "b": ids[r["b"]], "props": r["props"]} for r in rows]
            for start in range(0, len(mapped), BATCH):
                store.query(
                    "UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.a MATCH (b) WHERE elementId(b) = row.b "
                    f"CREATE (a)-[r:{_label(kind)}]->(b) SET r = row.props",
                    {"rows": mapped[start : start + BATCH]},
                )
